"""Merging cause candidates: one cause per id, in the order the candidates came."""
from __future__ import annotations

import random

from kueue_doctor.doctor.causes.rank import rank
from kueue_doctor.doctor.findings import Cause, CauseId, Confidence, Violation
from kueue_doctor.keys import WorkloadKey


def merged_one_by_one(causes: list[Cause]) -> Cause:
    """The merge rule written out plainly: each list gains what it lacks, in order."""
    first, *rest = causes
    out = Cause(first.id, first.confidence, list(first.cluster_queues), list(first.workloads), first.summary,
                list(first.evidence), first.remedy, first.weight, first.cluster_wide)
    for c in rest:
        if c.confidence.rank > out.confidence.rank:
            out.confidence = c.confidence
        out.cluster_queues += [q for q in c.cluster_queues if q not in out.cluster_queues]
        for w in c.workloads:
            if w not in out.workloads:
                out.workloads.append(w)
        for e in c.evidence:
            if e not in out.evidence:
                out.evidence.append(e)
        if not out.summary:
            out.summary = c.summary
        elif c.summary and c.summary not in out.summary:
            out.summary += " " + c.summary
        out.remedy = out.remedy or c.remedy
        out.cluster_wide = out.cluster_wide or c.cluster_wide
    return out


def test_merge_all_keeps_first_seen_order_and_drops_repeats():
    rng = random.Random(3)
    causes = []
    for _ in range(40):
        qs = [f"q{rng.randrange(12)}" for _ in range(rng.randrange(1, 4))]
        causes.append(Cause(CauseId.FRAGMENTATION, rng.choice(list(Confidence)), qs,
                            [WorkloadKey(q, f"w{rng.randrange(30)}") for q in qs for _ in range(rng.randrange(5))],
                            rng.choice(["", "a.", "b.", f"{qs[0]} stalls."]),
                            [f"e{rng.randrange(20)}" for _ in range(rng.randrange(4))], rng.choice(["", "fix"])))
    found = [Violation(f"q{i}", {}, [WorkloadKey(f"q{i}", "w0")], None) for i in range(12)]
    (got,) = rank(causes, found)
    want = merged_one_by_one(causes)
    assert (got.cluster_queues, got.workloads, got.evidence, got.summary, got.remedy, got.confidence) == \
        (want.cluster_queues, want.workloads, want.evidence, want.summary, want.remedy, want.confidence)
    assert len(got.workloads) == len(set(got.workloads)) > 30
