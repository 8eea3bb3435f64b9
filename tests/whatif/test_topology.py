"""whatif on a TAS head that no rack can hold: the topology suggestion (required -> preferred),
applied to the snapshot's documents, admits it; the head alone, unchanged, does not."""
from __future__ import annotations

from tests.whatif.folders import Folder, check_suggestions, simulate


def test_required_rack_head_admits_once_it_may_spread(tmp_path):
    folder = Folder.read(simulate("topology-fragmentation", tmp_path / "snap"))
    heads = [k for k in folder.heads() if k.namespace == "team-train"]
    assert heads
    suggestions = check_suggestions(folder, heads[0])   # each admits once applied, and minimality checks
    kinds = [s["kind"] for s in suggestions]
    assert "topology" in kinds, kinds
    topo = next(s for s in suggestions if s["kind"] == "topology")
    pod_sets = topo["patches"][0]["mergePatch"]["spec"]["podSets"]
    assert all(ps.get("topologyRequest", {}).get("preferred") and "required" not in ps.get("topologyRequest", {})
               for ps in pod_sets)
    doc = folder.whatif(heads[0])
    assert not doc["admitsNow"]
    assert any("TAS pod set" in n for n in doc["notes"])
