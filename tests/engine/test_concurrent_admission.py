"""Concurrent admission (KEP-8691, gate ConcurrentAdmission, v0.18+): variants of one parent
Workload, each allowed one flavor, compete; a more favourable variant (earlier in the
ClusterQueue's first resource group) evicts an admitted less favourable sibling (FlavorMigration),
a less favourable one is skipped while a more favourable sibling is admitted, and migration stops
at concurrentAdmissionPolicy.migration.constraints.lastAcceptableFlavorName.

Upstream: scheduler.go processEntry, findAdmittedSibling, isMigrationAllowed, issueMigration;
TestScheduleConcurrentAdmission (tests/conformance/current/concurrent-001..003, whose notes hold
the conditions and the eviction checked here)."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from kueue_doctor.api import build
from kueue_doctor.api import objects as o
from kueue_doctor.api.load import load_documents
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.queues import scheduling_hash
from kueue_doctor.engine.workload import is_parent, is_variant, parent_ref, variant_flavor
from kueue_doctor.errors import InputError
from kueue_doctor.keys import WorkloadKey
from kueue_doctor.kueue import constants as kc

from .cycle_cases import conditions, entry, run_case

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NO_RESERVATION = ("Admitted", "False", "NoReservation", "The workload has no reservation")
MIGRATION_MESSAGE = ("Evicted to accommodate a workload (UID: candidate-uid) due to migration to more "
                     "favorable resource flavor")


# -- the upstream cases' conditions and evictions ----------------------------------------------

def test_001_more_favourable_variant_evicts_its_sibling():
    model, res = run_case("concurrent-001")
    e = entry(res, "eng-alpha/candidate-more-favorable")
    assert conditions(e) == [("QuotaReserved", "False", "WaitingForPreemptedWorkloads",
                              ". Pending the migration of 1 workload(s)"), NO_RESERVATION]
    assert e.requeue_reason == "PendingMigration"
    assert [(str(m.key), m.reason, m.message, str(m.evictor)) for m in res.migrated] == [
        ("eng-alpha/sibling-less-favorable", "FlavorMigration", MIGRATION_MESSAGE,
         "eng-alpha/candidate-more-favorable")]
    assert res.preempted == []                      # an eviction, not a preemption: no Preempted condition
    sibling = model.infos[WorkloadKey("eng-alpha", "sibling-less-favorable")]
    assert sibling.evicted and sibling.eviction_reason == "FlavorMigration"
    assert sibling.cluster_queue == "concurrent-cq"  # keeps its quota until the controller releases it
    # BestEffortFIFO keeps the migrating variant at the head (sticky, like a preemptor)
    assert model.queues.queues["concurrent-cq"].sticky == e.key


def test_001_next_cycle_does_not_evict_again():
    model, _ = run_case("concurrent-001")
    res2 = model.cycle(datetime(2024, 1, 1, tzinfo=UTC))
    assert res2.migrated == [] and res2.admitted == []
    e = entry(res2, "eng-alpha/candidate-more-favorable")
    assert e.reason == "WaitingForPreemptedWorkloads"   # still waiting for the sibling to go


def test_002_less_favourable_variant_is_skipped():
    _, res = run_case("concurrent-002")
    e = entry(res, "eng-alpha/candidate-less-favorable")
    assert e.status == "skipped"
    assert conditions(e) == [("QuotaReserved", "False", "PendingEvaluation",
                              "A more favorable variant is already admitted"), NO_RESERVATION]
    assert res.migrated == []


def test_003_migration_stops_below_the_last_acceptable_flavor():
    _, res = run_case("concurrent-003")
    e = entry(res, "eng-alpha/candidate-more-favorable")
    assert conditions(e) == [("QuotaReserved", "False", "PendingEvaluation",
                              "Target flavor is below LastAcceptableFlavorName"), NO_RESERVATION]
    assert res.migrated == [] and res.admitted == []


@pytest.mark.parametrize("prefix", ["concurrent-001", "concurrent-002", "concurrent-003"])
def test_without_the_gate_variants_are_plain_workloads(prefix):
    # the allowed-flavors annotation is ignored too: each candidate fits its CQ's first free flavor
    _, res = run_case(prefix, ConcurrentAdmission=False)
    assert res.migrated == [] and len(res.admitted) == 1


# -- beyond the upstream table -----------------------------------------------------------------

def _variant(name: str, flavor: str, parent_uid: str = "parent-uid", admitted: bool = False,
             queue: str = "lq", cq: str = "cq", cpu: str = "10") -> o.Workload:
    wl = build.workload("ns", name, queue, {"cpu": cpu}, uid=f"{name}-uid", created=T0,
                        admitted_to=cq if admitted else None, flavors={"cpu": flavor}, admitted_at=T0)
    wl.meta.annotations[kc.ALLOWED_FLAVORS_ANNOTATION] = flavor
    wl.meta.owner_references = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "name": "parent",
                                 "uid": parent_uid, "controller": True}]
    return wl


def _state(*workloads: o.Workload, flavors=("a", "b", "c"), policy: o.ConcurrentAdmissionPolicy | None = None,
           cpu: str = "10") -> ClusterState:
    st = ClusterState()
    for f in flavors:
        st.add(build.flavor(f))
    cq = build.cluster_queue("cq", {f: {"cpu": cpu} for f in flavors})
    cq.concurrent_admission_policy = policy
    st.add(cq)
    st.add(build.local_queue("ns", "lq", "cq"))
    for wl in workloads:
        st.add(wl)
    return st


def _cycle(st: ClusterState, **gates: bool):
    model = AdmissionModel(st, EngineConfig(gates={"ConcurrentAdmission": True, **gates}))
    return model, model.cycle(T0)


def test_a_variant_without_admitted_siblings_is_admitted_on_its_flavor():
    model, res = _cycle(_state(_variant("v-b", "b"), _variant("v-c", "c")))
    # flavor a is free, but the variant may only use b; one head per ClusterQueue and cycle
    got = [(str(e.key), e.assigned.pod_sets[0].flavors["cpu"].name) for e in res.admitted]
    assert got == [("ns/v-b", "b")]
    res = model.cycle(T0)
    assert res.admitted == [] and entry(res, "ns/v-c").status == "skipped"


def test_migration_to_the_last_acceptable_flavor_is_allowed():
    policy = o.ConcurrentAdmissionPolicy(last_acceptable_flavor="b")
    _, res = _cycle(_state(_variant("v-c", "c", admitted=True), _variant("v-b", "b"), policy=policy))
    assert [str(m.key) for m in res.migrated] == ["ns/v-c"]


def test_siblings_are_told_by_the_parent_uid():
    _, res = _cycle(_state(_variant("v-c", "c", parent_uid="other", admitted=True), _variant("v-b", "b")))
    assert res.migrated == [] and [str(e.key) for e in res.admitted] == ["ns/v-b"]


def test_a_sibling_with_quota_but_not_admitted_does_not_count():
    # IsAdmitted: Admitted=True (quota reserved, admission checks pending is not enough)
    sib = _variant("v-a", "a", admitted=True)
    sib.status.conditions = [c for c in sib.status.conditions if c.type != "Admitted"]
    _, res = _cycle(_state(sib, _variant("v-b", "b")))
    assert [str(e.key) for e in res.admitted] == ["ns/v-b"]


def test_a_variant_admitted_earlier_in_the_run_is_a_sibling():
    # the engine's own admissions count as admitted (the queue has no admission check to wait for)
    model, res = _cycle(_state(_variant("v-b", "b")))
    assert [str(e.key) for e in res.admitted] == ["ns/v-b"]
    model.submit(_variant("v-c", "c"))
    res = model.cycle(T0)
    assert entry(res, "ns/v-c").inadmissible_msg == "A more favorable variant is already admitted"


def test_a_migrating_variant_that_needs_preemption_preempts_first():
    # the sibling check for migration comes after preemption: a variant that must preempt
    # issues its preemptions (its usage then counts) and migrates in a later cycle
    st = _state(_variant("v-b", "b", admitted=True), flavors=("a", "b"), cpu="10")
    low = build.workload("ns", "low", "lq", {"cpu": "10"}, priority=-1, admitted_to="cq", flavors={"cpu": "a"},
                         admitted_at=T0)
    st.add(low)
    st.cluster_queues["cq"].preemption = o.Preemption("LowerPriority", "Never")
    st.add(_variant("v-a", "a"))
    _, res = _cycle(st)
    assert [str(t.key) for t in res.preempted] == ["ns/low"] and res.migrated == []


def test_flavor_order_is_the_first_resource_group_s():
    policy = None
    st = _state(_variant("v-a", "a", admitted=True), _variant("v-c", "c"), policy=policy)
    _, res = _cycle(st)
    assert entry(res, "ns/v-c").status == "skipped"


def test_parent_neither_queues_nor_holds_quota_in_a_concurrent_queue():
    parent = build.workload("ns", "parent", "lq", {"cpu": "10"}, uid="parent-uid", created=T0,
                            admitted_to="cq", flavors={"cpu": "a"}, admitted_at=T0)
    pending_parent = build.workload("ns", "parent2", "lq", {"cpu": "10"}, uid="p2", created=T0)
    st = _state(parent, pending_parent, _variant("v-a", "a", admitted=True),
                policy=o.ConcurrentAdmissionPolicy())
    model = AdmissionModel(st, EngineConfig(gates={"ConcurrentAdmission": True}))
    assert set(model.snapshot.cluster_queues["cq"].workloads) == {WorkloadKey("ns", "v-a")}
    assert WorkloadKey("ns", "parent2") not in model.queues.queues["cq"]
    # gate off: the same objects are plain workloads
    model = AdmissionModel(st, EngineConfig(gates={"ConcurrentAdmission": False}))
    assert WorkloadKey("ns", "parent") in model.snapshot.cluster_queues["cq"].workloads
    assert WorkloadKey("ns", "parent2") in model.queues.queues["cq"]


def test_a_labelled_parent_is_not_queued_even_without_a_policy():
    parent = build.workload("ns", "parent", "lq", {"cpu": "1"}, labels={kc.CONCURRENT_ADMISSION_PARENT_LABEL: "true"})
    model = AdmissionModel(_state(parent), EngineConfig(gates={"ConcurrentAdmission": True}))
    assert WorkloadKey("ns", "parent") not in model.queues.queues["cq"]
    assert is_parent(parent)


def test_variants_of_different_flavors_are_not_equivalent():
    a, b = _variant("v-a", "a"), _variant("v-b", "b")
    wa, wb = AdmissionModel(_state(a, b), EngineConfig()).infos.values()
    assert scheduling_hash(wa) == scheduling_hash(wb)
    assert scheduling_hash(wa, allowed_flavors=True) != scheduling_hash(wb, allowed_flavors=True)


def test_variant_helpers():
    v = _variant("v", " b , c")
    assert is_variant(v) and parent_ref(v) == ("parent", "parent-uid") and variant_flavor(v) == "b"
    v.meta.owner_references[0]["apiVersion"] = "kueue.x-k8s.io/v1beta1"
    assert not is_variant(v)     # upstream matches the owner's apiVersion exactly


# -- the API ----------------------------------------------------------------------------------------

def _cq_doc(version: str, policy: dict) -> dict:
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "ClusterQueue", "metadata": {"name": "cq"},
            "spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                {"name": "a", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]}],
                "concurrentAdmissionPolicy": policy}}


def test_policy_is_read_from_v1beta2():
    pol = {"migration": {"mode": "TryPreferredFlavors", "constraints": {"lastAcceptableFlavorName": "a"}}}
    cq = load_documents([_cq_doc("v1beta2", pol)], "t").cluster_queues["cq"]
    assert cq.concurrent_admission_policy == o.ConcurrentAdmissionPolicy("TryPreferredFlavors", "a")
    cq = load_documents([_cq_doc("v1beta2", {"migration": {"mode": "RetainFirstAdmission"}})], "t").cluster_queues["cq"]
    assert cq.concurrent_admission_policy == o.ConcurrentAdmissionPolicy("RetainFirstAdmission", None)
    # v1beta1 has no such field (Kueue's conversion drops it)
    assert load_documents([_cq_doc("v1beta1", pol)], "t").cluster_queues["cq"].concurrent_admission_policy is None


def test_an_unknown_migration_mode_is_an_error():
    with pytest.raises(InputError, match=r"migration\.mode"):
        load_documents([_cq_doc("v1beta2", {"migration": {"mode": "Sometimes"}})], "t")


def test_the_crds_declare_the_policy_in_v1beta2_only():
    import json
    from importlib.resources import files
    crd = json.loads(files("kueue_doctor").joinpath("data/crds/clusterqueue.json").read_text())
    assert "concurrentAdmissionPolicy" not in crd["versions"]["v1beta1"]["properties"]["spec"]["properties"]
    pol = crd["versions"]["v1beta2"]["properties"]["spec"]["properties"]["concurrentAdmissionPolicy"]
    assert pol["properties"]["migration"]["properties"]["mode"]["enum"] == ["TryPreferredFlavors",
                                                                          "RetainFirstAdmission"]


def _with_check(st: ClusterState, on_flavors: list[str] | None = None) -> ClusterState:
    cq = st.cluster_queues["cq"]
    cq.admission_checks = ["prov"]
    if on_flavors is not None:
        cq.admission_check_flavors = {"prov": on_flavors}
    return st


def test_an_engine_admitted_variant_waiting_for_its_checks_is_not_an_admitted_sibling():
    # scheduler.go prepareWorkload: the reservation admits only when no required check is left
    # to wait for; findAdmittedSiblingMatching asks workload.IsAdmitted
    model, res = _cycle(_with_check(_state(_variant("v-b", "b"))))
    assert [str(e.key) for e in res.admitted] == ["ns/v-b"]
    model.submit(_variant("v-c", "c"))
    res = model.cycle(T0)
    assert [str(e.key) for e in res.admitted] == ["ns/v-c"]      # not skipped: v-b is not admitted yet
    # nor does a more favourable variant migrate away from it
    model.submit(_variant("v-a", "a"))
    res = model.cycle(T0)
    assert res.migrated == [] and [str(e.key) for e in res.admitted] == ["ns/v-a"]


def test_a_check_on_other_flavors_or_ready_in_status_admits_on_reservation():
    model, _ = _cycle(_with_check(_state(_variant("v-b", "b")), on_flavors=["c"]))
    model.submit(_variant("v-c", "c"))
    assert entry(model.cycle(T0), "ns/v-c").inadmissible_msg == "A more favorable variant is already admitted"
    ready = _variant("v-b", "b")
    ready.status.check_states = [o.AdmissionCheckState("prov", "Ready", "", T0)]
    model, _ = _cycle(_with_check(_state(ready)))
    model.submit(_variant("v-c", "c"))
    assert entry(model.cycle(T0), "ns/v-c").inadmissible_msg == "A more favorable variant is already admitted"
