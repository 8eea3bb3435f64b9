"""``kueue-doctor whatif``: every output form, the exit statuses of docs/cli.md, and a patch
written to the folder's YAML files (as a user would with ``kubectl patch``) read back by the
command itself."""
from __future__ import annotations

import json
import shutil

import jsonschema
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.commands.output import API_VERSION, EXIT_BAD_INPUT, EXIT_FOUND, EXIT_OK, schema
from kueue_doctor.whatif.apply import apply_patches
from tests.paths import INCIDENTS

HOL = INCIDENTS / "01-strictfifo-head-of-line-blocking"
HEAD = "perception/pytorchjob-bevfusion-pretrain-r12-92dbb"
ADMITTED = "fm/pytorchjob-wm-pretrain-1b-r4-e7904"


def invoke(argv):
    return CliRunner().invoke(cli, argv, catch_exceptions=False)


def test_every_form_of_a_pending_head():
    as_json = invoke(["whatif", HEAD, str(HOL), "-o", "json"])
    assert as_json.exit_code == EXIT_OK, as_json.output
    doc = json.loads(as_json.stdout)
    assert (doc["apiVersion"], doc["kind"], doc["workload"]) == (API_VERSION, "WhatIf", HEAD)
    jsonschema.validate(doc, schema("WhatIf"))
    assert doc["admitsNow"] is False and {s["kind"] for s in doc["suggestions"]} >= {"finish", "quota"}
    as_yaml = invoke(["whatif", HEAD, str(HOL), "-o", "yaml"])
    assert as_yaml.exit_code == EXIT_OK and yaml.safe_load(as_yaml.stdout) == doc
    for form in ([], ["-o", "wide"]):
        text = invoke(["whatif", HEAD, str(HOL), *form])
        assert text.exit_code == EXIT_OK
        assert "…" not in text.stdout and "\x1b[" not in text.stdout
        assert HEAD in text.stdout and "kubectl patch clusterqueue perception --type merge -p '" in text.stdout
        # the patch printed is the one in the document, whole
        quota = next(s for s in doc["suggestions"] if s["kind"] == "quota")
        assert json.dumps(quota["patches"][0]["mergePatch"], separators=(",", ":")) in text.stdout


def test_an_admitted_workload_says_so_and_exits_0():
    res = invoke(["whatif", ADMITTED, str(HOL), "-o", "json"])
    assert res.exit_code == EXIT_OK
    doc = json.loads(res.stdout)
    jsonschema.validate(doc, schema("WhatIf"))
    assert (doc["status"], doc["admitsNow"], doc["suggestions"]) == ("Admitted", True, [])
    text = invoke(["whatif", ADMITTED, str(HOL)]).stdout
    assert "already holds quota in ClusterQueue foundation-models" in text


def test_an_unknown_workload_is_bad_input():
    res = CliRunner().invoke(cli, ["whatif", "perception/no-such-job", str(HOL)])
    assert res.exit_code == EXIT_BAD_INPUT
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output


def test_nothing_admits_it_exits_1(tmp_path):
    """A request for a resource no flavor of its ClusterQueue covers: no quota, finish or
    priority change admits it."""
    api = "kueue.x-k8s.io/v1beta2"
    objs = [
        {"apiVersion": api, "kind": "ResourceFlavor", "metadata": {"name": "gpu"}},
        {"apiVersion": api, "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
             {"name": "gpu", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8"}]}]}]}},
        {"apiVersion": api, "kind": "LocalQueue", "metadata": {"name": "main", "namespace": "team"},
         "spec": {"clusterQueue": "cq"}},
        {"apiVersion": api, "kind": "Workload",
         "metadata": {"name": "fpga", "namespace": "team", "creationTimestamp": "2026-01-01T00:00:00Z"},
         "spec": {"queueName": "main", "podSets": [{"name": "main", "count": 1, "template": {"spec": {
             "containers": [{"name": "c", "resources": {"requests": {"example.com/fpga": "1"}}}]}}}]}},
    ]
    (tmp_path / "kueue.yaml").write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": objs}))
    res = invoke(["whatif", "team/fpga", str(tmp_path), "-o", "json", "--now", "2026-01-01T01:00:00Z"])
    assert res.exit_code == EXIT_FOUND, res.output
    doc = json.loads(res.stdout)
    assert doc["admitsNow"] is False and doc["suggestions"] == [] and doc["notes"]


def test_the_patch_written_to_the_yaml_files_admits_it(tmp_path):
    doc = json.loads(invoke(["whatif", HEAD, str(HOL), "-o", "json"]).stdout)
    quota = next(s for s in doc["suggestions"] if s["kind"] == "quota")
    folder = tmp_path / "patched"
    shutil.copytree(HOL, folder)
    kueue = folder / "kueue.yaml"
    (patched,) = apply_patches({"kueue.yaml": [yaml.safe_load(kueue.read_text())]}, quota["patches"])["kueue.yaml"]
    kueue.write_text(yaml.safe_dump(patched))
    after = invoke(["whatif", HEAD, str(folder), "-o", "json"])
    assert after.exit_code == EXIT_OK
    assert json.loads(after.stdout)["admitsNow"] is True
