"""A head that can use only one of its queue's flavors (issue 11's first reproduction): idle
quota on a flavor its nodeSelector excludes is no room for it."""
from __future__ import annotations

import json

from click.testing import CliRunner

from kueue_doctor.cli import cli

from .cluster import cluster_queue, flavor, local_queue, node, workload, write_folder

B300 = {"gpu-pool": "b300"}
B200 = {"gpu-pool": "b200"}


def cluster(extra: list[dict] = ()) -> list[dict]:
    return [flavor("b300", B300), flavor("b200", B200),
            cluster_queue("research", {"b300": 8, "b200": 8}, strategy="StrictFIFO"),
            local_queue("research", "main", "research"),
            workload("research", "running-b300", "main", 8, created="2026-11-30T10:00:00Z",
                     node_selector=B300, admitted_to=("research", "b300")),
            workload("research", "head-b300", "main", 8, created="2026-11-30T11:00:00Z", node_selector=B300),
            node("b300-node", B300, 8), node("b200-node", B200, 8), *extra]


def diagnose(tmp_path, objects) -> tuple[int, dict]:
    folder = write_folder(tmp_path / "snap", objects)
    out = CliRunner().invoke(cli, ["diagnose", str(folder), "-o", "json"])
    return out.exit_code, json.loads(out.output)


def test_idle_quota_on_a_flavor_the_head_cannot_use_is_no_violation(tmp_path):
    code, d = diagnose(tmp_path, cluster())
    assert d["verdict"] == "no-violation" and d["violations"] == [] and code == 0
    assert d["steps"][0]["status"] == "pass"


def test_work_behind_the_head_that_fits_b200_is_head_of_line_blocking(tmp_path):
    behind = workload("research", "small-b200", "main", 8, created="2026-11-30T11:10:00Z", node_selector=B200)
    code, d = diagnose(tmp_path, cluster([behind]))
    assert code == 1
    [v] = d["violations"]
    assert v["clusterQueue"] == "research" and v["pendingWorkloads"] == ["research/small-b200"]
    assert v["resources"] == {"b200/nvidia.com/gpu": {"nominal": "8", "reserved": "0", "pendingThatFits": "8"}}
    assert d["causes"][0]["id"] == "head-of-line-blocking" and d["causes"][0]["confidence"] == "high"
    assert d["causes"][0]["workloads"] == ["research/small-b200"]


def test_explain_says_why_the_head_is_not_guaranteed(tmp_path):
    folder = write_folder(tmp_path / "snap", cluster())
    out = CliRunner().invoke(cli, ["explain", "research/head-b300", str(folder), "-o", "json"])
    assert out.exit_code == 0, out.output
    g = next(c for c in json.loads(out.output)["chain"] if c["topic"] == "guarantee")
    assert g["data"]["fit"] == "needs-more-than-unused-nominal"
    assert "flavor b200 doesn't match node affinity" in g["data"]["excludedFlavors"]


def test_a_toleration_missing_for_a_tainted_flavor_excludes_it(tmp_path):
    objs = cluster()
    objs[1]["spec"]["nodeTaints"] = [{"key": "pool", "value": "b200", "effect": "NoSchedule"}]
    behind = workload("research", "small-any", "main", 8, created="2026-11-30T11:10:00Z")
    code, d = diagnose(tmp_path, [*objs, behind])
    assert code == 0 and d["violations"] == []   # b200 is tainted, b300 is full: nothing fits


def test_the_allowed_flavors_annotation_excludes_flavors(tmp_path):
    objs = cluster()
    behind = workload("research", "small-any", "main", 8, created="2026-11-30T11:10:00Z")
    behind["metadata"]["annotations"] = {"kueue.x-k8s.io/workload-allowed-resource-flavors": "b300"}
    code, d = diagnose(tmp_path, [*objs, behind])
    # the annotation only takes effect with the ConcurrentAdmission gate (off by default)
    assert code == 1 and d["violations"][0]["pendingWorkloads"] == ["research/small-any"]
