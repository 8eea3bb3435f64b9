"""``simulate`` and ``demo`` for people: counts with their units, times as Go durations."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from ..duration import go
from .text import Column, Table, plain

# fewer hours of waiting than this make a per-hour rate noise (8 admissions in 8 s waiting
# would read as 3600/h)
MIN_RATE_HOURS = 0.25


def rate(count: int, hours: float) -> str:
    return "-" if hours < MIN_RATE_HOURS else f"{count / hours:.1f}"


def summary(con: Console, s: dict[str, Any], wide: bool = False) -> None:
    w = s["workloads"]
    wall = s.get("wallSeconds")
    con.print(f"[bold]{escape(s['scenario'])}[/bold] on Kueue {escape(s['kueue']['version'])}: "
              f"{go(s['simulatedSeconds'])} simulated" + (f" in {wall:.2f}s wall" if wall is not None else "")
              + f", {s['cycles']} scheduling cycles")
    con.print(f"workloads: {w['created']} created, {w['admitted']} admitted, {w['finished']} finished, "
              f"{w['preempted']} preempted")
    t = Table([Column("class"), Column("workloads", right=True), Column("avg time to admission", right=True)])
    for k, v in sorted(s["classes"].items()):
        ms = v["avgTimeToAdmissionMs"]
        t.add(k, v["count"], "-" if ms is None else go(ms / 1000))
    con.print()
    t.print(con, wide)
    t = Table([Column("clusterqueue"), Column("avg usage", right=True), Column("in violation", right=True),
               Column("admissions", right=True), Column("per hour", right=True),
               Column("preemptions", right=True), Column("time waiting", right=True, wide=True),
               Column("admissions per waiting hour", right=True, wide=True)])
    for name, v in s["clusterQueues"].items():
        t.add(name, f"{v['avgUsagePercent']:.1f}%", go(v["violationSeconds"]), v["admissions"],
              f"{v['admissionsPerHour']:.1f}", v["preemptions"], go(v["pendingHours"] * 3600),
              rate(v["admissions"], v["pendingHours"]))
    con.print()
    t.print(con, wide)
    plain(con, "in violation: time with work that fits the queue's nominal quota waiting past the threshold; "
               "time waiting: time with any work waiting for quota.")


def demo(con: Console, results: list[dict[str, Any]], wide: bool = False) -> None:
    for r in results:
        a, f = r["affected"], r["fixed"]
        gates = ", ".join(f"{k}={str(v).lower()}" for k, v in f["featureGates"].items())
        con.print(f"[bold]{escape(r['title'])}[/bold] (cause: {escape(r['cause'] or '-')})")
        if f.get("remedy"):   # fixed by configuration on the same release
            con.print(f"  affected: Kueue {a['version']}; fixed by the remedy: {escape(f['remedy'])}")
        else:
            con.print(f"  affected: Kueue {a['version']}; fixed: Kueue {f['version']}"
                      + (f" with {gates}" if gates else ""))
        t = Table([Column("clusterqueue"), Column("release"), Column("in violation", right=True),
                   Column("admissions", right=True)])
        for cq in r["focus"] or sorted(a["clusterQueues"]):
            for i, (label, run) in enumerate((("affected", a), ("fixed", f))):
                c = run["clusterQueues"][cq]
                kind = "remedy" if run.get("remedy") else label
                t.add(cq if i == 0 else "", f"{run['version']} ({kind})", go(c["violationSeconds"]), c["admissions"])
        t.print(con, wide, indent="  ")
        con.print()
    plain(con, "in violation: time with work that fits the queue's nominal quota waiting past 5 minutes; "
               "admissions: workloads the queue admitted in the run.")
