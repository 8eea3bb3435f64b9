"""The simulator applies a scenario Configuration's resources rules as the engine does for a
gathered cluster: a ClusterQueue that covers only cpu_credits admits cpu work through them."""
from __future__ import annotations

from kueue_doctor.sim.scenario import parse_scenario
from kueue_doctor.sim.simulator import Simulator

from ..engine.test_transformations import CREDITS, configmap


def _scenario(with_config: bool) -> dict:
    objects = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "f"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"resourceGroups": [{"coveredResources": ["cpu", "cpu_credits"], "flavors": [
             {"name": "f", "resources": [{"name": "cpu", "nominalQuota": 8}, {"name": "cpu_credits", "nominalQuota": 2}]}]}]}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "ns"},
         "spec": {"clusterQueue": "cq"}},
    ]
    if with_config:
        objects.append(configmap(CREDITS))
    return {"kind": "Simulation", "duration": "10m", "objects": objects,
            "workloads": [{"name": f"w{i}", "namespace": "ns", "queue": "q", "requests": {"cpu": 1}, "runtime": "1h"}
                          for i in range(4)]}


def test_transformations_bound_admissions_by_credits():
    with_rules = Simulator(parse_scenario(_scenario(True), "t.yaml")).run()
    without = Simulator(parse_scenario(_scenario(False), "t.yaml")).run()
    # 1 cpu of each workload costs 1 cpu_credit: 2 credits admit 2 of the 4; without the rules cpu alone counts
    assert with_rules.recorder.admissions["cq"] == 2
    assert without.recorder.admissions["cq"] == 4
