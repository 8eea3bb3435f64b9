"""Topology-aware scheduling in the simulator: scenario topology, pods bound where the engine's
topology assignment says, the snapshot's Topology objects and assignments, the TAS incident."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from kueue_doctor.api import objects as o
from kueue_doctor.api.fields import Fields
from kueue_doctor.api.parse import parse_topology_assignment
from kueue_doctor.cli import cli
from kueue_doctor.commands.demo import run_pair
from kueue_doctor.errors import InputError
from kueue_doctor.keys import WorkloadKey
from kueue_doctor.sim.incidents import apply_fix, incident_path
from kueue_doctor.sim.nodes import GONE
from kueue_doctor.sim.scenario import load_scenario, parse_scenario
from kueue_doctor.sim.simulator import RUNNING_W, Simulator
from kueue_doctor.sim.snapshot import write_snapshot
from kueue_doctor.sim.tas import encode_assignment
from kueue_doctor.sources.snapshot import load_folder

INCIDENT = "topology-fragmentation"
RACK, BLOCK, HOST = "example.com/topology-rack", "example.com/topology-block", "kubernetes.io/hostname"

# one ClusterQueue on a TAS flavor over 2 racks of 2 nodes (8 GPUs each)
SMALL = f"""
kind: Simulation
kueue: {{version: "0.20.0"}}
objects:
- {{apiVersion: kueue.x-k8s.io/v1beta2, kind: Topology, metadata: {{name: topo}},
   spec: {{levels: [{{nodeLabel: {RACK}}}, {{nodeLabel: {HOST}}}]}}}}
- {{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {{name: tas}}, spec: {{topologyName: topo}}}}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {{name: cq}}
  spec:
    preemption: {{withinClusterQueue: LowerPriority}}
    resourceGroups:
    - coveredResources: [nvidia.com/gpu]
      flavors: [{{name: tas, resources: [{{name: nvidia.com/gpu, nominalQuota: 32}}]}}]
- {{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {{name: main, namespace: default}},
   spec: {{clusterQueue: cq}}}}
nodes:
- {{namePrefix: n-, allocatable: {{nvidia.com/gpu: 8}}, topology: {{{RACK}: 2, {HOST}: 2}}}}
"""


def _scn(extra: str, quota: int = 32):
    text = SMALL.replace("nominalQuota: 32", f"nominalQuota: {quota}")
    return parse_scenario(yaml.safe_load(text + extra), "small.yaml")


def test_topology_node_group_lays_out_domains():
    scn = _scn("")
    assert [n.name for n in scn.nodes] == ["n-rack0-0", "n-rack0-1", "n-rack1-0", "n-rack1-1"]
    assert [n.labels[RACK] for n in scn.nodes] == ["rack0", "rack0", "rack1", "rack1"]
    big = load_scenario(str(incident_path(INCIDENT)))
    assert len(big.nodes) == 16
    assert big.nodes[-1].name == "h100-block1-rack1-3"
    assert big.nodes[-1].labels == {"example.com/gpu": "h100", BLOCK: "block1", RACK: "block1-rack1"}


@pytest.mark.parametrize(("nodes", "field"), [
    ("- {allocatable: {cpu: 1}, count: 2, topology: {kubernetes.io/hostname: 2}}", "nodes[0].count"),
    ("- {allocatable: {cpu: 1}, topology: {example.com/rack: 2}}", "nodes[0].topology"),
    ("- {allocatable: {cpu: 1}, topology: {example.com/rack: 0, kubernetes.io/hostname: 2}}",
     "nodes[0].topology.example.com/rack"),
])
def test_bad_topology_node_group(nodes, field):
    with pytest.raises(InputError) as e:
        parse_scenario(yaml.safe_load("kind: Simulation\nnodes:\n" + nodes), "x.yaml")
    assert e.value.field == field


@pytest.mark.parametrize("topology", ["{required: a, preferred: b}", "{}", "{rquired: a}"])
def test_bad_workload_topology(topology):
    with pytest.raises(InputError) as e:
        _scn(f"workloads:\n- {{name: w, queue: main, requests: {{nvidia.com/gpu: 1}}, topology: {topology}}}\n")
    assert e.value.field is not None and e.value.field.startswith("workloads[0].topology")


@pytest.mark.parametrize("api", ["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"])
@pytest.mark.parametrize("domains", [
    [(("b0", "b0-r0", "h-b0-r0-0"), 2), (("b0", "b0-r1", "h-b0-r1-3"), 1), (("b1", "b1-r0", "h-b1-r0-10"), 1)],
    [(("b0", "b0-r0", "h1"), 1), (("b0", "b0-r0", "h2"), 1)],
    [(("x", "y", "z"), 3)],
    [(("a", "r", "ab"), 1), (("a", "r", "abc"), 2)],   # one value a prefix of another
    [(("a", "r", "ababa"), 1), (("a", "r", "aba"), 2)],  # prefix and suffix would overlap
])
def test_topology_assignment_round_trips(api, domains):
    ta = o.TopologyAssignment([BLOCK, RACK, HOST], [o.TopologyDomainAssignment(v, c) for v, c in domains])
    enc = encode_assignment(ta, api)
    assert ("slices" in enc) == api.endswith("v1beta2")
    assert parse_topology_assignment(Fields(enc)) == ta


def test_v1beta2_encoding_is_upstreams_single_slice():
    ta = o.TopologyAssignment([RACK, HOST], [o.TopologyDomainAssignment(("r1", "pool-a-node-0"), 2),
                                             o.TopologyDomainAssignment(("r1", "pool-a-node-1"), 2)])
    assert encode_assignment(ta, "kueue.x-k8s.io/v1beta2") == {"levels": [RACK, HOST], "slices": [{
        "domainCount": 2, "podCounts": {"universal": 2},
        "valuesPerLevel": [{"universal": "r1"}, {"individual": {"prefix": "pool-a-node-", "roots": ["0", "1"]}}]}]}
    odd = o.TopologyAssignment([HOST], [o.TopologyDomainAssignment(("ababa",), 1),
                                        o.TopologyDomainAssignment(("aba",), 3)])
    # {"ababa", "aba"}: suffix "aba", the prefix cut to nothing (upstream's motivating example)
    assert encode_assignment(odd, "kueue.x-k8s.io/v1beta2")["slices"][0]["valuesPerLevel"] == [
        {"individual": {"roots": ["ab", ""], "suffix": "aba"}}]


def test_tas_pods_bound_to_assigned_nodes_and_released_on_preemption():
    scn = _scn(f"""workloads:
