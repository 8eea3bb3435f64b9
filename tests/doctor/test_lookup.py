"""doctor/lookup: the Workload a user means, by the name they know (its own, its Job's, its
PyTorchJob's, its pod group's, one of its Pods'), in the namespaces they mean."""
from __future__ import annotations

import pytest

from kueue_doctor.doctor.explain import explain
from kueue_doctor.doctor.lookup import KIND_WORDS, find_workload
from kueue_doctor.errors import InputError
from kueue_doctor.keys import WorkloadKey
from kueue_doctor.sources.snapshot import load_folder
from tests.paths import INCIDENTS

from .cluster import cluster_queue, flavor, job, local_queue, owned_by, pod, workload, write_folder

INCIDENT = INCIDENTS / "01-strictfifo-head-of-line-blocking"
OCCFLOW = WorkloadKey("perception", "job-occflow-ft-gc8ql-53ef6")     # owned by Job occflow-ft-gc8ql
PRETRAIN = WorkloadKey("fm", "pytorchjob-wm-pretrain-1b-r4-e7904")    # owned by PyTorchJob wm-pretrain-1b-r4
AUTOLABEL = WorkloadKey("labeling", "job-autolabel-2zn984-9ce5b")
CLOSEDLOOP = WorkloadKey("simulation", "closedloop-tg4ql")             # a pod group; its pods have no annotation


@pytest.fixture(scope="module")
def incident():
    return load_folder(str(INCIDENT)).state


def miss(state, ref: str, namespace: str | None = None, all_namespaces: bool = False, **kw) -> str:
    with pytest.raises(InputError) as e:
        find_workload(state, ref, namespace, all_namespaces, **kw)
    text = str(e.value)
    assert "\n" not in text
    return text


# -- the incident folder: every form of ref ------------------------------------------------------

@pytest.mark.parametrize(("ref", "namespace", "key"), [
    ("job-occflow-ft-gc8ql-53ef6", None, OCCFLOW),                  # the Workload's own name
    ("perception/job-occflow-ft-gc8ql-53ef6", None, OCCFLOW),       # legacy NS/NAME
    ("job-occflow-ft-gc8ql-53ef6", "perception", OCCFLOW),
    ("wl/job-occflow-ft-gc8ql-53ef6", None, OCCFLOW),
    ("workloads.kueue.x-k8s.io/job-occflow-ft-gc8ql-53ef6", "perception", OCCFLOW),
    ("occflow-ft-gc8ql", None, OCCFLOW),                            # the Job's name, via ownerReferences
    ("occflow-ft-gc8ql", "perception", OCCFLOW),
    ("perception/occflow-ft-gc8ql", None, OCCFLOW),
    ("job/occflow-ft-gc8ql", "perception", OCCFLOW),
    ("jobs/occflow-ft-gc8ql", None, OCCFLOW),
    ("jobs.batch/occflow-ft-gc8ql", None, OCCFLOW),
    ("Job/perception/occflow-ft-gc8ql", None, OCCFLOW),             # as the messages print objects
    ("wm-pretrain-1b-r4", None, PRETRAIN),
    ("pytorchjob/wm-pretrain-1b-r4", "fm", PRETRAIN),
    ("pytorchjobs.kubeflow.org/wm-pretrain-1b-r4", None, PRETRAIN),
    ("wm-pretrain-1b-r4-worker-1", None, PRETRAIN),                 # a Pod: its workload annotation
    ("pod/fm/wm-pretrain-1b-r4-master-0", None, PRETRAIN),
    ("autolabel-2zn984-0-hzw77", "labeling", AUTOLABEL),            # a Job's Pod
    ("closedloop-tg4ql", None, CLOSEDLOOP),
    ("podgroup/closedloop-tg4ql", None, CLOSEDLOOP),                # the pod-group-name label
    ("pod-group/simulation/closedloop-tg4ql", None, CLOSEDLOOP),
    ("closedloop-tg4ql-1", None, CLOSEDLOOP),                       # a Pod the Workload owns
])
def test_each_form_resolves_on_the_incident(incident, ref, namespace, key):
    got = find_workload(incident, ref, namespace)
    assert got == key and type(got) is WorkloadKey


def test_a_gathered_snapshot_is_read_as_its_state():
    assert find_workload(load_folder(str(INCIDENT)), "occflow-ft-gc8ql", None) == OCCFLOW


def test_kind_words():
    for word in ("job", "jobs", "jobs.batch", "jobset", "jobsets.jobset.x-k8s.io", "rayjob", "raycluster",
                 "pytorchjob", "tfjob", "mpijob", "xgboostjob", "paddlejob", "jaxjob", "trainjob", "pod", "pods",
                 "podgroup", "pod-group", "appwrapper", "leaderworkerset", "lws", "statefulset", "deployment",
                 "workload", "wl"):
        assert word in KIND_WORDS, word
    assert KIND_WORDS["jobsets.jobset.x-k8s.io"] == "JobSet" and KIND_WORDS["lws"] == "LeaderWorkerSet"


