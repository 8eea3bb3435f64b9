"""Benchmark: the engine's scheduling cycle at scale (run by hand).

    python bench/engine_cycle.py                 # 10 cohorts x 100 ClusterQueues, 50,000 pending, 20,000 admitted
    python bench/engine_cycle.py --scaling       # also 100 / 250 / 500 / 1000 queues, same load per queue

Prints time per cycle (all heads), per admission decision (per head), and cycles/s.
Synthetic cluster: one flavor, cpu quota 100 per queue with borrowing limit 50, priorities
0-3, requests 1-8 cpu, preemption LowerPriority within the queue and Any in the cohort.
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kueue_doctor import heap
from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def make_state(cohorts: int, per_cohort: int, pending: int, admitted: int, seed: int = 1) -> ClusterState:
    rng = random.Random(seed)
    st = ClusterState()
    st.add(build.flavor("default"))
    names = []
    for c in range(cohorts):
        for i in range(per_cohort):
            name = f"cq-{c}-{i}"
            names.append(name)
            st.add(build.cluster_queue(name, {"default": {"cpu": ("100", "50")}}, cohort=f"cohort-{c}",
                                       within="LowerPriority", reclaim="Any"))
            st.add(build.local_queue("ns", f"lq-{name}", name))
    n = len(names)
    for k in range(admitted):
        cq = names[k % n]
        st.add(build.workload("ns", f"adm-{k}", f"lq-{cq}", {"cpu": "4"}, priority=rng.randint(0, 3),
                              created=T0, admitted_to=cq, flavors={"cpu": "default"},
                              admitted_at=T0 + timedelta(seconds=k)))
    for k in range(pending):
        cq = names[k % n]
        st.add(build.workload("ns", f"pend-{k}", f"lq-{cq}", {"cpu": str(rng.randint(1, 8))},
                              priority=rng.randint(0, 3), created=T0 + timedelta(seconds=k)))
    return st


def run(cohorts: int, per_cohort: int, pending: int, admitted: int, cycles: int) -> dict:
    t = time.perf_counter()
    st = make_state(cohorts, per_cohort, pending, admitted)
    model = AdmissionModel(st, EngineConfig())
    heap.settle()
    setup = time.perf_counter() - t
    times, heads, admissions, preemptions = [], 0, 0, 0
    now = T0 + timedelta(hours=1)
    for _ in range(cycles):
        t = time.perf_counter()
        res = model.cycle(now)
        times.append(time.perf_counter() - t)
        heads += len(res.entries) + len(res.inadmissible)
        admissions += len(res.admitted)
        preemptions += len(res.preempted)
    return {"queues": cohorts * per_cohort, "setup_s": setup, "cycle_ms_median": statistics.median(times) * 1e3,
            "cycle_ms_mean": statistics.mean(times) * 1e3, "per_head_us": sum(times) / max(1, heads) * 1e6,
            "heads_per_cycle": heads / cycles, "admissions": admissions, "preemptions": preemptions}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=20)
    ap.add_argument("--scaling", action="store_true")
    args = ap.parse_args()
    configs = [(10, 100, 50_000, 20_000)]
    if args.scaling:
        configs = [(10, q // 10, 50 * q, 20 * q) for q in (100, 250, 500, 1000)]
    print(f"{'queues':>7} {'setup s':>8} {'cycle ms (median)':>18} {'cycle ms (mean)':>16} {'per head us':>12} "
          f"{'heads/cycle':>12} {'admitted':>9} {'preempted':>10}")
    for c in configs:
        r = run(*c, cycles=args.cycles)
        print(f"{r['queues']:>7} {r['setup_s']:>8.2f} {r['cycle_ms_median']:>18.1f} {r['cycle_ms_mean']:>16.1f} "
              f"{r['per_head_us']:>12.1f} {r['heads_per_cycle']:>12.0f} {r['admissions']:>9} {r['preemptions']:>10}")


if __name__ == "__main__":
    main()
