"""Benchmark: sweep throughput (configurations per minute) by executor and workers, and one
configuration's wall time on the full shipped Philly files (run by hand).

    python bench/sweep_throughput.py                  # both parts
    python bench/sweep_throughput.py --only sweep --until 6h
    python bench/sweep_throughput.py --only philly

The sweep part runs examples/sweeps/philly-24.yaml (24 configurations, 1 replicate, ``--until``
simulated time) with the local executor on 1 and 2 workers and with Ray on 2 local CPUs, each
into a fresh folder, and checks the three results.csv are identical. Ray's figure includes
starting and stopping its local instance. The Philly part simulates the whole of
shared/data/philly (all 15 virtual clusters, 15,264 jobs) once and prints simulated/wall time;
the Helios part does the same on a synthetic trace with Helios Venus's 25 quotas (``--days``).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from kueue_doctor.sim.scenario import parse_scenario  # noqa: E402
from kueue_doctor.sim.simulator import Simulator  # noqa: E402
from kueue_doctor.sweep import run_sweep  # noqa: E402
from kueue_doctor.sweep.spec import parse_spec  # noqa: E402

EXAMPLE = ROOT / "examples" / "sweeps" / "philly-24.yaml"
PHILLY = ROOT.parent / "shared" / "data" / "philly"


def sweep_part(until: str) -> None:
    doc = {**yaml.safe_load(EXAMPLE.read_text()), "until": until, "replicates": 1}
    spec = parse_spec(doc, str(EXAMPLE))
    n = len(spec.configurations())
    tables = {}
    print(f"sweep: {n} configurations of {EXAMPLE.name}, until {until}, 1 replicate")
    print(f"  {'executor':14} {'wall s':>8} {'configs/min':>12}")
    for label, executor, workers in (("local x1", "local", 1), ("local x2", "local", 2), ("ray x2", "ray", 2)):
        with tempfile.TemporaryDirectory() as out:
            t = time.perf_counter()
            run_sweep(spec, out, executor=executor, workers=workers)
            wall = time.perf_counter() - t
            tables[label] = (Path(out) / "results.csv").read_bytes()
        print(f"  {label:14} {wall:8.1f} {n / wall * 60:12.1f}")
    same = len(set(tables.values())) == 1
    print(f"  results.csv identical across executors: {same}")


def philly_part() -> None:
    if not PHILLY.is_dir():
        print(f"philly: {PHILLY} not found (the shared data folder)")
        return
    doc = {"kind": "Simulation", "name": "philly, whole trace", "scheduler": {"sampleInterval": "5m"},
           "traces": [{"kind": "philly", "path": str(PHILLY), "clusterQueues": "generate", "nodes": "generate"}]}
    t = time.perf_counter()
    scn = parse_scenario(doc, str(ROOT / "bench" / "philly-full.yaml"))
    load = time.perf_counter() - t
    t = time.perf_counter()
    last = [t]

    def progress(now: float) -> None:
        if time.perf_counter() - last[0] > 60:
            last[0] = time.perf_counter()
            print(f"  ... simulated {now / 86400:.1f} days after {last[0] - t:.0f} s", file=sys.stderr, flush=True)

    sim = Simulator(scn, progress).run()
    wall = time.perf_counter() - t
    print(f"philly whole trace: {len(scn.workloads)} jobs, load {load:.1f} s, simulated {sim.now / 86400:.1f} days "
          f"in {wall:.1f} s wall (x{sim.now / wall:,.0f} real time), {sim.cycles} cycles")


HELIOS = ROOT.parent / "shared" / "data" / "helios" / "venus_cluster_gpu_number.csv"


def helios_scenario(days: float, load: float, seed: int) -> dict:
    """A synthetic trace of Helios's size and shape (Venus: its 25 virtual clusters with their
    GPU quotas of 2020-04-01, in one cohort; jobs arrive as a Poisson stream per cluster sized to
    ``load`` of its quota, GPUs per job from {1, 2, 4, 8, 16, 32}, lognormal runtimes with a median
    of 30 minutes). Synthetic: only the quotas are Helios's."""
    import csv

    import numpy as np
    rng = np.random.default_rng(seed)
    row = next(csv.DictReader(HELIOS.open()))
    quotas = {vc: int(v) for vc, v in row.items() if vc not in ("date", "total") and int(v) > 0}
    gpus, weights = np.array([1, 2, 4, 8, 16, 32]), np.array([0.45, 0.15, 0.15, 0.15, 0.06, 0.04])
    mean_runtime = 1800 * np.exp(1.2 ** 2 / 2)
    objects: list[dict] = [{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor",
                            "metadata": {"name": "gpu"}}]
    workloads = []
    for vc, quota in quotas.items():
        objects.append({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue", "metadata": {"name": vc},
                        "spec": {"cohort": "venus", "preemption": {"reclaimWithinCohort": "Any"},
                                 "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                                     {"name": "gpu", "resources": [
                                         {"name": "nvidia.com/gpu", "nominalQuota": quota}]}]}]}})
        objects.append({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
                        "metadata": {"name": "main", "namespace": vc}, "spec": {"clusterQueue": vc}})
        rate = load * quota / (float((gpus * weights).sum() / weights.sum()) * mean_runtime)   # jobs per second
        t, i = 0.0, 0
        while True:
            t += float(rng.exponential(1 / rate))
            if t > days * 86400:
                break
            g = int(rng.choice(gpus, p=weights / weights.sum()))
            pods, per_pod = (g // 8, 8) if g > 8 else (1, g)
            workloads.append({"name": f"{vc}-{i}", "namespace": vc, "queue": "main", "at": round(t, 1),
                              "pods": pods, "requests": {"nvidia.com/gpu": per_pod},
                              "runtime": round(float(np.exp(rng.normal(np.log(1800), 1.2))), 1)})
            i += 1
    return {"kind": "Simulation", "name": f"helios-size synthetic, {days} days", "duration": days * 86400,
            "scheduler": {"sampleInterval": "5m"}, "objects": objects, "workloads": workloads}


def helios_part(days: float) -> None:
    doc = helios_scenario(days, 0.9, 1)
    t = time.perf_counter()
    scn = parse_scenario(doc, str(ROOT / "bench" / "helios-synthetic.yaml"))
    load = time.perf_counter() - t
    t = time.perf_counter()
    sim = Simulator(scn).run()
    wall = time.perf_counter() - t
    print(f"helios-size synthetic: {len(scn.workloads)} jobs on {len(scn.state.cluster_queues)} ClusterQueues, "
          f"load {load:.1f} s, simulated {sim.now / 86400:.1f} days in {wall:.1f} s wall "
          f"(x{sim.now / wall:,.0f} real time), {sim.cycles} cycles")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=("sweep", "philly", "helios"))
    ap.add_argument("--days", type=float, default=14.0, help="simulated days of the Helios-size trace")
    ap.add_argument("--until", default="12h")
    args = ap.parse_args()
    if args.only in (None, "sweep"):
        sweep_part(args.until)
    if args.only in (None, "philly"):
        philly_part()
    if args.only in (None, "helios"):
        helios_part(args.days)


if __name__ == "__main__":
    main()
