"""Configuration resources.excludeResourcePrefixes and .transformations (engine/transformations.py).

Upstream: pkg/workload/workload.go (dropExcludedResources, applyResourceTransformations,
totalRequestsFromPodSets), pkg/scheduler/flavorassigner/tas_flavorassigner.go (podSetTopologyRequest
takes the pod spec's requests), pkg/config/validation.go (validateResourceTransformations).
"""
from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from kueue_doctor.api import objects as o
from kueue_doctor.api.load import load_documents, load_paths
from kueue_doctor.api.quantity import Quantity
from kueue_doctor.conformance.scenario import load_scenario
from kueue_doctor.conformance.setup import engine_config, prepare_state
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.transformations import ResourceRules, TransformBehaviour
from kueue_doctor.errors import InputError
from kueue_doctor.kueue.version import parse_version

NOW = datetime(2024, 1, 1, tzinfo=UTC)
B2 = "kueue.x-k8s.io/v1beta2"
ROOT = Path(__file__).resolve().parents[2]


def tr(input: str, outputs: dict[str, str], strategy: str = "Retain", multiply_by: str = "") -> o.ResourceTransformation:
    return o.ResourceTransformation(input, strategy, {k: Quantity.parse(v) for k, v in outputs.items()}, multiply_by)


def rules(*ts: o.ResourceTransformation, excluded: tuple[str, ...] = (), release: str | None = None) -> ResourceRules:
    behaviour = TransformBehaviour.for_release(parse_version(release)) if release else None
    return ResourceRules.of(excluded, ts, behaviour)


# -- arithmetic ---------------------------------------------------------------------------------------
def test_retain_keeps_the_input_and_adds_the_outputs_per_unit():
    r = rules(tr("cpu", {"cpu_credits": "1", "example.com/memory-credits": "2"}))
    assert r.accounted({"cpu": 1500, "memory": 10}) == {
        "cpu": 1500, "memory": 10, "cpu_credits": 2, "example.com/memory-credits": 3}


def test_replace_drops_the_input_and_empty_outputs_make_kueue_ignore_it():
    r = rules(tr("nvidia.com/mig-1g.5gb", {"example.com/accelerator-memory": "5Gi"}, "Replace"),
              tr("example.com/ignored", {}, "Replace"))
    assert r.accounted({"nvidia.com/mig-1g.5gb": 2, "example.com/ignored": 7, "cpu": 100}) == {
        "example.com/accelerator-memory": 10 * 2**30, "cpu": 100}


def test_excluded_prefixes_are_dropped_before_transformations():
    r = rules(tr("example.com/gpu", {"credits": "1"}), excluded=("example.com/",))
    assert r.accounted({"example.com/gpu": 4, "cpu": 1000}) == {"cpu": 1000}


def test_multiply_by_scales_the_outputs_but_not_the_retained_input():
    r = rules(tr("nvidia.com/gpu", {"gpu-memory": "80"}, multiply_by="example.com/gpu-count"))
    assert r.accounted({"nvidia.com/gpu": 2, "example.com/gpu-count": 3}) == {
        "nvidia.com/gpu": 2, "example.com/gpu-count": 3, "gpu-memory": 480}


def test_outputs_are_summed_apart_from_a_request_of_the_same_name_and_floored_at_zero():
    r = rules(tr("cpu", {"credits": "1"}), tr("memory", {"credits": "-1"}, "Replace"))
    # generated: 2 - 5 = -3 -> 0; the pod's own 4 credits stay whole
    assert r.accounted({"cpu": 2000, "memory": 5, "credits": 4}) == {"cpu": 2000, "credits": 4}


def test_cpu_outputs_are_exact_millicores_since_12953_and_whole_units_before():
    r = {"cpu": 500}
    t = tr("cpu", {"credits": "4", "cpu": "0"}, "Replace")
    assert rules(t).accounted(r) == {"credits": 2, "cpu": 0}
    # before #12953 the input counted as Value(): 500m rounded up to 1
    assert rules(t, release="0.18.2").accounted(r) == {"credits": 4, "cpu": 0}
    assert rules(t, release="0.18.3").accounted(r) == {"credits": 2, "cpu": 0}


