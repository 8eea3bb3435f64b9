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
# The upstream issue each bug is known by (kueue-signals.md §0, §H): with the fixed release,
# the part of a release note that stays when the note is reworded.
BUG_ISSUE = {"slow-preemption-release": "#6143", "zombie-pod": "#6488", "drs-rounding": "#6577"}


def fixed_release(name: str) -> str:
    args = CASES[name][1]
    return "v" + args[args.index("--kueue-version") + 1]


def notes_on(d: dict, name: str) -> list[str]:
    return [n for n in d["releaseNotes"] if BUG_ISSUE[name] in n]


def snapshot_and_diagnose(tmp_path, name: str, extra: list[str]) -> dict:
    runner = CliRunner()
    folder = tmp_path / ("fixed" if extra else "affected")
    out = runner.invoke(cli, ["simulate", str(incident_path(name)), *extra, "--snapshot-at", "100m",
                              "--snapshot-dir", str(folder), "--json", "--omit-wall-time"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(cli, ["diagnose", str(folder), "-o", "json"])
    assert out.exit_code == (0 if extra else 1), out.output
    return json.loads(out.output)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cause_found_first_with_high_confidence(tmp_path, name):
    cause, _fixed = CASES[name]
    d = snapshot_and_diagnose(tmp_path, name, [])
    assert d["violations"], "the affected release must show a guarantee violation"
    first = d["causes"][0]
    assert first["id"] == cause and first["confidence"] == "high"
    assert set(first["clusterQueues"]) >= {v["clusterQueue"] for v in d["violations"]}
    # the affected release's notes name this bug once, with the release that fixes it
    (note,) = notes_on(d, name)
    assert fixed_release(name) in note, note


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixed_release_is_healthy(tmp_path, name):
    _cause, fixed = CASES[name]
    d = snapshot_and_diagnose(tmp_path, name, fixed)
    assert d["kueueVersion"] == fixed_release(name)
    assert d["violations"] == [] and d["causes"] == []
    assert notes_on(d, name) == [], d["releaseNotes"]


def test_explain_names_the_stuck_victim_and_only_its_own_log_lines(tmp_path):
    runner = CliRunner()
    folder = tmp_path / "zombie"
    out = runner.invoke(cli, ["simulate", str(incident_path("zombie-pod")), "--snapshot-at", "100m",
                              "--snapshot-dir", str(folder), "--json", "--omit-wall-time"])
    assert out.exit_code == 0, out.output
    out = runner.invoke(cli, ["explain", "team-b/job-0", str(folder), "-o", "json"])
    assert out.exit_code == 0, out.output
    chain = json.loads(out.output)["chain"]
    pre = next(c for c in chain if c["topic"] == "preemption")
    assert "team-d/train-lp" in pre["text"] and "stuck past their grace period" in pre["text"]
    assert pre["data"]["targets"][0]["alreadyEvicted"] is True
    logs = next(c for c in chain if c["topic"] == "logs")
    assert logs["data"]["lines"]
    assert all('"namespace":"team-b"' in line for line in logs["data"]["lines"])
