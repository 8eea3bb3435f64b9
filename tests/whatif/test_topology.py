"""whatif on a TAS head that no rack can hold: the topology and finish suggestions, applied to the
snapshot's documents, admit it; the head alone, unchanged, does not. The nearest looser level still
required (rack -> block) is the smaller change; a Topology without a level above the rack leaves
only required -> preferred."""
from __future__ import annotations

import copy

import jsonschema

from kueue_doctor.commands.output import API_VERSION, schema
from tests.whatif.folders import Folder, check_suggestions, simulate

BLOCK, RACK = "example.com/topology-block", "example.com/topology-rack"


def _topology(suggestions):
    kinds = [s["kind"] for s in suggestions]
    assert "topology" in kinds, kinds
    topo = next(s for s in suggestions if s["kind"] == "topology")
    [ps] = topo["patches"][0]["mergePatch"]["spec"]["podSets"]
    return topo, ps.get("topologyRequest", {})


def test_required_rack_head_admits_once_held_to_a_block(tmp_path):
    folder = Folder.read(simulate("topology-fragmentation", tmp_path / "snap"))
    heads = [k for k in folder.heads() if k.namespace == "team-train"]
    assert heads
    suggestions = check_suggestions(folder, heads[0])   # each admits once applied, and minimality checks
    topo, request = _topology(suggestions)
    assert topo["mode"] == "required" and request == {"required": BLOCK}
    assert "required example.com/topology-block instead of example.com/topology-rack" in topo["summary"]
    # the racks are held by another team's workloads on the same nodes (another flavor, another
    # tree): finishing them is searched too, and applied as patches it admits the head
    [finish] = [x for x in suggestions if x["kind"] == "finish"]
    assert {w["clusterQueue"] for w in finish["workloads"]} == {"team-serve"}
    doc = folder.whatif(heads[0])
    jsonschema.validate({"apiVersion": API_VERSION, "kind": "WhatIf", **doc}, schema("WhatIf"))
    assert not doc["admitsNow"]
    assert any("TAS pod set" in n for n in doc["notes"])


def test_without_a_level_above_the_rack_it_may_spread(tmp_path):
    folder = Folder.read(simulate("topology-fragmentation", tmp_path / "snap"))
    docs = copy.deepcopy(folder.docs)
    found = 0
    for ds in docs.values():
        for d in ds:
            for item in d.get("items", [d]) if isinstance(d, dict) else []:
                if isinstance(item, dict) and item.get("kind") == "Topology":
                    item["spec"]["levels"] = [lvl for lvl in item["spec"]["levels"] if lvl["nodeLabel"] != BLOCK]
                    found += 1
    assert found
    folder = Folder(folder.path, docs, folder.now)
    head = next(k for k in folder.heads() if k.namespace == "team-train")
    topo, request = _topology(check_suggestions(folder, head))
    assert topo["mode"] == "preferred" and request.get("preferred") == RACK and "required" not in request
