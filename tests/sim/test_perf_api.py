"""The perf configs' API-client model (sim/perf.py ApiWrites) and the requeue batch it brings."""
from __future__ import annotations

import pytest

from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.scheduler import CycleResult
from kueue_doctor.keys import WorkloadKey
from kueue_doctor.kueue.logvocab import STATUS_NOT_NOMINATED
from kueue_doctor.sim.perf import ApiWrites
from kueue_doctor.sim.scenario import JOB, Scenario, Settings, WorkloadSpec
from kueue_doctor.sim.simulator import Simulator


class _Head:
    """What end_cycle reads of an entry: its key, status and the condition it would write."""

    def __init__(self, name: str, msg: str, status: str = STATUS_NOT_NOMINATED):
        self.key = WorkloadKey("default", name)
        self.status, self.reason, self.inadmissible_msg = status, "Pending", msg


def cycle(*heads: _Head) -> CycleResult:
    res = CycleResult()
    res.entries = list(heads)   # type: ignore[arg-type]  # duck-typed Entry
    return res


def test_writes_pass_the_burst_then_wait_at_the_rate():
    api = ApiWrites(qps=50, burst=100, requeue_batch=1.0)
    waits = [api.write(0.0) for _ in range(150)]
    # burst 100 at once, then one every 1/50 s, in call order
    assert waits[:100] == pytest.approx([0.0] * 100, abs=1e-9)
    assert waits[100] == pytest.approx(0.02)
    assert waits[149] == pytest.approx(50 * 0.02)
    assert waits == sorted(waits)


def test_a_cycle_waits_for_its_status_patches_behind_the_pending_admissions():
    api = ApiWrites(qps=10, burst=1, requeue_batch=1.0)
    assert api.write(0.0) == 0.0            # the burst: served at once
    assert api.write(0.0) == 0.1            # then one every 1/qps, in call order
    # a head left pending patches its condition synchronously, behind both
    assert api.end_cycle(0.0, 0.01, cycle(_Head("a", "no fit"))) == 0.2
    # the same condition again: nothing to write, the cycle ends after its own work
    assert api.end_cycle(0.3, 0.01, cycle(_Head("a", "no fit"))) == 0.31
    assert api.writes == 3
    # a new message is a new write, behind the one issued just before it
    api.write(1.0)
    assert api.end_cycle(1.0, 0.01, cycle(_Head("a", "no fit, 3 more needed"))) == 1.1
    assert api.writes == 5
    # an admission clears what was written: the next pending condition is written again
    api.admitted(WorkloadKey("default", "a"))
    api.end_cycle(2.0, 0.01, cycle(_Head("a", "no fit, 3 more needed")))
    assert api.writes == 6


def test_an_eviction_is_a_write_the_cycle_waits_for():
    api = ApiWrites(qps=10, burst=1, requeue_batch=1.0)
    api.write(0.0)
    assert api.sync(0.0) == 0.1
    assert api.end_cycle(0.0, 0.01, cycle()) == 0.1


def _queue_scenario() -> Scenario:
    state = ClusterState()
    state.add(build.flavor("default"))
    state.add(build.cluster_queue("cq", {"default": {"cpu": ("2", None)}}))
    state.add(build.local_queue("default", "q", "cq"))
    w = [WorkloadSpec(at=0.0, namespace="default", name=f"w{i}", queue="q", requests={"cpu": "2"}, runtime=5.0,
                      kind=JOB, klass="x") for i in range(2)]
    return Scenario(name="batch", state=state, workloads=w,
                    settings=Settings(cycle_cost=0.0, per_head_cost=0.0, release_latency=0.0,
                                      quota_release_latency=0.0, api_writes=(1000.0, 100.0, 1.0)))


def test_a_parked_workload_is_requeued_a_batch_period_after_the_capacity_event():
    sim = Simulator(_queue_scenario()).run()
    first, second = sorted((sw.first_admitted_at for sw in sim.workloads.values()), key=float)
    assert first == 0.0
    # the first finishes at 5 s (its write served at once, then 5 s of runtime); the requeuer
    # moves the parked one back a second later (inadmissible_workloads.go requeueBatchPeriod)
    assert second == 6.0
