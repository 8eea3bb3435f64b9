"""End to end: simulate each production failure, snapshot it, diagnose it like a real cluster."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.sim.incidents import incident_path

CASES = {
    "slow-preemption-release": ("slow-preemption-release", ["--kueue-version", "0.17.0",
                                                            "--gate", "FastQuotaReleaseInPodIntegration=true"]),
    "zombie-pod": ("stuck-preemption-target", ["--kueue-version", "0.13.5"]),
    "drs-rounding": ("drs-rounding", ["--kueue-version", "0.14.0"]),
}


def snapshot_and_diagnose(tmp_path, name: str, extra: list[str]) -> dict:
    runner = CliRunner()
    folder = tmp_path / ("fixed" if extra else "affected")
    out = runner.invoke(cli, ["simulate", str(incident_path(name)), *extra, "--snapshot-at", "100m",
                              "--snapshot-dir", str(folder), "--json", "--omit-wall-time"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(cli, ["diagnose", str(folder), "--format", "json"])
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cause_found_first_with_high_confidence(tmp_path, name):
    cause, _fixed = CASES[name]
    d = snapshot_and_diagnose(tmp_path, name, [])
    assert d["violations"], "the affected release must show a guarantee violation"
    first = d["causes"][0]
    assert first["id"] == cause
    assert first["confidence"] == "high"
    assert set(first["clusterQueues"]) >= {v["clusterQueue"] for v in d["violations"]}
    assert any(cause == n.split("'")[0] or "fixed in" in n for n in d["releaseNotes"])


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixed_release_is_healthy(tmp_path, name):
    _cause, fixed = CASES[name]
    d = snapshot_and_diagnose(tmp_path, name, fixed)
    assert d["violations"] == []
    assert d["causes"] == []


def test_explain_names_the_stuck_victim_and_only_its_own_log_lines(tmp_path):
    runner = CliRunner()
    folder = tmp_path / "zombie"
    out = runner.invoke(cli, ["simulate", str(incident_path("zombie-pod")), "--snapshot-at", "100m",
                              "--snapshot-dir", str(folder), "--json", "--omit-wall-time"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(cli, ["explain", "team-b/job-0", str(folder), "--format", "json"])
    assert out.exit_code == 0, out.output
    chain = json.loads(out.output)["chain"]
    pre = next(c for c in chain if c["topic"] == "preemption")
    assert "team-d/train-lp" in pre["text"]
    assert "stuck past their grace period" in pre["text"]
    assert pre["data"]["targets"][0]["alreadyEvicted"] is True
    logs = next(c for c in chain if c["topic"] == "logs")
    assert logs["data"]["lines"]
    assert all('"namespace":"team-b"' in line for line in logs["data"]["lines"])
