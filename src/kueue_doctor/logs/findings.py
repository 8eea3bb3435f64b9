"""Turn accumulated evidence into findings, one rule per cause id (see docs/logs.md)."""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import median

from ..duration import go
from ..keys import WorkloadKey
from ..kueue.logvocab import REQUEUE_PENDING_PREEMPTION
from .signatures import SKIPPED, Evidence, Victim
from .timeparse import format_ts

STUCK_MIN_CYCLES = 10       # a target shared once is normal; every cycle for a while is not
HOL_MIN_ATTEMPTS = 20
HOL_MIN_SPAN = 300.0        # the guarantee-violation threshold of DESIGN.md
INACTIVE_MIN_SKIPS = 3
ERRORS_UNHEALTHY = 5
CONFLICTS_UNHEALTHY = 50
SLOW_CYCLE_SECONDS = 1.0
# A head retried with no preemption candidates: Kueue normally parks it as inadmissible until
# something changes; retried many times a second for a while, it keeps the scheduler busy
# (kubernetes-sigs/kueue#8064: ~40 lines a second for one workload, other queues starved).
STORM_MIN_ATTEMPTS = 100
STORM_MIN_RATE = 1.0        # attempts per second
STORM_MIN_SPAN = 10.0       # seconds


@dataclass
class Finding:
    id: str
    count: int
    first: float | None
    last: float | None
    cluster_queues: list[str]
    workloads: list[WorkloadKey]
    examples: list[str]
    summary: str
    detail: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"id": self.id, "count": self.count, "first": format_ts(self.first),
                "last": format_ts(self.last), "clusterQueues": self.cluster_queues,
                "workloads": [str(k) for k in self.workloads], "examples": self.examples, "summary": self.summary,
                "detail": self.detail}


def _span(values) -> tuple[float | None, float | None]:
    vals = [v for v in values if v is not None]
    return (min(vals), max(vals)) if vals else (None, None)


def _by_text(keys: Iterable[WorkloadKey]) -> list[WorkloadKey]:
    """Workloads in the order of their ``ns/name`` text, the order findings list them in."""
    return sorted(keys, key=str)


def _text_of_key(item: tuple[WorkloadKey, Victim]) -> str:
    return str(item[0])


def _shared(v: Victim) -> set[str]:
    return v.preemptor_cqs | v.skipper_cqs


def stuck_targets(ev: Evidence) -> list[Finding]:
    stuck = {t: v for t, v in ev.victims.items() if len(_shared(v)) >= 2 and v.cycles >= STUCK_MIN_CYCLES}
    if not stuck:
        return []
    cqs = sorted(set().union(*(_shared(v) for v in stuck.values())))
    first, last = _span([v.first for v in stuck.values()] + [v.last for v in stuck.values()])
    examples = [e for v in stuck.values() for e in v.examples][:3] + ev.skipped[:2]
    skipped = sum(ev.queues[c].skipped_overlap for c in cqs if c in ev.queues)
    preemptors = _by_text(set().union(*(v.preemptors for v in stuck.values())))
    return [Finding(
        "stuck-preemption-target", sum(v.lines for v in stuck.values()), first, last, cqs,
        _by_text(stuck) + preemptors, examples,
        f"{len(stuck)} preemption target(s) named by the heads of {len(cqs)} ClusterQueues for "
        f"{max(v.cycles for v in stuck.values())} scheduling cycles; {skipped} head(s) skipped for "
        "overlapping preemption targets",
        {"targets": {str(t): {"cycles": v.cycles, "clusterQueues": sorted(_shared(v)),
                              "preemptors": [str(p) for p in _by_text(v.preemptors)],
                              "heldSeconds": _held(v)} for t, v in sorted(stuck.items(), key=_text_of_key)},
         "skippedHeads": skipped})]


def _held(v: Victim) -> float | None:
    start = v.preempted_at if v.preempted_at is not None else v.first
    if start is None or v.last is None:
        return None
    return round(v.last - start, 3)


