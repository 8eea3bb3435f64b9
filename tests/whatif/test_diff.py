"""``kueue-doctor diff DIR -f proposed.yaml`` on the shared head-of-line incident: a quota cut
below running usage, a move of quota that forces preemptions, a raise that restores the
violating queue's guarantee, neutral changes, and bad input (issue 15's done-when)."""
from __future__ import annotations

import copy
import json

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.commands.output import API_VERSION, EXIT_BAD_INPUT, EXIT_FOUND, EXIT_OK, schema
from tests.paths import INCIDENTS

HOL = INCIDENTS / "01-strictfifo-head-of-line-blocking"
HEAD = "perception/pytorchjob-bevfusion-pretrain-r12-92dbb"
GPU = 2   # index of nvidia.com/gpu in the queues' h200 flavor


def objects() -> dict[tuple[str, str], dict]:
    items = yaml.safe_load((HOL / "kueue.yaml").read_text())["items"]
    return {(i["kind"], i["metadata"]["name"]): i for i in items}


def queue(name: str, status: bool = False, **nominal: str) -> dict:
    """ClusterQueue ``name`` as written, without status (as a user's manifest has it), with the
    h200 quotas given (resource index -> nominalQuota) changed."""
    obj = copy.deepcopy(objects()[("ClusterQueue", name)])
    if not status:
        obj.pop("status")
    res = obj["spec"]["resourceGroups"][0]["flavors"][0]["resources"]
    for field_index, value in nominal.items():
        field, i = field_index.rsplit("_", 1)
        res[int(i)][field] = value
    return obj


def run(tmp_path, *docs, fmt="json", extra=()):
    f = tmp_path / "proposed.yaml"
    f.write_text(yaml.safe_dump_all(list(docs)))
    r = CliRunner().invoke(cli, ["diff", str(HOL), "-f", str(f), "-o", fmt, *extra], catch_exceptions=False)
    doc = json.loads(r.stdout) if fmt == "json" and r.exit_code in (EXIT_OK, EXIT_FOUND) else None
    if doc is not None:
        assert (doc["apiVersion"], doc["kind"]) == (API_VERSION, "SchedulingDiff")
        jsonschema.validate(doc, schema("SchedulingDiff"))
    return r, doc


def test_a_cut_below_running_usage_breaks_the_guarantee_and_exits_1(tmp_path):
    # planning runs 48 GPUs on a nominal 48; cut to 24, with no borrowing room (borrowingLimit 0)
    r, doc = run(tmp_path, queue("planning", nominalQuota_2="24"))
    assert r.exit_code == EXIT_FOUND
    assert doc["breaks"] is True
    [g] = doc["guarantees"]
    assert (g["clusterQueue"], g["change"], g["before"], g["after"]) == ("planning", "broken", "holds", "over-nominal")
    assert [r for r in doc["breakReasons"] if "ClusterQueue planning" in r]
    assert g["overNominal"] == ["h200/nvidia.com/gpu"]
    [q] = doc["quota"]
    assert (q["clusterQueue"], q["nominalBefore"], q["nominalAfter"], q["usage"], q["belowUsage"]) == \
        ("planning", "48", "24", "48", True)
    # Kueue evicts nothing on a quota change, and no pending head in the cohort may reclaim: the
    # perception head still needs to borrow, and borrowWithinCohort is Never
    assert doc["preempted"] == [] and doc["admitted"] == []


def test_moving_quota_below_usage_reports_the_preemptions_it_forces(tmp_path):
    # the same cut, with the quota given to perception: its head now fits its nominal quota and
    # reclaims what planning runs beyond its own
    r, doc = run(tmp_path, queue("planning", nominalQuota_2="24"),
                 queue("perception", nominalQuota_0="1152", nominalQuota_1="11520Gi", nominalQuota_2="48"))
    assert r.exit_code == EXIT_FOUND and doc["breaks"] is True
    victims = doc["preempted"]
    assert victims and {v["clusterQueue"] for v in victims} == {"planning"}
    assert all(not v["readmitted"] for v in victims)
    assert HEAD in {a["workload"] for a in doc["admitted"]}
    assert {(g["clusterQueue"], g["change"]) for g in doc["guarantees"]} >= {("perception", "restored")}
    heads = {h["clusterQueue"]: h for h in doc["headOrder"]}
    assert heads["perception"]["headBefore"] == HEAD and heads["perception"]["headAfter"] != HEAD
    text = CliRunner().invoke(cli, ["diff", str(HOL), "-f", str(tmp_path / "proposed.yaml")])
    assert text.exit_code == EXIT_FOUND and "BREAKS" in text.stdout
    assert all(v["workload"] in text.stdout for v in victims) and "\x1b[" not in text.stdout


def test_a_raise_of_the_violating_queue_restores_its_guarantee(tmp_path):
    r, doc = run(tmp_path, queue("perception", nominalQuota_2="48"))
    assert [(g["clusterQueue"], g["change"], g["before"], g["after"]) for g in doc["guarantees"]] == \
        [("perception", "restored", "violated", "holds")]
    assert HEAD in {a["workload"] for a in doc["admitted"]} and doc["preempted"] == []
    # the folder's nominal GPU quotas already add up to its 20 h200 nodes' 160 GPUs: any raise
    # promises more than the nodes hold, and that alone makes the exit status 1
    [gpu] = [c for c in doc["capacity"] if c["resource"] == "nvidia.com/gpu"]
    assert (gpu["nominalBefore"], gpu["nominalAfter"], gpu["capacityAfter"], gpu["shortAfter"]) == \
        ("160", "184", "160", "24")
    assert gpu["shortGrows"] and r.exit_code == EXIT_FOUND
    # and the verdict says so, in JSON and in text
    assert len(doc["breakReasons"]) == 1 and "flavor h200" in doc["breakReasons"][0]
    text = CliRunner().invoke(cli, ["diff", str(HOL), "-f", str(tmp_path / "proposed.yaml")])
    assert doc["breakReasons"][0] in " ".join(text.stdout.split())


