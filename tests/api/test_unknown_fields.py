"""Unknown fields, as ``kubectl --validate=strict`` reports them, and the loader's collecting mode."""
from __future__ import annotations

import copy
from pathlib import Path

import pytest

from kueue_doctor.api import schema
from kueue_doctor.api.load import (
    Collector,
    decode_documents,
    is_object_document,
    load_paths,
    object_files,
    raw_objects,
    read_text,
    unknown_field_problems,
)
from kueue_doctor.errors import InputError
from tests.paths import INCIDENTS, REPO, SHARED, TESTS

CQ = {
    "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "team-a"},
    "spec": {"namespaceSelector": {}, "resourceGroups": [{
        "coveredResources": ["cpu", "nvidia.com/gpu"],
        "flavors": [{"name": "a100", "resources": [{"name": "cpu", "nominalQuota": 8}]},
                    {"name": "h100", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 8}]}]}]},
}

# Folders written by real clusters (kubectl get -o yaml, kueue-doctor collect) or pasted from
# public issues: what they hold is what the API server accepted, so an unknown field there is
# a false report of ours.
REAL_FOLDERS = sorted(p for p in INCIDENTS.iterdir() if p.is_dir()) + \
    sorted(p for p in (TESTS / "data" / "public-issues").iterdir() if p.is_dir())
# ... except where the file itself is wrong. kueue-1789's ClusterQueue status was pasted one
# level too deep, under spec (see its PROVENANCE.md: the spec is added by hand around the
# verbatim status); the API server would have pruned it. A real finding, kept until that file
# is corrected.
KNOWN_DATA_MISTAKES: set[tuple[str, str, str]] = set()


def test_typo_at_the_top_of_spec():
    cq = copy.deepcopy(CQ)
    cq["spec"]["resourceGroup"] = cq["spec"].pop("resourceGroups")
    assert schema.unknown_fields(cq, "ClusterQueue") == ["spec.resourceGroup"]


def test_typo_in_a_list_has_its_full_path():
    cq = copy.deepcopy(CQ)
    r = cq["spec"]["resourceGroups"][0]["flavors"][1]["resources"][0]
    r["nominalQuto"] = r.pop("nominalQuota")
    cq["spec"]["resourceGroups"][0]["flavour"] = "x"
    assert schema.unknown_fields(cq, "ClusterQueue") == [
        "spec.resourceGroups[0].flavors[1].resources[0].nominalQuto", "spec.resourceGroups[0].flavour"]


def test_valid_objects_have_no_unknown_fields():
    assert schema.unknown_fields(CQ, "ClusterQueue") == []
    rf = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor",
          "metadata": {"name": "h100", "managedFields": [{"manager": "kubectl", "fieldsV1": {"f:spec": {}}}],
                       "finalizers": ["kueue.x-k8s.io/resource-in-use"], "somethingNew": 1},
          # additionalProperties: any label key
          "spec": {"nodeLabels": {"nvidia.com/gpu.product": "H100", "pool": "a"}}}
    assert schema.unknown_fields(rf, "ResourceFlavor") == []


def test_pod_template_is_not_checked():
    # the shipped Workload CRD keeps only the pod-spec fields kueue-doctor reads (reduce_crds.py)
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "a"},
          "spec": {"queueName": "q", "podSets": [{"name": "main", "count": 1, "template": {
              "metadata": {"labels": {"a": "b"}},
              "spec": {"containers": [{"name": "c", "image": "busybox", "command": ["sleep"],
                                       "resources": {"requests": {"cpu": "1"}, "claims": []}}],
                       "volumes": [], "serviceAccountName": "x"}}}],
              "podSetz": []}}
    assert schema.unknown_fields(wl, "Workload") == ["spec.podSetz"]


def test_fields_of_either_shipped_version_are_known():
    # v1beta2 spelling on a v1beta1 object, as a newer release's v1beta1 serves it
    wl = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Workload", "metadata": {"name": "w", "namespace": "a"},
          "spec": {"podSets": []}, "status": {"accumulatedPastExecutionTimeSeconds": 5,
                                               "accumulatedPastExexcutionTimeSeconds": 5}}
    assert schema.unknown_fields(wl, "Workload") == []


