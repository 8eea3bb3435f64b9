"""kubernetes-sigs/kueue#13607 in the doctor: under PreemptionOverBorrowing a release before PR
#13616 (v0.18.5, v0.19.1, v0.20.0) keeps choosing a flavor without preemption candidates over a
later flavor that fits. ``explain`` names it by release (and says the answer depends on the release
when the version is unknown); ``diagnose`` names it as the cause when a violating StrictFIFO queue's
head is the one it keeps out."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from tests.paths import INCIDENTS, TESTS

FOLDER = TESTS / "data" / "public-issues" / "kueue-13607"


def with_release(tmp_path: Path, version: str | None) -> Path:
    folder = tmp_path / "f"
    shutil.copytree(FOLDER, folder)
    if version is not None:
        (incident,) = INCIDENTS.glob("01-*")
        dep = (incident / "deployment.yaml").read_text()
        assert "kueue:v0.18.4" in dep
        (folder / "deployment.yaml").write_text(dep.replace("kueue:v0.18.4", f"kueue:{version}"))
    return folder


def explain(folder: Path, key: str = "repro/job-starved") -> dict[str, dict]:
    out = CliRunner().invoke(cli, ["explain", key, str(folder), "-o", "json"])
    assert out.exit_code == 0, out.output
    return {c["topic"]: c for c in json.loads(out.stdout)["chain"]}


def test_version_unknown_the_answer_says_it_depends_on_the_release(tmp_path):
    chain = explain(with_release(tmp_path, None))
    assert chain["assignment"]["text"].startswith("as the head now, Kueue's flavor assigner says Fit")
    bug = chain["known-bug"]
    assert "Kueue version unknown" in bug["text"] and "kubernetes-sigs/kueue#13607" in bug["text"]
    assert (bug["data"]["buggyFlavors"], bug["data"]["fixedFlavors"]) == (["repro-flavor-a"], ["repro-flavor-b"])


@pytest.mark.parametrize("version", ["v0.18.4", "v0.19.0"])
def test_an_affected_release_keeps_it_pending_and_says_why(tmp_path, version):
    chain = explain(with_release(tmp_path, version))
    assert chain["assignment"]["text"].startswith("as the head now, Kueue's flavor assigner says Preempt")
    assert "disagreement" not in chain   # the model now says what Kueue's condition says
    text = chain["known-bug"]["text"]
    assert text.startswith(f"Kueue {version} carries kubernetes-sigs/kueue#13607")
    assert "BorrowingOverPreemption" in text


@pytest.mark.parametrize("version", ["v0.18.5", "v0.19.1"])
def test_a_fixed_release_admits_it_and_says_nothing_of_the_bug(tmp_path, version):
    chain = explain(with_release(tmp_path, version))
    assert chain["assignment"]["text"].startswith("as the head now, Kueue's flavor assigner says Fit")
    assert "known-bug" not in chain


def strict_fifo(tmp_path: Path, version: str | None) -> Path:
    """The issue's queue as StrictFIFO, with 2 cpu of nominal quota in flavor-b: the 3-cpu head
    borrows 1 there (level 2), and a 1-cpu job behind it fits the unused nominal quota."""
    folder = with_release(tmp_path, version)
    doc = yaml.safe_load((folder / "kueue.yaml").read_text())
    for obj in doc["items"]:
        name = obj["metadata"]["name"]
        if obj["kind"] == "ClusterQueue" and name == "repro-target":
            obj["spec"]["queueingStrategy"] = "StrictFIFO"
            obj["spec"]["resourceGroups"][0]["flavors"][1]["resources"][0]["nominalQuota"] = "2"
        if obj["kind"] == "Workload" and name == "job-starved":
            obj["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "3"
    behind = json.loads(json.dumps(next(o for o in doc["items"] if o["metadata"]["name"] == "job-starved")))
    behind["metadata"].update(name="job-small", creationTimestamp="2026-07-29T09:06:00Z")
    behind["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
    behind["status"] = {}
    doc["items"].append(behind)
    (folder / "kueue.yaml").write_text(yaml.safe_dump(doc))
    return folder


def diagnose(folder: Path) -> tuple[int, dict]:
    out = CliRunner().invoke(cli, ["diagnose", str(folder), "-o", "json"])
    assert out.exception is None or isinstance(out.exception, SystemExit), out.output
    return out.exit_code, json.loads(out.stdout)


def test_an_affected_release_names_the_bug_for_a_blocked_strict_fifo_queue(tmp_path):
    code, d = diagnose(strict_fifo(tmp_path, "v0.18.4"))
    assert code == 1 and [v["clusterQueue"] for v in d["violations"]] == ["repro-target"]
    causes = {c["id"]: c for c in d["causes"]}
    bug = causes["no-candidates-flavor-preferred"]
    assert bug["confidence"] == "high" and bug["clusterQueues"] == ["repro-target"]
    assert "head-of-line-blocking" in causes   # what the stuck head does to the work behind it
    assert any("v0.18.4 carries the bug 'PreemptionOverBorrowing" in n for n in d["releaseNotes"])


def test_version_unknown_the_cause_is_a_possibility(tmp_path):
    _, d = diagnose(strict_fifo(tmp_path, None))
    bug = {c["id"]: c for c in d["causes"]}["no-candidates-flavor-preferred"]
    assert bug["confidence"] == "medium"
    assert "collect the kueue-controller-manager Deployment" in bug["summary"]


def test_a_fixed_release_has_no_such_cause_or_note(tmp_path):
    _, d = diagnose(strict_fifo(tmp_path, "v0.19.1"))
    assert "no-candidates-flavor-preferred" not in {c["id"] for c in d["causes"]}
    assert not any("PreemptionOverBorrowing" in n for n in d["releaseNotes"])


def test_the_release_note_needs_a_preemption_over_borrowing_queue():
    from kueue_doctor.kueue.bugs import release_notes
    from kueue_doctor.kueue.releases import release_for
    r = release_for("v0.18.4")
    assert not any("#13607" in n for n in release_notes(r, False))
    assert any("#13607" in n for n in release_notes(r, False, preemption_over_borrowing=True))