def test_the_other_namespace_hint(incident):
    assert miss(incident, "occflow-ft-gc8ql", "planning") == (
        "no Workload named 'occflow-ft-gc8ql', nor a job, pod or pod group of one, in namespace planning "
        "(54 Workloads read); found in namespace perception: use -n perception")


def test_did_you_mean(incident):
    assert miss(incident, "occflow-ft-gc8q") == (
        "no Workload named 'occflow-ft-gc8q', nor a job, pod or pod group of one, in any namespace "
        "(54 Workloads read); did you mean job/perception/occflow-ft-gc8ql, perception/job-occflow-ft-gc8ql-53ef6?")
    assert miss(incident, "job/wm-pretrain-1b-r5") == (
        "no Job named 'wm-pretrain-1b-r5' in any namespace (54 Workloads read)")   # only Jobs are suggested
    assert miss(incident, "pytorchjob/wm-pretrain-1b-r5").endswith("did you mean pytorchjob/fm/wm-pretrain-1b-r4?")


def test_the_name_under_another_kind_is_suggested(incident):
    assert miss(incident, "rayjob/occflow-ft-gc8ql") == (
        "no RayJob named 'occflow-ft-gc8ql' in any namespace (54 Workloads read); "
        "did you mean job/perception/occflow-ft-gc8ql?")
    assert miss(incident, "workload/occflow-ft-gc8ql").startswith(
        "no Workload named 'occflow-ft-gc8ql' in any namespace (54 Workloads read); "
        "did you mean job/perception/occflow-ft-gc8ql")


def test_all_namespaces_overrides_the_namespace(incident):
    assert find_workload(incident, "occflow-ft-gc8ql", "planning", all_namespaces=True) == OCCFLOW
    assert find_workload(incident, "occflow-ft-gc8ql", None, all_namespaces=True) == OCCFLOW


def test_a_namespace_prefix_conflicts_with_another_namespace(incident):
    assert miss(incident, "perception/occflow-ft-gc8ql", "planning") == (
        "'perception/occflow-ft-gc8ql' names namespace perception, but -n planning was given")
    assert find_workload(incident, "perception/occflow-ft-gc8ql", "perception") == OCCFLOW
    # the context's namespace is a default, not a conflict
    assert find_workload(incident, "perception/occflow-ft-gc8ql", None, default_namespace="planning") == OCCFLOW
    assert miss(incident, "occflow-ft-gc8ql", None, default_namespace="planning").endswith(
        "found in namespace perception: use -n perception")


def test_a_pod_kueue_does_not_manage(incident):
    assert miss(incident, "nvidia-dcgm-exporter-4p6cd") == (
        "Pod gpu-operator/nvidia-dcgm-exporter-4p6cd has no Workload: it has no kueue.x-k8s.io/queue-name label "
        "and its owner daemonset/gpu-operator/nvidia-dcgm-exporter has no Workload: Kueue does not manage it")


@pytest.mark.parametrize(("ref", "problem"), [
    ("", "expected [KIND/]NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME"),
    ("team-a/", "expected [KIND/]NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME"),
    ("/x", "expected [KIND/]NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME"),
    ("job/a/b/c", "expected [KIND/]NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME"),
    ("team-a/a/b", "'team-a' is not a kind"),
])
def test_malformed_refs(incident, ref, problem):
    assert problem in miss(incident, ref)


def test_explain_takes_a_resolved_key():
    snap = load_folder(str(INCIDENT))
    out = explain(snap, find_workload(snap.state, "occflow-ft-gc8ql", None))
    assert out["workload"] == str(OCCFLOW)
    assert out["chain"][0]["text"].startswith(f"{OCCFLOW} is ")


# -- built folders: ambiguity, Jobs without Workloads, namespaces that look like kinds -------------

BASE = [flavor("f", {}), cluster_queue("q", {"f": 8}), local_queue("team-a", "lq", "q"),
        local_queue("team-b", "lq", "q")]


def state_of(tmp_path, objects):
    return load_folder(str(write_folder(tmp_path, BASE + objects))).state


