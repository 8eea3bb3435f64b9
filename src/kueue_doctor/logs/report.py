"""LogReport: what the scan found, as JSON for the doctor and as text for people."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import findings as rules
from .brief import brief
from .reader import ReadStats
from .signatures import Evidence
from .timeparse import format_ts

TIMELINE_POINTS = 240  # per queue; older minutes are dropped first so output stays readable


@dataclass
class LogReport:
    lines: int
    parsed: int
    malformed: int
    too_long: int
    first: float | None
    last: float | None
    findings: list[rules.Finding]
    per_cluster_queue: dict
    health: dict = field(default_factory=dict)

    def finding(self, fid: str) -> rules.Finding | None:
        return next((f for f in self.findings if f.id == fid), None)

    def to_json(self) -> dict:
        return {"lines": self.lines, "parsed": self.parsed, "malformed": self.malformed,
                "tooLong": self.too_long, "first": format_ts(self.first), "last": format_ts(self.last),
                "findings": [f.to_json() for f in self.findings],
                "perClusterQueue": self.per_cluster_queue, "health": self.health}


def _queue_json(q) -> dict:
    heads = sorted(q.heads.items(), key=lambda kv: -kv[1].attempts)[:3]
    minutes = sorted(q.timeline)[-TIMELINE_POINTS:]
    return {
        "admitted": q.admitted, "preemptionsIssued": q.preemptions_issued,
        "preemptedFrom": q.preempted_from, "skippedOverlappingTargets": q.skipped_overlap,
        "noPreemptionCandidates": q.no_candidates, "requeueReasons": dict(q.requeue.most_common()),
        "skippedAsInactive": dict(q.not_active), "first": format_ts(q.first), "last": format_ts(q.last),
        "retriedHeads": [{"workload": str(wl), "attempts": h.attempts, "requeueReason": h.requeue,
                          "reason": h.reason, "first": format_ts(h.first), "last": format_ts(h.last)}
                         for wl, h in heads],
        "perMinute": [{"minute": format_ts(m), **dict(q.timeline[m])} for m in minutes],
    }


def build_report(stats: ReadStats, ev: Evidence, *, grace: float) -> LogReport:
    ev.finish()
    health, unhealthy = rules.controller_health(ev)
    found = (rules.stuck_targets(ev) + rules.slow_release(ev, grace) + rules.drs_rounding(ev)
             + rules.head_of_line(ev) + rules.inactive(ev) + unhealthy)
    per_cq = {cq: _queue_json(q) for cq, q in sorted(ev.queues.items()) if cq}
    return LogReport(stats.lines, stats.parsed, stats.malformed, stats.too_long, ev.first, ev.last,
                     found, per_cq, health)


def render_text(report: LogReport, console, verbose: bool = False, wide: bool = False) -> None:
    """Plain, grep-able text through rich (colour only when the terminal wants it); log lines as
    one short line each, the raw line too with ``verbose``."""
    console.print(f"{report.lines} line(s): {report.parsed} parsed, {report.malformed} malformed"
                  + (f" ({report.too_long} too long)" if report.too_long else "")
                  + (f"; {format_ts(report.first)} .. {format_ts(report.last)}" if report.first else ""))
    if not report.findings:
        console.print("no findings")
    for f in report.findings:
        console.print(f"\n[bold]{f.id}[/bold] x{f.count}  {format_ts(f.first)} .. {format_ts(f.last)}",
                      highlight=False)
        console.print(f"  {f.summary}", highlight=False)
        if f.cluster_queues:
            console.print(f"  ClusterQueues: {', '.join(f.cluster_queues)}", highlight=False)
        if f.workloads:
            shown = f.workloads if wide else f.workloads[:8]
            hidden = len(f.workloads) - len(shown)
            more = f" and {hidden} more (-o wide lists all)" if hidden else ""
            console.print(f"  workloads: {', '.join(map(str, shown))}{more}", highlight=False, markup=False)
        for e in f.examples[:3]:
            console.print(f"  | {brief(e)}", highlight=False, markup=False)
            if verbose:
                console.print(f"    raw: {e}", highlight=False, markup=False, style="dim")
    if report.per_cluster_queue:
        console.print("\nper ClusterQueue:")
    for cq, q in report.per_cluster_queue.items():
        parts = [f"admitted {q['admitted']}", f"preempting {q['preemptionsIssued']}",
                 f"preempted {q['preemptedFrom']}"]
        if q["skippedOverlappingTargets"]:
            parts.append(f"overlap skips {q['skippedOverlappingTargets']}")
        if q["noPreemptionCandidates"]:
            parts.append(f"no preemption candidates {q['noPreemptionCandidates']}")
        if q["requeueReasons"]:
            parts.append("re-queued " + ", ".join(f"{k}={v}" for k, v in list(q["requeueReasons"].items())[:4]))
        if q["skippedAsInactive"]:
            parts.append("skipped as inactive " + ", ".join(f"{k}={v}" for k, v in q["skippedAsInactive"].items()))
        head = q["retriedHeads"][0] if q["retriedHeads"] else None
        if head and head["attempts"] > 1:
            parts.append(f"most retried head {head['workload']} x{head['attempts']} ({head['requeueReason']})")
        console.print(f"  {cq}: " + "; ".join(parts), highlight=False, markup=False)
