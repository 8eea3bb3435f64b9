"""Merge cause candidates per id; keep those that explain a violation; most explanatory first."""
from __future__ import annotations

from ..findings import Cause, CauseId, Violation

# A sharper cause replaces the general one it is a case of, on the queues both name: its
# evidence goes with it (a head that can never fit, or a head retried with no preemption
# candidates, is also what the log's head-of-line signature sees).
SHARPER = {CauseId.HEAD_EXCEEDS_MAX_QUOTA: CauseId.HEAD_OF_LINE_BLOCKING,
           CauseId.PREEMPTION_RETRY_STORM: CauseId.HEAD_OF_LINE_BLOCKING,
           # no domain at the head's topology level has room: the node-level reading of the same shortage
           CauseId.TOPOLOGY_FRAGMENTATION: CauseId.FRAGMENTATION}


def sharpen(candidates: list[Cause]) -> list[Cause]:
    out = list(candidates)
    for sharp, general in SHARPER.items():
        queues = {q for c in out if c.id is sharp for q in c.cluster_queues}
        if not queues:
            continue
        kept = []
        for c in out:
            if c.id is general and set(c.cluster_queues) & queues:
                target = next(s for s in out if s.id is sharp and set(s.cluster_queues) & set(c.cluster_queues))
                target.evidence += [e for e in c.evidence if e not in target.evidence]
                rest = [q for q in c.cluster_queues if q not in queues]
                if not rest:
                    continue
                c = Cause(c.id, c.confidence, rest, list(c.workloads), c.summary, list(c.evidence), c.remedy,
                          c.weight, c.cluster_wide)
            kept.append(c)
        out = kept
    return out


def rank(candidates: list[Cause], found: list[Violation]) -> list[Cause]:
    if not found:
        return []
    candidates = sharpen(candidates)
    violating = {v.cluster_queue: len(v.pending_workloads) for v in found}
    by_id: dict[str, list[Cause]] = {}
    for c in candidates:
        if c.cluster_wide or any(q in violating for q in c.cluster_queues):
            by_id.setdefault(c.id, []).append(c)
    merged: dict[str, Cause] = {}
    for cid, (c, *rest) in by_id.items():
        merged[cid] = Cause(c.id, c.confidence, list(c.cluster_queues), list(c.workloads), c.summary,
                            list(c.evidence), c.remedy, c.weight, c.cluster_wide)
        merged[cid].merge_all(rest)
    for c in merged.values():
        c.weight = sum(violating.get(q, 0) for q in c.cluster_queues) or (0.5 if c.cluster_wide else 0)
    return sorted(merged.values(), key=lambda c: (-len([q for q in c.cluster_queues if q in violating]),
                                                  -c.confidence.rank, -c.weight, str(c.id)))
