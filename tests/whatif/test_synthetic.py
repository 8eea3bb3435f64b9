"""Small clusters that make one kind of change the answer: another flavor of the queue that
has room (``flavor``), a neighbour that lends nothing (``lendingLimit`` on another queue), and
memory searched in Mi steps. Each suggestion is applied to the YAML and checked as on the
incidents (admits; one step less does not)."""
from __future__ import annotations

import yaml

from kueue_doctor.keys import WorkloadKey
from tests.whatif.folders import Folder, check_suggestions

API = "kueue.x-k8s.io/v1beta2"
T0 = "2026-01-01T00:00:00Z"


def flavor(name, labels=None):
    return {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name},
            "spec": {"nodeLabels": labels} if labels else {}}


def cq(name, flavors, cohort=""):
    spec = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": sorted({r["name"] for f in flavors
                                                                                     for r in f["resources"]}),
                                                          "flavors": flavors}]}
    if cohort:
        spec["cohortName"] = cohort
    return [{"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec},
            {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "main", "namespace": name},
             "spec": {"clusterQueue": name}}]


def workload(ns, name, requests, admitted_on=None, selector=None):
    spec = {"containers": [{"name": "c", "resources": {"requests": requests}}]}
    if selector:
        spec["nodeSelector"] = selector
    w = {"apiVersion": API, "kind": "Workload",
         "metadata": {"name": name, "namespace": ns, "uid": f"{ns}-{name}", "creationTimestamp": T0},
         "spec": {"queueName": "main", "podSets": [{"name": "main", "count": 1, "template": {"spec": spec}}]}}
    if admitted_on:
        w["status"] = {"admission": {"clusterQueue": ns, "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": dict.fromkeys(requests, admitted_on), "resourceUsage": requests}]},
            "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "",
                            "lastTransitionTime": T0},
                           {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "",
                            "lastTransitionTime": T0}]}
    return w


def folder(tmp_path, objs) -> Folder:
    (tmp_path / "manifest.json").write_text('{"collectedAt": "2026-01-01T01:00:00Z"}')
    (tmp_path / "kueue.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    return Folder.read(tmp_path)


def test_another_flavor_with_room(tmp_path):
    objs = [flavor("a", {"pool": "a"}), flavor("b", {"pool": "b"}),
            *cq("team", [{"name": "a", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8"}]},
                         {"name": "b", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8"}]}]),
            workload("team", "running", {"nvidia.com/gpu": "8"}, admitted_on="a", selector={"pool": "a"}),
            workload("team", "pinned", {"nvidia.com/gpu": "4"}, selector={"pool": "a", "zone": "z1"})]
    f = folder(tmp_path, objs)
    key = WorkloadKey("team", "pinned")
    sugs = check_suggestions(f, key)
    (fl,) = [s for s in sugs if s["kind"] == "flavor"]
    assert fl["flavor"] == "b" and fl["flavors"] == {"main": {"nvidia.com/gpu": "b"}}
    spec = fl["patches"][0]["mergePatch"]["spec"]["podSets"][0]["template"]["spec"]
    # the flavor's label replaces the old one; a key no flavor uses is kept; the rest of the pod set stays
    assert spec["nodeSelector"] == {"pool": "b", "zone": "z1"}
    assert spec["containers"] == [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "4"}}}]
    (q,) = [s for s in sugs if s["kind"] == "quota"]
    assert q["changes"] == [{"resource": "nvidia.com/gpu", "from": "8", "to": "12", "step": "1"}]


def test_a_neighbour_that_lends_nothing(tmp_path):
    objs = [flavor("gpu"),
            *cq("small", [{"name": "gpu", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8",
                                                         "borrowingLimit": "8"}]}], cohort="co"),
            *cq("big", [{"name": "gpu", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "16",
                                                       "lendingLimit": "0"}]}], cohort="co"),
            workload("small", "running", {"nvidia.com/gpu": "6"}, admitted_on="gpu"),
            workload("small", "next", {"nvidia.com/gpu": "5"})]
    f = folder(tmp_path, objs)
    sugs = check_suggestions(f, WorkloadKey("small", "next"))
    lend = [s for s in sugs if s["kind"] == "quota" and s["field"] == "lendingLimit"]
    assert lend and lend[0]["object"] == {"kind": "ClusterQueue", "name": "big"}
    assert lend[0]["changes"] == [{"resource": "nvidia.com/gpu", "from": "0", "to": "3", "step": "1"}]
    own = next(s for s in sugs if s["kind"] == "quota" and s["field"] == "nominalQuota")
    assert own["changes"][0]["to"] == "11"


