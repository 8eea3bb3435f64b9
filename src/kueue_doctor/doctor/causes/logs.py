"""Causes the controller log shows on its own (medium confidence), while they are current."""
from __future__ import annotations

from ...logs.brief import brief
from ..facts import Facts
from ..findings import Cause, CauseId, Confidence, Violation

LOG_STALE_AFTER = 15 * 60  # seconds

# log finding ids the doctor counts as causes (the others are evidence only)
LOG_CAUSES = {CauseId.STUCK_PREEMPTION_TARGET, CauseId.SLOW_PREEMPTION_RELEASE, CauseId.DRS_ROUNDING,
              CauseId.HEAD_OF_LINE_BLOCKING, CauseId.INACTIVE_QUEUE, CauseId.CONTROLLER_UNHEALTHY}


def log_causes(facts: Facts, found: list[Violation]) -> list[Cause]:
    if facts.logs is None:
        return []
    violating = {v.cluster_queue for v in found}
    now = facts.now.timestamp()
    out = []
    for f in facts.logs.findings:
        if f.id not in {str(c) for c in LOG_CAUSES}:
            continue
        cid = CauseId(f.id)
        # A signature that stopped long before the snapshot describes the past (the queue was
        # fixed, the controller recovered): it is evidence of nothing now.
        if f.last is not None and now - f.last > LOG_STALE_AFTER:
            continue
        j = f.to_json()
        cqs = [c for c in j.get("clusterQueues", []) if c in violating]
        if cid is CauseId.HEAD_OF_LINE_BLOCKING:
            # only a StrictFIFO queue re-heads a workload that cannot fit
            cqs = [c for c in cqs if c in facts.queues and facts.queues[c].strategy == "StrictFIFO"]
        if not cqs and cid is not CauseId.CONTROLLER_UNHEALTHY:
            continue
        out.append(Cause(cid, Confidence.MEDIUM, cqs, f.workloads[:20], j.get("summary", ""),
                         [f"log: {j.get('summary', '')}"]
                         + [f"log: {brief(e)}" for e in (j.get("examples") or [])[:2] if isinstance(e, str)],
                         cluster_wide=cid is CauseId.CONTROLLER_UNHEALTHY))
    return out
