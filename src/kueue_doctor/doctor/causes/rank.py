"""Merge cause candidates per id; keep those that explain a violation; most explanatory first."""
from __future__ import annotations

from ..findings import Cause, Violation


def rank(candidates: list[Cause], found: list[Violation]) -> list[Cause]:
    if not found:
        return []
    violating = {v.cluster_queue: len(v.pending_workloads) for v in found}
    merged: dict[str, Cause] = {}
    for c in candidates:
        if not c.cluster_wide and not any(q in violating for q in c.cluster_queues):
            continue
        if c.id in merged:
            merged[c.id].merge(c)
        else:
            merged[c.id] = Cause(c.id, c.confidence, list(c.cluster_queues), list(c.workloads), c.summary,
                                 list(c.evidence), c.remedy, c.weight, c.cluster_wide)
    for c in merged.values():
        c.weight = sum(violating.get(q, 0) for q in c.cluster_queues) or (0.5 if c.cluster_wide else 0)
    return sorted(merged.values(), key=lambda c: (-len([q for q in c.cluster_queues if q in violating]),
                                                  -c.confidence.rank, -c.weight, str(c.id)))