- {{name: low, queue: main, pods: 2, requests: {{nvidia.com/gpu: 8}}, runtime: 2h, topology: {{required: {RACK}}}}}
- {{name: high, at: 10m, priority: 100, queue: main, pods: 2, requests: {{nvidia.com/gpu: 8}}, runtime: 1h,
   terminationGracePeriod: 2m, topology: {{required: {RACK}}}}}
""", quota=16)
    sim = Simulator(scn).run(5 * 60)
    low = sim.workloads[WorkloadKey("default", "low")]
    ta = low.topology["main"]
    assert ta.levels == [HOST] and sum(d.count for d in ta.domains) == 2
    assigned = sorted(d.values[-1] for d in ta.domains for _ in range(d.count))
    assert sorted(p.node.name for p in low.pods) == assigned
    assert len({sim.pool.by_name[n].labels[RACK] for n in assigned}) == 1   # one rack

    sim = Simulator(scn).run(20 * 60)   # high preempts low: the quota holds one job
    low, high = (sim.workloads[WorkloadKey("default", n)] for n in ("low", "high"))
    assert low.preemptions == 1 and all(p.phase == GONE for p in low.pods)
    assert high.state == RUNNING_W
    nodes = sorted(p.node.name for p in high.pods)
    assert nodes == sorted(d.values[-1] for d in high.topology["main"].domains for _ in range(d.count))
    for name in assigned:   # the victim's nodes hold only what high put there
        mine = sum(p.requests["nvidia.com/gpu"] for p in high.pods if p.node.name == name)
        assert sim.pool.by_name[name].info.requested.get("nvidia.com/gpu", 0) == mine


def test_non_tas_pods_take_tas_capacity():
    """team-serve's pods (flavor without a topology, same nodes) are the engine's non-TAS pods."""
    sim = Simulator(load_scenario(str(incident_path(INCIDENT)))).run(3600)
    serve = [p for sw in sim.workloads.values() if sw.spec.namespace == "team-serve"
             for p in sw.pods if p.node is not None and p.phase != GONE]
    assert serve
    assert sim.tas is not None
    assert sorted((p.spec.node_name, p.meta.name) for p in sim.tas.inputs.pods) == \
        sorted((p.node.name, p.name) for p in serve)


@pytest.fixture(scope="module")
def pair():
    return run_pair(INCIDENT)


def test_required_rack_violates_the_guarantee_preferred_does_not(pair):
    a, f = pair["affected"]["clusterQueues"]["team-train"], pair["fixed"]["clusterQueues"]["team-train"]
    assert a["admissions"] == 0
    assert a["violationSeconds"] >= 3 * 3600
    assert f["admissions"] == 5
    assert f["violationSeconds"] <= 0.05 * a["violationSeconds"]
    assert pair["fixed"]["remedy"] and pair["fixed"]["version"] == pair["affected"]["version"]
    assert pair["fixed"]["clusterQueues"]["team-serve"]["violationSeconds"] == 0


def _snapshot(tmp_path: Path, fixed: bool, version: str | None = None, at: float = 7200.0):
    scn = load_scenario(str(incident_path(INCIDENT)))
    if fixed:
        apply_fix(scn)
    if version:
        scn.version = version
    sim = Simulator(scn).run(at)
    d = tmp_path / ("fixed" if fixed else "affected")
    write_snapshot(sim, d)
    return sim, d


def test_affected_snapshot_loads_and_pending_heads_carry_topology_requests(tmp_path):
    _sim, d = _snapshot(tmp_path, fixed=False)
    snap = load_folder(str(d))
    st = snap.state
    assert list(st.topologies) == ["gpu-topology"] and st.topologies["gpu-topology"].levels == [BLOCK, RACK, HOST]
    assert st.resource_flavors["h100-tas"].topology_name == "gpu-topology"
    assert all(n.meta.labels.get(RACK) for n in st.nodes.values())
    pending = [w for w in st.workloads.values() if w.meta.namespace == "team-train"]
    assert pending and all(w.status.admission is None for w in pending)
    assert all(w.pod_sets[0].topology is not None and w.pod_sets[0].topology.required == RACK for w in pending)
    head = min(pending, key=lambda w: w.meta.creation_timestamp)
    qr = next(c for c in head.status.conditions if c.type == "QuotaReserved")
    assert qr.status == "False" and qr.reason == "TopologyPlacementFailed"
    assert 'topology "gpu-topology"' in qr.message
    out = CliRunner().invoke(cli, ["diagnose", str(d)])
    assert out.exit_code in (0, 1), out.output
    assert "team-train" in out.output


@pytest.mark.parametrize("version", ["0.20.0", "0.14.0"])   # v1beta2 slices, v1beta1 domains
def test_admitted_topology_assignment_round_trips_through_the_snapshot(tmp_path, version):
    sim, d = _snapshot(tmp_path, fixed=True, version=version, at=20 * 60)
    train = sim.workloads[WorkloadKey("team-train", "train-0")]
    assert train.state == RUNNING_W
    raw = yaml.safe_load((d / "kueue.yaml").read_text())
    wl = next(i for i in raw["items"] if i["kind"] == "Workload" and i["spec"]["podSets"][0].get("topologyRequest")
              and i["status"].get("admission"))
    enc = wl["status"]["admission"]["podSetAssignments"][0]["topologyAssignment"]
    assert ("slices" in enc) == (version == "0.20.0")
    st = load_folder(str(d)).state
    loaded = next(w for w in st.workloads.values() if w.meta.namespace == "team-train" and w.status.admission)
    assert loaded.status.admission.pod_set_assignments[0].topology_assignment == train.topology["main"]
    pods = [p for p in st.pods.values() if p.meta.namespace == "team-train"]
    assert sorted(p.spec.node_name for p in pods) == sorted(p.node.name for p in train.pods)
    # Kueue stopped labelling TAS pods in v0.14; their request annotation marks them
    assert all("kueue.x-k8s.io/tas" not in p.meta.labels for p in pods)
    assert all(p.meta.annotations.get("kueue.x-k8s.io/podset-preferred-topology") == RACK for p in pods)


def test_trace_jobs_take_the_trace_topology_request():
    here = Path(__file__).parent
    doc = {"kind": "Simulation", "traces": [{"kind": "philly", "path": "data/philly", "clusterQueues": "generate",
                                             "topology": {"required": RACK}, "topologyMinPods": 2}]}
    scn = parse_scenario(doc, str(here / "inline-scenario.yaml"))
    multi = [w for w in scn.workloads if w.pods >= 2]
    assert multi and all(w.topology == {"required": RACK} and w.topology_request.required == RACK for w in multi)
    assert all(w.topology is None for w in scn.workloads if w.pods < 2)


@pytest.mark.parametrize(("version", "retried"), [("0.19.0", False), ("0.19.1", True), ("0.18.5", True),
                                                   ("0.18.4", False), ("0.20.0", True)])
def test_freed_non_tas_capacity_retries_parked_tas_workloads_from_the_fix(version, retried):
    """kubernetes-sigs/kueue#8709: before it, only quota changes in its cohort tree retried a TAS
    workload parked for want of room, so team-train's head was evaluated once."""
    scn = load_scenario(str(incident_path(INCIDENT)))
    scn.version = version
    sim = Simulator(scn).run(2 * 3600)
    evals = [t for t, e, f in sim.log if e == "evaluated" and f["workload"] == WorkloadKey("team-train", "train-0")]
    assert evals
    assert (len(evals) > 10) == retried
    if retried:   # on the controller's 10-second ticks
        assert all(t % 10 == 0 for t in evals[1:])


