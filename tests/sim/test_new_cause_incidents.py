"""The simulated incidents of the causes added for current Kueue that no release fixes
(docs/doctor.md, "Causes"): simulated, written as a gathered folder, diagnosed like a real
cluster. quota-held-without-pods and preemption-retry-storm are fault injections (no release
carries them); without the fault the same scenario is healthy. (pods-ready-timeout-loop and admission-check-stuck: tests/doctor/test_readiness_causes.py.)"""
from __future__ import annotations

import json

import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from tests.paths import INCIDENTS


def diagnosis(tmp_path, name: str, at: str, scenario: str | None = None) -> dict:
    folder = tmp_path / name
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", scenario or str(INCIDENTS / f"{name}.yaml"), "--snapshot-at", at,
                              "--snapshot-dir", str(folder), "-o", "json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, ["diagnose", str(folder), "-o", "json"])
    return json.loads(res.stdout)


def test_head_exceeds_max_quota_is_named_on_the_strictfifo_queue(tmp_path):
    d = diagnosis(tmp_path, "head-exceeds-max-quota", "40m")
    assert [v["clusterQueue"] for v in d["violations"]] == ["foundation"]
    first = d["causes"][0]
    assert (first["id"], first["confidence"], first["clusterQueues"]) == ("head-exceeds-max-quota", "high",
                                                                          ["foundation"])
    # 8 pods of 8 GPUs in one pod set; nominal 32 + borrowing limit 16
    assert "needs 64 nvidia.com/gpu in one pod set" in first["summary"] and "48" in first["summary"]
    # the sharper reading replaces head-of-line-blocking on that queue
    assert all(c["id"] != "head-of-line-blocking" for c in d["causes"])


def test_head_exceeds_max_quota_is_absent_while_nothing_has_waited_past_min_wait(tmp_path):
    # at 3m the fine-tuning job behind the head has waited less than --min-wait: nothing is owed yet
    d = diagnosis(tmp_path, "head-exceeds-max-quota", "3m")
    assert d["violations"] == [] and d["causes"] == []


def without_faults(tmp_path, name: str) -> str:
    """The incident's scenario with its ``faults`` taken out: the same cluster and work, healthy."""
    doc = yaml.safe_load((INCIDENTS / f"{name}.yaml").read_text())
    assert doc.pop("faults")
    path = tmp_path / f"{name}-no-fault.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_quota_held_without_pods_is_named_on_the_queue_that_lent_the_quota(tmp_path):
    # the recovery eviction at ~23m keeps pretrain-7b's 16 GPUs (8 borrowed from research)
    d = diagnosis(tmp_path, "quota-held-without-pods", "45m")
    assert [v["clusterQueue"] for v in d["violations"]] == ["research"]
    first = d["causes"][0]
    assert (first["id"], first["confidence"], first["clusterQueues"]) == ("quota-held-without-pods", "high",
                                                                          ["research"])
    held = first["evidence"][0]
    # the conditions as kubernetes-sigs/kueue#14811 shows them
    assert held.startswith("training/job-pretrain-7b-") and "QuotaReserved=True, Admitted=True, Evicted=True" in held
    assert "PodsReadyTimeout" in held and "status.admission still set" in held


def test_quota_held_without_pods_is_absent_without_the_fault(tmp_path):
    # the eviction frees the quota; research reclaims what it lent and nothing waits
    d = diagnosis(tmp_path, "quota-held-without-pods", "45m", scenario=without_faults(tmp_path, "quota-held-without-pods"))
    assert d["violations"] == [] and d["causes"] == []


def test_preemption_retry_storm_is_named_for_the_starved_queue(tmp_path):
    d = diagnosis(tmp_path, "preemption-retry-storm", "68m30s")
    assert [v["clusterQueue"] for v in d["violations"]] == ["perception"]
    first = d["causes"][0]
    assert (first["id"], first["confidence"], first["clusterQueues"]) == ("preemption-retry-storm", "high",
                                                                          ["perception"])
    assert first["workloads"][0].startswith("mltraining-dev/job-xc-b200-")
    # 10 attempts a second from 61m to the snapshot, each with its no-candidates line
    assert "retried 4500 times" in first["evidence"][0] and "(4500 lines)" in first["evidence"][0]
    assert "0 admission(s) in any ClusterQueue meanwhile" in first["evidence"][1]
    # the sharper reading replaces head-of-line-blocking on that queue
    assert all(c["id"] != "head-of-line-blocking" for c in d["causes"])


def test_preemption_retry_storm_is_absent_without_the_fault(tmp_path):
    # the head is parked until the cohort changes; perception's jobs are admitted at once
    d = diagnosis(tmp_path, "preemption-retry-storm", "68m30s", scenario=without_faults(tmp_path, "preemption-retry-storm"))
    assert d["violations"] == [] and d["causes"] == []


def test_a_storm_rate_that_is_not_attempts_a_second_is_bad_input(tmp_path):
    doc = yaml.safe_load((INCIDENTS / "preemption-retry-storm.yaml").read_text())
    doc["faults"][0]["rate"] = "fast"
    path = tmp_path / "bad-rate.yaml"
    path.write_text(yaml.safe_dump(doc))
    res = CliRunner().invoke(cli, ["simulate", str(path)])
    assert res.exit_code == 2
    assert "faults[0].rate" in res.output and "like 10/s" in res.output
