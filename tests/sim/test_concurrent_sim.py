"""The simulator with ConcurrentAdmission (variants per flavor, FlavorMigration) and preemption gates."""
from __future__ import annotations

import yaml

from kueue_doctor.keys import WorkloadKey
from kueue_doctor.sim.scenario import parse_scenario
from kueue_doctor.sim.simulator import Simulator

CQ = """
kind: Simulation
kueue: {version: v0.19.2, featureGates: %(gates)s}
objects:
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: reserved}}
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: spot}}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {name: cq}
  spec:
    preemption: {withinClusterQueue: LowerPriority}
    resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors:
      - {name: reserved, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}
      - {name: spot, resources: [{name: nvidia.com/gpu, nominalQuota: 8}]}
    %(policy)s
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {name: lq, namespace: default},
   spec: {clusterQueue: cq}}
workloads: []
"""

MIGRATION = [{"name": "first", "queue": "lq", "requests": {"nvidia.com/gpu": 8}, "runtime": "10m"},
             {"name": "job", "queue": "lq", "at": "1m", "requests": {"nvidia.com/gpu": 8}, "runtime": "1h"}]


def run(workloads, gates="{ConcurrentAdmission: true}",
        policy="concurrentAdmissionPolicy: {migration: {mode: TryPreferredFlavors}}") -> Simulator:
    doc = yaml.safe_load(CQ % {"gates": gates, "policy": policy})
    doc["workloads"] = workloads
    return Simulator(parse_scenario(doc, "t.yaml")).run()


def events(sim: Simulator, kind: str) -> list[tuple[float, dict]]:
    return [(t, f) for t, e, f in sim.log if e == kind]


def test_variants_per_flavor_and_flavor_migration():
    sim = run(MIGRATION)
    assert set(sim.workloads) == {WorkloadKey("default", n) for n in
                                  ("first-reserved", "first-spot", "job-reserved", "job-spot")}
    admitted = [(round(t), str(f["workload"])) for t, f in events(sim, "admitted")]
    assert admitted[:2] == [(0, "default/first-reserved"), (60, "default/job-spot")]
    # first finishes at 10m: reserved frees, job's reserved variant evicts its spot variant
    migrated = events(sim, "migrated")
    assert [(round(t), str(f["workload"]), f["reason"], str(f["evictor"])) for t, f in migrated] == [
        (601, "default/job-spot", "FlavorMigration", "default/job-reserved")]
    assert migrated[0][1]["message"] == ("Evicted to accommodate a workload (UID: default/job-reserved) due to "
                                         "migration to more favorable resource flavor")
    assert "default/job-reserved" in [str(f["workload"]) for _, f in events(sim, "admitted")[2:]]
    assert events(sim, "preempted") == []
    # the recorder shows it as an eviction, not as a preemption
    marks = [m.text for m in sim.recorder.marks if m.kind == "eviction"]
    assert marks == ["default/job-spot evicted (FlavorMigration): default/job-reserved migrates to a more "
                     "favourable flavor"]
    assert sim.recorder.migrations["cq"] == 1 and sim.recorder.preemptions["cq"] == 0
    # a finished parent takes its other variants with it; the run ends
    assert all(sw.state == "finished" for sw in sim.workloads.values())


def test_retain_first_admission_does_not_migrate():
    sim = run(MIGRATION, policy="concurrentAdmissionPolicy: {migration: {mode: RetainFirstAdmission}}")
    assert events(sim, "migrated") == []
    assert ("deactivated", "default/job-reserved") in [(e, str(f.get("workload"))) for _, e, f in sim.log]


def test_without_a_policy_or_the_gate_there_are_no_variants():
    for sim in (run(MIGRATION, policy=""), run(MIGRATION, gates="{}")):
        assert set(sim.workloads) == {WorkloadKey("default", "first"), WorkloadKey("default", "job")}
        assert events(sim, "migrated") == []


GATED = [{"name": "low", "queue": "lq", "requests": {"nvidia.com/gpu": 8}, "runtime": "2h"},
         {"name": "low2", "queue": "lq", "requests": {"nvidia.com/gpu": 8}, "runtime": "2h"},
         {"name": "high", "queue": "lq", "at": "1m", "priority": 5, "requests": {"nvidia.com/gpu": 8},
          "runtime": "10m", "preemptionGates": [{"name": "kueue.x-k8s.io/multikueue", "openAfter": "20m"}]}]


def test_a_gated_workload_preempts_once_its_gate_opens():
    sim = run(GATED, gates="{MultiKueueOrchestratedPreemption: true}", policy="")
    gated = [(round(t), f["status"]) for t, f in events(sim, "evaluated") if str(f["workload"]) == "default/high"]
    assert gated[0] == (60, "preemptionGated")
    assert [round(t) for t, _ in events(sim, "gate_opened")] == [1260]
    preempted = events(sim, "preempted")
    assert preempted and all(t >= 1260 for t, _ in preempted)


def test_gates_are_ignored_without_the_gate():
    sim = run(GATED, gates="{}", policy="")
    assert [round(t) for t, _ in events(sim, "preempted")][:1] == [60]


def test_scenario_gate_forms():
    doc = yaml.safe_load(CQ % {"gates": "{}", "policy": ""})
    doc["workloads"] = [{"name": "w", "queue": "lq", "requests": {"cpu": 1}, "preemptionGates": ["a", {"name": "b"}]}]
    spec = parse_scenario(doc, "t.yaml").workloads[0]
    assert spec.preemption_gates == [("a", None), ("b", None)]


def test_the_snapshot_shows_variants_gates_and_migration(tmp_path):
    from kueue_doctor.sim.snapshot import write_snapshot
    from kueue_doctor.sources.snapshot import load_folder
    doc = yaml.safe_load(CQ % {"gates": "{ConcurrentAdmission: true, MultiKueueOrchestratedPreemption: true}",
                               "policy": "concurrentAdmissionPolicy: {migration: {mode: TryPreferredFlavors}}"})
    doc["workloads"] = MIGRATION
    sim = Simulator(parse_scenario(doc, "t.yaml")).run(601.5)
    write_snapshot(sim, tmp_path / "snap")
    st = load_folder(str(tmp_path / "snap")).state
    [spot] = [w for k, w in st.workloads.items() if k.name.startswith("job-job-spot-")]
    ev = spot.condition("Evicted")
    assert ev is not None and ev.reason == "FlavorMigration"
    assert spot.meta.annotations["kueue.x-k8s.io/workload-allowed-resource-flavors"] == "spot"
    assert st.cluster_queues["cq"].concurrent_admission_policy is not None


