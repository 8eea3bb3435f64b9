"""Trace mappings on small copies of the real traces (tests/sim/data/README.md).

Expected values are recomputed here from the sample files, so the tests check the mapping
rules (docs/simulator.md, "Traces"), not a frozen output.
"""
from __future__ import annotations

import csv
import json
import math
import zlib
from pathlib import Path

import pytest

from kueue_doctor.errors import InputError
from kueue_doctor.sim.scenario import JOB, POD_GROUP, parse_scenario
from kueue_doctor.sim.simulator import Simulator

HERE = Path(__file__).parent
PHILLY = HERE / "data" / "philly"
OPENB = HERE / "data" / "openb"
SCENARIO_FILE = str(HERE / "inline-scenario.yaml")   # paths resolve against its folder
GPU = "nvidia.com/gpu"


def scenario(**trace):
    doc = {"kind": "Simulation", "traces": [trace]}
    return parse_scenario(doc, SCENARIO_FILE)


def philly_rows():
    """(vc, line, job_type, steps, arrival, gpus) for every line of the sample."""
    out = []
    for p in sorted(PHILLY.glob("*.trace")):
        for i, line in enumerate(p.read_text().splitlines(), start=1):
            c = line.split("\t")
            out.append((p.stem, i, c[0], int(c[4]), float(c[5]), int(c[6])))
    return out


def gavel():
    return json.loads((PHILLY / "gavel_simulation_throughputs.json").read_text())["v100"]


def vc_nodes():
    with open(PHILLY / "philly_vc.csv") as f:
        return {r["vc"]: int(r["node num"]) for r in csv.DictReader(f)}


# -- Philly ----------------------------------------------------------------------------------
def test_philly_virtual_clusters_become_cluster_queues_in_one_cohort():
    scn = scenario(kind="philly", path="data/philly", clusterQueues="generate", nodes="generate")
    vcs = sorted({r[0] for r in philly_rows()})
    assert sorted(scn.state.cluster_queues) == [f"vc-{v}" for v in vcs]
    assert {cq.cohort for cq in scn.state.cluster_queues.values()} == {"philly"}
    assert "philly" in scn.state.cohorts
    known = vc_nodes()
    for v in vcs:
        cq = scn.state.cluster_queues[f"vc-{v}"]
        (rq,) = cq.resource_groups[0].flavors[0].resources
        nodes = known.get(v, 1)          # a tiny VC (not in philly_vc.csv) gets one node
        assert (rq.name, rq.nominal_quota.int_value()) == (GPU, nodes * 8)
        lq = scn.state.local_queues[(f"vc-{v}", "main")]
        assert lq.cluster_queue == f"vc-{v}"
    # the generated nodes hold exactly the quotas: 8 GPUs each
    assert len(scn.nodes) * 8 == sum(known.get(v, 1) * 8 for v in vcs)
    assert all(n.allocatable[GPU] == 8 for n in scn.nodes)


def test_philly_jobs_map_to_workloads_with_runtime_from_gavel_throughput():
    scn = scenario(kind="philly", path="data/philly", clusterQueues="generate")
    rows = philly_rows()
    assert len(scn.workloads) == len(rows)
    table = gavel()
    by_key = {(w.namespace, w.name): w for w in scn.workloads}
    for vc, line, job_type, steps, arrival, gpus in rows:
        w = by_key[(f"vc-{vc}", f"job-{line:05d}")]
        assert w.at == arrival
        assert w.queue == "main"
        assert "total_steps / Gavel" in w.synthetic
        key = f"('{job_type}', {gpus})"
        if key in table:
            assert w.runtime == pytest.approx(steps / table[key]["null"])
        else:
            # Gavel has no figure: the largest measured scale below, scaled linearly
            base = max(s for s in (1, 2, 4, 8) if s < gpus and f"('{job_type}', {s})" in table)
            assert w.runtime == pytest.approx(steps / (table[f"('{job_type}', {base})"]["null"] * gpus / base))
            assert "extrapolated" in w.synthetic
        if gpus > 8:
            assert (w.pods, w.requests[GPU], w.kind, w.klass) == (math.ceil(gpus / 8), "8", POD_GROUP, "gang")
            assert ("rounded up" in w.synthetic) == (gpus % 8 != 0)
        else:
            assert (w.pods, w.requests[GPU], w.kind) == (1, str(gpus), JOB)


