"""Benchmark: a many-replicate `forecast` on the large snapshot of bench/doctor_scale.py (by hand).

    python bench/doctor_scale.py /tmp/big --format json      # 5,000 nodes, 100,000 Workloads
    python bench/forecast_scale.py /tmp/big [--replicates 100] [--runtime 3600] [--horizon 86400]
    python bench/forecast_scale.py /tmp/big --generate        # writes the folder first if absent

The generated snapshot holds no finished Workload, so runtimes are fixed (``--runtime``, as the
command's ``--runtime``). The target is the last pending workload of the first ClusterQueue.
Prints the load time, the build of the restarted simulator (once), one rebuild for comparison
(what a replicate cost before forks), and per replicate the fork and the run, then the total.
"""
from __future__ import annotations

import argparse
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
    args = ap.parse_args()
    folder = Path(args.folder)
    if args.generate and not folder.exists():
        from doctor_scale import generate
        generate(folder, 5000, 100_000, "json")

    from kueue_doctor.doctor.gather import build_facts
    from kueue_doctor.sim.forecast import Replicate, position, replicate_seed
    from kueue_doctor.sim.restart import RuntimeModel, draw_runtimes, restarted
    from kueue_doctor.sources.snapshot import load_folder

    t = time.perf_counter()
    snap = load_folder(str(folder))
    facts = build_facts(snap, timedelta(minutes=5), None)
    load = time.perf_counter() - t
    state, now = snap.state, facts.now
    release = {"version": facts.version, "gates": dict(facts.config.gates)}
    model = RuntimeModel.from_state(state, args.runtime)

    t = time.perf_counter()
    base = restarted(state, now, **release)
    build = time.perf_counter() - t
    t = time.perf_counter()
    restarted(state, now, **release)
    rebuild = time.perf_counter() - t
    first_cq = sorted(base.model.queues.queues)[0]
    pending = [wi.key for wi in base.model.queues.pending_in_order(first_cq)]
    key = pending[-1]
    print(f"snapshot: {len(state.workloads)} workloads, {len(state.nodes)} nodes; target {key} "
          f"(position {len(pending)} in {first_cq})")
    print(f"load folder + facts   {load:7.2f} s")
    print(f"build restarted sim   {build:7.2f} s   (once)")
    print(f"rebuild (per replicate before forks) {rebuild:7.2f} s")

    forks, runs, admitted = [], [], []
    total = time.perf_counter()
    for r in range(args.replicates):
        t = time.perf_counter()
        sim = base.fork()
        draw_runtimes(sim, model, replicate_seed(0, r))
        forks.append(time.perf_counter() - t)
        target = sim.workloads[key]
        rep = Replicate(replicate_seed(0, r), None)

        def hook(_t: float, target=target) -> None:
            if target.first_admitted_at is not None:
                raise StopIteration
        sim.progress = hook
        t = time.perf_counter()
        try:
            sim.run(args.horizon)
        except StopIteration:
            rep.admitted_at = target.first_admitted_at
        runs.append(time.perf_counter() - t)
        admitted.append(rep.admitted_at)
        print(f"replicate {r}: fork {forks[-1]:.2f} s, run {runs[-1]:.2f} s, admitted at {rep.admitted_at}",
              flush=True)
        assert position(base, key, first_cq) == len(pending)   # the base is untouched
    total = time.perf_counter() - total
    done = [a for a in admitted if a is not None]
    print(f"fork + draw runtimes  median {statistics.median(forks):.2f} s  max {max(forks):.2f} s")
    print(f"run to admission      median {statistics.median(runs):.2f} s  max {max(runs):.2f} s")
    print(f"{args.replicates} replicates total {total:.1f} s ({total / args.replicates:.2f} s each); "
          f"admitted within horizon in {len(done)}, median {statistics.median(done) if done else None} s")


if __name__ == "__main__":
    main()
