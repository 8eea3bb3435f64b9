"""``logs`` for people: each finding with its time span and a few log lines (short form; raw
with ``verbose``), then what the log says per ClusterQueue as a table (``wide``: every column)."""
from __future__ import annotations

from rich.console import Console

from ..logs.brief import brief
from ..logs.report import LogReport
from ..logs.timeparse import format_ts
from .text import Column, Table, plain

WORKLOADS_SHOWN = 8


def render(con: Console, report: LogReport, wide: bool = False, verbose: bool = False) -> None:
    plain(con, f"{report.lines} line(s): {report.parsed} parsed, {report.malformed} malformed"
          + (f" ({report.too_long} too long)" if report.too_long else "")
          + (f"; {format_ts(report.first)} .. {format_ts(report.last)}" if report.first else ""))
    for u in report.unrecognized_files():
        plain(con, f"{u['file']}: none of its {u['lines']} line(s) is of a form kueue-doctor reads "
                   "(zap JSON, console, klog, CRI or Docker runtime lines): nothing could be checked", style="yellow")
    if not report.findings:
        con.print("no known failure signature" + (" in the lines read" if report.unrecognized else ""))
    for f in report.findings:
        con.print()
        plain(con, f"{f.id} x{f.count}  {format_ts(f.first)} .. {format_ts(f.last)}", style="bold")
        plain(con, f"  {f.summary}")
        if f.cluster_queues:
            plain(con, f"  ClusterQueues: {', '.join(f.cluster_queues)}")
        if f.workloads:
            shown = f.workloads if wide else f.workloads[:WORKLOADS_SHOWN]
            hidden = len(f.workloads) - len(shown)
            plain(con, f"  workloads: {', '.join(map(str, shown))}"
                  + (f" and {hidden} more (-o wide lists all)" if hidden else ""))
        for e in f.examples[:3]:
            plain(con, f"  | {brief(e)}")
            if verbose:
                plain(con, f"    raw: {e}", style="dim")
    if not report.per_cluster_queue:
        return
    t = Table([Column("clusterqueue"), Column("admitted", right=True), Column("preempting", right=True),
               Column("preempted", right=True), Column("re-queued (top reason)"),
               Column("no candidates", right=True, wide=True), Column("overlap skips", right=True, wide=True),
               Column("skipped inactive", wide=True), Column("most retried head", wide=True)])
    for cq, q in report.per_cluster_queue.items():
        reasons = list(q["requeueReasons"].items())
        head = q["retriedHeads"][0] if q["retriedHeads"] else None
        t.add(cq, q["admitted"], q["preemptionsIssued"], q["preemptedFrom"],
              f"{reasons[0][0]}={reasons[0][1]}" if reasons else None,
              q["noPreemptionCandidates"], q["skippedOverlappingTargets"],
              ", ".join(f"{k}={v}" for k, v in q["skippedAsInactive"].items()) or None,
              f"{head['workload']} x{head['attempts']} ({head['requeueReason']})"
              if head and head["attempts"] > 1 else None)
    con.print()
    con.print("per ClusterQueue:")
    t.print(con, wide)