def test_kinds_without_a_shipped_schema_are_not_checked():
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containerz": []}}
    assert schema.unknown_fields(pod, "Pod") == []
    assert schema.unknown_fields({"kind": "MultiKueueCluster", "spec": {"x": 1}}, "MultiKueueCluster") == []


def test_admission_checks_and_provisioning_configs_have_a_schema():
    ac = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "p"},
          "spec": {"controllerName": "kueue.x-k8s.io/provisioning-request", "controlerName": "typo"}}
    assert schema.unknown_fields(ac, "AdmissionCheck") == ["spec.controlerName"]
    prc = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ProvisioningRequestConfig", "metadata": {"name": "c"},
           "spec": {"provisioningClassName": "queued-provisioning.gke.io", "retryStrategy": {"backoffLimitCnt": 1}}}
    assert schema.unknown_fields(prc, "ProvisioningRequestConfig") == ["spec.retryStrategy.backoffLimitCnt"]


def test_preserve_unknown_fields_and_additional_properties():
    node = {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
            "anything": {"type": "object", "additionalProperties": True, "properties": {"a": {"type": "string"}}},
            "map": {"type": "object", "additionalProperties": {"type": "object", "properties": {
                "n": {"type": "integer"}}}},
            "list": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}}}}}}
    tree = schema._field_tree(node, "Test")
    assert tree is not None
    out: list[str] = []
    schema._walk_unknown({"spec": {"free": {"x": {"y": 1}}, "anything": {"b": 1},
                                   "map": {"one": {"n": 1}, "two": {"m": 2}},
                                   "list": [{"k": "a"}, {"j": "b"}], "other": 1}}, tree, "", out)
    assert out == ["spec.map.two.m", "spec.list[1].j", "spec.other"]


def _kueue_objects(folder: Path):
    for f in object_files(folder):
        for doc in decode_documents(read_text(f), str(f)):
            if is_object_document(doc):
                yield from ((f, raw) for raw in raw_objects(doc))


@pytest.mark.parametrize("folder", REAL_FOLDERS, ids=[p.name for p in REAL_FOLDERS])
def test_real_dumps_have_no_unknown_fields(folder):
    found = set()
    checked = 0
    for f, raw in _kueue_objects(folder):
        for p in unknown_field_problems([raw], str(f)):
            found.add((str(Path(p.file).relative_to(folder.parent)), p.obj, p.field))
        checked += str(raw.get("apiVersion", "")).startswith("kueue.x-k8s.io/")
    assert checked, "no Kueue object in the folder"
    assert found - KNOWN_DATA_MISTAKES == set()


def test_shipped_and_shared_manifests_have_no_unknown_fields():
    # every valid Kueue object of the repository (conformance cases copied from Kueue's own
    # unit tests, scenarios, examples) and of Kueue's own examples in the shared data
    roots = [TESTS, REPO / "examples"] + ([SHARED / "data" / "kueue-examples"] if SHARED.is_dir() else [])
    found = set()
    for root in roots:
        for f in object_files(root):
            if TESTS / "broken" in f.parents:
                continue
            for doc in decode_documents(read_text(f), str(f)):
                if is_object_document(doc):
                    for p in unknown_field_problems([doc], str(f)):
                        found.add((str(Path(p.file).relative_to(Path(p.file).parents[1])), p.obj, p.field))
    assert found - KNOWN_DATA_MISTAKES == set()


# -- what is an object ---------------------------------------------------------------------

@pytest.mark.parametrize("doc", [
    {"groups": [{"name": "kueue-doctor", "rules": []}]},                       # Prometheus rules
    {"rule_files": ["rules.yaml"], "tests": []},                               # promtool test
    {"title": "dashboard", "panels": [], "schemaVersion": 39},                 # Grafana
    {"kind": "CustomResourceStateMetrics", "spec": {"resources": []}},         # kube-state-metrics
    {"collectedAt": "2024-01-01T00:00:00Z"},                                   # manifest.json
    ["a", "b"], "text",
])
def test_not_objects(doc):
    assert not is_object_document(doc)


@pytest.mark.parametrize("doc", [
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "metadata": {"name": "x"}},      # no kind: broken
    {"kind": "ClusterQueue"},                                                  # a kind we read: broken
    {"metadata": {"name": "x"}, "spec": {}},                                   # no kind, no apiVersion: broken
    {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", "resources": []},
    {"apiVersion": "v1", "kind": "List", "items": []},
])
def test_objects(doc):
    assert is_object_document(doc)


