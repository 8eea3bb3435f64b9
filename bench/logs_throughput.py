"""Throughput of `kueue-doctor logs` next to grep and jq on the same file, in the same run.

    python bench/logs_generate.py /tmp/kueue-1g.log --size 1G
    python bench/logs_throughput.py /tmp/kueue-1g.log

Each tool runs once to warm the page cache, then --repeat times; the best wall time is kept.
grep counts one fixed string; jq selects the lines whose msg is one the scanner reads. Peak memory
is the scanner's maximum resident set size (from the child's rusage).
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

from kueue_doctor.logs.signatures import MESSAGES

NEEDLE = "Preemption ongoing"


def _run(cmd: list[str]) -> tuple[float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the max over all children so far; report it only when it grew.
    return wall, max(peak, before), done.stdout.decode(errors="replace")[-200:]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args(argv)
    size = os.path.getsize(args.file)
    msgs = sorted({m.decode().rstrip('"') for m in MESSAGES})
    jq_filter = "select(.msg | IN(" + ",".join('"%s"' % m for m in msgs) + ")) | .msg"
    tools = {
        "kueue-doctor logs": [sys.executable, "-m", "kueue_doctor", "logs", "--format", "json", args.file],
        f"grep -c '{NEEDLE}'": ["grep", "-c", NEEDLE, args.file],
    }
    if shutil.which("jq"):
        tools["jq (same lines)"] = ["jq", "-c", "-R", "fromjson? | " + jq_filter, args.file]
    else:
        print("jq not found: apt-get install jq", file=sys.stderr)
    results = {}
    for name, cmd in tools.items():
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        best = min(_run(cmd)[0] for _ in range(max(1, args.repeat)))
        results[name] = best
    ours = tools["kueue-doctor logs"]
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    child = subprocess.Popen(ours, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    print(f"file: {args.file} ({size / 1e6:.0f} MB)")
    for name, wall in results.items():
        print(f"  {name:32s} {wall:7.2f} s  {size / 1e6 / wall:8.1f} MB/s")
    print(f"  kueue-doctor logs peak RSS: {usage.ru_maxrss / 1024:.0f} MB (earlier children peak {ru0 / 1024:.0f} MB)")
    ours_mbs = size / results["kueue-doctor logs"]
    grep_mbs = size / results[f"grep -c '{NEEDLE}'"]
    print(f"  ratio to grep: {ours_mbs / grep_mbs:.2f} (aim >= 0.5)")
    if "jq (same lines)" in results:
        print(f"  ratio to jq:   {ours_mbs / (size / results['jq (same lines)']):.1f} (aim >= 5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
