"""Benchmark: a full scheduling cycle with 100 pending TAS heads (run by hand).

    python bench/tas_cycle.py                 # 500 / 1000 / 2000 / 4000 nodes, 7 runs each
    python bench/tas_cycle.py --nodes 2000 --runs 3

The cycle is ``AdmissionModel.cycle``, as the simulator calls it. 100 ClusterQueues (one
LocalQueue each, 64 cpu of quota, so quota never decides) each hold one pending TAS workload:
8 - 64 pods of 1 cpu, a mix of required/preferred at block/rack level, on one TAS flavor over
the 4-level topology of bench/tas_assign.py (zone / block / rack / hostname, 8-node racks, 4 racks
per block, 8 cpu per node, a random part used by non-TAS pods). A fresh model per run (not timed):
every run schedules the same 100 heads against the same free capacity. Prints median / min / max
per size and the median cost per head.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kueue_doctor import heap
from kueue_doctor.api import build
from kueue_doctor.api import objects as o
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from tas_assign import LEVELS, cluster

T0 = datetime(2026, 1, 1, tzinfo=UTC)
HEADS = 100
# (kind, level) per head, in turn: block and rack, required and preferred
MIX = (("required", LEVELS[1]), ("required", LEVELS[2]), ("preferred", LEVELS[1]), ("preferred", LEVELS[2]))


def make_state(n: int, seed: int = 1) -> ClusterState:
    rng = random.Random(seed)
    st = ClusterState()
    nodes, pods = cluster(n, seed)
    for obj in (*nodes, *pods):
        st.add(obj)
    st.add(o.Topology(meta=o.Meta(name="default"), levels=list(LEVELS)))
    st.add(o.ResourceFlavor(meta=o.Meta(name="tas"), topology_name="default"))
    for i in range(HEADS):
        name = f"cq-{i:03d}"
        st.add(build.cluster_queue(name, {"tas": {"cpu": "64"}}))
        st.add(build.local_queue("ns", f"lq-{i:03d}", name))
        wl = build.workload("ns", f"wl-{i:03d}", f"lq-{i:03d}", {"cpu": "1"}, count=rng.randint(8, 64),
                            created=T0)
        kind, level = MIX[i % len(MIX)]
        wl.pod_sets[0].topology_request = {kind: level}
        wl.pod_sets[0].topology = o.TopologyRequest(**{kind: level})
        st.add(wl)
    for cq in st.cluster_queues.values():
        cq.namespace_selector = o.LabelSelector()
    return st


def measure(n: int, runs: int) -> dict:
    times, admitted, heads = [], 0, 0
    for _ in range(runs):
        model = AdmissionModel(make_state(n), EngineConfig())
        heap.settle()
        t = time.perf_counter()
        res = model.cycle(T0)
        times.append(time.perf_counter() - t)
        admitted = len(res.admitted)
        heads = len(res.entries) + len(res.inadmissible)
    med = statistics.median(times)
    return {"nodes": n, "median_ms": med * 1e3, "min_ms": min(times) * 1e3, "max_ms": max(times) * 1e3,
            "per_head_ms": med * 1e3 / max(1, heads), "heads": heads, "admitted": admitted}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nodes", type=int, nargs="*", default=[500, 1000, 2000, 4000])
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    print(f"{HEADS} TAS heads per cycle, {args.runs} runs per size")
    print(f"{'nodes':>6} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'per head ms':>12} {'heads':>6} "
          f"{'admitted':>9}")
    for n in args.nodes:
        r = measure(n, args.runs)
        print(f"{r['nodes']:>6} {r['median_ms']:>10.1f} {r['min_ms']:>8.1f} {r['max_ms']:>8.1f} "
              f"{r['per_head_ms']:>12.2f} {r['heads']:>6} {r['admitted']:>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