def test_demo_shows_the_remedy_as_the_fixed_side():
    out = CliRunner().invoke(cli, ["demo", "-o", "json"])
    assert out.exit_code == 0, out.output
    item = next(i for i in json.loads(out.output)["items"] if i["incident"] == INCIDENT)
    assert item["cause"] == "topology-fragmentation"
    assert item["fixed"]["remedy"] == "preferred: rack instead of required: rack"
    assert "remedy" not in item["affected"]
    text = CliRunner().invoke(cli, ["demo"]).output
    assert "fixed by the remedy: preferred: rack instead of required: rack" in text
    assert "v0.20.0 (remedy)" in text


def test_not_ready_node_leaves_the_tas_snapshot():
    """A nodeNotReady fault takes the node out of TAS (upstream keeps Ready nodes only): a
    required-rack job goes to the other rack, and to rack0 once the node is back."""
    job = f"{{queue: main, pods: 2, requests: {{nvidia.com/gpu: 8}}, runtime: 10m, topology: {{required: {RACK}}}}}"
    scn = _scn(f"""faults:
- {{at: 0s, kind: nodeNotReady, node: n-rack0-0}}
- {{at: 30m, kind: nodeReady, node: n-rack0-0}}
workloads:
- {{name: first, at: 1m, {job[1:]}
- {{name: second, at: 40m, {job[1:]}
""", quota=16)
    sim = Simulator(scn).run()
    first, second = (sim.workloads[WorkloadKey("default", n)] for n in ("first", "second"))
    assert {p.node.labels[RACK] for p in first.pods} == {"rack1"}
    assert {d.values[-1] for d in second.topology["main"].domains} == {"n-rack0-0", "n-rack0-1"}


