"""The simulated incidents of the causes added for current Kueue that no release fixes
(docs/doctor.md, "Causes"): simulated, written as a gathered folder, diagnosed like a real
cluster. (pods-ready-timeout-loop and admission-check-stuck: tests/doctor/test_readiness_causes.py.)"""
from __future__ import annotations

import json

from click.testing import CliRunner

from kueue_doctor.cli import cli
from tests.paths import INCIDENTS


def diagnosis(tmp_path, name: str, at: str) -> dict:
    folder = tmp_path / name
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", str(INCIDENTS / f"{name}.yaml"), "--snapshot-at", at,
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
