"""A queue's heads stay bounded by forgetting the least retried one; the heap that finds it
forgets the very head ``min()`` over the heads in order would (the first made among equals)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_doctor.keys import WorkloadKey
from kueue_doctor.logs.signatures import Head, QueueStats

CAP = 5
OPS = st.lists(st.tuples(st.sampled_from(["requeue", "requeue", "requeue", "admit"]), st.integers(0, 12)),
               max_size=300)


def _naive(ops):
    heads: dict = {}
    for op, n in ops:
        wl = WorkloadKey("ns", f"w{n}")
        if op == "admit":
            heads.pop(wl, None)
            continue
        head = heads.get(wl)
        if head is None:
            if len(heads) >= CAP:
                heads.pop(min(heads, key=lambda k: heads[k].attempts))
            head = heads[wl] = Head()
        head.attempts += 1
    return [(wl, h.attempts) for wl, h in heads.items()]


@settings(max_examples=300, deadline=None)
@given(OPS)
def test_the_heap_forgets_the_head_min_would(ops):
    q = QueueStats()
    for op, n in ops:
        wl = WorkloadKey("ns", f"w{n}")
        if op == "admit":
            q.heads.pop(wl, None)
            continue
        head = q.heads.get(wl) or q.new_head(wl, None, CAP)
        head.attempts += 1
    assert [(wl, h.attempts) for wl, h in q.heads.items()] == _naive(ops)
