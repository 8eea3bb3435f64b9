"""Benchmark: a preemption-heavy scheduling cycle as queues per cohort grow (run by hand).

    python bench/engine_preempt.py                     # 10, 50, 200, 500 queues per cohort
    python bench/engine_preempt.py --queues 10 500 --profile    # calls per head, then the profile

One cohort; half its ClusterQueues borrow (each runs twice its nominal quota of 8 cpu in
1-cpu workloads), the other half are empty with a head of 8 cpu that fits its nominal quota only
by reclaiming (reclaimWithinCohort Any, no borrowWithinCohort). Every head must preempt: the
first cycle after the model is built is timed (model build excluded), and the figure that should
stay flat is the cost per head.
"""
from __future__ import annotations

import argparse
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


def make_state(queues: int) -> ClusterState:
    st = ClusterState()
    st.add(build.flavor("default"))
    for i in range(queues):
        name = f"cq-{i}"
        st.add(build.cluster_queue(name, {"default": {"cpu": "8"}}, cohort="all", reclaim="Any"))
        st.add(build.local_queue("ns", f"lq-{i}", name))
        if i % 2:
            for k in range(16):   # twice the nominal quota: borrowing 8 from the empty half
                st.add(build.workload("ns", f"run-{i}-{k}", f"lq-{i}", {"cpu": "1"}, created=T0,
                                      admitted_to=name, flavors={"cpu": "default"},
                                      admitted_at=T0 + timedelta(seconds=k)))
        else:
            st.add(build.workload("ns", f"head-{i}", f"lq-{i}", {"cpu": "8"}, created=T0 + timedelta(minutes=1)))
    return st


def one_cycle(queues: int, profiler=None) -> tuple[float, int, int]:
    model = AdmissionModel(make_state(queues), EngineConfig())
    heap.settle()
    if profiler is not None:
        profiler.enable()
    t = time.perf_counter()
    res = model.cycle(T0 + timedelta(hours=1))
    t = time.perf_counter() - t
    if profiler is not None:
        profiler.disable()
    return t, len(res.entries) + len(res.inadmissible), len(res.preempted)


def profile(queue_counts: list[int]) -> None:
    """The cycle alone under cProfile: function calls per head (robust to a loaded machine) at
    each size, then where the time goes at the largest."""
    import cProfile
    import pstats
    print(f"{'queues':>7} {'heads':>6} {'calls':>10} {'calls per head':>15}")
    for q in queue_counts:
        prof = cProfile.Profile()
        _t, heads, _p = one_cycle(q, prof)
        st = pstats.Stats(prof)
        print(f"{q:>7} {heads:>6} {st.total_calls:>10} {st.total_calls / max(1, heads):>15.0f}")   # type: ignore[attr-defined]
    st.dump_stats("/tmp/engine_preempt.prof")
    st.sort_stats("tottime").print_stats(15)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queues", type=int, nargs="+", default=[10, 50, 200, 500])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    if args.profile:
        profile(args.queues)
        return
    print(f"{'queues':>7} {'heads':>6} {'preempted':>10} {'cycle ms':>10} {'per head us':>12}")
    for q in args.queues:
        runs = [one_cycle(q) for _ in range(args.runs)]
        t = statistics.median(r[0] for r in runs)
        heads, preempted = runs[0][1], runs[0][2]
        print(f"{q:>7} {heads:>6} {preempted:>10} {t * 1e3:>10.1f} {t / max(1, heads) * 1e6:>12.1f}")


if __name__ == "__main__":
    main()
