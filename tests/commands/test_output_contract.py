"""Every command that prints a result, through every output form (issue: the command line as
kubectl users expect it): -o json and -o yaml are the same document, carry apiVersion and kind and
validate against the kind's JSON Schema; text and -o wide cut nothing and draw no boxes when
stdout is not a terminal; the exit status follows docs/cli.md."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.commands.output import (
    API_VERSION,
    EXIT_BAD_INPUT,
    EXIT_FOUND,
    EXIT_OK,
    EXIT_UNKNOWN,
    schema,
)
from kueue_doctor.sim.incidents import incident_path
from tests.paths import INCIDENTS, REPO, TESTS

HOL = INCIDENTS / "01-strictfifo-head-of-line-blocking"
FRAG = TESTS / "frag" / "data"
NODES, PODS = str(FRAG / "openb_nodes_sample.csv"), str(FRAG / "openb_pods_sample.csv")
CONFORMANCE = str(TESTS / "conformance" / "fairsharing")
BOX = set("─│┌┐└┘├┤┬┴┼━┃┏┓┗┛┡┩╇")


def empty_folder(tmp: Path) -> str:
    d = tmp / "empty"
    d.mkdir(exist_ok=True)
    return str(d)


# (id, kind, argv builder, expected exit status)
CASES = [
    ("diagnose-violation", "Diagnosis", lambda t: ["diagnose", str(HOL)], EXIT_FOUND),
    ("diagnose-cannot-tell", "Diagnosis", lambda t: ["diagnose", empty_folder(t), "--now", "2026-11-30T12:00:00Z"],
     EXIT_UNKNOWN),
    ("diagnose-fail-on-never", "Diagnosis", lambda t: ["diagnose", str(HOL), "--fail-on", "never"], EXIT_OK),
    ("explain", "Explanation",
     lambda t: ["explain", "perception/pytorchjob-bevfusion-pretrain-r12-92dbb", str(HOL)], EXIT_OK),
    ("simulate", "SimulationSummary", lambda t: ["simulate", str(incident_path("zombie-pod"))], EXIT_OK),
    ("logs", "LogReport", lambda t: ["logs", str(HOL / "kueue-controller-manager.log")], EXIT_FOUND),
    ("frag-replay", "FragReplay",
     lambda t: ["frag", "replay", "--nodes", NODES, "--pods", PODS, "--policy", "FGD", "--tune", "0"], EXIT_OK),
    ("frag-compare", "FragComparison",
     lambda t: ["frag", "compare", "--nodes", NODES, "--pods", PODS, "--seeds", "1", "--jobs", "1", "--tune", "0",
                "--policies", "BestFit,FGD"], EXIT_OK),
    ("conformance", "ConformanceResults", lambda t: ["conformance", CONFORMANCE], EXIT_OK),
    ("validate", "ValidationReport", lambda t: ["validate", str(HOL)], EXIT_OK),
    ("validate-deploy", "ValidationReport", lambda t: ["validate", str(REPO / "deploy")], EXIT_OK),
    ("diff", "SchedulingDiff", lambda t: ["diff", str(HOL), "-f", str(TESTS / "whatif/data/h200-flavor.yaml")], EXIT_OK),
    ("demo", "DemoResults", lambda t: ["demo"], EXIT_OK),
    ("forecast", "Forecast",
     lambda t: ["forecast", "perception/pytorchjob-bevfusion-pretrain-r12-92dbb", str(HOL), "-r", "3"], EXIT_OK),
    ("sweep", "SweepResults",
     lambda t: ["sweep", str(TESTS / "sweep" / "data" / "sweep.yaml"), "--out", str(t / "sweep"), "-j", "1",
                "--restart"], EXIT_OK),
]


def invoke(argv: list[str]):
    return CliRunner().invoke(cli, argv, catch_exceptions=False)


@pytest.mark.parametrize(("kind", "argv", "code"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_every_form(tmp_path, kind, argv, code):
    args = argv(tmp_path)
    as_json = invoke([*args, "-o", "json"])
    assert as_json.exit_code == code, as_json.output
    doc = json.loads(as_json.stdout)
    assert (doc["apiVersion"], doc["kind"]) == (API_VERSION, kind)
    jsonschema.validate(doc, schema(kind))
    as_yaml = invoke([*args, "-o", "yaml"])
    assert as_yaml.exit_code == code
    assert _untimed(yaml.safe_load(as_yaml.stdout)) == _untimed(doc)
    for form in ([], ["-o", "wide"]):
        text = invoke([*args, *form])
        assert text.exit_code == code, text.output
        assert text.stdout.strip()
        assert "…" not in text.stdout and not BOX & set(text.stdout), text.stdout
        assert "\x1b[" not in text.stdout   # no colour when stdout is not a terminal
    out = tmp_path / "result.json"
    to_file = invoke([*args, "-o", "json", "--output-file", str(out)])
    assert to_file.exit_code == code and not to_file.stdout.strip()
    assert json.loads(out.read_text())["kind"] == kind


def _untimed(doc):
    """The document less what measures this machine's speed (two runs differ there)."""
    if isinstance(doc, dict):
        return {k: _untimed(v) for k, v in doc.items() if k not in ("wallSeconds", "seconds_mean")}
    return doc