def test_before_13986_a_retained_input_is_scaled_by_multiply_by():
    t = tr("nvidia.com/gpu", {"gpu-memory": "80"}, multiply_by="example.com/gpu-count")
    req = {"nvidia.com/gpu": 2, "example.com/gpu-count": 3}
    assert rules(t, release="0.19.0").accounted(req) == {"nvidia.com/gpu": 6, "example.com/gpu-count": 3,
                                                         "gpu-memory": 480}
    assert rules(t, release="0.19.1").accounted(req)["nvidia.com/gpu"] == 2
    # multiplyBy came in v0.16
    assert rules(t, release="0.15.8").accounted(req) == {"nvidia.com/gpu": 2, "example.com/gpu-count": 3,
                                                         "gpu-memory": 160}


@pytest.mark.parametrize(("tag", "tas_pod_spec"), [("0.15.3", False), ("0.15.4", True), ("0.16.0", False),
                                                   ("0.16.1", True), ("0.17.0", True), ("0.20.0", True)])
def test_tas_uses_the_pod_spec_requests_since_8865(tag, tas_pod_spec):
    assert TransformBehaviour.for_release(parse_version(tag)).tas_pod_spec_requests is tas_pod_spec


# -- Configuration --------------------------------------------------------------------------------------
def configmap(resources: dict, api: str = "v1beta2", gates: dict | None = None) -> dict:
    conf: dict = {"apiVersion": f"config.kueue.x-k8s.io/{api}", "kind": "Configuration", "resources": resources}
    if gates:
        conf["featureGates"] = gates
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "kueue-manager-config", "namespace": "kueue-system"},
            "data": {"controller_manager_config.yaml": yaml.safe_dump(conf)}}


CREDITS = {"transformations": [{"input": "cpu", "outputs": {"cpu_credits": "1"}}]}


@pytest.mark.parametrize("api", ["v1beta1", "v1beta2"])
def test_configuration_reads_transformations_defaulting_strategy_to_retain(api):
    state = load_documents([configmap({**CREDITS, "excludeResourcePrefixes": ["example.com/"]}, api)], "t")
    ec = EngineConfig.from_kueue(state.configuration)
    assert ec.resource_rules.excluded_prefixes == ("example.com/",)
    t = ec.resource_rules.transformations["cpu"]
    assert t.strategy == "Retain" and t.outputs == {"cpu_credits": Quantity.parse("1")}


def test_v0_13_can_switch_transformations_off_with_its_gate():
    state = load_documents([configmap(CREDITS, gates={"ConfigurableResourceTransformations": False})], "t")
    assert not EngineConfig.from_kueue(state.configuration).resource_rules.transformations


@pytest.mark.parametrize(("t", "where", "problem"), [
    ({"input": "cpu", "strategy": "Keep"}, "resources.transformations[0].strategy", "unsupported value"),
    ({"input": "cpu", "outputs": {"x": "lots"}}, "resources.transformations[0].outputs.x", "invalid quantity"),
])
def test_an_invalid_transformation_names_its_field(t, where, problem):
    with pytest.raises(InputError) as e:
        load_documents([configmap({"transformations": [t]})], "t")
    assert where in str(e.value) and problem in str(e.value)


def test_excluded_prefixes_with_ignore_undeclared_are_rejected_as_kueue_does():
    with pytest.raises(InputError, match="excludeResourcePrefixes is not allowed"):
        load_documents([configmap({"quotaCheckStrategy": "IgnoreUndeclared", "excludeResourcePrefixes": ["x/"]})], "t")


def test_a_second_transformation_of_one_input_is_rejected():
    with pytest.raises(InputError, match=r"transformations\[1\]\.input"):
        load_documents([configmap({"transformations": [{"input": "cpu"}, {"input": "cpu", "strategy": "Replace"}]})], "t")


# -- a gathered cluster ---------------------------------------------------------------------------------
def cluster(credits_quota: str) -> list[dict]:
    def wl(name: str, cpu: str, created: str) -> dict:
        return {"apiVersion": B2, "kind": "Workload",
                "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
                "spec": {"queueName": "main", "podSets": [{"name": "one", "count": 1, "template": {"spec": {
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}}]}}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}},
        {"apiVersion": B2, "kind": "ResourceFlavor", "metadata": {"name": "default"}},
        {"apiVersion": B2, "kind": "ResourceFlavor", "metadata": {"name": "credits"}},
        {"apiVersion": B2, "kind": "ClusterQueue", "metadata": {"name": "main"}, "spec": {
            "namespaceSelector": {}, "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [
                    {"name": "cpu", "nominalQuota": "8"}]}]},
                {"coveredResources": ["cpu_credits"], "flavors": [{"name": "credits", "resources": [
                    {"name": "cpu_credits", "nominalQuota": credits_quota}]}]}]}},
        {"apiVersion": B2, "kind": "LocalQueue", "metadata": {"name": "main", "namespace": "default"},
         "spec": {"clusterQueue": "main"}},
        wl("small", "2", "2024-01-01T00:00:00Z"), wl("big", "4", "2024-01-01T00:00:01Z"),
    ]


