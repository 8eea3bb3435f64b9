"""kueue/eviction: the preemption messages as Kueue writes them, and reading them back."""
from __future__ import annotations

import re

import pytest
import yaml

from kueue_doctor.kueue import constants as kc
from kueue_doctor.kueue.eviction import (
    HUMAN_REASONS,
    cohort_path,
    parse_preemption_message,
    path_names,
    preempted_workload_message,
    preemption_message,
    preemptor_queue,
)
from tests.paths import SHARED

# Messages upstream's scheduler tests expect (shared/conformance/tas/*.yaml, taken from Kueue's
# own test expectations): the condition form and the event form with effective priorities.
REAL = {
    "cohort-015": ("Preempted to accommodate a workload (UID: wl-b1, JobUID: job-b1) due to reclamation within "
                   "the cohort; preemptor path: /tas-cohort-main/tas-cq-b; preemptee path: /tas-cohort-main/tas-cq-a",
                   ("wl-b1", "job-b1", kc.IN_COHORT_RECLAMATION, "tas-cq-b", "tas-cq-a")),
    "while-borrowing": ("Preempted to accommodate a workload (UID: wl-standard, JobUID: job-standard) due to "
                        "reclamation within the cohort while borrowing; preemptor path: /tas-cohort-main/tas-cq-b; "
                        "preemptee path: /tas-cohort-main/tas-cq-a",
                        ("wl-standard", "job-standard", kc.IN_COHORT_RECLAIM_WHILE_BORROWING, "tas-cq-b", "tas-cq-a")),
    "preempt-003-event": ("Preempted to accommodate a workload (UID: wl-foo, JobUID: job-foo) due to prioritization "
                          "in the ClusterQueue; preemptor path: /tas-main; preemptee path: /tas-main; preemptor "
                          "effective priority: 3 (base: 3, boost: 0); preemptee effective priority: 1 (base: 1, "
                          "boost: 0)",
                          ("wl-foo", "job-foo", kc.IN_CLUSTER_QUEUE, "tas-main", "tas-main")),
}


@pytest.mark.parametrize("name", sorted(REAL))
def test_reads_real_kueue_messages(name):
    text, (uid, job, reason, pre_cq, tee_cq) = REAL[name]
    p = parse_preemption_message(text)
    assert p is not None
    assert (p.preemptor_uid, p.preemptor_job_uid, p.reason) == (uid, job, reason)
    assert (p.preemptor_cluster_queue, p.preemptee_cluster_queue) == (pre_cq, tee_cq)
    assert preemptor_queue(text) == pre_cq


def test_writes_what_kueue_writes():
    text, _ = REAL["cohort-015"]
    assert preemption_message("wl-b1", "job-b1", kc.IN_COHORT_RECLAMATION, cohort_path(["tas-cohort-main", "tas-cq-b"]),
                              cohort_path(["tas-cohort-main", "tas-cq-a"])) == text
    assert preempted_workload_message("default", "low-priority-admitted", "low-priority-admitted-uid", "tas-main") \
        == "Preempted workload default/low-priority-admitted (UID: low-priority-admitted-uid) in ClusterQueue tas-main"


@pytest.mark.parametrize("reason", sorted(HUMAN_REASONS))
def test_round_trip(reason):
    pre, tee = cohort_path(["org", "research", "team-a"]), cohort_path(["org", "team-b"])
    text = preemption_message("9f0c-uid", "1b2d-job", reason, pre, tee)
    p = parse_preemption_message(text)
    assert p is not None
    assert (p.preemptor_uid, p.preemptor_job_uid, p.reason, p.reason_text) == \
        ("9f0c-uid", "1b2d-job", reason, HUMAN_REASONS[reason])
    assert (p.preemptor_path, p.preemptee_path) == (pre, tee)
    assert path_names(p.preemptor_path) == ["org", "research", "team-a"]
    assert preemptor_queue(text) == "team-a"


def test_a_reason_kueue_does_not_know_is_kept_in_words():
    p = parse_preemption_message(preemption_message("u", "j", "SomethingNew", "/cq", "/cq"))
    assert p is not None and p.reason == "" and p.reason_text == "SomethingNew"


def test_messages_without_a_preemptor_path():
    # the simulator writes an empty path when the preemptor is gone; older forms have no paths
    assert preemptor_queue(preemption_message("u", "j", kc.IN_CLUSTER_QUEUE, "", "/cq")) == ""
    short = parse_preemption_message("Preempted to accommodate a workload (UID: u) due to prioritization in the "
                                     "ClusterQueue")
    assert short is not None and short.preemptor_job_uid == "" and short.reason == kc.IN_CLUSTER_QUEUE
    assert short.preemptor_cluster_queue == ""
    for other in ("Exceeded the PodsReady timeout default/w", "", None):
        assert preemptor_queue(other) == ""


def test_paths():
    assert cohort_path(["cq"]) == "/cq"
    assert path_names("/a/b/") == ["a", "b"] and path_names("/") == [] and path_names("") == []


_CONFORMANCE = SHARED / "conformance"


def test_every_preemption_message_in_the_upstream_expectations():
    """Each such message upstream's tests expect parses, and writing it back from its parts gives
    its text up to the paths (events of newer releases append effective priorities)."""
    if not _CONFORMANCE.is_dir():
        pytest.skip("shared/conformance not available")
    seen = 0
    for path in sorted(_CONFORMANCE.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "Preempted to accommodate" not in text:
            continue
        for doc in yaml.safe_load_all(text):
            for msg in re.findall(r"Preempted to accommodate a workload[^\n']*", yaml.safe_dump(doc, width=10_000)):
                p = parse_preemption_message(msg)
                assert p is not None and p.reason, (path.name, msg)
                again = preemption_message(p.preemptor_uid, p.preemptor_job_uid, p.reason, p.preemptor_path,
                                           p.preemptee_path)
                assert msg.startswith(again), (path.name, msg)
                seen += 1
    assert seen


def test_simulated_victims_name_their_preemptors_queue(tmp_path):
    """The simulator's writer and the doctor's reader: each victim's message names a Workload of
    the snapshot, and the ClusterQueue its LocalQueue points at."""
    from kueue_doctor.api.load import load_paths
    from kueue_doctor.sim.incidents import incident_path
    from kueue_doctor.sim.scenario import load_scenario
    from kueue_doctor.sim.simulator import Simulator
    from kueue_doctor.sim.snapshot import write_snapshot

    write_snapshot(Simulator(load_scenario(str(incident_path("zombie-pod")))).run(5400.0), tmp_path)
    state = load_paths([tmp_path])
    by_uid = {w.meta.uid: w for w in state.workloads.values()}
    victims = [w for w in state.workloads.values() if w.is_true(kc.EVICTED)]
    assert victims
    for w in victims:
        for ctype in (kc.EVICTED, kc.PREEMPTED):
            p = parse_preemption_message(w.condition(ctype).message)
            assert p is not None and p.reason == w.condition(kc.PREEMPTED).reason
            pre = by_uid[p.preemptor_uid]
            assert preemptor_queue(w.condition(ctype).message) == \
                state.local_queues[(pre.meta.namespace, pre.queue_name)].cluster_queue
