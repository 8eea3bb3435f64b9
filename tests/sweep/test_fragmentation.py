"""The sweep's fragmentation measure: the FGD measure of the simulated nodes over the run."""
from __future__ import annotations

import math

import pytest
import yaml

from kueue_doctor.sim.scenario import parse_scenario
from kueue_doctor.sim.simulator import Simulator
from kueue_doctor.sweep.fragmentation import FragmentationProbe
from kueue_doctor.sweep.spec import parse_spec


def _scenario(gpus_per_pod: int, jobs: int, nodes: int = 2) -> dict:
    return {
        "kind": "Simulation", "name": "frag", "duration": "2h",
        "objects": [
            {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "gpu"}},
            {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": "a"},
             "spec": {"resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                 {"name": "gpu", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 8 * nodes}]}]}]}},
            {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "a"},
             "spec": {"clusterQueue": "a"}},
        ],
        "nodes": [{"count": nodes, "namePrefix": "n", "allocatable": {"cpu": 64, "memory": "512Gi", "nvidia.com/gpu": 8}}],
        "generators": [{"class": "a", "namespace": "a", "queue": "q", "count": jobs, "start": 0, "every": "1s",
                        "requests": {"nvidia.com/gpu": gpus_per_pod}, "runtime": "3h"}],
    }


def _probe(doc: dict) -> FragmentationProbe:
    sim = Simulator(parse_scenario(doc, "frag.yaml"))
    probe = sim.progress = FragmentationProbe(sim)
    sim.run()
    return probe


def test_leftovers_too_small_for_the_runs_pods_are_fragment():
    # four 3-GPU pods spread over two 8-GPU nodes: each node keeps 2 GPUs no 3-GPU pod can use
    series = _probe(_scenario(3, 4)).series()
    assert len(series) == 2 * 3600 // 300 + 1
    settled = series[1:]   # from the first sample after the admissions at the start
    assert settled and all(g == pytest.approx(4.0) and r == pytest.approx(100.0) for g, r in settled)


def test_room_the_runs_pods_fit_is_not_fragment():
    # two 4-GPU pods, one a node: each node's 4 free GPUs take another such pod
    series = _probe(_scenario(4, 2)).series()
    assert series and all(g == 0.0 and r == 0.0 for g, r in series[1:])
    # full nodes have nothing idle: no share of idle to average, nothing fragmented
    full = _probe(_scenario(4, 4)).measures()
    assert full["fragmentedGpus"] == 0.0


def test_nothing_to_measure_is_nan_not_zero():
    doc = _scenario(3, 4)
    doc["nodes"] = []
    m = _probe(doc).measures()
    assert math.isnan(m["fragmentation"]) and math.isnan(m["fragmentedGpus"])


def test_a_sweep_row_carries_it_and_objectives_may_name_it(tmp_path):
    from kueue_doctor.sweep import run_sweep
    (tmp_path / "scenario.yaml").write_text(yaml.safe_dump(_scenario(3, 4)))
    spec_doc = {"kind": "Sweep", "scenario": "scenario.yaml", "seed": 1, "replicates": 1,
                "objectives": ["fragmentation", "-gpuUtilisation"],
                "parameters": [{"name": "size", "path": "ClusterQueue/a:spec.resourceGroups[*].flavors[*]"
                                ".resources[nvidia.com/gpu].nominalQuota", "scale": [0.5, 1.0]}]}
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump(spec_doc))
    spec = parse_spec(spec_doc, str(tmp_path / "sweep.yaml"))
    rows = run_sweep(spec, str(tmp_path / "out")).rows
    by_scale = {r["param.size"]: r for r in rows}
    # at half the quota two 3-GPU pods run, one a node: 5 free GPUs each fit another pod
    assert by_scale[0.5]["fragmentedGpus"] == pytest.approx(0.0)
    assert by_scale[1.0]["fragmentedGpus"] > 3.5
    keys = list(rows[0])
    assert keys.index("fragmentation") == keys.index("gpuUtilisation") + 1
