"""Cut the packaged Philly sample (src/kueue_doctor/data/traces/philly/) from the full trace.

    python scripts/cut_philly_sample.py ../shared/data/philly src/kueue_doctor/data/traces/philly

Keeps, per virtual-cluster file, every job a ``start: 20d`` run of ``duration: 3d`` reads:
the jobs arriving in [start, start + duration] and the jobs arriving before start that still
run at start (the scenario's ``carryOver``; runtime = total_steps / Gavel's V100 throughput,
computed as the simulator computes it). Every other line is written as an empty line, so a
kept job keeps its line number, hence its name ``job-<line>``, and the sample replays the same
run as the full trace. ``gavel_simulation_throughputs.json`` keeps the ``v100`` table reduced
to the ``null`` (no co-location) figure, the only one the simulator reads; ``philly_vc.csv``
is copied unchanged. SOURCE.md beside the sample says the same.
"""
from __future__ import annotations

import argparse
import json
import shutil
from pathlib import Path

from kueue_doctor.duration import duration
from kueue_doctor.sim.traces import _gavel_throughputs, _philly_rows, _throughput

THROUGHPUTS = "gavel_simulation_throughputs.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("full", type=Path, help="folder of the full trace (*.trace, throughputs, philly_vc.csv)")
    ap.add_argument("out", type=Path, help="folder to write the sample to")
    ap.add_argument("--start", default="20d")
    ap.add_argument("--duration", default="3d")
    args = ap.parse_args()
    start = duration(args.start, "--start")
    end = start + duration(args.duration, "--duration")
    table = _gavel_throughputs(args.full / THROUGHPUTS, THROUGHPUTS)
    args.out.mkdir(parents=True, exist_ok=True)
    kept_all = 0
    for p in sorted(args.full.glob("*.trace")):
        lines = p.read_text(encoding="utf-8").splitlines(keepends=True)
        keep = set()
        for line, (job_type, steps, arrival, gpus) in _philly_rows(p, str(p)):
            runtime = steps / _throughput(table, job_type, gpus, f"{p}:{line}")[0]
            if start <= arrival <= end or (arrival < start < arrival + runtime):
                keep.add(line)
        kept_all += len(keep)
        out = [text if i in keep else "\n" for i, text in enumerate(lines, start=1)]
        # trailing lines after the last kept job are dropped: they name no job
        while out and out[-1] == "\n":
            out.pop()
        (args.out / p.name).write_text("".join(out), encoding="utf-8")
        print(f"{p.name}: {len(keep)} of {len(lines)} jobs")
    v100 = json.loads((args.full / THROUGHPUTS).read_text(encoding="utf-8"))["v100"]
    reduced = {"v100": {key: {"null": entry["null"]} for key, entry in v100.items()}}
    (args.out / THROUGHPUTS).write_text(json.dumps(reduced, indent=1) + "\n", encoding="utf-8")
    shutil.copyfile(args.full / "philly_vc.csv", args.out / "philly_vc.csv")
    print(f"{kept_all} jobs kept")


if __name__ == "__main__":
    main()