def test_a_gathered_folder_with_transformations_accounts_the_credits(tmp_path):
    docs = [configmap(CREDITS), *cluster("5")]
    (tmp_path / "cluster.yaml").write_text(yaml.safe_dump_all(docs))
    state = load_paths([str(tmp_path)])
    model = AdmissionModel(state, EngineConfig.from_kueue(state.configuration))
    first = model.cycle(NOW)
    assert [e.key.name for e in first.admitted] == ["small"]
    a = first.admitted[0].assignment
    assert a is not None and a.usage == {("default", "cpu"): 2000, ("credits", "cpu_credits"): 2}
    # 2 + 4 credits > 5: the cpu quota (8) has room, the credits do not
    second = model.cycle(NOW)
    assert not second.admitted
    msgs = [e.inadmissible_msg for e in second.inadmissible] + [e.inadmissible_msg for e in second.entries]
    assert any("insufficient unused quota for cpu_credits in flavor credits, 1 more needed" in m for m in msgs)


def test_without_the_configuration_the_credits_are_not_accounted():
    model = AdmissionModel(load_documents(cluster("5"), "t"), EngineConfig())
    assert [e.key.name for _ in range(2) for e in model.cycle(NOW).admitted] == ["small", "big"]


# -- topology-aware scheduling ------------------------------------------------------------------------
CASE = ROOT / "tests/conformance/tas/sched-061-workload-with-resource-transformation-retain-cpu-cpu-credits.yaml"


@pytest.mark.parametrize(("tag", "placed"), [("0.20.0", True), ("0.16.1", True), ("0.16.0", False)])
def test_tas_places_by_the_pod_spec_not_by_the_credits_a_node_does_not_have(tag, placed):
    # sched-061: one node with 1 cpu; the pod set is accounted as cpu + cpu_credits. Before #8865
    # TAS asked the node for the cpu_credits too, so nothing could be placed.
    scn = load_scenario(CASE)
    cfg = engine_config(scn, {})
    cfg.resource_rules = replace(cfg.resource_rules, behaviour=TransformBehaviour.for_release(parse_version(tag)))
    model = AdmissionModel(prepare_state(scn), cfg)
    res = model.cycle(scn.now or NOW)
    assert [e.key.name for e in res.admitted] == (["foo"] if placed else [])
    if placed:
        a = res.admitted[0].assignment
        assert a is not None and a.usage == {("tas-default", "cpu"): 1000, ("credits", "cpu_credits"): 1}


def test_the_doctor_judges_a_gathered_cluster_by_its_transformations():
    # small holds 2 cpu and 2 credits; big needs 4 cpu (room: 8) and 4 credits (room: 3). Without
    # the Configuration the doctor would see free quota and call big's wait a violation.
    from datetime import timedelta

    from kueue_doctor.doctor.diagnose import diagnose
    from kueue_doctor.sources.snapshot import GatheredSnapshot
    docs = cluster("5")
    at = "2024-01-01T00:00:05Z"
    docs[-2]["status"] = {
        "admission": {"clusterQueue": "main", "podSetAssignments": [{
            "name": "one", "count": 1, "flavors": {"cpu": "default", "cpu_credits": "credits"},
            "resourceUsage": {"cpu": "2", "cpu_credits": "2"}}]},
        "conditions": [{"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": at}
                       for t in ("QuotaReserved", "Admitted")]}
    later = datetime(2024, 1, 1, 1, tzinfo=UTC)
    with_config = diagnose(GatheredSnapshot(load_documents([configmap(CREDITS), *docs], "t")), timedelta(minutes=5), later)
    assert with_config.violations == []
    without = diagnose(GatheredSnapshot(load_documents(docs, "t")), timedelta(minutes=5), later)
    assert [k.name for v in without.violations for k in v.pending_workloads] == ["big"]
