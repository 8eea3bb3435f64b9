"""Preemption gates (Workload spec.preemptionGates): a workload with a closed gate computes its
preemption targets but does not evict them, and says so with BlockedOnPreemptionGates.

Upstream: scheduler.go processEntry (HasClosedPreemptionGate), requeueAndUpdate; TestSchedule's
MultiKueue cases (tests/conformance/current/schedule-061..063, whose notes hold the conditions
checked here) and TestRequeueAndUpdate "preemption gated"."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kueue_doctor.api import build
from kueue_doctor.api.load import load_documents
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.preemption import blocking_preemption_gates
from kueue_doctor.engine.workload import closed_preemption_gates
from kueue_doctor.keys import WorkloadKey
from kueue_doctor.kueue.features import GATES
from kueue_doctor.kueue.releases import release_for
from kueue_doctor.kueue.version import Version

from .cycle_cases import conditions, entry, run_case

T0 = datetime(2026, 1, 1, tzinfo=UTC)
GATED = "Workload requires preemption, but it's gated"
NO_RESERVATION = ("Admitted", "False", "NoReservation", "The workload has no reservation")


# -- the upstream cases' conditions ------------------------------------------------------------

def test_061_gated_preemptor_does_not_preempt_and_signals_blocked():
    model, res = run_case("schedule-061")
    e = entry(res, "eng-beta/preemptor")
    assert res.preempted == [] and res.admitted == []
    assert [str(t.key) for t in e.targets] == ["eng-beta/low-priority"]   # targets found, not evicted
    assert e.status == "preemptionGated" and e.gates == ["gate"] and e.requeue_reason == "PreemptionGated"
    assert conditions(e) == [("QuotaReserved", "False", "AdmissionGated", GATED),
                             ("BlockedOnPreemptionGates", "True", "PreemptionGated", GATED), NO_RESERVATION]
    assert not model.infos[WorkloadKey("eng-beta", "low-priority")].evicted


def test_062_gate_does_not_matter_when_the_workload_fits():
    _, res = run_case("schedule-062")
    assert [str(e.key) for e in res.admitted] == ["eng-beta/preemptor"]
    assert entry(res, "eng-beta/preemptor").conditions() == []


def test_063_nothing_to_preempt_is_waiting_for_quota_not_blocked():
    _, res = run_case("schedule-063")
    e = entry(res, "eng-beta/preemptor")
    assert conditions(e) == [
        ("QuotaReserved", "False", "WaitingForQuota", "couldn't assign flavors to pod set main: insufficient "
         "unused quota for example.com/gpu in flavor model-a, 20 more needed"), NO_RESERVATION]


def test_061_without_the_gate_the_preemption_goes_ahead():
    _, res = run_case("schedule-061", MultiKueueOrchestratedPreemption=False)
    assert [(str(t.key), t.reason) for t in res.preempted] == [("eng-beta/low-priority", "InClusterQueue")]
    assert entry(res, "eng-beta/preemptor").status != "preemptionGated"


# -- gates opened in status ---------------------------------------------------------------------

def _state(gates: list[str], positions: dict[str, str] | None = None, strategy: str = "StrictFIFO") -> ClusterState:
    st = ClusterState()
    st.add(build.flavor("f"))
    st.add(build.cluster_queue("cq", {"f": {"cpu": "4"}}, within="LowerPriority", strategy=strategy))
    st.add(build.local_queue("ns", "lq", "cq"))
    st.add(build.workload("ns", "low", "lq", {"cpu": "4"}, priority=0, admitted_to="cq", flavors={"cpu": "f"},
                          admitted_at=T0))
    wl = build.workload("ns", "high", "lq", {"cpu": "4"}, priority=10, created=T0)
    wl.preemption_gates = list(gates)
    wl.status.preemption_gates = dict(positions or {})
    st.add(wl)
    return st


def _cycle(st: ClusterState, **gates: bool):
    model = AdmissionModel(st, EngineConfig(gates={"MultiKueueOrchestratedPreemption": True, **gates}))
    return model, model.cycle(T0)


def test_an_open_gate_lets_the_workload_preempt():
    _, res = _cycle(_state(["g"], {"g": "Open"}))
    assert [str(t.key) for t in res.preempted] == ["ns/low"]


def test_every_gate_must_be_open():
    _, res = _cycle(_state(["a", "b"], {"a": "Open", "b": "Closed"}))
    assert res.preempted == []
    assert entry(res, "ns/high").gates == ["b"]
    _, res = _cycle(_state(["a", "b"], {"a": "Open"}))   # a gate only in spec is closed
    assert entry(res, "ns/high").gates == ["b"]


def test_a_gate_state_without_the_spec_gate_blocks_nothing():
    _, res = _cycle(_state([], {"g": "Closed"}))
    assert [str(t.key) for t in res.preempted] == ["ns/low"]


def test_gated_head_of_a_best_effort_queue_is_parked():
    # PreemptionGated is not an immediate requeue for BestEffortFIFO: the head waits in the
    # inadmissible set (a gate opening, an update of the workload, moves it back)
    model, res = _cycle(_state(["g"], strategy="BestEffortFIFO"))
    assert entry(res, "ns/high").status == "preemptionGated"
    assert WorkloadKey("ns", "high") in model.queues.queues["cq"].inadmissible


# -- per release ----------------------------------------------------------------------------------

def test_gate_table():
    g = GATES["MultiKueueOrchestratedPreemption"]
    assert g.introduced == Version(0, 17, 0) and g.default(Version(0, 20, 0)) is False
    assert g.spec(Version(0, 16, 3)) is None
    c = GATES["ConcurrentAdmission"]
    assert c.introduced == Version(0, 18, 0) and c.default(Version(0, 19, 2)) is False


@pytest.mark.parametrize(("version", "honoured"), [("0.18.6", False), ("0.19.0", True), ("0.19.2", True)])
def test_concurrent_admission_honours_gates_from_v0_19(version, honoured):
    r = release_for(version, {"ConcurrentAdmission": True})
    cfg = EngineConfig(gates=dict(r.gates), concurrent_admission_preemption_gates=r.concurrent_admission_preemption_gates)
    model = AdmissionModel(_state(["g"]), cfg)
    res = model.cycle(T0)
    assert (entry(res, "ns/high").status == "preemptionGated") is honoured
    assert bool(res.preempted) is not honoured


def test_before_v0_17_there_is_no_gate_to_turn_on():
    r = release_for("0.16.3", {"MultiKueueOrchestratedPreemption": True})
    assert r.gates["MultiKueueOrchestratedPreemption"] is False
    wi = AdmissionModel(_state(["g"]), EngineConfig(gates=dict(r.gates))).infos[WorkloadKey("ns", "high")]
    assert blocking_preemption_gates(wi, EngineConfig(gates=dict(r.gates))) == []


# -- the API ----------------------------------------------------------------------------------------

def _workload_doc(version: str) -> dict:
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ns"},
            "spec": {"queueName": "lq", "preemptionGates": [{"name": "kueue.x-k8s.io/multikueue"}, {"name": "b"}],
                     "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [
                         {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]},
            "status": {"preemptionGates": [{"name": "b", "position": "Open",
                                            "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}


def test_preemption_gates_are_read_from_v1beta2():
    wl = load_documents([_workload_doc("v1beta2")], "t").workloads[WorkloadKey("ns", "w")]
    assert wl.preemption_gates == ["kueue.x-k8s.io/multikueue", "b"]
    assert wl.status.preemption_gates == {"b": "Open"}
    assert closed_preemption_gates(wl) == ["kueue.x-k8s.io/multikueue"]


def test_v1beta1_has_no_preemption_gates():
    # Kueue's conversion drops both fields from v1beta1 reads; a v1beta1 object carrying them
    # would have them pruned by the API server
    wl = load_documents([_workload_doc("v1beta1")], "t").workloads[WorkloadKey("ns", "w")]
    assert wl.preemption_gates == [] and wl.status.preemption_gates == {}


def test_the_crds_declare_the_fields_in_v1beta2_only():
    import json
    from importlib.resources import files

    from kueue_doctor.api.schema import unknown_fields
    assert unknown_fields(_workload_doc("v1beta2"), "Workload") == []
    crd = json.loads(files("kueue_doctor").joinpath("data/crds/workload.json").read_text())
    for version, in_spec in (("v1beta1", False), ("v1beta2", True)):
        schema = crd["versions"][version]["properties"]
        assert ("preemptionGates" in schema["spec"]["properties"]) is in_spec
        assert ("preemptionGates" in schema["status"]["properties"]) is in_spec
