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
    # every pod on those nodes belongs to a Workload: finishing them is the change, not moving pods
    assert "move" not in [x["kind"] for x in suggestions]


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


def _without_workloads(folder: Folder, namespace: str) -> Folder:
    """The folder with the namespace's Workloads deleted and their pods left running: pods Kueue
    does not manage (they still name their old Workload, as pods whose Workload is gone do)."""
    docs = copy.deepcopy(folder.docs)
    removed = 0
    for ds in docs.values():
        for d in ds:
            if isinstance(d, dict) and isinstance(d.get("items"), list):
                before = len(d["items"])
                d["items"] = [i for i in d["items"] if not (
                    i.get("kind") == "Workload" and i["metadata"].get("namespace") == namespace)]
                removed += before - len(d["items"])
    assert removed
    return Folder(folder.path, docs, folder.now)


def test_pods_kueue_does_not_manage_must_leave_one_rack(tmp_path):
    folder = _without_workloads(Folder.read(simulate("topology-fragmentation", tmp_path / "snap")), "team-serve")
    head = next(k for k in folder.heads() if k.namespace == "team-train")
    suggestions = check_suggestions(folder, head)   # moved off, it admits; any one pod left, it does not
    [move] = [x for x in suggestions if x["kind"] == "move"]
    assert move["patches"] == [] and move["minimal"] == "no-one-less"
    assert set(move["domain"]) == {BLOCK, RACK}
    # the 32-GPU job needs a whole rack: the rack's 4-GPU serving pods, all of one rack
    assert len(move["pods"]) == 4 and {b["requests"]["nvidia.com/gpu"] for b in move["pods"]} == {"4"}
    assert all(b["node"].startswith(f"h100-{move['domain'][RACK]}") for b in move["pods"])
    assert all(b["pod"].startswith("team-serve/") and b["owner"].startswith("Job/") for b in move["pods"])
    doc = folder.whatif(head)
    jsonschema.validate({"apiVersion": API_VERSION, "kind": "WhatIf", **doc}, schema("WhatIf"))
    from kueue_doctor.report.whatif_html import render
    page = render(doc)
    assert all(f"<td>{b['pod']}</td><td>{b['node']}</td>" in page for b in move["pods"])
    # no Workload of team-serve is left to finish
    assert all(w["clusterQueue"] != "team-serve" for x in suggestions if x["kind"] == "finish"
               for w in x["workloads"])


def test_move_tries_a_bounded_number_of_domains(tmp_path, monkeypatch):
    from kueue_doctor.whatif import bystanders
    folder = _without_workloads(Folder.read(simulate("topology-fragmentation", tmp_path / "snap")), "team-serve")
    head = next(k for k in folder.heads() if k.namespace == "team-train")
    monkeypatch.setattr(bystanders, "MAX_DOMAINS", 1)
    doc = folder.whatif(head)
    [move] = [x for x in doc["suggestions"] if x["kind"] == "move"]   # the one tried admits
    assert len(move["pods"]) == 4
    assert any("move: 3 of the 4 domains" in n for n in doc["notes"]), doc["notes"]
