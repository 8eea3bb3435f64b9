"""The fast Workload path builds exactly what the careful parser builds, or steps aside."""
from __future__ import annotations

from kueue_doctor.api.fastparse import fast_pod, fast_workload
from kueue_doctor.api.fields import Fields
from kueue_doctor.api.load import decode_documents, raw_objects, read_text
from kueue_doctor.api.parse import parse_pod, parse_workload
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


def test_fast_pod_path_matches_the_careful_parser():
    taken = total = 0
    for raw in dicts("Pod"):
        total += 1
        fast = fast_pod(raw)
        if fast is None:
            continue
        taken += 1
        assert fast == parse_pod(Fields(raw), "v1"), raw["metadata"].get("name")
    assert total > 200
    assert taken > total // 2
