"""A step passes only on evidence that could have failed it: folders without Kueue objects
are `unknown`, exit 4, with one line on stderr, and nothing says "No guarantee violation"."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli

from .cluster import cluster_queue, flavor, local_queue, node, workload, write_folder

DESCRIBE = """Name:         perception
Namespace:
Labels:       <none>
API Version:  kueue.x-k8s.io/v1beta2
Kind:         ClusterQueue
Spec:
  Queueing Strategy:  StrictFIFO
Status:
  Pending Workloads:  6
"""


def run(folder, *args):
    return CliRunner().invoke(cli, ["diagnose", str(folder), *args])


def empty(tmp_path):
    (tmp_path / "empty").mkdir()
    return tmp_path / "empty"


def describe_text(tmp_path):
    d = tmp_path / "described"
    d.mkdir()
    (d / "clusterqueue-perception.txt").write_text(DESCRIBE)
    (d / "workloads.txt").write_text("NAME   QUEUE   RESERVED IN   ADMITTED   AGE\njob-a  train                          5m\n")
    return d


def status_only(tmp_path):
    cq = cluster_queue("research", {"b300": 8})
    cq["status"] = {"pendingWorkloads": 3}
    return write_folder(tmp_path / "cq-only", [flavor("b300", {}), cq, local_queue("research", "main", "research")])


@pytest.mark.parametrize("make", [empty, describe_text, status_only])
def test_no_evidence_is_unknown(tmp_path, make):
    folder = make(tmp_path)
    res = run(folder, "-o", "json")
    assert res.exit_code == 3, res.output
    d = json.loads(res.stdout)
    assert d["verdict"] == "unknown" and d["violations"] == [] and d["causes"] == []
    assert d["steps"][0]["status"] == "unknown" and "cannot tell" in d["steps"][0]["summary"]
    assert "kueue-doctor diagnose: cannot tell" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    for s in d["steps"]:
        assert s["status"] != "pass", s
    text = run(folder)
    assert text.exit_code == 3 and "no violation" not in text.stdout
    html = tmp_path / "d.html"
    assert run(folder, "--html", str(html)).exit_code == 3
    assert "No guarantee violation" not in html.read_text() and "Unknown" in html.read_text()


def test_each_step_says_what_it_read(tmp_path):
    folder = write_folder(tmp_path / "ok", [
        flavor("b300", {"gpu-pool": "b300"}), cluster_queue("research", {"b300": 8}),
        local_queue("research", "main", "research"),
        workload("research", "a", "main", 4, admitted_to=("research", "b300")), node("n1", {"gpu-pool": "b300"}, 8)])
    res = run(folder, "-o", "json")
    assert res.exit_code == 0, res.output
    steps = json.loads(res.stdout)["steps"]
    assert steps[0]["status"] == "pass" and steps[0]["read"]["Workload"] == 1 and steps[0]["read"]["ClusterQueue"] == 1
    assert steps[1]["status"] == "unknown"          # no Pods: fragmentation cannot be ruled out
    assert steps[3]["status"] == "unknown"          # an admitted workload, but no Pods or Jobs read
    assert steps[4]["status"] == "unknown"          # no controller log
    # nodes read and Ready, but no controller Deployment: health cannot pass on half the evidence
    assert steps[5]["status"] == "unknown" and "1 of 1 node(s) Ready" in steps[5]["summary"]
    assert steps[5]["read"]["Node"] == 1


def test_a_log_with_no_parsable_line_is_unknown(tmp_path):
    folder = write_folder(tmp_path / "ok", [
        flavor("b300", {}), cluster_queue("research", {"b300": 8}), local_queue("research", "main", "research")])
    (folder / "kueue-controller-manager.log").write_text("not a log line\nneither is this\n")
    d = json.loads(run(folder, "-o", "json").stdout)
    assert d["steps"][4]["status"] == "unknown" and "parsed" in d["steps"][4]["summary"]


def test_without_a_known_snapshot_time_fitting_work_is_unknown_then_now_decides(tmp_path):
    objs = [flavor("b300", {}), cluster_queue("research", {"b300": 8}), local_queue("research", "main", "research"),
            workload("research", "w", "main", 4, created="2026-11-30T11:30:00Z")]
    folder = write_folder(tmp_path / "pasted", objs, collected_at=None)   # as pasted: no manifest.json
    res = run(folder, "-o", "json")
    assert res.exit_code == 3 and "--now" in json.loads(res.stdout)["steps"][0]["summary"]
    assert run(folder, "--now", "2026-11-30T12:00:00Z").exit_code == 1
    assert run(folder, "--now", "2026-11-30T11:32:00Z").exit_code == 0
    bad = run(folder, "--now", "yesterday")
    assert bad.exit_code == 2 and "--now" in bad.stderr
