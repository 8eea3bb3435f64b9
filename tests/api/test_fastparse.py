"""The fast Workload path builds exactly what the careful parser builds, or steps aside."""
from __future__ import annotations

import copy
import marshal

import pytest

from kueue_doctor.api import fastparse
from kueue_doctor.api.fastparse import fast_node, fast_pod, fast_workload
from kueue_doctor.api.fields import Fields
from kueue_doctor.api.load import decode_documents, raw_objects, read_text
from kueue_doctor.api.parse import (
    from_record,
    object_record,
    parse_node,
    parse_object,
    parse_pod,
    parse_workload,
    records_of,
)
from tests.paths import REPO


def dicts(kind: str):
    for folder in (REPO / "tests" / "conformance", REPO / "examples"):
        for path in sorted(folder.rglob("*.yaml")):
            if path.is_symlink() or "broken" in path.parts:
                continue
            for doc in decode_documents(read_text(path), str(path)):
                for raw in raw_objects(doc):
                    if isinstance(raw, dict) and raw.get("kind") == kind:
                        yield raw


def test_fast_path_matches_the_careful_parser():
    taken = total = 0
    for raw in dicts("Workload"):
        version = str(raw.get("apiVersion", "")).rpartition("/")[2]
        total += 1
        fast = fast_workload(raw, version)
        if fast is None:
            continue
        taken += 1
        assert fast == parse_workload(Fields(raw), version), raw["metadata"].get("name")
    assert total > 400
    assert taken > total // 2  # the fast path must actually serve the common shape


def test_fast_path_steps_aside_for_what_it_does_not_read():
    raw = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "n"},
           "spec": {"podSets": [{"name": "main", "count": 1, "template": {"spec": {
               "containers": [{"name": "c"}], "affinity": {"nodeAffinity": {}}}}}]}}
    assert fast_workload(raw, "v1beta2") is None
    raw["spec"]["podSets"][0]["template"]["spec"].pop("affinity")
    raw["spec"]["podSets"][0]["count"] = "2"  # the careful parser accepts digit strings; the fast one defers
    assert fast_workload(raw, "v1beta2") is None


@pytest.mark.parametrize(("kind", "fast_of", "careful_of", "at_least"), [
    ("Pod", fast_pod, parse_pod, 200), ("Node", fast_node, parse_node, 100)])
def test_fast_pod_and_node_paths_match_the_careful_parser(kind, fast_of, careful_of, at_least):
    taken = total = 0
    for raw in dicts(kind):
        total += 1
        fast = fast_of(raw)
        if fast is None:
            continue
        taken += 1
        assert fast == careful_of(Fields(raw), "v1"), raw["metadata"].get("name")
    assert total > at_least
    assert taken > total // 2


def test_a_record_sent_through_marshal_builds_what_parse_object_builds():
    # what a forked worker sends back (api/load.py stream_documents) for every object of the repository
    taken = 0
    for kind in ("Workload", "Pod", "Node"):
        for raw in dicts(kind):
            record = object_record(raw)
            if record is None:
                continue
            taken += 1
            assert from_record(marshal.loads(marshal.dumps(record))) == parse_object(raw), raw["metadata"].get("name")
    assert taken > 300


def test_records_of_leaves_what_has_no_record_as_decoded():
    wl = _plain()
    unserved = copy.deepcopy(wl)
    del unserved["metadata"]["uid"]   # parse_object checks it against the schema first
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"}}
    out = records_of([wl, unserved, cq, "text"])
    assert type(out[0]) is tuple and out[1:] == [unserved, cq, "text"]