def slow_release(ev: Evidence, grace: float) -> list[Finding]:
    slow: dict[WorkloadKey, Victim] = {}
    helds: list[float] = []
    for t, v in ev.victims.items():
        held = _held(v)
        if held is None or held < grace or len(_shared(v)) >= 2:
            continue
        slow[t] = v
        helds.append(held)
    if not slow:
        return []
    cqs = sorted(set().union(*(v.preemptor_cqs for v in slow.values())) - {""})
    first, last = _span([v.first for v in slow.values()] + [v.last for v in slow.values()])
    spacing = {}
    for cq in cqs:
        # (_span gives both ends or neither)
        times = ([t for t in ev.queues[cq].admit_times if first <= t <= last + grace]
                 if first and last is not None else [])
        gaps = [b - a for a, b in itertools.pairwise(times)]
        if gaps:
            spacing[cq] = round(median(gaps), 3)
    return [Finding(
        "slow-preemption-release", len(slow), first, last, cqs,
        _by_text(slow) + _by_text(set().union(*(v.preemptors for v in slow.values()))),
        [e for v in slow.values() for e in v.examples][:3],
        f"{len(slow)} preemption victim(s) kept their quota for {min(helds):.0f}-{max(helds):.0f}s "
        f"(grace {grace:.0f}s) while their preemptors waited",
        {"heldSeconds": {str(t): _held(v) for t, v in sorted(slow.items(), key=_text_of_key)},
         "admissionSpacingSeconds": spacing,
         "victimClusterQueues": sorted({v.target_cq for v in slow.values()} - {""})})]


def drs_rounding(ev: Evidence) -> list[Finding]:
    hits = {cq: z for cq, z in ev.drs_zero.items()
            if cq in ev.borrowing and (ev.borrowing[cq] is None or z[2] is None or ev.borrowing[cq] <= z[2])}
    reclaimers = sorted(cq for cq, q in ev.queues.items() if q.no_candidates)
    if not hits or not reclaimers:
        return []
    first, last = _span([z[1] for z in hits.values()] + [z[2] for z in hits.values()])
    return [Finding(
        "drs-rounding", sum(z[0] for z in hits.values()), first, last, sorted(hits) + reclaimers, [],
        [e for z in hits.values() for e in z[3]][:2] + ev.no_candidate_examples[:2],
        f"DRS 0 logged for borrowing ClusterQueue(s) {', '.join(sorted(hits))} while "
        f"{', '.join(reclaimers)} found no candidate workloads for preemption",
        {"zeroDrs": {cq: z[0] for cq, z in sorted(hits.items())},
         "noCandidates": {cq: ev.queues[cq].no_candidates for cq in reclaimers}})]


def head_of_line(ev: Evidence) -> list[Finding]:
    out = []
    for cq, q in sorted(ev.queues.items()):
        for wl, h in q.heads.items():
            span = (h.last - h.first) if h.first is not None and h.last is not None else 0
            if (h.attempts >= HOL_MIN_ATTEMPTS and span >= HOL_MIN_SPAN
                    and h.requeue not in (REQUEUE_PENDING_PREEMPTION, SKIPPED)):
                out.append((cq, wl, h, span))
    if not out:
        return []
    first, last = _span([h.first for _, _, h, _ in out] + [h.last for _, _, h, _ in out])
    return [Finding(
        "head-of-line-blocking", sum(h.attempts for _, _, h, _ in out), first, last,
        sorted({cq for cq, _, _, _ in out}), [wl for _, wl, _, _ in out], [],
        "; ".join(f"{cq}: head {wl} re-queued {h.attempts} times ({h.requeue}) over "
                  f"{go(span)}, never admitted" for cq, wl, h, span in out),
        {"heads": {str(wl): {"clusterQueue": cq, "attempts": h.attempts, "requeueReason": h.requeue,
                             "reason": h.reason} for cq, wl, h, _ in out}})]


