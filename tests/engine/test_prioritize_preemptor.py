"""PrioritizePreemptorWorkloads (kubernetes-sigs/kueue#13662, PR #13797; alpha, off, in v0.18.6,
v0.19.2 and v0.20): a ClusterQueue's preemptor, the workload last re-queued waiting for its
victims (Head.IsPreemptor), goes first in the cycle's order, and when it needs preemption but
finds no candidate it holds its quota even where the queue can always reclaim
(reserveCapacityForUnreclaimablePreempt). Without the gate, work that arrives while the victims
terminate takes the room the preemption made, and the preemptor must preempt again."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.keys import WorkloadKey

T0 = datetime(2026, 9, 1, tzinfo=UTC)


def queues(s: ClusterState, a_quota: str = "2") -> None:
    s.add(build.flavor("default"))
    s.add(build.cluster_queue("cq-a", {"default": {"cpu": a_quota}}, cohort="co", within="LowerPriority",
                              reclaim="Any", borrow_within="LowerPriority"))
    s.add(build.cluster_queue("cq-b", {"default": {"cpu": "4"}}, cohort="co"))
    for n in ("a", "b"):
        s.add(build.local_queue("ns", f"lq-{n}", f"cq-{n}"))


def running(s: ClusterState, name: str, lq: str, cq: str, cpu: str, priority: int) -> None:
    s.add(build.workload("ns", name, lq, {"cpu": cpu}, priority=priority, created=T0, admitted_to=cq,
                         flavors={"cpu": "default"}, admitted_at=T0))


@pytest.mark.parametrize("gate", [False, True])
def test_the_preemptor_keeps_the_room_its_preemption_made(gate):
    s = ClusterState()
    queues(s)
    running(s, "a-low", "lq-a", "cq-a", "2", -1)
    running(s, "b-low", "lq-b", "cq-b", "3", -1)
    # 3 cpu: preempt a-low in its own queue and borrow cq-b's last unused cpu
    s.add(build.workload("ns", "a-big", "lq-a", {"cpu": "3"}, created=T0 + timedelta(minutes=1)))
    model = AdmissionModel(s, EngineConfig(gates={"PrioritizePreemptorWorkloads": gate}))
    now = T0 + timedelta(hours=1)
    res = model.cycle(now)
    assert [t.key.name for t in res.preempted] == ["a-low"]
    now += timedelta(seconds=30)
    model.release(WorkloadKey("ns", "a-low"), now, requeue=False)
    # while a-low terminated, cq-b got new work within its nominal quota, wanting the cpu a-big borrows
    model.submit(build.workload("ns", "b-new", "lq-b", {"cpu": "1"}, priority=5, created=now))
    res = model.cycle(now)
    entries = {e.key.name: e for e in res.entries}
    assert entries["a-big"].is_preemptor and not entries["b-new"].is_preemptor
    winner, loser = ("a-big", "b-new") if gate else ("b-new", "a-big")
    assert [e.key.name for e in res.admitted] == [winner]
    assert entries[loser].inadmissible_msg == "Workload no longer fits after processing another workload"


@pytest.mark.parametrize("gate", [False, True])
def test_a_preemptor_without_candidates_holds_its_quota(gate):
    s = ClusterState()
    queues(s)
    s.add(build.cluster_queue("cq-c", {"default": {"cpu": "0"}}, cohort="co"))
    s.add(build.local_queue("ns", "lq-c", "cq-c"))
    running(s, "a-high", "lq-a", "cq-a", "2", 5)      # nothing a-big may preempt
    s.add(build.workload("ns", "a-big", "lq-a", {"cpu": "5"}, created=T0 + timedelta(minutes=1)))
    s.add(build.workload("ns", "c-small", "lq-c", {"cpu": "1"}, created=T0 + timedelta(minutes=2)))
    model = AdmissionModel(s, EngineConfig(gates={"PrioritizePreemptorWorkloads": gate}))
    a_big = model.infos[WorkloadKey("ns", "a-big")]
    model.queues.queues["cq-a"].set_sticky(a_big)   # as its last re-queue (PendingPreemption) left it
    res = model.cycle(T0 + timedelta(hours=1))
    entries = {e.key.name: e for e in res.entries}
    assert entries["a-big"].is_preemptor and entries["a-big"].requeue_reason == "PreemptionNoCandidates"
    # cq-a can always reclaim (reclaimWithinCohort Any): only the gate makes a-big hold the cohort's 4
    assert [e.key.name for e in res.admitted] == ([] if gate else ["c-small"])


def test_the_gate_is_off_by_default_where_it_exists():
    from kueue_doctor.kueue.releases import release_for
    for v in ("v0.18.5", "v0.18.6", "v0.19.2", "v0.20.0"):
        assert release_for(v).gates.get("PrioritizePreemptorWorkloads", False) is False
    assert release_for("v0.19.2", {"PrioritizePreemptorWorkloads": True}).gates["PrioritizePreemptorWorkloads"]
