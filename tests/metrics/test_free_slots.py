"""free_slots: the same cluster gives the same gauge, simulated or gathered.

The simulator's view counts on its own nodes, the snapshot's on the Nodes and Pods the
simulator wrote; both go through ``engine.nodes.count_slots``. The scenario makes the old
rules disagree: an extended resource (``example.com/ib``) runs out before GPUs do, memory
requests are not whole MiB, one node goes NotReady, flavors select pools by label.
"""
from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli as main
from kueue_doctor.metrics.from_sim import view_from_sim
from kueue_doctor.metrics.from_snapshot import view_from_snapshot
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from kueue_doctor.sources.snapshot import load_folder

API = "kueue.x-k8s.io/v1beta2"
RESOURCES = ["cpu", "memory", "nvidia.com/gpu", "example.com/ib"]


def _flavor_quota(name: str, gpus: int) -> dict:
    amounts = {"cpu": "256", "memory": "2Ti", "nvidia.com/gpu": str(gpus), "example.com/ib": "8"}
    return {"name": name, "resources": [{"name": r, "nominalQuota": amounts[r]} for r in RESOURCES]}


SCENARIO = {
    "kind": "Simulation",
    "name": "free slots, simulated and gathered",
    "duration": "3h",
    "scheduler": {"releaseLatency": "2s", "quotaReleaseLatency": "1s"},
    "objects": [
        {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": "pool-a"},
         "spec": {"nodeLabels": {"pool": "a"}}},
        {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": "pool-b"},
         "spec": {"nodeLabels": {"pool": "b"}}},
        {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": "team"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [
             {"coveredResources": RESOURCES, "flavors": [_flavor_quota("pool-a", 16), _flavor_quota("pool-b", 8)]}]}},
        {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "main", "namespace": "team"},
         "spec": {"clusterQueue": "team"}},
    ],
    "nodes": [
        {"count": 3, "namePrefix": "a-", "labels": {"pool": "a"},
         "allocatable": {"nvidia.com/gpu": 8, "cpu": 64, "memory": "512Gi", "example.com/ib": 2}},
        {"count": 2, "namePrefix": "b-", "labels": {"pool": "b"},
         "allocatable": {"nvidia.com/gpu": 8, "cpu": 32, "memory": "250000Mi", "example.com/ib": 1}},
    ],
    "workloads": [
        {"at": "0s", "namespace": "team", "name": "ib-a", "queue": "main", "pods": 2, "runtime": "10h",
         "requests": {"nvidia.com/gpu": 4, "cpu": 8, "memory": "1G", "example.com/ib": 1}},
        {"at": "1s", "namespace": "team", "name": "ib-b", "queue": "main", "pods": 1, "runtime": "10h",
         "requests": {"nvidia.com/gpu": 2, "cpu": 4, "memory": "1500M", "example.com/ib": 1}},
    ],
    "generators": [
        {"namePrefix": "wait", "namespace": "team", "queue": "main", "count": 6, "every": "10s", "start": "1m",
         "pods": 1, "runtime": "10h", "requests": {"nvidia.com/gpu": 4, "cpu": 8, "memory": "1G",
                                                   "example.com/ib": 1}},
        {"namePrefix": "small", "namespace": "team", "queue": "main", "count": 12, "every": "10s", "start": "2m",
         "pods": 1, "runtime": "10h", "requests": {"nvidia.com/gpu": 1, "cpu": 2, "memory": "3Gi"}},
    ],
    "faults": [{"at": "30m", "kind": "nodeNotReady", "node": "a-2"}],
}


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("scenario") / "free-slots.yaml"
    path.write_text(yaml.safe_dump(SCENARIO, sort_keys=False))
    return path


@pytest.mark.parametrize("at", [600.0, 5400.0])
def test_simulated_and_gathered_free_slots_are_equal(scenario_file, tmp_path, at):
    folder = tmp_path / "snapshot"
    res = CliRunner().invoke(main, ["simulate", str(scenario_file), "--snapshot-at", f"{at:g}s",
                                    "--snapshot-dir", str(folder)])
    assert res.exit_code == 0, res.output
    sim = Simulator(load_scenario(str(scenario_file))).run(at)
    simulated = view_from_sim(sim).free_slots
    gathered = view_from_snapshot(load_folder(str(folder))).free_slots
    assert simulated == gathered
    assert simulated and any(v for v in simulated.values())   # something to compare
    assert {f for f, _ in simulated} == {"pool-a", "pool-b"}


def test_the_gauge_counts_every_requested_resource(scenario_file):
    sim = Simulator(load_scenario(str(scenario_file))).run(5400.0)
    slots = view_from_sim(sim).free_slots
    # pool-b: both nodes have 4 untouched GPUs, but their only example.com/ib is taken
    pool_b = [n.info for n in sim.pool.nodes if n.labels["pool"] == "b"]
    assert all(n.gpu_free.count(1000) >= 4 and n.free("example.com/ib") == 0 for n in pool_b)
    assert slots[("pool-b", "4gpu-8cpu-954Mi")] == 0
    # pool-a: a-2 is NotReady; the two Ready nodes keep room for 1-GPU pods
    assert not sim.pool.by_name["a-2"].ready
    assert slots[("pool-a", "1gpu-2cpu-3Gi")] == 2