def test_philly_slice_start_limit_time_scale_and_carry_over():
    rows = sorted(philly_rows(), key=lambda r: r[4])
    start = rows[3][4]
    later = [r for r in rows if r[4] >= start]
    scn = scenario(kind="philly", path="data/philly", start=start, limit=3, timeScale=0.5, carryOver=False)
    assert sorted(w.at for w in scn.workloads) == sorted((r[4] - start) * 0.5 for r in later[:3])
    assert all("times scaled by 0.5" in w.synthetic for w in scn.workloads)
    full = {(w.namespace, w.name): w for w in scenario(kind="philly", path="data/philly").workloads}
    carried = scenario(kind="philly", path="data/philly", start=start, limit=0).workloads
    # with carryOver, only what still runs at ``start`` comes in, at 0, for the rest of its runtime
    expect = {k: w.at + w.runtime - start for k, w in full.items() if w.at < start < w.at + w.runtime}
    assert {(w.namespace, w.name): w.runtime for w in carried} == pytest.approx(expect)
    assert all(w.at == 0 for w in carried)


def test_philly_scenario_runs_and_admits_everything():
    scn = parse_scenario({"kind": "Simulation", "scheduler": {"sampleInterval": "1h"},
                          "traces": [{"kind": "philly", "path": "data/philly", "clusterQueues": "generate",
                                      "nodes": "generate", "virtualClusters": ["11cb48", "e13805"]}]},
                         SCENARIO_FILE)
    summary = Simulator(scn).run().recorder.summary()
    n = sum(1 for r in philly_rows() if r[0] in ("11cb48", "e13805"))
    assert summary["workloads"]["created"] == summary["workloads"]["finished"] == n
    assert set(summary["clusterQueues"]) == {"vc-11cb48", "vc-e13805"}


# -- openb -----------------------------------------------------------------------------------
def openb_pods():
    with open(OPENB / "openb_pod_list_sample.csv") as f:
        return list(csv.DictReader(f))


def test_openb_pods_map_to_workloads_and_nodes():
    n = 3
    scn = scenario(kind="openb", path="data/openb/openb_pod_list_sample.csv", clusterQueues="generate",
                   nodes="generate", tenants=n)
    pods = openb_pods()
    by_name = {w.name: w for w in scn.workloads}
    assert sorted(by_name) == sorted(p["name"] for p in pods)
    for p in pods:
        w = by_name[p["name"]]
        assert w.namespace == f"tenant-{zlib.crc32(p['name'].encode()) % n}"
        assert "tenant = crc32" in w.synthetic
        assert w.at == int(p["creation_time"])
        assert w.requests["cpu"] == f"{p['cpu_milli']}m"
        assert w.requests["memory"] == f"{p['memory_mib']}Mi"
        gpus, milli = int(p["num_gpu"]), int(p["gpu_milli"])
        if gpus == 0:
            assert GPU not in w.requests
            assert w.klass == "cpu-only"
        elif milli < 1000:
            assert w.requests[GPU] == "1"
            assert "one whole GPU" in w.synthetic
            assert w.klass == "gpu-share"
        else:
            assert w.requests[GPU] == str(gpus)
        if p["scheduled_time"]:
            assert w.runtime == int(p["deletion_time"]) - int(p["scheduled_time"])
        else:
            assert w.runtime == int(p["deletion_time"]) - int(p["creation_time"])
            assert "never scheduled" in w.synthetic
    with open(OPENB / "openb_node_list_gpu_node.csv") as f:
        nodes = list(csv.DictReader(f))
    assert [s.name for s in scn.nodes] == [r["sn"] for r in nodes]
    for spec, r in zip(scn.nodes, nodes, strict=True):
        assert spec.labels == {"gpu-card-model": r["model"]}
        assert spec.allocatable[GPU] == int(r["gpu"])
    total_gpus = sum(int(r["gpu"]) for r in nodes)
    assert len(scn.state.cluster_queues) == n
    for cq in scn.state.cluster_queues.values():
        quota = {rq.name: rq for rq in cq.resource_groups[0].flavors[0].resources}
        assert quota[GPU].nominal_quota.int_value() == total_gpus // n


def test_openb_gpu_share_modes():
    pods = openb_pods()
    shared = {p["name"]: int(p["gpu_milli"]) for p in pods if p["num_gpu"] != "0" and int(p["gpu_milli"]) < 1000}
    assert shared, "the sample must hold GPU-share pods"
    skip = scenario(kind="openb", path="data/openb/openb_pod_list_sample.csv", gpuShare="skip")
    assert len(skip.workloads) == len(pods) - len(shared)
    milli = scenario(kind="openb", path="data/openb/openb_pod_list_sample.csv", gpuShare="milli", nodes="generate")
    assert sorted(w.name for w in milli.workloads) == sorted(p["name"] for p in pods)
    for w in milli.workloads:
        if w.name in shared:
            assert w.requests["kueue-doctor.io/gpu-milli"] == str(shared[w.name])
        assert GPU not in w.requests
    assert all(GPU not in n.allocatable for n in milli.nodes)


