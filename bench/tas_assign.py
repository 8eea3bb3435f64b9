"""Benchmark: one TAS topology assignment (run by hand).

    python bench/tas_assign.py            # 2,000 nodes, then the scaling 500 / 1000 / 2000 / 4000

A 64-pod pod set with ``required: block`` (1 cpu per pod) on a 4-level topology
zone / block / rack / hostname: 2 zones, 8-node racks, 4 racks per block, nodes with 8 cpu of
which a random part is used by non-TAS pods. Prints the time to build the snapshot and the
time per assignment (``find_topology_assignments``, fresh domain state each call).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kueue_doctor.api import objects as o
from kueue_doctor.api.quantity import Quantity
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.tas import TASPodSetRequest, build_flavor_snapshot, find_topology_assignments

LEVELS = ["topology.kubernetes.io/zone", "cloud.com/block", "cloud.com/rack", "kubernetes.io/hostname"]
NODES_PER_RACK, RACKS_PER_BLOCK, ZONES = 8, 4, 2


def cluster(n: int, seed: int = 1) -> tuple[list[o.Node], list[o.Pod]]:
    rng = random.Random(seed)
    nodes, pods = [], []
    for i in range(n):
        rack = i // NODES_PER_RACK
        block = rack // RACKS_PER_BLOCK
        zone = block % ZONES
        name = f"n{i:05d}"
        labels = {LEVELS[0]: f"z{zone}", LEVELS[1]: f"b{block}", LEVELS[2]: f"r{rack}", LEVELS[3]: name}
        nodes.append(o.Node(meta=o.Meta(name=name, labels=labels),
                            allocatable={"cpu": Quantity.parse("8"), "pods": Quantity.parse("110")},
                            conditions=[o.Condition("Ready", "True")]))
        used = rng.choice([0, 0, 1, 2, 4, 6])
        if used:
            spec = o.PodSpec(containers=[o.Container("c", requests={"cpu": Quantity.parse(str(used))})],
                             node_name=name)
            pods.append(o.Pod(meta=o.Meta(name=f"p{i}", namespace="ns"), spec=spec, phase="Running"))
    return nodes, pods


def measure(n: int, repeat: int) -> tuple[float, float, str]:
    nodes, pods = cluster(n)
    flavor = o.ResourceFlavor(meta=o.Meta(name="tas"), topology_name="default")
    topo = o.Topology(meta=o.Meta(name="default"), levels=LEVELS)
    t0 = time.perf_counter()
    snap = build_flavor_snapshot(flavor, topo, nodes, pods)
    build_s = time.perf_counter() - t0
    req = TASPodSetRequest(name="main", count=64, single_pod_requests={"cpu": 1000},
                           topology=o.TopologyRequest(required=LEVELS[1]))
    gate = EngineConfig().gate
    times = []
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = find_topology_assignments(snap, [req], gate)
        times.append(time.perf_counter() - t0)
    assert result is not None
    r = result["main"]
    outcome = r.failure_reason or f"{len(r.assignment.domains) if r.assignment else 0} nodes"
    return build_s, statistics.median(times), outcome


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    b, t, out = measure(args.nodes, args.repeat)
    print(f"{args.nodes} nodes: snapshot {b * 1000:.1f} ms, assignment {t * 1000:.2f} ms ({out})")
    print("scaling (median of the repeats):")
    print(f"{'nodes':>6} {'snapshot ms':>12} {'assign ms':>10} {'us/node':>8}  result")
    for n in (500, 1000, 2000, 4000):
        b, t, out = measure(n, args.repeat)
        print(f"{n:>6} {b * 1000:>12.1f} {t * 1000:>10.2f} {t * 1e6 / n:>8.2f}  {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