def test_names_are_never_cut_in_text(tmp_path):
    text = invoke(["diagnose", str(HOL)]).stdout
    for name in ("perception/pytorchjob-bevfusion-pretrain-r12-92dbb", "perception-eval/job-lidar-seg-eval-kthsv-64724",
                 "h200/nvidia.com/gpu"):
        assert name in text
    wide = invoke(["explain", "perception/pytorchjob-bevfusion-pretrain-r12-92dbb", str(HOL), "-o", "wide"]).stdout
    assert "BORROWING LIMIT" in wide and "LENDING LIMIT" in wide
    narrow = invoke(["explain", "perception/pytorchjob-bevfusion-pretrain-r12-92dbb", str(HOL)]).stdout
    table = [line for line in narrow.splitlines() if "QUOTA NODE" in line or line.strip().startswith(("ClusterQueue ",
                                                                                                      "Cohort "))]
    assert table and all(len(line) <= 80 for line in table), table


def test_log_evidence_is_one_short_line_raw_behind_verbose():
    args = ["explain", "perception/pytorchjob-bevfusion-pretrain-r12-92dbb", str(HOL)]
    short = invoke(args).stdout
    assert '"caller":' not in short and "V(2) scheduler: Workload re-queued" in short
    assert '"caller":' in invoke([*args, "-v"]).stdout


def test_bad_input_is_one_line_and_exit_2(tmp_path):
    for argv in (["diagnose", str(tmp_path / "missing")], ["simulate", str(tmp_path / "missing.yaml")],
                 ["logs", str(tmp_path / "missing.log")], ["diagnose", str(HOL), "--min-wait", "soon"],
                 ["diagnose", str(HOL), "-o", "xml"]):
        res = invoke(argv)
        assert res.exit_code == EXIT_BAD_INPUT, (argv, res.output)
        assert "Traceback" not in res.output


def test_human_units_in_text():
    text = invoke(["diagnose", str(HOL)]).stdout
    assert "1474560Mi" not in text and "5.6Ti" in text        # memory in one readable unit per column
    assert "52m59s" in text                                    # waits as Go durations


def test_a_real_pipe_gets_plain_text_and_progress_stays_off():
    env = {**os.environ, "COLUMNS": "80"}
    p = subprocess.run([sys.executable, "-m", "kueue_doctor", "diagnose", str(HOL)], capture_output=True,
                       text=True, env=env, cwd=REPO, check=False)
    assert p.returncode == EXIT_FOUND
    assert "\x1b[" not in p.stdout and not BOX & set(p.stdout) and "…" not in p.stdout
    assert p.stderr == ""   # no spinner, no progress bar into a pipe


def test_docs_schemas_are_the_packaged_ones():
    packaged = REPO / "src" / "kueue_doctor" / "data" / "schemas"
    docs = REPO / "docs" / "schemas"
    names = sorted(p.name for p in packaged.glob("*.schema.json"))
    assert names and names == sorted(p.name for p in docs.glob("*.schema.json"))
    for n in names:
        assert (packaged / n).read_text() == (docs / n).read_text(), n
        jsonschema.Draft202012Validator.check_schema(json.loads((packaged / n).read_text()))


def test_explain_by_the_job_name_users_know():
    by_job = invoke(["explain", "job/occflow-ft-gc8ql", str(HOL), "-o", "json"])
    assert by_job.exit_code == EXIT_OK, by_job.output
    assert json.loads(by_job.stdout)["workload"] == "perception/job-occflow-ft-gc8ql-53ef6"
    miss = invoke(["explain", "occflow-ft-gc8q", str(HOL)])
    assert miss.exit_code == EXIT_BAD_INPUT and "did you mean job/perception/occflow-ft-gc8ql" in miss.output
    wrong_ns = invoke(["explain", "occflow-ft-gc8ql", "-n", "planning", str(HOL)])
    assert wrong_ns.exit_code == EXIT_BAD_INPUT and "use -n perception" in wrong_ns.output


def test_logs_of_nothing_readable_cannot_tell(tmp_path):
    junk = tmp_path / "junk.log"
    junk.write_text("hello\nworld\n")
    res = invoke(["logs", str(junk)])
    assert res.exit_code == EXIT_UNKNOWN and "nothing could be checked" in res.stdout
    doc = json.loads(invoke(["logs", str(junk), "-o", "json"]).stdout)
    jsonschema.validate(doc, schema("LogReport"))
    assert doc["unrecognized"] == 2 and doc["files"][0]["recognized"] == 0



def test_a_closed_pipe_is_left_to_the_entry_point_not_rich():
    """rich's own broken-pipe handling exits 1, which would read as "a violation or cause found";
    our console hands the error to the entry point, which exits 141 (docs/cli.md)."""
    import io

    from kueue_doctor.report.text import console

    class Closed(io.StringIO):
        def write(self, s):
            raise BrokenPipeError

    with pytest.raises(BrokenPipeError):
        console(Closed()).print("a line")
