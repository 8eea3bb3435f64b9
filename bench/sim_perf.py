"""Benchmark: Kueue's own scheduler performance-test configs in the simulator (run by hand).

    python bench/sim_perf.py                      # baseline and large-scale
    python bench/sim_perf.py --only baseline

Prints, next to upstream's measured means and issue 17's bar (half the mean .. the rangespec's
bound), our per-class average time to admission, usage, simulated, wall and CPU seconds, the
scheduling cycles and the API writes of the model (sim/perf.py); ``--profile`` adds a cProfile.
Upstream's figures are real time on an envtest API server with a minimal Kueue; ours are
simulated time under the controller model of sim/perf.py (docs/simulator.md).
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "kueue-perf"


# upstream's measured means (the rangespecs' comments), seconds: issue 17 asks each class for at
# least half of these and at most the rangespec's bound
UPSTREAM_MEAN = {"baseline": {"large": 16.501, "medium": 76.768, "small": 215.468},
                 "large-scale": {"large": 105.604, "medium": 256.413, "small": 700.379}}


def run(name: str, profile: bool = False) -> None:
    spec = yaml.safe_load((DATA / f"{name}-rangespec.yaml").read_text())
    scn = load_scenario(str(DATA / f"{name}-generator.yaml"))
    t, cpu = time.perf_counter(), time.process_time()
    prof = cProfile.Profile() if profile else None
    if prof is not None:
        prof.enable()
    sim = Simulator(scn).run()
    if prof is not None:
        prof.disable()
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    s = sim.recorder.summary()
    usage = sum(v["avgUsagePercent"] for v in s["clusterQueues"].values()) / max(1, len(s["clusterQueues"]))
    writes = sim.api.writes if sim.api is not None else 0
    print(f"== {name}: {s['workloads']}  simulated {s['simulatedSeconds']:.0f} s in {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU (x{s['simulatedSeconds'] / wall:.1f}); {sim.cycles} cycles, {writes} API writes; "
          f"upstream wall {spec['cmd']['maxWallMs'] / 1.2 / 1000:.0f} s "
          f"(rangespec max {spec['cmd']['maxWallMs'] / 1000:.0f} s)")
    print(f"   {'class':8} {'ours avg s':>11} {'upstream mean s':>16} {'bar min s':>10} {'bar max s':>10}")
    for k, v in s["classes"].items():
        up = spec["wlClassesMaxAvgTimeToAdmissionMs"].get(k)
        mean = UPSTREAM_MEAN[name].get(k, float("nan"))
        ours = v["avgTimeToAdmissionMs"]
        print(f"   {k:8} {ours / 1000 if ours is not None else float('nan'):>11.1f} {mean:>16.1f} {mean / 2:>10.1f} "
              f"{up / 1000 if up else float('nan'):>10.1f}")
    print(f"   average ClusterQueue usage {usage:.1f}% (upstream min {spec['clusterQueueClassesMinUsage']['cq']}%)")
    if prof is not None:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(30)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=("baseline", "large-scale"))
    ap.add_argument("--profile", action="store_true", help="print a cProfile of each run")
    args = ap.parse_args()
    for name in ([args.only] if args.only else ["baseline", "large-scale"]):
        run(name, args.profile)


if __name__ == "__main__":
    main()