def test_implied_tas_pod_set_is_placed_by_tas_and_marked_unconstrained(tmp_path):
    """No topology request in a ClusterQueue of TAS flavors only: TAS places it all the same, and
    Kueue (v0.14+) marks its pods with the unconstrained annotation so TAS does not count them twice."""
    scn = _scn("workloads:\n- {name: w, queue: main, pods: 3, requests: {nvidia.com/gpu: 4}}\n")
    sim = Simulator(scn).run(60)
    sw = sim.workloads[WorkloadKey("default", "w")]
    assert sw.state == RUNNING_W and sw.topology
    assert sorted(p.node.name for p in sw.pods) == sorted(
        d.values[-1] for d in sw.topology["main"].domains for _ in range(d.count))
    write_snapshot(sim, tmp_path / "s")
    pods = list(load_folder(str(tmp_path / "s")).state.pods.values())
    assert len(pods) == 3
    assert all(p.meta.annotations.get("kueue.x-k8s.io/podset-unconstrained-topology") == "true" for p in pods)


def _causes(folder: Path) -> list[str]:
    out = CliRunner().invoke(cli, ["diagnose", str(folder), "-o", "json"])
    assert out.exit_code in (0, 1), out.output
    return [c["id"] for c in json.loads(out.output)["causes"]]


def test_the_simulated_incident_is_diagnosed_topology_fragmentation_first_the_remedy_is_not(tmp_path):
    """Issue 13's done-when: the TAS incident's snapshot names topology-fragmentation first; the
    same cluster where the pod sets may spread (racks have room for what they ask) does not."""
    _, affected = _snapshot(tmp_path, fixed=False)
    _, fixed = _snapshot(tmp_path, fixed=True)
    assert _causes(affected)[:1] == ["topology-fragmentation"]
    assert "topology-fragmentation" not in _causes(fixed)
