"""Every file in tests/broken is rejected the same way: one line naming file, object and
field, exit status 2, no traceback, and the file left exactly as it was."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli
from tests.paths import TESTS

BROKEN = TESTS / "broken"
CQ_QUOTA = "ClusterQueue/team-a: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Invalid value: "

# file -> substrings the one error line must contain (object reference, field, problem).
EXPECTED: dict[str, list[str]] = {
    # undecodable files: there is no object to name, so the position is what matters
    "yaml-bad-indentation.yaml": ["line 6 column 8", "invalid YAML", "mapping values are not allowed"],
    "yaml-unclosed-quote.yaml": ["line 6", "invalid YAML", "end of stream"],
    "yaml-tab-indentation.yaml": ["line 5 column 1", "invalid YAML"],
    "yaml-unclosed-flow-sequence.yaml": ["line 8", "invalid YAML", "']'"],
    "yaml-undefined-alias.yaml": ["line 10", "undefined alias"],
    "yaml-python-tag.yaml": ["line 5", "invalid YAML", "python/object/apply:os.system"],
    "yaml-second-document-broken.yaml": ["line 8", "invalid YAML"],
    "json-unclosed-object.json": ["invalid JSON", "line 2"],
    "json-missing-comma.json": ["invalid JSON", "line 1 column 41", "','"],
    "binary-gzip-named-yaml.yaml": ["not a text file"],
    "not-utf8-latin1.yaml": ["not UTF-8"],
    # missing or empty essentials
    "empty-object-only-kind.yaml": ["ClusterQueue/<unnamed>: metadata: required field is missing"],
    "empty-kind-string.yaml": ["?/team-a: kind: must not be empty"],
    "missing-metadata-name.yaml": ["ClusterQueue/<unnamed>: metadata.name: required field is missing"],
    "missing-kind.yaml": ["?/default: kind: required field is missing"],
    "missing-apiversion.yaml": ["ResourceFlavor/default: apiVersion: required field is missing"],
    "localqueue-missing-clusterqueue.yaml": ["LocalQueue/team-a/user-queue: spec.clusterQueue: required"],
    "clusterqueue-missing-nominalquota.yaml": [
        "ClusterQueue/team-a: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota: Required value"],
    "workload-missing-podsets.yaml": ["Workload/team-a/job-1: spec.podSets: required field is missing"],
    # wrong types
    "clusterqueue-resourcegroups-is-string.yaml": [
        'ClusterQueue/team-a: spec.resourceGroups: Invalid value: "string": must be of type array'],
    "clusterqueue-preemption-is-list.yaml": [
        'ClusterQueue/team-a: spec.preemption: Invalid value: "array": must be of type object'],
    "clusterqueue-coveredresources-is-string.yaml": [
        "ClusterQueue/team-a: spec.resourceGroups[0].coveredResources: ", "must be of type array"],
    "namespace-metadata-is-list.yaml": ["Namespace/<unnamed>: metadata: must be an object, got a list"],
    "priorityclass-value-is-string.yaml": ["WorkloadPriorityClass/high: value: ", "must be of type integer"],
    "multidoc-second-object-bad.yaml": ["LocalQueue/team-b/bad: spec.clusterQueue: ", "must be of type string"],
    "json-workload-active-not-bool.json": ["Workload/team-a/job-1: spec.active: ", "must be of type boolean"],
    "document-is-a-list-of-scalars.yaml": ["not a Kubernetes object", "'team-a'"],
    # quantities
    "quantity-12-gpus.yaml": [CQ_QUOTA + '"12 GPUs": must be a quantity'],
    "quantity-1.2.3.yaml": [CQ_QUOTA + '"1.2.3": must be a quantity'],
    "quantity-empty-string.yaml": [CQ_QUOTA + '"": must be a quantity'],
    "quantity-space-before-suffix.yaml": [CQ_QUOTA + '"5 Gi": must be a quantity'],
    "quantity-double-minus.yaml": [CQ_QUOTA + '"--3": must be a quantity'],
    "node-capacity-bad-quantity.yaml": ["Node/gpu-node-1: status.allocatable.cpu: invalid quantity", "'lots'"],
    "workload-container-request-bad-quantity.yaml": [
        "Workload/team-a/job-1: spec.podSets[0].template.spec.containers[0].resources.requests.memory: ",
        '"64 GB": must be a quantity'],
    "scenario-object-bad-quota.yaml": [
        "ClusterQueue/team-b: spec.resourceGroups[0].flavors[0].resources[0].borrowingLimit: ",
        '"unlimited": must be a quantity'],
    # versions
    "clusterqueue-unknown-version-v1alpha9.yaml": [
        "ClusterQueue/team-a: apiVersion: unsupported apiVersion 'kueue.x-k8s.io/v1alpha9'"],
    "deployment-apps-v2.yaml": [
        "Deployment/kueue-system/kueue-controller-manager: apiVersion: unsupported apiVersion 'apps/v2'"],
    # enums, ranges, formats
    "clusterqueue-queueingstrategy-fastest.yaml": [
        'ClusterQueue/team-a: spec.queueingStrategy: Unsupported value: "Fastest"', '"StrictFIFO"'],
    "clusterqueue-withinclusterqueue-always.yaml": [
        'ClusterQueue/team-a: spec.preemption.withinClusterQueue: Unsupported value: "Always"'],
    "v1beta1-clusterqueue-fungibility-sometimes.yaml": [
        'ClusterQueue/team-a: spec.flavorFungibility.whenCanBorrow: Unsupported value: "Sometimes"'],
    "resourceflavor-taint-effect-bad.yaml": ["ResourceFlavor/spot: spec.nodeTaints[0].effect: ", "'Evict'"],
    "workload-negative-count.yaml": [
        "Workload/team-a/job-1: spec.podSets[0].count: Invalid value: -2: must be greater than or equal to 0"],
    "workload-too-many-podsets.yaml": ["Workload/team-a/job-1: spec.podSets: Too many: 19: must have at most 18"],
    "workload-condition-bad-timestamp.yaml": [
        'Workload/team-a/job-1: status.conditions[0].lastTransitionTime: Invalid value: "yesterday"', "date-time"],
    "pod-creationtimestamp-bad.yaml": ["Pod/team-a/trainer-0: metadata.creationTimestamp: ", "RFC3339"],
    # unknown fields (with --strict; a warning without it)
    "clusterqueue-resourcegroup-typo.yaml": ['ClusterQueue/team-a: unknown field "spec.resourceGroup"'],
    # containers of objects
    "list-items-not-a-list.yaml": ["List: items: must be a list"],
    "list-big-one-bad-item.yaml": [
        'ClusterQueue/team-27: spec.queueingStrategy: Unsupported value: "FirstComeFirstServed"'],
    "configmap-kueue-config-invalid-yaml.yaml": [
        "ConfigMap/kueue-system/kueue-manager-config: data.controller_manager_config.yaml: ",
        "line 5", "invalid YAML in the embedded Configuration"],
    "configmap-kueue-config-featuregate-not-bool.yaml": [
        "ConfigMap/kueue-system/kueue-manager-config: data.controller_manager_config.yaml: ",
        "featureGates.TopologyAwareScheduling: must be true or false"],
}

FILES = sorted(p.name for p in BROKEN.iterdir() if p.is_file())
# validate reports every problem of a file; these files hold more than one (each its own line,
# the first is the one EXPECTED describes).
SEVERAL: dict[str, int] = {"document-is-a-list-of-scalars.yaml": 2}
# Unknown fields are warnings (exit status 0) unless --strict: these files are checked with it.
STRICT = {"clusterqueue-resourcegroup-typo.yaml"}


# Every file goes through the real CLI entry point in-process (fast); these also go
# through a fresh interpreter, as a user would run them, to cover what only a real process
# shows (exit status, stderr, encoding of the output). One interpreter per file would take
# a minute: the CLI imports every command at start-up.
SUBPROCESS = {"binary-gzip-named-yaml.yaml", "clusterqueue-resourcegroup-typo.yaml", "not-utf8-latin1.yaml", "yaml-python-tag.yaml",
              "json-missing-comma.json", "list-big-one-bad-item.yaml",
              "configmap-kueue-config-invalid-yaml.yaml", "quantity-12-gpus.yaml"}


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str


def _args(path: Path) -> list[str]:
    return ["validate", *(["--strict"] if path.name in STRICT else []), str(path)]


def _in_process(path: Path) -> Outcome:
    result = CliRunner().invoke(cli, _args(path), prog_name="kueue-doctor")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Outcome(result.exit_code, result.stdout, result.stderr)


def _subprocess(path: Path) -> Outcome:
    proc = subprocess.run([sys.executable, "-m", "kueue_doctor", *_args(path)],
                          capture_output=True, text=True, timeout=120)
    return Outcome(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture(scope="module")
def subprocess_results():
    with ThreadPoolExecutor(max_workers=len(SUBPROCESS)) as pool:
        names = sorted(SUBPROCESS)
        return dict(zip(names, pool.map(lambda n: _subprocess(BROKEN / n), names), strict=True))


def test_corpus_is_complete():
    assert len(FILES) >= 35
    assert sorted(EXPECTED) == FILES, "every broken file needs an expectation, and vice versa"


def test_files_say_what_is_wrong():
    for name in FILES:
        if name.endswith((".yaml", ".yml")) and not name.startswith("binary"):
            assert (BROKEN / name).read_bytes().startswith(b"# "), f"{name}: no comment line"


def _check(name: str, outcome: Outcome) -> None:
    path = str(BROKEN / name)
    assert outcome.returncode == 2, (outcome.returncode, outcome.stdout, outcome.stderr)
    assert "Traceback" not in outcome.stderr
    lines = outcome.stderr.splitlines()
    assert len(lines) == SEVERAL.get(name, 1), outcome.stderr
    # The CLI puts its own name first, as Unix tools do; then comes the file.
    for other in lines:
        assert other.removeprefix("kueue-doctor: ").startswith(path + ": "), other
    line = lines[0].removeprefix("kueue-doctor: ")
    for needle in EXPECTED[name]:
        assert needle in line, f"{needle!r} not in {line!r}"


@pytest.mark.parametrize("name", FILES)
def test_broken_file_is_one_line_error(name):
    path = BROKEN / name
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    _check(name, _in_process(path))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before, "the input file was modified"


@pytest.mark.parametrize("name", sorted(SUBPROCESS))
def test_broken_file_in_a_real_process(name, subprocess_results):
    path = BROKEN / name
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    _check(name, subprocess_results[name])
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before, "the input file was modified"
