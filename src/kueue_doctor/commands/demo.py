"""``kueue-doctor demo``: the three production failures, on the affected and the fixed release."""
from __future__ import annotations

import json

import click

from ..sim.incidents import INCIDENTS, incident_path
from ..sim.scenario import load_scenario
from ..sim.simulator import Simulator


def run_pair(name: str) -> dict:
    path = str(incident_path(name))
    runs = {}
    for label in ("affected", "fixed"):
        scn = load_scenario(path)
        if label == "fixed":
            fixed = scn.demo.get("fixed") or {}
            scn.version = str(fixed.get("version", scn.version))
            scn.gates.update({str(k): bool(v) for k, v in (fixed.get("featureGates") or {}).items()})
        sim = Simulator(scn).run()
        summary = sim.recorder.summary()
        runs[label] = {"version": summary["kueue"]["version"], "featureGates": summary["kueue"]["featureGates"],
                       "clusterQueues": {cq: {k: v[k] for k in ("admissions", "admissionsPerPendingHour",
                                                                 "violationSeconds")}
                                         for cq, v in summary["clusterQueues"].items()}}
    scn = load_scenario(path)
    return {"incident": name, "title": scn.name, "cause": scn.demo.get("cause"),
            "focus": list(scn.demo.get("focus") or []), **runs}


def _rate(v) -> str:
    return "-" if v is None else f"{v:.1f}"


@click.command("demo")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def command(as_json: bool) -> None:
    """Reproduce the three production failures (slow preemption release, zombie pod,
    DRS rounding) on the affected Kueue release and on the fixed one, side by side:
    admissions per hour while work waited, and seconds in guarantee violation."""
    results = [run_pair(name) for name in INCIDENTS]
    if as_json:
        click.echo(json.dumps(results, indent=2, sort_keys=True))
        return
    from rich.console import Console
    from rich.table import Table
    console = Console()
    for r in results:
        a, f = r["affected"], r["fixed"]
        gates = ", ".join(f"{k}={str(v).lower()}" for k, v in f["featureGates"].items())
        t = Table(title=f"{r['title']}  (cause: {r['cause']})", title_justify="left")
        t.add_column("ClusterQueue")
        t.add_column(f"admissions/h {a['version']}", justify="right")
        t.add_column(f"admissions/h {f['version']}", justify="right")
        t.add_column(f"violation s {a['version']}", justify="right")
        t.add_column(f"violation s {f['version']}" + (f" [{gates}]" if gates else ""), justify="right")
        for cq in r["focus"] or sorted(a["clusterQueues"]):
            ca, cf = a["clusterQueues"][cq], f["clusterQueues"][cq]
            t.add_row(cq, _rate(ca["admissionsPerPendingHour"]), _rate(cf["admissionsPerPendingHour"]),
                      f"{ca['violationSeconds']:.0f}", f"{cf['violationSeconds']:.0f}")
        console.print(t)
    console.print("admissions/h: admissions per hour during which the queue had work waiting for quota; "
                  "violation s: time with work that fits the queue's nominal quota waiting over 5 minutes.")