def test_a_name_in_two_namespaces(tmp_path):
    st = state_of(tmp_path, [
        workload("team-a", "train", "lq", 1),
        owned_by(workload("team-b", "job-train-1a2b3", "lq", 1), "Job", "train", "uid-b"),
    ])
    expected = ("'train' exists in namespaces team-a, team-b (team-a/train, job/team-b/train): give -n NAMESPACE")
    assert miss(st, "train") == expected
    assert miss(st, "train", all_namespaces=True) == expected
    assert find_workload(st, "train", "team-a") == WorkloadKey("team-a", "train")
    assert find_workload(st, "train", "team-b") == WorkloadKey("team-b", "job-train-1a2b3")
    assert find_workload(st, "job/train", None) == WorkloadKey("team-b", "job-train-1a2b3")
    # a namesake without a Workload in another namespace is no ambiguity
    st = state_of(tmp_path, [owned_by(workload("team-b", "job-train-1a2b3", "lq", 1), "Job", "train", "uid-b"),
                             job("team-a", "train", uid="uid-a")])
    assert find_workload(st, "train", None) == WorkloadKey("team-b", "job-train-1a2b3")
    assert miss(st, "train", "team-a").startswith("Job team-a/train has no Workload: it has no kueue.x-k8s.io/")
    st = state_of(tmp_path, [job("team-b", "train", uid="uid-b"), job("team-a", "train", uid="uid-a")])
    assert miss(st, "train") == (
        "'train' exists in namespaces team-a, team-b (job/team-a/train, job/team-b/train): give -n NAMESPACE")


def test_the_workload_comes_first_then_kinds_must_be_told_apart(tmp_path):
    st = state_of(tmp_path, [
        owned_by(workload("team-a", "job-foo-11111", "lq", 1), "Job", "foo", "u1"),
        owned_by(workload("team-a", "pytorchjob-foo-22222", "lq", 1), "PyTorchJob", "foo", "u2",
                 api_version="kubeflow.org/v1"),
        owned_by(workload("team-a", "job-foo-11111-x", "lq", 1), "Job", "job-foo-11111", "u3"),
    ])
    assert miss(st, "foo") == (
        "'foo' names 2 objects in namespace team-a: job/team-a/foo (Workload team-a/job-foo-11111), "
        "pytorchjob/team-a/foo (Workload team-a/pytorchjob-foo-22222): give the kind, e.g. job/foo")
    assert find_workload(st, "job/foo", None) == WorkloadKey("team-a", "job-foo-11111")
    assert find_workload(st, "pytorchjob/foo", None) == WorkloadKey("team-a", "pytorchjob-foo-22222")
    # a Workload of the name is taken before a Job of the same name
    assert find_workload(st, "job-foo-11111", None) == WorkloadKey("team-a", "job-foo-11111")
    assert find_workload(st, "job/job-foo-11111", None) == WorkloadKey("team-a", "job-foo-11111-x")


def test_a_suspended_job_with_a_queue_and_no_workload(tmp_path):
    st = state_of(tmp_path, [job("team-a", "train", uid="u1", queue="lq")])
    assert miss(st, "train") == (
        "Job team-a/train has no Workload: it asks for LocalQueue team-a/lq and is suspended, but Kueue has not "
        "created its Workload: check the Kueue controller (that it runs, its log, the batch/job integration "
        "enabled)")
    assert miss(st, "job/train", "team-a") == miss(st, "train")
    st = state_of(tmp_path, [job("team-a", "train", uid="u1", queue="nope")])
    assert "it asks for LocalQueue team-a/nope (not in the snapshot) and is suspended, but" in miss(st, "train")


def test_a_job_without_the_queue_name_label(tmp_path):
    st = state_of(tmp_path, [job("team-a", "train", uid="u1", suspend=False)])
    assert miss(st, "team-a/train") == (
        "Job team-a/train has no Workload: it has no kueue.x-k8s.io/queue-name label, so Kueue does not manage it "
        "(label it with a LocalQueue of namespace team-a)")


def test_a_job_is_matched_by_uid_not_an_older_namesakes_workload(tmp_path):
    old = owned_by(workload("team-a", "job-train-aaaaa", "lq", 1), "Job", "train", "old-uid")
    new = owned_by(workload("team-a", "job-train-bbbbb", "lq", 1), "Job", "train", "new-uid")
    st = state_of(tmp_path, [old, new, job("team-a", "train", uid="new-uid", queue="lq")])
    assert find_workload(st, "train", None) == WorkloadKey("team-a", "job-train-bbbbb")
    # the current Job has no Workload yet: the old one is not taken for it (kubernetes-sigs/kueue#1789)
    st = state_of(tmp_path, [old, job("team-a", "train", uid="new-uid", queue="lq")])
    assert miss(st, "train").endswith(
        "; team-a/job-train-aaaaa belongs to an older Job of that name, not to this one (uid new-uid; "
        "kubernetes-sigs/kueue#1789)")
    # by the job-uid label too
    labelled = workload("team-a", "job-train-ccccc", "lq", 1)
    labelled["metadata"]["labels"] = {"kueue.x-k8s.io/job-uid": "new-uid"}
    st = state_of(tmp_path, [old, labelled, job("team-a", "train", uid="new-uid", queue="lq")])
    assert find_workload(st, "job/team-a/train", None) == WorkloadKey("team-a", "job-train-ccccc")