# -- collecting mode -------------------------------------------------------------------------

BAD_CQ = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: %s}\nspec: {queueingStrategy: Fastest}\n"
GOOD_RF = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: default}\n"


def _folder(tmp_path: Path) -> Path:
    (tmp_path / "a-bad.yaml").write_text(BAD_CQ % "team-a" + "---\n" + BAD_CQ % "team-b")
    (tmp_path / "b-good.yaml").write_text(GOOD_RF)
    (tmp_path / "c-undecodable.yaml").write_text("kind: [\n")
    (tmp_path / "d-typo.yaml").write_text(GOOD_RF.replace("default}", "other}") + "spec: {nodeLabelz: {}}\n")
    return tmp_path


def test_default_mode_fails_on_the_first_problem(tmp_path):
    with pytest.raises(InputError) as e:
        load_paths([_folder(tmp_path)])
    assert str(e.value).startswith(f"{tmp_path / 'a-bad.yaml'}: ClusterQueue/team-a: spec.queueingStrategy")


def test_collecting_mode_reports_every_file_and_object(tmp_path):
    collect = Collector()
    state = load_paths([_folder(tmp_path)], collect=collect)
    lines = [str(p) for p in collect.problems]
    assert len(lines) == 3, lines
    assert lines[0].startswith(f"{tmp_path / 'a-bad.yaml'}: ClusterQueue/team-a: spec.queueingStrategy: ")
    assert lines[1].startswith(f"{tmp_path / 'a-bad.yaml'}: ClusterQueue/team-b: spec.queueingStrategy: ")
    assert lines[2].startswith(f"{tmp_path / 'c-undecodable.yaml'}: line 2 column 1: invalid YAML")
    assert state.counts() == {"ResourceFlavor": 2}
    assert len(state.files) == 4
    assert collect.per_file[str(tmp_path / "a-bad.yaml")] == [0, 0]
    assert collect.per_file[str(tmp_path / "b-good.yaml")] == [1, 0]


def test_unknown_fields_only_when_asked(tmp_path, monkeypatch):
    folder = _folder(tmp_path)
    collect = Collector(unknown_fields=True)
    load_paths([folder], collect=collect)
    warnings = [str(p) for p in collect.problems if p.severity == "warning"]
    assert warnings == [f'{folder / "d-typo.yaml"}: ResourceFlavor/other: unknown field "spec.nodeLabelz"']

    # the normal load path (diagnose, explain, serve) never walks for unknown fields
    def boom(*a, **k):
        raise AssertionError("unknown-field walk in the normal load path")
    monkeypatch.setattr(schema, "unknown_fields", boom)
    (folder / "a-bad.yaml").unlink()
    (folder / "c-undecodable.yaml").unlink()
    assert load_paths([folder]).counts() == {"ResourceFlavor": 2}
    collect = Collector()
    load_paths([folder], collect=collect)
    assert collect.problems == []


def test_missing_path_is_one_problem(tmp_path):
    collect = Collector()
    load_paths([tmp_path / "nope", _folder(tmp_path) / "b-good.yaml"], collect=collect)
    assert [str(p) for p in collect.problems] == [f"{tmp_path / 'nope'}: no such file or directory"]


def test_metadata_files_are_not_skipped_objects(tmp_path):
    (tmp_path / "manifest.json").write_text('{"collectedAt": "2024-01-01T00:00:00Z"}')
    (tmp_path / "ANSWER.yaml").write_text("violations: []\ncauses: []\n")
    (tmp_path / "rules.yaml").write_text("groups: []\n")
    (tmp_path / "kueue.yaml").write_text(GOOD_RF)
    state = load_paths([tmp_path])
    assert state.metadata_files == [str(tmp_path / "ANSWER.yaml"), str(tmp_path / "manifest.json")]
    assert state.not_objects == [str(tmp_path / "rules.yaml")]
    assert not state.skipped
    assert state.counts() == {"ResourceFlavor": 1}


def test_a_manifest_json_of_objects_is_read_as_objects(tmp_path):
    # told apart by content: the name alone does not make a file metadata
    (tmp_path / "manifest.json").write_text(
        '{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "x"}}')
    state = load_paths([tmp_path])
    assert state.counts() == {"ResourceFlavor": 1} and not state.metadata_files
