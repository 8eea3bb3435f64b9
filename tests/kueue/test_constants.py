"""kueue/constants: the labels, annotations, gates, conditions and reasons the simulator writes
into a snapshot are the ones the readers (the object parser, the doctor's pod index) look for."""
from __future__ import annotations

import pytest

from kueue_doctor.api import build
from kueue_doctor.api.load import load_paths
from kueue_doctor.doctor.gather import index_pods
from kueue_doctor.keys import WorkloadKey
from kueue_doctor.kueue import constants as kc
from kueue_doctor.sim.incidents import incident_path
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from kueue_doctor.sim.snapshot import write_snapshot


@pytest.fixture(scope="module")
def zombie(tmp_path_factory):
    """The zombie-pod incident mid-failure: gated pod groups, preempted victims, a stuck pod."""
    d = tmp_path_factory.mktemp("zombie")
    write_snapshot(Simulator(load_scenario(str(incident_path("zombie-pod")))).run(5400.0), d)
    return load_paths([d])


def test_every_simulated_pod_is_found_by_the_doctors_pod_index(zombie):
    pods, _ = index_pods(zombie)
    indexed = {id(p) for ps in pods.values() for p in ps}
    assert zombie.pods and all(id(p) in indexed for p in zombie.pods.values())
    for key, ps in pods.items():
        assert key in zombie.workloads
        assert all(p.meta.annotations[kc.WORKLOAD_ANNOTATION] == key.name for p in ps)


def test_job_pods_carry_the_uid_their_workload_records(zombie):
    for p in zombie.pods.values():
        if kc.POD_GROUP_NAME_LABEL in p.meta.labels:
            assert p.meta.labels[kc.MANAGED_LABEL] == "true" and kc.QUEUE_NAME_LABEL in p.meta.labels
            continue
        w = zombie.workloads[WorkloadKey(p.meta.namespace, p.meta.annotations[kc.WORKLOAD_ANNOTATION])]
        for label in kc.JOB_CONTROLLER_UID_LABELS:
            assert p.meta.labels[label] == w.meta.labels[kc.JOB_UID_LABEL]


def test_gated_pods_belong_to_workloads_without_quota(zombie):
    gated = [p for p in zombie.pods.values() if kc.ADMISSION_GATE in p.spec.scheduling_gates]
    assert gated
    for p in gated:
        w = zombie.workloads[WorkloadKey(p.meta.namespace, p.meta.annotations[kc.WORKLOAD_ANNOTATION])]
        assert not w.is_true(kc.QUOTA_RESERVED)


def test_preempted_victims_as_kueue_marks_them(zombie):
    victims = [w for w in zombie.workloads.values() if w.is_true(kc.EVICTED)]
    assert victims
    for w in victims:
        assert w.condition(kc.EVICTED).reason == kc.EVICTED_BY_PREEMPTION
        assert w.condition(kc.PREEMPTED).reason in (kc.IN_CLUSTER_QUEUE, kc.IN_COHORT_RECLAMATION,
                                                    kc.IN_COHORT_FAIR_SHARING, kc.IN_COHORT_RECLAIM_WHILE_BORROWING)
    reasons = {e.reason for e in zombie.events if e.involved_kind == "Workload"}
    assert {kc.evicted_event(kc.EVICTED_BY_PREEMPTION), kc.EVENT_PREEMPTED, kc.EVENT_PREEMPTED_WORKLOAD} <= reasons


def test_evicted_event_reason():
    assert kc.evicted_event(kc.EVICTED_BY_PREEMPTION) == "EvictedDueToPreempted"


def test_built_admission_is_what_the_engine_counts():
    w = build.workload("ns", "w", "q", {"cpu": "1"}, admitted_to="cq")
    assert w.is_true(kc.QUOTA_RESERVED) and w.is_true(kc.ADMITTED)


def test_labels_are_prefixed_by_the_api_group():
    prefixed = [kc.ADMISSION_GATE, kc.TOPOLOGY_GATE, kc.WORKLOAD_ANNOTATION, kc.POD_GROUP_NAME_LABEL,
                kc.POD_GROUP_TOTAL_COUNT_ANNOTATION, kc.QUEUE_NAME_LABEL, kc.MANAGED_LABEL, kc.PODSET_LABEL,
                kc.JOB_UID_LABEL, kc.ALLOWED_FLAVORS_ANNOTATION, kc.SLICE_REPLACEMENT_ANNOTATION,
                kc.RESOURCE_IN_USE_FINALIZER, kc.WORKLOAD_PRIORITY_CLASS_SOURCE]
    assert all(v.startswith(kc.GROUP + "/") for v in prefixed)
