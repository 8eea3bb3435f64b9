"""Nominal quotas that the flavor's Ready nodes cannot hold: Kueue admits work within nominal
quota that cannot be placed (DESIGN.md, "a guarantee that cannot be honoured")."""
from __future__ import annotations

import json

from click.testing import CliRunner

from kueue_doctor.cli import cli

from .cluster import cluster_queue, flavor, local_queue, node, pod, workload, write_folder

POOL = {"gpu-pool": "b300"}


def objects(second_node_ready: bool) -> list[dict]:
    return [flavor("b300", POOL), cluster_queue("research", {"b300": 16}, strategy="BestEffortFIFO"),
            local_queue("research", "main", "research"),
            workload("research", "a", "main", 8, admitted_to=("research", "b300"), node_selector=POOL),
            workload("research", "b", "main", 8, admitted_to=("research", "b300"), node_selector=POOL),
            node("gpu-1", POOL, 8), node("gpu-2", POOL, 8, ready=second_node_ready),
            pod("research", "a-0", "a", 8, node_name="gpu-1"),
            pod("research", "b-0", "b", 8, node_name="gpu-2" if second_node_ready else "", phase=(
                "Running" if second_node_ready else "Pending"))]


def diagnose(tmp_path, objs) -> tuple[int, dict]:
    folder = write_folder(tmp_path / "snap", objs)
    out = CliRunner().invoke(cli, ["diagnose", str(folder), "-o", "json"])
    return out.exit_code, json.loads(out.stdout)


def test_quota_over_ready_nodes_is_named(tmp_path):
    code, d = diagnose(tmp_path, objects(second_node_ready=False))
    assert code == 1
    assert [v["clusterQueue"] for v in d["violations"]] == ["research"]
    assert d["violations"][0]["pendingWorkloads"] == ["research/b"]     # admitted, its pod unschedulable
    cause = next(c for c in d["causes"] if c["id"] == "quota-misconfiguration")
    assert cause["confidence"] == "high" and cause["clusterQueues"] == ["research"]
    assert "b300" in cause["summary"] and "16" in cause["summary"] and "8" in cause["summary"]
    assert any("gpu-2" in e for e in cause["evidence"])


def test_quota_within_ready_nodes_is_not_misconfigured(tmp_path):
    code, d = diagnose(tmp_path, objects(second_node_ready=True))
    assert code == 0 and d["violations"] == []
    assert not any(c["id"] == "quota-misconfiguration" for c in d["causes"] + d["warnings"])
