"""The doctor on the two gathered incident folders gets their ANSWER.yaml right."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = sorted(p for p in (ROOT / "examples" / "incidents").iterdir() if p.is_dir() and (p / "ANSWER.yaml").exists())


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_diagnose_matches_answer(folder):
    answer = yaml.safe_load((folder / "ANSWER.yaml").read_text())
    out = CliRunner().invoke(cli, ["diagnose", str(folder), "--format", "json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.output)
    assert sorted(v["clusterQueue"] for v in d["violations"]) == sorted(answer["violations"])
    assert [c["id"] for c in d["causes"]][: len(answer["causes"])] == answer["causes"]
    assert d["causes"][0]["confidence"] == "high"
    assert {s["step"] for s in d["steps"]} == {1, 2, 3, 4, 5, 6}
    for v in d["violations"]:
        assert v["since"] and v["pendingWorkloads"]
        for r in v["resources"].values():
            assert set(r) == {"nominal", "reserved", "pendingThatFits"}


def test_diagnose_text_runs_on_each_folder():
    for folder in FOLDERS:
        out = CliRunner().invoke(cli, ["diagnose", str(folder)])
        assert out.exit_code == 0, out.output
        assert "Cause 1:" in out.output
