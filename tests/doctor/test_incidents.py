"""The doctor on the two gathered incident folders gets their ANSWER.yaml right."""
from __future__ import annotations

import json

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from tests.paths import INCIDENTS

FOLDERS = sorted(p for p in INCIDENTS.iterdir() if p.is_dir() and (p / "ANSWER.yaml").exists())


def test_both_incident_folders_are_there():
    # every other test here runs on these folders; without them they would check nothing
    assert [f.name for f in FOLDERS] == ["01-strictfifo-head-of-line-blocking", "02-inactive-queue-missing-flavor"]


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_diagnose_matches_answer(folder):
    answer = yaml.safe_load((folder / "ANSWER.yaml").read_text())
    out = CliRunner().invoke(cli, ["diagnose", str(folder), "-o", "json"])
    assert out.exit_code == 1, out.output   # a guarantee violation (docs/doctor.md, "Exit status")
    d = json.loads(out.output)
    assert sorted(v["clusterQueue"] for v in d["violations"]) == sorted(answer["violations"])
    assert [c["id"] for c in d["causes"]][: len(answer["causes"])] == answer["causes"]
    assert d["causes"][0]["confidence"] == "high"
    assert {s["step"] for s in d["steps"]} == {1, 2, 3, 4, 5, 6}
    for v in d["violations"]:
        assert v["since"]
        assert v["pendingWorkloads"]
        for r in v["resources"].values():
            assert set(r) == {"nominal", "reserved", "pendingThatFits"}


@pytest.mark.parametrize("folder", FOLDERS, ids=[p.name for p in FOLDERS])
def test_diagnose_text_runs_on_each_folder(folder):
    out = CliRunner().invoke(cli, ["diagnose", str(folder)])
    assert out.exit_code == 1, out.output
    assert "Cause 1:" in out.output


def test_explain_names_the_blocking_head():
    folder = next(f for f in FOLDERS if f.name.startswith("01-"))
    out = CliRunner().invoke(cli, ["explain", "perception/job-occflow-ft-gc8ql-53ef6", str(folder), "-o", "json"])
    assert out.exit_code == 0, out.output
    chain = json.loads(out.output)["chain"]
    topics = [c["topic"] for c in chain]
    assert {"status", "queue", "position", "quota", "assignment", "nodes"} <= set(topics)
    position = next(c for c in chain if c["topic"] == "position")
    assert position["data"]["head"] == "perception/pytorchjob-bevfusion-pretrain-r12-92dbb"
    assert "StrictFIFO" in position["text"]


def test_explain_unknown_workload_is_one_line_error():
    folder = FOLDERS[0]
    out = CliRunner().invoke(cli, ["explain", "nope/missing", str(folder)])
    assert out.exit_code == 2
    assert out.output.startswith("no Workload named 'missing'") and "namespace nope" in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_diagnose_html_is_one_offline_file(tmp_path):
    folder = FOLDERS[0]
    out_file = tmp_path / "d.html"
    out = CliRunner().invoke(cli, ["diagnose", str(folder), "--html", str(out_file)])
    assert out.exit_code == 1, out.output
    html = out_file.read_text()
    assert html.startswith("<!doctype html>")
    assert "head-of-line-blocking" in html
    # plotly.js inline, once; nothing else is fetched (tests/report/test_browser.py opens it)
    from tests.report.pages import offline_problems
    assert offline_problems(html) == []


def test_stale_log_signature_is_not_evidence():
    from datetime import timedelta

    from kueue_doctor.doctor.diagnose import diagnose
    from kueue_doctor.sources.snapshot import load_folder
    folder = next(f for f in FOLDERS if f.name.startswith("01-"))
    snap = load_folder(str(folder))
    fresh = diagnose(snap)
    assert any(e.startswith("log:") for e in fresh.causes[0].evidence)
    later = diagnose(load_folder(str(folder)), now=fresh.facts.now + timedelta(hours=2))
    hol = next(c for c in later.causes if c.id == "head-of-line-blocking")
    assert hol.confidence == "high"  # the queue is still blocked: the engine says so
    assert not any(e.startswith("log:") for e in hol.evidence)