def test_memory_is_searched_in_mi_and_written_as_kubectl_writes_it(tmp_path):
    objs = [flavor("cpu"),
            *cq("team", [{"name": "cpu", "resources": [{"name": "cpu", "nominalQuota": "8"},
                                                       {"name": "memory", "nominalQuota": "16Gi"}]}]),
            workload("team", "running", {"cpu": "6", "memory": "15Gi"}, admitted_on="cpu"),
            workload("team", "next", {"cpu": "2500m", "memory": "1536Mi"})]
    f = folder(tmp_path, objs)
    sugs = check_suggestions(f, WorkloadKey("team", "next"))
    q = next(s for s in sugs if s["kind"] == "quota" and s["field"] == "nominalQuota")
    assert q["changes"] == [{"resource": "cpu", "from": "8", "to": "8500m", "step": "1m"},
                            {"resource": "memory", "from": "16Gi", "to": "16896Mi", "step": "1Mi"}]


def _finished(ns, name, requests, start, end):
    w = workload(ns, name, requests, admitted_on="a")
    for c in w["status"]["conditions"]:
        c["lastTransitionTime"] = start
    w["status"]["conditions"].append({"type": "Finished", "status": "True", "reason": "Succeeded", "message": "",
                                      "lastTransitionTime": end})
    return w


def test_a_workload_that_must_finish_gets_its_expected_and_latest_end(tmp_path):
    # snapshot at 01:00; the running workload was admitted at 00:00. Finished ones of the queue
    # ran 30m, 2h, 3h and 5h: of those that ran longer than its hour, the median is 3h, so about
    # 2h remain; its Job's activeDeadlineSeconds (4h) ends it 3h from now at the latest.
    gpu = {"nvidia.com/gpu": "8"}
    running = workload("team", "running", gpu, admitted_on="a")
    running["metadata"]["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": "running-job",
                                               "uid": "j1", "controller": True}]
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "running-job", "namespace": "team"},
           "spec": {"activeDeadlineSeconds": 4 * 3600, "template": {"spec": {"containers": []}}}}
    history = [_finished("team", f"done-{i}", gpu, start, end) for i, (start, end) in enumerate([
        ("2025-12-31T20:00:00Z", "2025-12-31T20:30:00Z"), ("2025-12-31T18:00:00Z", "2025-12-31T20:00:00Z"),
        ("2025-12-31T17:00:00Z", "2025-12-31T20:00:00Z"), ("2025-12-31T15:00:00Z", "2025-12-31T20:00:00Z")])]
    objs = [flavor("a"), *cq("team", [{"name": "a", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8"}]}]),
            running, job, *history, workload("team", "head", gpu)]
    f = folder(tmp_path, objs)
    doc = f.whatif(WorkloadKey("team", "head"))
    [fin] = [s for s in doc["suggestions"] if s["kind"] == "finish"]
    [w] = fin["workloads"]
    assert w["workload"] == "team/running"
    assert w["endsIn"] == 3 * 3600
    assert w["expectedEndIn"] == 2 * 3600
    assert "3 finished workloads of ClusterQueue team" in w["expectedFrom"]
    assert "expected to end in about 2h, within 3h at the latest" in fin["summary"]
