"""Every object file shipped with the project or in the shared data loads without error,
and kinds kueue-doctor does not read are skipped and counted, not rejected."""
from __future__ import annotations

from pathlib import Path

import pytest

from kueue_doctor.api.load import load_documents, load_paths, object_files
from tests.paths import REPO, SHARED

ROOTS = [REPO / "tests", REPO / "examples"] + ([SHARED] if SHARED.is_dir() else [])


def _valid_files() -> list[Path]:
    broken = REPO / "tests" / "broken"
    return [f for root in ROOTS if root.exists() for f in object_files(root)
            if broken not in f.parents]


FILES = _valid_files()


def test_there_are_files_to_check():
    assert len(FILES) > 100


@pytest.mark.parametrize("path", FILES, ids=[str(f.relative_to(f.parents[1])) for f in FILES])
def test_file_loads(path):
    state = load_paths([path])
    if REPO / "tests" / "conformance" in path.parents:
        # Scenario files hold their objects under "objects:"; none may be skipped as
        # unknown, or a conformance case would silently lose part of its cluster.
        assert not any("kueue.x-k8s.io" in what for what in state.skipped), state.skipped


def test_unknown_kinds_are_skipped_and_counted():
    docs = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "MultiKueueConfig", "metadata": {"name": "prov"}},
        {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "a"}},
        {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "b"}},
        # a known kind in a group kueue-doctor does not read is someone else's kind
        {"apiVersion": "example.com/v1", "kind": "Deployment", "metadata": {"name": "c"}},
        {"note": "not an object at all"},
    ]
    state = load_documents(docs)
    assert state.counts() == {"ResourceFlavor": 1}
    assert state.skipped == {"kueue.x-k8s.io/v1beta1 MultiKueueConfig": 1, "networking.k8s.io/v1 Ingress": 2,
                             "example.com/v1 Deployment": 1}
    # a document that is not an object is not a skipped object: its file is listed
    assert state.not_objects == ["<input>"]


def test_files_are_not_modified(tmp_path):
    f = tmp_path / "q.yaml"
    f.write_bytes(b"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: x}\n")
    before = f.read_bytes(), f.stat().st_mtime_ns
    load_paths([f])
    assert (f.read_bytes(), f.stat().st_mtime_ns) == before


def _folder_objects(state):
    return (sorted(state.workloads), sorted(state.nodes), sorted(state.cluster_queues), sorted(state.skipped.items()))


def test_json_yaml_and_a_mix_of_both_load_the_same_objects(tmp_path):
    """collect writes JSON Lists, kubectl -o yaml and the simulator YAML ones: a folder of either,
    or of both, holds the same objects."""
    import json

    import yaml

    from kueue_doctor.api.load import load_paths
    from tests.paths import INCIDENTS
    incident = next(p for p in sorted(INCIDENTS.iterdir()) if (p / "kueue.yaml").is_file())
    files = sorted(p for p in incident.iterdir() if p.suffix == ".yaml" and p.name != "ANSWER.yaml")
    as_json, mixed = tmp_path / "json", tmp_path / "mixed"
    as_json.mkdir()
    mixed.mkdir()
    for i, f in enumerate(files):
        docs = [d for d in yaml.safe_load_all(f.read_text()) if d is not None]
        (as_json / (f.stem + ".json")).write_text(json.dumps(docs[0] if len(docs) == 1 else
                                                             {"apiVersion": "v1", "kind": "List", "items": docs}))
        target = mixed / (f.stem + (".json" if i % 2 else ".yaml"))
        target.write_text((as_json / (f.stem + ".json")).read_text() if i % 2 else f.read_text())
    want = _folder_objects(load_paths(files))
    assert want[0] and want[1]
    assert _folder_objects(load_paths([as_json])) == want
    assert _folder_objects(load_paths([mixed])) == want


def test_a_list_s_raw_items_are_let_go_only_when_the_loader_owns_them():
    from kueue_doctor.api.load import add_documents
    from kueue_doctor.api.state import ClusterState
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}} for i in range(3)]}
    kept = {**doc, "items": list(doc["items"])}
    state = ClusterState()
    add_documents(state, [kept], "f.yaml")
    assert len(kept["items"]) == 3 and len(state.nodes) == 3  # a caller's documents stay whole
    state = ClusterState()
    add_documents(state, [doc], "f.yaml", consume=True)
    assert doc["items"] == [] and sorted(state.nodes) == ["n0", "n1", "n2"]


def test_loading_pauses_the_collector_and_freezes_what_it_built(tmp_path, monkeypatch):
    """No collector pass while a state is built (each would walk the whole growing heap for
    nothing), and what was built is out of its reach after; a collector that was off stays off."""
    import gc

    from kueue_doctor.api import load
    (tmp_path / "q.yaml").write_text("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n"
                                     "  name: gpu\n")
    collector_on = []
    parse = load.parse_object

    def watched(raw):
        collector_on.append(gc.isenabled())
        return parse(raw)
    monkeypatch.setattr(load, "parse_object", watched)
    frozen = gc.get_freeze_count()
    try:
        state = load_paths([tmp_path])
        assert collector_on == [False] and gc.isenabled()
        assert gc.get_freeze_count() > frozen
        gc.disable()
        load_paths([tmp_path])
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()
    assert "gpu" in state.resource_flavors
