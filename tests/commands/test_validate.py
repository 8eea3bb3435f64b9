"""``kueue-doctor validate``: every problem of every file, unknown fields as kubectl's strict
field validation names them, what is not an object, and the ValidationReport document."""
from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.commands.output import schema
from tests.api.test_unknown_fields import KNOWN_DATA_MISTAKES, REAL_FOLDERS
from tests.paths import REPO, TESTS

TYPO = TESTS / "broken" / "clusterqueue-resourcegroup-typo.yaml"
DEPLOY = REPO / "deploy"


def run(*args: str):
    result = CliRunner().invoke(cli, ["validate", *args], prog_name="kueue-doctor")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def report(*args: str) -> tuple[int, dict]:
    r = run("-o", "json", *args)
    doc = json.loads(r.stdout)
    jsonschema.Draft202012Validator(schema("ValidationReport")).validate(doc)
    return r.exit_code, doc


def test_typo_is_a_warning_by_default():
    r = run(str(TYPO))
    assert r.exit_code == 0, (r.stdout, r.stderr)
    assert r.stderr.splitlines() == [f'{TYPO}: ClusterQueue/team-a: unknown field "spec.resourceGroup"']
    assert "ClusterQueue: 1" in r.stdout
    assert "0 error(s), 1 warning(s)" in r.stdout


def test_typo_is_an_error_with_strict():
    r = run("--strict", str(TYPO))
    assert r.exit_code == 2
    assert r.stderr.splitlines() == [f'{TYPO}: ClusterQueue/team-a: unknown field "spec.resourceGroup"']
    code, doc = report("--strict", str(TYPO))
    assert code == 2
    assert doc["problems"] == [{"file": str(TYPO), "object": "ClusterQueue/team-a", "field": "spec.resourceGroup",
                                "message": 'unknown field "spec.resourceGroup"', "severity": "error"}]


def test_nested_typo_has_the_full_path(tmp_path):
    f = tmp_path / "cq.yaml"
    f.write_text(TYPO.read_text().replace("resourceGroup:", "resourceGroups:")
                 .replace("nominalQuota: 8", "nominalQuto: 8"))
    code, doc = report(str(f))
    # the misspelt field is unknown, and the one it was meant to be is missing (an error)
    assert code == 2
    where = "spec.resourceGroups[0].flavors[0].resources[1]"
    assert [(p["field"], p["severity"]) for p in doc["problems"]] == [
        (f"{where}.nominalQuota", "error"), (f"{where}.nominalQuto", "warning")]
    assert doc["problems"][1]["message"] == f'unknown field "{where}.nominalQuto"'


def test_every_broken_file_of_a_folder_is_reported(tmp_path):
    broken = TESTS / "broken"
    names = ["clusterqueue-queueingstrategy-fastest.yaml", "json-missing-comma.json", "missing-kind.yaml"]
    for n in names:
        (tmp_path / n).write_bytes((broken / n).read_bytes())
    (tmp_path / "good.yaml").write_text(
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n")
    r = run(str(tmp_path))
    assert r.exit_code == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 3, r.stderr
    assert lines[0].startswith(f"{tmp_path / names[0]}: ClusterQueue/team-a: spec.queueingStrategy: Unsupported")
    assert lines[1].startswith(f"{tmp_path / names[1]}: line 1 column 41: invalid JSON")
    assert lines[2] == f"{tmp_path / names[2]}: ?/default: kind: required field is missing"
    assert "ResourceFlavor: 1" in r.stdout  # the good file is still read
    code, doc = report(str(tmp_path))
    assert code == 2 and doc["files"] == 4
    assert [p["file"] for p in doc["problems"]] == [str(tmp_path / n) for n in names]
    assert {p["severity"] for p in doc["problems"]} == {"error"}


def test_the_projects_deploy_folder_passes():
    # whatever deploy/ holds at test time: dashboards, rule files, RBAC, kustomize...
    code, doc = report(str(DEPLOY))
    assert code == 0, doc["problems"]
    assert [p for p in doc["problems"] if p["severity"] == "error"] == []
    assert doc["files"] >= 1
    # the files that are not objects are listed by name, not counted as skipped objects
    for name in ("grafana-dashboard.json", "prometheus-rules.test.yaml", "kueue-doctor.rules.yaml"):
        if any(p.name == name for p in DEPLOY.rglob(name)):
            assert any(f.endswith(name) for f in doc["notObjects"]), doc["notObjects"]
    assert not any("not a Kubernetes object" in k for k in doc["skipped"])
    assert run(str(DEPLOY)).exit_code == 0


@pytest.mark.parametrize("folder", REAL_FOLDERS, ids=[p.name for p in REAL_FOLDERS])
def test_real_dumps_give_no_warnings(folder):
    code, doc = report(str(folder))
    assert code == 0
    found = {(str(Path(p["file"]).relative_to(folder.parent)), p["object"], p["field"]) for p in doc["problems"]}
    assert found - KNOWN_DATA_MISTAKES == set(), doc["problems"]
    assert doc["objects"]
    # manifest.json and ANSWER.yaml are the folder's metadata, not skipped objects
    names = {Path(f).name for f in doc["metadataFiles"]}
    assert names == {n for n in ("manifest.json", "ANSWER.yaml") if (folder / n).exists()}
    assert doc["skipped"] == {} and doc["notObjects"] == []


def test_yaml_and_legacy_json_output():
    doc = yaml.safe_load(run("-o", "yaml", str(TYPO)).stdout)
    jsonschema.Draft202012Validator(schema("ValidationReport")).validate(doc)
    assert doc["kind"] == "ValidationReport"
    legacy = run("--json", str(TYPO))
    assert json.loads(legacy.stdout) == json.loads(run("-o", "json", str(TYPO)).stdout)


def test_output_file(tmp_path):
    out = tmp_path / "report.json"
    r = run("-o", "json", "--output-file", str(out), str(TYPO))
    assert r.exit_code == 0 and r.stdout == ""
    jsonschema.Draft202012Validator(schema("ValidationReport")).validate(json.loads(out.read_text()))


def test_wide_adds_per_file_counts():
    folder = REAL_FOLDERS[-1]
    r = run("-o", "wide", str(folder))
    head = next(line for line in r.stdout.splitlines() if line.startswith("FILE"))
    assert head.split() == ["FILE", "OBJECTS", "SKIPPED", "PROBLEMS"]
    assert any(line.startswith(str(folder / "kueue.yaml")) for line in r.stdout.splitlines())
    assert "FILE" not in run(str(folder)).stdout


def test_schema_is_draft_2020_12_and_documented():
    s = schema("ValidationReport")
    jsonschema.Draft202012Validator.check_schema(s)
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert json.loads((REPO / "docs" / "schemas" / "ValidationReport.schema.json").read_text()) == s
