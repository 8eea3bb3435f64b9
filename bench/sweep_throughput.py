"""Benchmark: sweep throughput (configurations per minute) by executor and workers, and one
configuration's wall time on the full shipped Philly files (run by hand).

    python bench/sweep_throughput.py                  # both parts
    python bench/sweep_throughput.py --only sweep --until 6h
    python bench/sweep_throughput.py --only philly

The sweep part runs examples/sweeps/philly-24.yaml (24 configurations, 1 replicate, ``--until``
simulated time) with the local executor on 1 and 2 workers and with Ray on 2 local CPUs, each
into a fresh folder, and checks the three results.csv are identical. Ray's figure includes
starting and stopping its local instance. The Philly part simulates the whole of
shared/data/philly (all 15 virtual clusters, 15,264 jobs) once and prints simulated/wall time.
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=("sweep", "philly"))
    ap.add_argument("--until", default="12h")
    args = ap.parse_args()
    if args.only in (None, "sweep"):
        sweep_part(args.until)
    if args.only in (None, "philly"):
        philly_part()


if __name__ == "__main__":
    main()