def test_generated_names_must_not_clash_with_the_scenario():
    doc = {"kind": "Simulation",
           "objects": [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
                        "metadata": {"name": "tenant-0"}, "spec": {"resourceGroups": []}}],
           "traces": [{"kind": "openb", "path": "data/openb/openb_pod_list_sample.csv",
                       "clusterQueues": "generate"}]}
    with pytest.raises(InputError) as e:
        parse_scenario(doc, SCENARIO_FILE)
    assert "traces[0].clusterQueues" in str(e.value)
    assert "tenant-0" in str(e.value)


@pytest.mark.parametrize(("trace", "field"), [
    ({"kind": "alibaba", "path": "data/openb"}, "traces[0].kind"),
    ({"kind": "philly"}, "traces[0].path"),
    ({"kind": "philly", "path": "data/philly", "timeScale": 0}, "traces[0].timeScale"),
    ({"kind": "philly", "path": "data/philly", "virtualClusters": ["nope"]}, "traces[0].virtualClusters"),
    ({"kind": "openb", "path": "data/openb"}, "traces[0].path"),
])
def test_bad_trace_entries_name_their_field(trace, field):
    with pytest.raises(InputError) as e:
        scenario(**trace)
    assert field in str(e.value)
    assert SCENARIO_FILE in str(e.value)


def test_capacity_scale_shrinks_nodes_and_quotas_together():
    full = scenario(kind="openb", path="data/openb/openb_pod_list_sample.csv", clusterQueues="generate",
                    nodes="generate", tenants=1)
    half = scenario(kind="openb", path="data/openb/openb_pod_list_sample.csv", clusterQueues="generate",
                    nodes="generate", tenants=1, capacityScale=0.5)
    assert len(half.nodes) == round(len(full.nodes) * 0.5)
    assert {n.name for n in half.nodes} < {n.name for n in full.nodes}
    (cq,) = half.state.cluster_queues.values()
    quota = {rq.name: rq.nominal_quota.int_value() for rq in cq.resource_groups[0].flavors[0].resources}
    assert quota[GPU] == sum(n.allocatable.get(GPU, 0) for n in half.nodes)
    philly = scenario(kind="philly", path="data/philly", clusterQueues="generate", nodes="generate",
                      capacityScale=0.25)
    for name, cq in philly.state.cluster_queues.items():
        (rq,) = cq.resource_groups[0].flavors[0].resources
        nodes = sum(1 for n in philly.nodes if n.name.startswith(f"philly-{name[3:]}-"))
        assert nodes >= 1 and rq.nominal_quota.int_value() == nodes * 8


def test_openb_is_read_by_the_one_reader_frag_uses(tmp_path):
    from kueue_doctor.frag.trace import read_nodes
    node_file = OPENB / "openb_node_list_gpu_node.csv"
    scn = scenario(kind="openb", path="data/openb/openb_pod_list_sample.csv", nodes="generate")
    shapes = {n.name: n for n in read_nodes(str(node_file))}
    assert sorted(shapes) == sorted(s.name for s in scn.nodes)
    for spec in scn.nodes:
        shape = shapes[spec.name]
        assert spec.allocatable["cpu"] == f"{shape.cpu_free}m" and spec.allocatable["memory"] == f"{shape.mem_free}Mi"
        assert spec.allocatable.get(GPU, 0) == shape.gpus and spec.labels == shape.terms.labels
    # and its errors: the row's file and line, the column
    bad = tmp_path / "pods.csv"
    bad.write_text((OPENB / "openb_pod_list_sample.csv").read_text().splitlines()[0] + "\np1,abc,1,0,0,0,10,5\n")
    (tmp_path / "openb_node_list_gpu_node.csv").write_text(node_file.read_text())
    doc = {"kind": "Simulation", "traces": [{"kind": "openb", "path": "pods.csv"}]}
    with pytest.raises(InputError) as e:
        parse_scenario(doc, str(tmp_path / "scenario.yaml"))
    assert (e.value.file, e.value.field) == (f"{bad}:2", "cpu_milli") and "not a number" in str(e.value)