def test_allow_overcommit_reports_the_shortfall_without_failing(tmp_path):
    r, doc = run(tmp_path, queue("perception", nominalQuota_2="48"), extra=["--allow-overcommit"])
    assert r.exit_code == EXIT_OK and doc["breaks"] is False and doc["breakReasons"] == []
    assert next(c for c in doc["capacity"] if c["resource"] == "nvidia.com/gpu")["shortGrows"]
    # a broken guarantee still fails with it
    r, doc = run(tmp_path, queue("planning", nominalQuota_2="24"), extra=["--allow-overcommit"])
    assert r.exit_code == EXIT_FOUND and doc["breaks"] is True


@pytest.mark.parametrize("change", ["same", "same-with-status", "label", "flavor"])
def test_a_neutral_change_reports_nothing_and_exits_0(tmp_path, change):
    if change == "flavor":
        obj = copy.deepcopy(objects()[("ResourceFlavor", "h200")])
    else:
        obj = queue("perception", status=change == "same-with-status")
    if change == "label":
        obj["metadata"].setdefault("labels", {})["team"] = "perception"
    r, doc = run(tmp_path, obj)
    assert r.exit_code == EXIT_OK, r.output
    assert doc["breaks"] is False and doc["breakReasons"] == []
    for k in ("admitted", "preempted", "notAdmitted", "guarantees", "headOrder", "quota", "capacity"):
        assert doc[k] == [], k
    assert [o["action"] for o in doc["objects"]] == (["configured"] if change == "label" else ["unchanged"])
    text = CliRunner().invoke(cli, ["diff", str(HOL), "-f", str(tmp_path / "proposed.yaml")])
    assert text.exit_code == EXIT_OK and "no scheduling change" in text.stdout


def test_a_list_document_is_read(tmp_path):
    items = [queue("planning", nominalQuota_2="24"),
             queue("perception", nominalQuota_0="1152", nominalQuota_1="11520Gi", nominalQuota_2="48")]
    r, doc = run(tmp_path, {"apiVersion": "v1", "kind": "List", "items": items})
    assert r.exit_code == EXIT_FOUND and [o["name"] for o in doc["objects"]] == ["planning", "perception"]
    assert doc["preempted"] and ("perception", "restored") in {(g["clusterQueue"], g["change"]) for g in doc["guarantees"]}


@pytest.mark.parametrize(("bad", "words"), [
    ("quantity", ["proposed.yaml", "ClusterQueue/planning", "nominalQuota"]),
    ("kind", ["proposed.yaml", "Workload/", "kind"]),
    ("yaml", ["proposed.yaml", "invalid YAML"]),
])
def test_bad_input_exits_2_with_one_line(tmp_path, bad, words):
    f = tmp_path / "proposed.yaml"
    if bad == "quantity":
        f.write_text(yaml.safe_dump(queue("planning", nominalQuota_2="twenty")))
    elif bad == "kind":
        f.write_text(yaml.safe_dump({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                                     "metadata": {"name": "w", "namespace": "ns"}, "spec": {}}))
    else:
        f.write_text("kind: ClusterQueue\n  metadata: [\n")
    r = CliRunner().invoke(cli, ["diff", str(HOL), "-f", str(f)])
    assert r.exit_code == EXIT_BAD_INPUT
    err = r.stderr.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in r.output
    assert all(w in err for w in words), err


def test_a_priority_class_value_reaches_the_workloads_that_name_it(tmp_path):
    # Kueue v0.16+ (the folder runs v0.18.4) copies the new value into their spec.priority: the
    # perception-eval workloads (class batch, 100) then go before the blocked head and fit
    wpc = copy.deepcopy(objects()[("WorkloadPriorityClass", "batch")])
    wpc["value"] = 5000
    r, doc = run(tmp_path, wpc)
    assert r.exit_code == EXIT_OK and doc["preempted"] == []
    admitted = {a["workload"] for a in doc["admitted"]}
    assert admitted and all(w.startswith("perception-eval/") for w in admitted)


def test_a_flavor_that_selects_no_node_any_more_exits_1(tmp_path):
    flavor = copy.deepcopy(objects()[("ResourceFlavor", "h200")])
    labels = flavor["spec"]["nodeLabels"]
    labels[next(iter(labels))] = "no-such-node-group"
    r, doc = run(tmp_path, flavor)
    assert r.exit_code == EXIT_FOUND and doc["breaks"] is True
    gpu = {c["resource"]: c for c in doc["capacity"] if c["flavor"] == "h200"}["nvidia.com/gpu"]
    assert gpu["capacityAfter"] == "0" and gpu["shortGrows"] is True
    assert doc["admitted"] == doc["preempted"] == []   # quota alone: the engine does not look at nodes
