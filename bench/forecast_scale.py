"""Benchmark: a many-replicate `forecast` on the large snapshot of bench/doctor_scale.py (by hand).

    python bench/doctor_scale.py /tmp/big --format json      # 5,000 nodes, 100,000 Workloads
    python bench/forecast_scale.py /tmp/big [--replicates 100] [--runtime 3600] [--horizon 86400]
    python bench/forecast_scale.py /tmp/big --generate        # writes the folder first if absent

The generated snapshot holds no finished Workload, so runtimes are fixed (``--runtime``, as the
command's ``--runtime``). The target is the last pending workload of the first ClusterQueue.
Prints, wall and CPU seconds (on a shared machine CPU says what it cost), the load time, the build
of the restarted simulator (once), one fork, then per replicate what ``forecast`` does for it
(``run_replicate``: fork, draw runtimes, run until the target is admitted), the total and the peak
RSS; ``--rebuild`` also times a second build (what a replicate cost before forks).
"""
from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--replicates", type=int, default=100)
    ap.add_argument("--runtime", type=float, default=3600.0)
    ap.add_argument("--horizon", type=float, default=86400.0)
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="replicates in this many processes, as forecast -j")
    ap.add_argument("--whole", action="store_true",
                    help="simulate the whole cluster, not only the target's cohort tree as `forecast` does")
    ap.add_argument("--rebuild", action="store_true", help="also time a second build (a replicate's cost before forks)")
    args = ap.parse_args()
    folder = Path(args.folder)
    if args.generate and not folder.exists():
        from doctor_scale import generate
        generate(folder, 5000, 100_000, "json")

    from kueue_doctor.doctor.gather import build_facts
    from kueue_doctor.sim.forecast import position, replicate_seed, run_replicate, run_replicates
    from kueue_doctor.sim.restart import RuntimeModel, draw_runtimes, restarted
    from kueue_doctor.sources.snapshot import load_folder
    from kueue_doctor.whatif.replay import scoped

    def timed(f):
        """-> (value, wall seconds, CPU seconds): the machine may be shared, CPU says what it cost."""
        w, c = time.perf_counter(), time.process_time()
        v = f()
        return v, time.perf_counter() - w, time.process_time() - c

    def rss() -> str:
        return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 / 1024:.2f} GB"

    (snap, facts), load, load_cpu = timed(lambda: (lambda s: (s, build_facts(s, timedelta(minutes=5), None)))(
        load_folder(str(folder))))
    state, now = snap.state, facts.now
    release = {"version": facts.version, "gates": dict(facts.config.gates)}
    model = RuntimeModel.from_state(state, args.runtime)
    first_cq = sorted(state.cluster_queues)[0]
    whole = state
    if not args.whole:   # as the command simulates: the target's cohort tree alone
        state = scoped(state, first_cq)
    base, build, build_cpu = timed(lambda: restarted(state, now, **release))
    pending = [wi.key for wi in base.model.queues.pending_in_order(first_cq)]
    key = pending[-1]
    print(f"snapshot: {len(whole.workloads)} workloads, {len(whole.nodes)} nodes; simulated "
          f"{len(state.cluster_queues)} ClusterQueues, {len(state.workloads)} workloads; target {key} "
          f"(position {len(pending)} in {first_cq})")
    print(f"load folder + facts   {load:7.2f} s wall {load_cpu:7.2f} s CPU")
    print(f"build restarted sim   {build:7.2f} s wall {build_cpu:7.2f} s CPU (once)   peak RSS {rss()}")
    if args.rebuild:
        _, rebuild, rebuild_cpu = timed(lambda: restarted(state, now, **release))
        print(f"rebuild (per replicate before forks) {rebuild:7.2f} s wall {rebuild_cpu:7.2f} s CPU")
    forked, fork, fork_cpu = timed(base.fork)
    draw_runtimes(forked, model, replicate_seed(0, 0))
    print(f"fork + draw runtimes  {fork:7.2f} s wall {fork_cpu:7.2f} s CPU   peak RSS {rss()}")
    del forked

    if args.jobs > 1:   # as `forecast -j`: forked workers, the replicates in seed order
        seeds = [replicate_seed(0, r) for r in range(args.replicates)]
        reps, total_wall, _ = timed(lambda: run_replicates(base, key, model, seeds, args.horizon, 300.0, args.jobs))
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = [r.admitted_at for r in reps if r.admitted_at is not None]
        print(f"{args.replicates} replicates in {args.jobs} processes: {total_wall:.1f} s wall, "
              f"{children.ru_utime + children.ru_stime:.1f} s CPU in the workers "
              f"({total_wall / args.replicates:.2f} s wall each); admitted within horizon in {len(done)}, "
              f"median {statistics.median(done) if done else None} s")
        return
    walls, cpus, admitted = [], [], []
    total_wall, total_cpu = time.perf_counter(), time.process_time()
    for r in range(args.replicates):
        # what forecast() does per replicate: fork, draw, run until the target is admitted, sample
        rep, wall, cpu = timed(lambda r=r: run_replicate(base, key, model, replicate_seed(0, r), args.horizon, 300.0))
        walls.append(wall)
        cpus.append(cpu)
        admitted.append(rep.admitted_at)
        print(f"replicate {r}: {wall:.2f} s wall {cpu:.2f} s CPU, admitted at {rep.admitted_at}, "
              f"{len(rep.positions)} position samples, peak RSS {rss()}", flush=True)
        assert position(base, key, first_cq) == len(pending)   # the base is untouched
    total_wall, total_cpu = time.perf_counter() - total_wall, time.process_time() - total_cpu
    done = [a for a in admitted if a is not None]
    print(f"replicate (fork + draw + run)  median {statistics.median(walls):.2f} s wall "
          f"{statistics.median(cpus):.2f} s CPU, max {max(walls):.2f} s wall")
    print(f"{args.replicates} replicates total {total_wall:.1f} s wall {total_cpu:.1f} s CPU "
          f"({total_wall / args.replicates:.2f} s each); admitted within horizon in {len(done)}, "
          f"median {statistics.median(done) if done else None} s; peak RSS {rss()}")

if __name__ == "__main__":
    main()
