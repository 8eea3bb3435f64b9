"""pods-ready-timeout-loop and admission-check-stuck, on the two simulated incidents written as a
gathered folder (the conditions, requeueState, admissionChecks and ProvisioningRequests as Kueue
writes them), and their absence where nothing of the kind happens."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli
from tests.paths import INCIDENTS


def snapshot_diagnosis(tmp_path, name: str, at: str) -> dict:
    folder = tmp_path / name
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", str(INCIDENTS / f"{name}.yaml"), "--snapshot-at", at, "--snapshot-dir", str(folder),
                              "-o", "json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, ["diagnose", str(folder), "-o", "json"])
    assert res.exit_code == 1, res.output
    return json.loads(res.stdout)


def test_pods_ready_timeout_loop_is_named_with_the_pods_blocker(tmp_path):
    d = snapshot_diagnosis(tmp_path, "pods-ready-timeout-loop", "30m")
    first = d["causes"][0]
    assert first["id"] == "pods-ready-timeout-loop" and first["confidence"] == "high"
    # blockAdmission: the queue whose work waits is not the one whose pods fail
    assert "team-nlp" in first["clusterQueues"]
    assert any("ImagePullBackOff" in e for e in first["evidence"])
    assert any("blockAdmission true" in e for e in first["evidence"])
    assert all(c["id"] != "admission-check-stuck" for c in d["causes"])


def test_admission_check_stuck_names_the_check_and_the_provisioning_failure(tmp_path):
    d = snapshot_diagnosis(tmp_path, "admission-check-stuck", "50m")
    first = d["causes"][0]
    assert first["id"] == "admission-check-stuck" and first["confidence"] == "high"
    assert "team-llm" in first["clusterQueues"] and "dws-prov" in first["summary"]
    assert any("ProvisioningRequest" in e and "GCE_STOCKOUT" in e for e in first["evidence"])
    assert any("UnsatisfiedAdmissionChecks" in e for e in first["evidence"])
    assert all(c["id"] != "pods-ready-timeout-loop" for c in d["causes"])


@pytest.mark.parametrize("folder", sorted(p for p in INCIDENTS.iterdir() if p.is_dir()), ids=lambda p: p.name)
def test_absent_where_pods_run_and_no_check_is_configured(folder):
    d = json.loads(CliRunner().invoke(cli, ["diagnose", str(folder), "-o", "json"]).stdout)
    ids = {c["id"] for c in d["causes"]}
    assert not ids & {"pods-ready-timeout-loop", "admission-check-stuck"}
