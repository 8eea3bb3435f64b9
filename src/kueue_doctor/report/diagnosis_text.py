"""``diagnose`` for people: the verdict first, one block per violating ClusterQueue, the six
steps, the causes with their remedies. Everything fits 80 columns except what cannot be cut
(names, messages); ``wide`` adds the exact quantities and every piece of evidence."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from ..api.quantity import format_amount, human_amount, human_unit
from ..doctor.diagnose import Diagnosis, rfc3339
from ..doctor.findings import Verdict
from ..duration import go
from .text import STATUS_STYLE, Column, Table, plain

EVIDENCE_SHOWN = 8
TIME_SOURCE = {"given": "--now", "manifest": "from manifest.json", "log": "the controller log's last line",
               "objects": "the newest object timestamp: waits are lower bounds",
               "clock": "nothing in the snapshot says when: this machine's clock"}


def render(con: Console, d: Diagnosis, wide: bool = False, verbose: bool = False) -> None:
    f = d.facts
    con.print(f"[bold]Kueue {escape(f.version or '(version unknown)')}[/bold], snapshot at {rfc3339(f.now)} "
              f"({TIME_SOURCE[str(f.time_source)]})")
    verdict(con, d)
    violations(con, d, wide)
    steps(con, d, wide, verbose)
    causes(con, d, wide)
    for w in d.warnings:
        con.print(f"[yellow]Warning[/yellow] {escape(str(w.id))} ({w.confidence} confidence): {escape(w.summary)}")
    for n in d.notes:
        con.print(f"[yellow]Note[/yellow] {escape(n)}")
    for n in f.collection_gaps:
        con.print(f"[yellow]Not collected[/yellow] {escape(n)}")


def verdict(con: Console, d: Diagnosis) -> None:
    v = d.verdict
    if v is Verdict.UNKNOWN:
        con.print(f"[yellow]Guarantee: UNKNOWN[/yellow] - {escape(d.steps[0].summary)}")
    elif v is Verdict.VIOLATION:
        names = ", ".join(x.cluster_queue for x in d.violations)
        con.print(f"[red]Guarantee: VIOLATED[/red] in {len(d.violations)} ClusterQueue(s): {escape(names)}")
    else:
        con.print("[green]Guarantee: no violation[/green]")


def violations(con: Console, d: Diagnosis, wide: bool) -> None:
    now = d.facts.now
    for v in d.violations:
        n = len(v.pending_workloads)
        since = "" if v.since is None else f" for {go((now - v.since).total_seconds())} (since {rfc3339(v.since)})"
        con.print()
        con.print(f"[bold]{escape(v.cluster_queue)}[/bold]: {n} pending workload(s) fit its nominal quota and "
                  f"wait{since}")
        t = Table([Column("flavor/resource"), Column("nominal", right=True), Column("reserved", right=True),
                   Column("pending that fits", right=True)])
        for (flavor, resource), x in sorted(v.resources.items()):
            unit = human_unit(resource, (x.nominal, x.reserved, x.pending_that_fits))
            cells = [human_amount(resource, a, unit) for a in (x.nominal, x.reserved, x.pending_that_fits)]
            if wide:
                cells = [f"{c} ({format_amount(resource, a)})" if c != format_amount(resource, a) else c
                         for c, a in zip(cells, (x.nominal, x.reserved, x.pending_that_fits), strict=True)]
            t.add(f"{flavor}/{resource}", *cells)
        t.print(con, indent="  ")
        shown = v.pending_workloads if wide else v.pending_workloads[:5]
        con.print("  waiting:")
        for k in shown:
            plain(con, f"    {k}")
        if n > len(shown):
            con.print(f"    and {n - len(shown)} more (-o wide lists all)")
    if d.violations:
        con.print()


def steps(con: Console, d: Diagnosis, wide: bool, verbose: bool) -> None:
    for s in d.steps:
        style = STATUS_STYLE[str(s.status)]
        con.print(f"{s.step}. {escape(s.name)}: [{style}]{str(s.status).upper()}[/{style}] - {escape(s.summary)}")
        shown = s.evidence if wide else s.evidence[:EVIDENCE_SHOWN]
        for e in shown:
            plain(con, f"     {e}")
        if len(s.evidence) > len(shown):
            con.print(f"     and {len(s.evidence) - len(shown)} more (-o wide shows all)")
        if verbose and s.step == 5 and d.facts.logs is not None:
            for finding in d.facts.logs.findings:
                for raw in finding.examples:
                    plain(con, f"     raw: {raw}", style="dim")


def causes(con: Console, d: Diagnosis, wide: bool) -> None:
    for i, c in enumerate(d.causes, 1):
        where = ", ".join(c.cluster_queues) or "cluster-wide"
        con.print(f"[bold]Cause {i}: {escape(str(c.id))}[/bold] ({c.confidence} confidence; {escape(where)})")
        plain(con, f"   {c.summary}")
        shown = c.evidence if wide else c.evidence[:5]
        for e in shown:
            plain(con, f"   - {e}")
        if len(c.evidence) > len(shown):
            con.print(f"   - and {len(c.evidence) - len(shown)} more (-o wide shows all)")
        if c.remedy:
            con.print(f"   [italic]Remedy:[/italic] {escape(c.remedy)}")