def retry_storm(ev: Evidence) -> list[Finding]:
    storms = []
    for wl, r in ev.retries.items():
        span = (r.last - r.first) if r.first is not None and r.last is not None else 0.0
        if r.attempts >= STORM_MIN_ATTEMPTS and span >= STORM_MIN_SPAN and r.attempts / span >= STORM_MIN_RATE:
            storms.append((wl, r, span))
    if not storms:
        return []
    storms.sort(key=lambda x: (-x[1].attempts, str(x[0])))
    first, last = _span([r.first for _, r, _ in storms] + [r.last for _, r, _ in storms])
    if first is None or last is None:
        return []
    own = {r.cluster_queue for _, r, _ in storms}
    admitted = {cq: sum(1 for t in q.admit_times if first <= t <= last) for cq, q in ev.queues.items() if cq}
    # queues whose heads were tried meanwhile and got nothing admitted: starved
    starved = sorted(cq for cq, q in ev.queues.items() if cq and cq not in own and not admitted.get(cq)
                     and any(h.first is not None and h.last is not None and h.first <= last and h.last >= first
                             for h in q.heads.values()))
    meanwhile = sum(admitted.values())
    text = "; ".join(f"{wl} ({r.cluster_queue}) retried {r.attempts} times in {go(span)} "
                     f"({r.attempts / span:.1f}/s) with no candidate workloads allowed for preemption"
                     for wl, r, span in storms[:3])
    return [Finding(
        "preemption-retry-storm", sum(r.attempts for _, r, _ in storms), first, last,
        sorted(own - {""}) + [c for c in starved if c not in own], [wl for wl, _, _ in storms],
        [e for _, r, _ in storms for e in r.examples][:3],
        f"{text}; {meanwhile} admission(s) meanwhile"
        + (f"; starved: {', '.join(starved)}" if starved else ""),
        {"heads": {str(wl): {"clusterQueue": r.cluster_queue, "attempts": r.attempts,
                             "noCandidateLines": r.no_candidates, "preemptionNoCandidatesRequeues": r.requeues,
                             "perSecond": round(r.attempts / span, 2), "first": format_ts(r.first),
                             "last": format_ts(r.last)} for wl, r, span in storms},
         "admittedMeanwhile": meanwhile, "starvedClusterQueues": starved})]


def inactive(ev: Evidence) -> list[Finding]:
    hits = {cq: q for cq, q in ev.queues.items() if sum(q.not_active.values()) >= INACTIVE_MIN_SKIPS}
    if not hits:
        return []
    first, last = _span([q.first for q in hits.values()] + [q.last for q in hits.values()])
    return [Finding(
        "inactive-queue", sum(sum(q.not_active.values()) for q in hits.values()), first, last,
        sorted(hits), [], [],
        "scheduler skipped inactive ClusterQueue(s) every cycle: " + ", ".join(
            f"{cq} ({', '.join(q.not_active)})" for cq, q in sorted(hits.items())),
        {"reasons": {cq: dict(q.not_active) for cq, q in sorted(hits.items())}})]


def controller_health(ev: Evidence) -> tuple[dict, list[Finding]]:
    errors = sum(ev.errors.values())
    health = {
        "errors": errors, "errorMessages": dict(ev.errors.most_common(10)),
        "conflicts": ev.conflicts, "leaderEvents": [[format_ts(t), m] for t, m in ev.leader_events],
        "restarts": ev.restarts, "cycles": ev.cycles,
        "cycleSecondsMean": round(ev.cycle_total / ev.cycles, 6) if ev.cycles else None,
        "cycleSecondsMax": round(ev.cycle_max, 6) if ev.cycles else None, "slowCycles": ev.cycle_slow,
    }
    reasons = []
    if ev.leader_events:
        reasons.append(f"{len(ev.leader_events)} leader-election event(s)")
    if ev.restarts:
        reasons.append(f"{ev.restarts} manager start(s)")
    if errors >= ERRORS_UNHEALTHY:
        reasons.append(f"{errors} error line(s)")
    if ev.conflicts >= CONFLICTS_UNHEALTHY:
        reasons.append(f"{ev.conflicts} update conflict(s)")
    if ev.cycle_slow:
        reasons.append(f"{ev.cycle_slow} scheduling cycle(s) over {SLOW_CYCLE_SECONDS:.0f}s")
    if not reasons:
        return health, []
    times = [t for t, _ in ev.leader_events]
    first, last = _span(times) if times else (ev.first, ev.last)
    count = len(ev.leader_events) + ev.restarts + errors + ev.conflicts + ev.cycle_slow
    return health, [Finding("controller-unhealthy", count, first, last, [], [], ev.error_examples[:3],
                            "; ".join(reasons), health)]
