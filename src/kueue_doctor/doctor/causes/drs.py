"""drs-rounding: borrowing queues whose DominantResourceShare rounds to 0 under the running
release's arithmetic, so fair-sharing preemption never picks them."""
from __future__ import annotations

from ...engine.drs import dominant_resource_share
from ...kueue.bugs import affected, bug
from ...kueue.releases import DrsMode
from ..facts import Facts
from ..findings import Cause, CauseId, Confidence, Violation
from .queues import release_evidence


def drs_causes(facts: Facts, found: list[Violation]) -> list[Cause]:
    if not facts.config.fair_sharing or not found:
        return []
    snap = facts.model.snapshot
    mode = facts.config.drs_mode
    out = []
    for v in found:
        cq = snap.cluster_queues.get(v.cluster_queue)
        if cq is None or cq.node.parent is None:
            continue
        root = cq.node.root()
        zero = []
        for other in snap.cluster_queues.values():
            if other is cq or other.node.root() is not root:
                continue
            if not any(other.node.borrowing(fr) for fr in other.node.quotas):
                continue
            legacy = dominant_resource_share(other.node, None, mode)
            status_share = other.obj.status.weighted_share
            if (mode != DrsMode.EXACT and legacy.is_zero()) or status_share == 0:
                zero.append((other.name, legacy, status_share))
        if zero:
            aff = affected(facts.release, "drs-rounding")
            out.append(Cause(
                CauseId.DRS_ROUNDING, Confidence.HIGH if aff else Confidence.MEDIUM, [v.cluster_queue],
                v.pending_workloads,
                f"{', '.join(z[0] for z in zero)} borrow(s) but their DominantResourceShare rounds to 0, so "
                f"fair-sharing preemption prunes them and {v.cluster_queue} cannot reclaim its nominal quota.",
                [f"{n} borrows; DRS on this release = {d.rounded()} (status weightedShare {s})" for n, d, s in zero]
                + release_evidence(facts, CauseId.DRS_ROUNDING),
                "Upgrade to " + bug("drs-rounding").fixed_in + "; meanwhile set lendingLimit 0 on the "
                "reclaiming ClusterQueue or lower the fair-sharing weights.", weight=len(v.pending_workloads)))
    return out
