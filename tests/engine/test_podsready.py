"""engine/podsready.py and the blockAdmission hook of engine/scheduler.py."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kueue_doctor.api import build
from kueue_doctor.api import objects as o
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine import podsready as pr
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.kueue.podsready import RequeuingStrategy, WaitForPodsReady

T0 = datetime(2026, 1, 1, tzinfo=UTC)
CFG = WaitForPodsReady(timeout=600, recovery_timeout=300, requeuing=RequeuingStrategy(backoff_limit_count=2))


def admitted(count: int | None = None, pods_ready: o.Condition | None = None) -> o.Workload:
    wl = build.workload("ns", "w", "main", {"nvidia.com/gpu": 8}, admitted_to="cq", flavors={"nvidia.com/gpu": "f"},
                        admitted_at=T0, created=T0)
    if pods_ready is not None:
        wl.status.conditions.append(pods_ready)
    if count is not None:
        wl.status.requeue_state = o.RequeueState(count, None)
    return wl


def test_timed_from_admission_until_pods_ready():
    wl = admitted()
    v = pr.evaluate(wl, CFG, T0 + timedelta(minutes=9))
    assert (v.action, v.cause, v.deadline) == (pr.WAIT, "WaitForStart", T0 + timedelta(minutes=10))
    wl.status.conditions.append(o.Condition("PodsReady", "True", "Started", "", T0 + timedelta(minutes=2)))
    assert pr.evaluate(wl, CFG, T0 + timedelta(hours=1)).action == pr.NONE


def test_eviction_after_the_timeout_advances_the_requeue_state():
    now = T0 + timedelta(minutes=10)
    v = pr.evaluate(admitted(), CFG, now)
    assert v.action == pr.EVICT and v.reason == "PodsReadyTimeout"
    assert v.message == "Exceeded the PodsReady timeout ns/w"
    assert v.requeue_count == 1 and v.requeue_at == now + timedelta(seconds=60)
    v2 = pr.evaluate(admitted(count=1), CFG, now)
    assert v2.requeue_count == 2 and v2.requeue_at == now + timedelta(seconds=120)   # base * 2^(n-1)


def test_over_the_limit_deactivates():
    v = pr.evaluate(admitted(count=2), CFG, T0 + timedelta(minutes=10))
    assert v.action == pr.DEACTIVATE and v.reason == "RequeuingLimitExceeded"
    assert pr.deactivated_message(v.message) == \
        "The workload is deactivated due to exceeding the maximum number of re-queuing retries"


def test_recovery_timeout_from_the_pods_ready_false_transition():
    failed_at = T0 + timedelta(hours=1)
    wl = admitted(pods_ready=o.Condition("PodsReady", "False", "WaitForRecovery", "", failed_at))
    assert pr.evaluate(wl, CFG, failed_at + timedelta(minutes=4)).action == pr.WAIT
    v = pr.evaluate(wl, CFG, failed_at + timedelta(minutes=5))
    assert v.action == pr.EVICT and v.cause == "WaitForRecovery"
    no_recovery = WaitForPodsReady(timeout=600, recovery_timeout=None)
    assert pr.evaluate(wl, no_recovery, failed_at + timedelta(hours=5)).action == pr.NONE


def test_not_admitted_or_evicted_is_not_timed():
    wl = build.workload("ns", "p", "main", {"nvidia.com/gpu": 8}, created=T0)
    assert pr.evaluate(wl, CFG, T0 + timedelta(hours=2)).action == pr.NONE
    ev = admitted()
    ev.status.conditions.append(o.Condition("Evicted", "True", "Preempted", "", T0))
    assert pr.evaluate(ev, CFG, T0 + timedelta(hours=2)).action == pr.NONE


def _model(block: bool, ready: bool) -> AdmissionModel:
    st = ClusterState()
    st.add(build.flavor("f"))
    st.add(build.cluster_queue("cq", {"f": {"nvidia.com/gpu": 64}}))
    st.add(build.local_queue("ns", "main", "cq"))
    running = admitted()
    if ready:
        running.status.conditions.append(o.Condition("PodsReady", "True", "Started", "", T0))
    st.add(running)
    for i in range(2):
        st.add(build.workload("ns", f"p{i}", "main", {"nvidia.com/gpu": 8}, created=T0 + timedelta(seconds=i)))
    cfg = EngineConfig(wait_for_pods_ready=WaitForPodsReady(timeout=600, block_admission=block))
    return AdmissionModel(st, cfg)


def test_block_admission_waits_while_an_admitted_workload_is_not_ready():
    m = _model(block=True, ready=False)
    res = m.cycle(T0 + timedelta(minutes=1))
    assert res.admitted == []
    (e,) = res.entries
    assert e.reason == "WaitingForPodsReady"
    assert e.inadmissible_msg == "waiting for all admitted workloads to be in PodsReady condition"
    # requeued at once: it is the head again the next cycle
    assert next(wi.name for wi in m.queues.pending_in_order("cq")) == "p0"


def test_block_admission_admits_one_at_a_time_once_all_are_ready():
    m = _model(block=True, ready=True)
    res = m.cycle(T0 + timedelta(minutes=1))
    assert [e.wi.name for e in res.admitted] == ["p0"]
    res = m.cycle(T0 + timedelta(minutes=2))     # p0 is admitted but not PodsReady yet
    assert res.admitted == [] and res.entries[0].reason == "WaitingForPodsReady"


def test_without_block_admission_nothing_waits():
    m = _model(block=False, ready=False)
    assert [e.wi.name for e in m.cycle(T0 + timedelta(minutes=1)).admitted] == ["p0"]
