"""Benchmark: Kueue's own scheduler performance-test configs in the simulator (run by hand).

    python bench/sim_perf.py                      # baseline and large-scale
    python bench/sim_perf.py --only baseline

Prints, next to upstream's rangespec figures, our per-class average time to admission, usage,
simulated and wall seconds, and the ratio of simulated to wall time. Upstream's figures are real
time on an envtest API server with a minimal Kueue; ours are simulated time with the controller
costs of sim/perf.py, so the comparison is of shape (class order, magnitudes), not equality.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "kueue-perf"


def run(name: str) -> None:
    spec = yaml.safe_load((DATA / f"{name}-rangespec.yaml").read_text())
    t = time.perf_counter()
    sim = Simulator(load_scenario(str(DATA / f"{name}-generator.yaml"))).run()
    wall = time.perf_counter() - t
    s = sim.recorder.summary()
    usage = sum(v["avgUsagePercent"] for v in s["clusterQueues"].values()) / max(1, len(s["clusterQueues"]))
    print(f"== {name}: {s['workloads']}  simulated {s['simulatedSeconds']:.0f} s in {wall:.1f} s wall "
          f"(x{s['simulatedSeconds'] / wall:.1f}); upstream wall {spec['cmd']['maxWallMs'] / 1.2 / 1000:.0f} s "
          f"(rangespec max {spec['cmd']['maxWallMs'] / 1000:.0f} s)")
    print(f"   {'class':8} {'ours avg s':>11} {'upstream max s':>15}")
    for k, v in s["classes"].items():
        up = spec["wlClassesMaxAvgTimeToAdmissionMs"].get(k)
        ours = v["avgTimeToAdmissionMs"]
        print(f"   {k:8} {ours / 1000 if ours is not None else float('nan'):>11.1f} "
              f"{up / 1000 if up else float('nan'):>15.1f}")
    print(f"   average ClusterQueue usage {usage:.1f}% (upstream min {spec['clusterQueueClassesMinUsage']['cq']}%)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=("baseline", "large-scale"))
    args = ap.parse_args()
    for name in ([args.only] if args.only else ["baseline", "large-scale"]):
        run(name)


if __name__ == "__main__":
    main()
