"""Benchmark: `whatif` on the large folder of bench/doctor_scale.py (run by hand).

    python bench/whatif_scale.py /tmp/big [--generate] [--format yaml|json] [--heads 5] [--no-full]

Generates the folder with doctor_scale's generator when asked (5,000 nodes, 100,000
Workloads: 50 cohorts x 20 ClusterQueues), loads it once, then runs `whatif` on the first
pending head of the first ``--heads`` ClusterQueues that have one, and prints per head the
seconds, the engine runs (trials), and the suggestions found.

The generator leaves room in most queues, so a head would be admitted as it stands and there
is nothing to search; by default (not with ``--no-full``) every ClusterQueue of the heads'
cohort gets a nominal quota equal to what it uses and preemption Never, in memory, so that no
head fits or preempts its way in, and the search runs over the cohort's 20 queues and their
running workloads (the priority search then ends after one engine run).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--generate", action="store_true")
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--workloads", type=int, default=100_000)
    ap.add_argument("--heads", type=int, default=5)
    ap.add_argument("--no-full", dest="full", action="store_false")
    ap.add_argument("--format", choices=("yaml", "json"), default="yaml")
    args = ap.parse_args()
    folder = Path(args.folder)
    if args.generate or not folder.exists():
        from doctor_scale import generate
        t = time.perf_counter()
        generate(folder, args.nodes, args.workloads, args.format)
        print(f"wrote {folder} in {time.perf_counter() - t:.1f} s")
    import gc
    gc.set_threshold(50_000, 50, 100)  # as `kueue-doctor` sets it (cli.main)
    from kueue_doctor.commands.whatif import engine_config
    from kueue_doctor.doctor.gather import snapshot_time
    from kueue_doctor.engine.model import AdmissionModel
    from kueue_doctor.sources.snapshot import load_folder
    from kueue_doctor.whatif.whatif import what_if
    t, c = time.perf_counter(), time.process_time()
    snap = load_folder(str(folder))
    print(f"load: {time.perf_counter() - t:.1f} s wall, {time.process_time() - c:.1f} s cpu "
          f"({len(snap.state.workloads)} workloads, {len(snap.state.nodes)} nodes)")
    cfg = engine_config(snap.state)
    now = snapshot_time(snap, None)[0]
    t, c = time.perf_counter(), time.process_time()
    model = AdmissionModel(snap.state, cfg)
    print(f"engine model of the whole cluster: {time.perf_counter() - t:.1f} s wall, "
          f"{time.process_time() - c:.1f} s cpu")
    heads = []
    for cq in sorted(model.snapshot.cluster_queues):
        pending = model.queues.pending_in_order(cq)
        if pending:
            heads.append(pending[0].key)
        if len(heads) == args.heads:
            break
    if args.full:
        fill(snap.state, model, {snap.state.cluster_queues[k.namespace].cohort for k in heads})
    total = 0.0
    for key in heads:
        t, c = time.perf_counter(), time.process_time()
        doc = what_if(snap.state, cfg, key, now)
        dt, cpu = time.perf_counter() - t, time.process_time() - c
        total += cpu
        kinds = ", ".join(s["kind"] for s in doc["suggestions"]) or "none"
        print(f"{key}: {dt:.2f} s wall, {cpu:.2f} s cpu, {doc['trials']} engine runs "
              f"({cpu / max(doc['trials'], 1) * 1000:.0f} ms cpu each), "
              f"admitsNow={doc['admitsNow']}, suggestions: {kinds}")
    if heads:
        print(f"mean per head: {total / len(heads):.2f} s cpu")


def fill(state, model, cohorts) -> None:
    """Nominal quota = usage, and no preemption, on every ClusterQueue of ``cohorts`` (in memory)."""
    import dataclasses

    from kueue_doctor.api import objects as o
    from kueue_doctor.whatif.patches import with_quotas
    for name, cqs in model.snapshot.cluster_queues.items():
        if cqs.obj.cohort not in cohorts:
            continue
        cq = state.cluster_queues[name]
        groups = cq.resource_groups
        for (flavor, resource), used in cqs.node.usage.items():
            groups = with_quotas(groups, flavor, "nominalQuota", {resource: used})
        state.cluster_queues[name] = dataclasses.replace(cq, resource_groups=groups, preemption=o.Preemption())


if __name__ == "__main__":
    main()