def test_a_namespace_named_like_a_kind(tmp_path):
    objects = [local_queue("job", "lq", "q"), workload("job", "foo", "lq", 1),
               owned_by(workload("team-a", "job-bar-12345", "lq", 1), "Job", "bar", "u1")]
    st = state_of(tmp_path, objects)
    # "job" is a namespace with a Workload foo: the namespace
    assert find_workload(st, "job/foo", None) == WorkloadKey("job", "foo")
    # namespace job has no Workload bar: "job" is the kind
    assert find_workload(st, "job/bar", None) == WorkloadKey("team-a", "job-bar-12345")
    assert miss(st, "job/baz") == (
        "job/baz: 'job' read as the kind Job, not the namespace job (which has no Workload baz); "
        "no Job named 'baz' in any namespace (2 Workloads read); did you mean job/team-a/bar?")


def test_pods_up_their_owners(tmp_path):
    # a JobSet's Job's pod without the workload annotation: Pod -> Job -> JobSet -> its Workload
    js = owned_by(workload("team-a", "jobset-trainer-12345", "lq", 2), "JobSet", "trainer", "js-uid",
                  api_version="jobset.x-k8s.io/v1alpha2")
    child = owned_by(job("team-a", "trainer-workers-0", uid="j-uid"), "JobSet", "trainer", "js-uid",
                     api_version="jobset.x-k8s.io/v1alpha2")
    p = owned_by(pod("team-a", "trainer-workers-0-0-abcde", "", 1), "Job", "trainer-workers-0", "j-uid")
    # a Deployment's pods, one Workload each (Kueue's pod integration): the ReplicaSet's name less the hash
    deploy = [owned_by(workload("team-a", f"pod-web-7d9f8-{i}-00000", "lq", 1), "Pod", f"web-7d9f8-{i}", f"p{i}",
                       api_version="v1")
              for i in ("x", "y")]
    pods = [owned_by(pod("team-a", f"web-7d9f8-{i}", "", 1, labels={"pod-template-hash": "7d9f8"}), "ReplicaSet",
                     "web-7d9f8", "rs-uid", api_version="apps/v1") for i in ("x", "y")]
    st = state_of(tmp_path, [js, child, p, *deploy, *pods])
    assert find_workload(st, "trainer-workers-0-0-abcde", None) == WorkloadKey("team-a", "jobset-trainer-12345")
    assert find_workload(st, "jobset/trainer", None) == WorkloadKey("team-a", "jobset-trainer-12345")
    assert find_workload(st, "trainer-workers-0", None) == WorkloadKey("team-a", "jobset-trainer-12345")
    assert find_workload(st, "web-7d9f8-y", None) == WorkloadKey("team-a", "pod-web-7d9f8-y-00000")
    assert miss(st, "deploy/web") == (
        "Deployment team-a/web has 2 Workloads: team-a/pod-web-7d9f8-x-00000, team-a/pod-web-7d9f8-y-00000: "
        "name one of them")


def test_a_pod_group_by_its_label(tmp_path):
    # the group's Workload is named after the group, its pods carry the label only
    labels = {"kueue.x-k8s.io/pod-group-name": "sim", "kueue.x-k8s.io/queue-name": "lq"}
    st = state_of(tmp_path, [workload("team-a", "sim", "lq", 1, count=2),
                             pod("team-a", "sim-0", "", 1, labels=labels), pod("team-a", "sim-1", "", 1, labels=labels)])
    assert find_workload(st, "podgroup/sim", None) == WorkloadKey("team-a", "sim")
    assert find_workload(st, "sim-1", None) == WorkloadKey("team-a", "sim")
    # no Workload yet: the group's own message
    st = state_of(tmp_path, [pod("team-a", "sim-0", "", 1, labels=labels)])
    assert miss(st, "podgroup/sim") == (
        "pod group team-a/sim has no Workload: pods carry its kueue.x-k8s.io/pod-group-name label, but Kueue has "
        "not created its Workload: check the Kueue controller (that it runs, its log, the pod integration enabled, "
        "every pod of the group created with the kueue.x-k8s.io/queue-name label)")
    assert miss(st, "sim-0") == (
        "Pod team-a/sim-0 has no Workload: it carries Kueue's labels, but Kueue has not created its Workload: check "
        "the Kueue controller (that it runs, its log, the pod integration enabled)")
