"""LogReport: what the scan found, as JSON for the doctor and as text for people."""
from __future__ import annotations

from dataclasses import dataclass, field

from . import findings as rules
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
    unrecognized: int = 0    # lines of no form the scanner reads (not JSON, console or klog)
    files: list[dict] = field(default_factory=list)   # per input: counts and forms (scanner.file_summary)

    def unrecognized_files(self) -> list[dict]:
        """Inputs with lines none of which was read as a controller log line: a scan of them
        found nothing because it could read nothing, not because nothing is wrong."""
        return [f for f in self.files if f["lines"] and not f["recognized"]]

    def finding(self, fid: str) -> rules.Finding | None:
        return next((f for f in self.findings if f.id == fid), None)

    def to_json(self) -> dict:
        return {"lines": self.lines, "parsed": self.parsed, "malformed": self.malformed,
                "tooLong": self.too_long, "first": format_ts(self.first), "last": format_ts(self.last),
                "findings": [f.to_json() for f in self.findings],
                "perClusterQueue": self.per_cluster_queue, "health": self.health,
                "unrecognized": self.unrecognized, "files": self.files}


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


def build_report(stats: ReadStats, ev: Evidence, *, grace: float, files: list[dict] | None = None) -> LogReport:
    ev.finish()
    health, unhealthy = rules.controller_health(ev)
    found = (rules.stuck_targets(ev) + rules.slow_release(ev, grace) + rules.drs_rounding(ev)
             + rules.head_of_line(ev) + rules.retry_storm(ev) + rules.inactive(ev) + unhealthy)
    per_cq = {cq: _queue_json(q) for cq, q in sorted(ev.queues.items()) if cq}
    return LogReport(stats.lines, stats.parsed, stats.malformed, stats.too_long, ev.first, ev.last,
                     found, per_cq, health, stats.unrecognized, list(files or []))
