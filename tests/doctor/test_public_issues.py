"""The doctor on objects from public kubernetes-sigs/kueue issues gets their ANSWER.yaml right.

Each folder under tests/data/public-issues/ holds what an issue's reporter pasted (completed to be
loadable; PROVENANCE.md says what was added), a manifest.json, and the ANSWER.yaml the thread
establishes. Where kueue-doctor is wrong today the test is a strict xfail whose reason says what is
wrong, so the gap stays documented and the mark has to go when it is fixed.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli

DATA = Path(__file__).resolve().parents[1] / "data" / "public-issues"
CASES = sorted(p.name for p in DATA.iterdir() if (p / "ANSWER.yaml").exists())

EXIT_NO_VIOLATION, EXIT_VIOLATION, EXIT_CANNOT_TELL = 0, 1, 3

# What kueue-doctor gets wrong today, per (case, aspect): the reason of the strict xfail.
WRONG = {
    ("kueue-3710", "causes"): (
        "no cause: head-of-line blocking is only recognised in StrictFIFO queues (doctor/causes/queues.py "
        "head_of_line); here a BestEffortFIFO head re-queued immediately (Kueue bug, #3710) keeps fitting "
        "workloads that were never evaluated (no condition at all) behind it"),
}


def case_params(aspect: str) -> list:
    out = []
    for name in CASES:
        reason = WRONG.get((name, aspect))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, id=name, marks=marks))
    return out


def answer(name: str) -> dict:
    return yaml.safe_load((DATA / name / "ANSWER.yaml").read_text())


def diagnose(folder: Path) -> tuple[int, dict]:
    out = CliRunner().invoke(cli, ["diagnose", str(folder), "-o", "json"])
    assert out.exception is None or isinstance(out.exception, SystemExit), out.output
    return out.exit_code, json.loads(out.stdout)


def test_the_issue_folders_are_there():
    # every other test here runs on these folders; without them they would check nothing
    assert CASES == ["kueue-12446", "kueue-13607", "kueue-1726", "kueue-1789", "kueue-3710", "kueue-8309"]
    for name in CASES:
        folder = DATA / name
        assert {"ANSWER.yaml", "PROVENANCE.md", "manifest.json"} <= {p.name for p in folder.iterdir()}
        assert json.loads((folder / "manifest.json").read_text())["collectedAt"]
        a = answer(name)
        assert a["issue"] == f"https://github.com/kubernetes-sigs/kueue/issues/{name.removeprefix('kueue-')}"
        assert isinstance(a["violations"], list) and isinstance(a["causes"], list)


@pytest.mark.parametrize("name", CASES)
def test_validate_reads_the_pasted_objects(name):
    out = CliRunner().invoke(cli, ["validate", str(DATA / name), "--json"])
    assert out.exit_code == 0, out.output
    assert "Traceback" not in out.output


@pytest.mark.parametrize("name", case_params("verdict"))
def test_verdict_matches_answer(name):
    a = answer(name)
    code, d = diagnose(DATA / name)
    assert code == (EXIT_VIOLATION if a["violations"] else EXIT_NO_VIOLATION), d["verdict"]
    assert sorted(v["clusterQueue"] for v in d["violations"]) == sorted(a["violations"])


@pytest.mark.parametrize("name", case_params("causes"))
def test_causes_match_answer(name):
    a = answer(name)
    _, d = diagnose(DATA / name)
    ids = [c["id"] for c in d["causes"]]
    if a["causes"]:
        assert ids[: len(a["causes"])] == a["causes"]
        assert d["causes"][0]["confidence"] == "high"
        for c in d["causes"][: len(a["causes"])]:
            assert set(c["clusterQueues"]) <= set(a["violations"])
    else:
        # the thread's cause is outside the vocabulary, or there is no violation: nothing confident
        assert not [c for c in d["causes"] if c["confidence"] == "high"], ids


@pytest.mark.parametrize("name", case_params("steps"))
def test_no_step_passes_without_its_data(name):
    # docs/doctor.md: "a step passes only when it saw the data that could have failed it"
    _, d = diagnose(DATA / name)
    status = {s["step"]: s["status"] for s in d["steps"]}
    assert {s: status[s] for s in answer(name)["stepsWithoutEvidence"] if status[s] == "pass"} == {}


@pytest.mark.parametrize("name", CASES)
def test_explain_agrees_with_diagnose(name):
    folder = DATA / name
    _, d = diagnose(folder)
    violating = {w for v in d["violations"] for w in v["pendingWorkloads"]}
    docs = [yaml.safe_load_all(p.read_text()) for p in sorted(folder.glob("*.yaml")) if p.name != "ANSWER.yaml"]
    keys = []
    for stream in docs:
        for doc in stream:
            for obj in (doc.get("items") or [doc]) if isinstance(doc, dict) else []:
                if obj.get("kind") == "Workload":
                    keys.append(f"{obj['metadata']['namespace']}/{obj['metadata']['name']}")
    assert keys
    for key in keys:
        out = CliRunner().invoke(cli, ["explain", key, str(folder), "-o", "json"])
        assert out.exit_code == 0, out.output
        chain = {c["topic"]: c for c in json.loads(out.stdout)["chain"]}
        assert {"status", "queue"} <= set(chain), key
        if key in violating:
            assert chain["guarantee"]["data"]["violation"] is True, key


@pytest.mark.parametrize("name", case_params("no-manifest"))
def test_without_manifest_never_claims_no_violation_wrongly(name, tmp_path):
    # What users paste in an issue has no manifest.json: the snapshot time must then come from the
    # objects, and a queue the thread shows in violation must not come out "no violation".
    folder = tmp_path / name
    shutil.copytree(DATA / name, folder)
    (folder / "manifest.json").unlink()
    code, d = diagnose(folder)
    if answer(name)["violations"]:
        assert code in (EXIT_VIOLATION, EXIT_CANNOT_TELL), d["verdict"]
        assert {v["clusterQueue"] for v in d["violations"]} <= set(answer(name)["violations"])
    else:
        assert code in (EXIT_NO_VIOLATION, EXIT_CANNOT_TELL), d["verdict"]