def _plain(version: str = "v1beta2") -> dict:
    """A Workload in the shape a Job integration writes (fastparse's _PLAIN_* keys only)."""
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Workload",
            "metadata": {"name": "w", "namespace": "ns", "uid": "u", "resourceVersion": "7",
                         "creationTimestamp": "2026-01-01T00:00:00Z"},
            "spec": {"queueName": "lq", "priority": 3, "podSets": [{"name": "main", "count": 2, "template": {
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]}}}]},
            "status": {"admission": {"clusterQueue": "cq", "podSetAssignments": [{
                "name": "main", "count": 2, "flavors": {"cpu": "f"}, "resourceUsage": {"cpu": "4"}}]},
                "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                "message": "m", "lastTransitionTime": "2026-01-01T00:00:05Z"}]}}


def _set(raw: dict, path: str, value) -> dict:
    raw = copy.deepcopy(raw)
    *parents, last = path.split(".")
    at = raw
    for key in parents:
        at = at[int(key)] if isinstance(at, list) else at.setdefault(key, {})
    at[last] = value
    return raw


# every field a plain Workload lacks, each set to a value unlike its default, one at a time:
# the shape shortcut must step over to the full reading (and the full reading still be right)
_ODD = [
    ("metadata.labels", {"a": "b"}), ("metadata.annotations", {"x": "y"}), ("metadata.generation", 4),
    ("metadata.ownerReferences", [{"kind": "Job", "name": "j", "uid": "ju", "apiVersion": "batch/v1"}]),
    ("metadata.deletionTimestamp", "2026-01-02T00:00:00Z"), ("metadata.deletionGracePeriodSeconds", 9),
    ("metadata.resourceVersion", 8), ("metadata.namespace", None),
    ("spec.priorityClassRef", {"name": "high", "kind": "WorkloadPriorityClass"}),
    ("spec.priorityClassRef", {"name": "pod-high", "kind": "PriorityClass"}),
    ("spec.priorityClassName", "v1-name"), ("spec.priorityClassSource", "kueue.x-k8s.io/workloadpriorityclass"),
    ("spec.active", False), ("spec.active", None), ("spec.maximumExecutionTimeSeconds", 600),
    ("spec.podSets.0.minCount", 1), ("spec.podSets.0.topologyRequest", {}), ("spec.podSets.0.name", None),
    ("spec.podSets.0.count", None),
    ("spec.podSets.0.template.metadata", {"labels": {"l": "v"}}),
    ("spec.podSets.0.template.spec.nodeSelector", {"zone": "a"}),
    ("spec.podSets.0.template.spec.tolerations", [{"key": "k", "operator": "Exists", "effect": "NoSchedule"}]),
    ("spec.podSets.0.template.spec.nodeName", "n1"), ("spec.podSets.0.template.spec.priorityClassName", "p"),
    ("spec.podSets.0.template.spec.priority", 5), ("spec.podSets.0.template.spec.terminationGracePeriodSeconds", 0),
    ("spec.podSets.0.template.spec.schedulingGates", [{"name": "g"}]),
    ("spec.podSets.0.template.spec.containers", [{"name": "c", "restartPolicy": "Always",
                                                  "resources": {"limits": {"cpu": 3}, "requests": {"cpu": None}}}]),
    ("status.admissionChecks", []), ("status.reclaimablePods", []), ("status.requeueState", None),
    ("status.admission", None), ("status.conditions", None),
]


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
@pytest.mark.parametrize(("path", "value"), _ODD, ids=[f"{p}={v!r}"[:60] for p, v in _ODD])
def test_the_fast_path_reads_every_field_as_the_careful_parser(version, path, value):
    raw = _set(_plain(version), path, value)
    careful = parse_workload(Fields(raw), version)
    assert fast_workload(raw, version) == careful
    assert parse_object(raw) == careful


def test_the_plain_shape_is_taken_and_reads_as_the_careful_parser():
    for version in ("v1beta1", "v1beta2"):
        raw = _plain(version)
        assert fastparse._workload_record(raw, version) is not None
        assert fast_workload(raw, version) == parse_workload(Fields(raw), version)


@pytest.mark.parametrize(("path", "value"), [
    ("metadata.creationTimestamp", "yesterday"), ("spec.podSets.0.template.spec.containers.0.resources.requests.cpu", "2x"),
    ("status.conditions.0.lastTransitionTime", 5), ("spec.podSets.0.count", -1), ("metadata.labels", {"a": 1}),
])
def test_what_the_fast_path_cannot_vouch_for_goes_to_the_careful_parser(path, value):
    raw = _set(_plain(), path, value)
    assert fast_workload(raw, "v1beta2") is None and object_record(raw) is None


def _node() -> dict:
    """A Node as kubectl prints one (the fields the doctor reads, and some it does not)."""
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "gpu-1", "uid": "u", "resourceVersion": "9", "creationTimestamp": "2026-11-30T10:00:00Z",
                         "labels": {"pool": "gpu", "topology.kubernetes.io/zone": "z1"},
                         "annotations": {"node.alpha.kubernetes.io/ttl": "0"}},
            "spec": {"podCIDR": "10.0.0.0/24", "taints": [{"key": "nvidia.com/gpu", "value": "present",
                                                            "effect": "NoSchedule"}]},
            "status": {"capacity": {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu": "8", "pods": "110"},
                       "allocatable": {"cpu": "95500m", "memory": "1000Gi", "nvidia.com/gpu": 8},
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "lastHeartbeatTime": "2026-11-30T11:59:00Z",
                                       "lastTransitionTime": "2026-11-30T10:01:00Z"}],
                       "nodeInfo": {"kubeletVersion": "v1.31.0"}}}


_ODD_NODES = [
    ("metadata.namespace", "kube-system"), ("metadata.labels", None), ("metadata.annotations", {}),
    ("metadata.ownerReferences", [{"kind": "Machine", "name": "m"}]), ("metadata.deletionTimestamp", "2026-11-30T11:00:00Z"),
    ("spec", None), ("spec.taints", None), ("spec.taints", []), ("spec.taints.0.value", None), ("spec.taints.0.key", ""),
    ("spec.unschedulable", True), ("spec.unschedulable", None), ("status", None), ("status.capacity", None),
    ("status.allocatable", {"cpu": None}), ("status.conditions", None), ("status.conditions.0.reason", None),
    ("status.conditions.0.lastTransitionTime", None),
]


@pytest.mark.parametrize(("path", "value"), _ODD_NODES, ids=[f"{p}={v!r}"[:60] for p, v in _ODD_NODES])
def test_the_fast_node_path_reads_every_field_as_the_careful_parser(path, value):
    raw = _set(_node(), path, value)
    careful = parse_node(Fields(raw), "v1")
    assert fastparse.node_record(raw) is not None
    assert fast_node(raw) == careful and parse_object(raw) == careful
    assert from_record(marshal.loads(marshal.dumps(object_record(raw)))) == careful


@pytest.mark.parametrize(("path", "value"), [
    ("spec.taints.0.effect", "NoPlacement"), ("spec.taints.0.effect", None), ("spec.taints.0.key", None),
    ("spec.taints", ["x"]), ("spec.unschedulable", "true"), ("status.capacity.cpu", "lots"),
    ("metadata.labels", {"a": 1}), ("metadata.name", ""), ("status.conditions.0.type", None),
    ("metadata.creationTimestamp", "yesterday"), ("spec", []),
])
def test_what_the_fast_node_path_cannot_vouch_for_goes_to_the_careful_parser(path, value):
    raw = _set(_node(), path, value)
    assert fast_node(raw) is None and object_record(raw) is None
