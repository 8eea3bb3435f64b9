"""SchedulingEquivalenceHashing's bulk park (QueueManager.requeue on NoFit) through the queue's
hash index gives what a walk of the whole heap gives: the same workloads parked, in the same
order, the same hashes remembered, on random sequences of adds, heads, requeues and deletes."""
from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from kueue_doctor.api import build
from kueue_doctor.engine import queues as qm
from kueue_doctor.engine.workload import WorkloadInfo
from kueue_doctor.kueue.logvocab import REQUEUE_NO_FIT, REQUEUE_PENDING_PREEMPTION

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def walk_whole_heap(self: qm.ClusterQueueQueue, h, hash_of):
    """The look-up as it was: every entry on the heap hashed and compared."""
    same = [e for e in self._entries.values() if hash_of(e[2]) == h]
    same.sort(key=lambda e: (e[0], e[1]))
    return same


def observable(m: qm.QueueManager) -> tuple:
    q = m.queues["cq"]
    assert m.has_heads() == bool(q._entries)   # the manager's set of queues with live heap entries
    return ([w.key for w in q.active()], list(q.inadmissible), dict(q.inadmissible_hashes),
            {k: st.hash for k, st in m.state.items()}, q.sticky)


def play(seed: int) -> list[tuple]:
    rng = random.Random(seed)
    m = qm.QueueManager()
    m.add_cluster_queue("cq", "BestEffortFIFO")
    m.local_queues[("ns", "lq")] = "cq"
    shapes = [(p, c) for p in (0, 10) for c in ("1", "2", "4")]
    infos: dict[str, WorkloadInfo] = {}
    gone: list[str] = []   # deleted names, some created again with another shape
    out = []
    for step in range(400):
        now = T0 + timedelta(seconds=step)
        op = rng.random()
        if op < 0.4 or not infos:
            p, cpu = rng.choice(shapes)
            name = gone.pop(rng.randrange(len(gone))) if gone and rng.random() < 0.3 else f"w{step}"
            wl = build.workload("ns", name, "lq", {"cpu": cpu}, priority=p, created=now)
            infos[name] = wi = WorkloadInfo(wl)
            m.add(wi)
        elif op < 0.8:
            heads = m.heads(["cq"])
            for wi in heads:
                reason = rng.choice([REQUEUE_NO_FIT, REQUEUE_NO_FIT, REQUEUE_PENDING_PREEMPTION])
                m.requeue(wi, reason, now)
        elif op < 0.9:
            m.queue_inadmissible(["cq"], now)
        else:
            name = rng.choice(sorted(infos))
            m.delete(infos.pop(name))
            gone.append(name)
        out.append(observable(m))
    return out


@pytest.mark.parametrize("seed", range(8))
def test_parking_equivalents_through_the_index_equals_walking_the_heap(seed, monkeypatch):
    indexed = play(seed)
    monkeypatch.setattr(qm.ClusterQueueQueue, "equivalents", walk_whole_heap)
    walked = play(seed)
    assert indexed == walked
    # the runs do park equivalents in bulk
    assert any(len(s[1]) > 3 for s in indexed)
