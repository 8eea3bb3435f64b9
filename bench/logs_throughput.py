"""Throughput of `kueue-doctor logs` next to grep and jq on the same file, in the same run.

    python bench/logs_generate.py /tmp/kd-1g.log --size 1G
    python bench/logs_throughput.py /tmp/kd-1g.log

The file is read once first so every tool finds it in the page cache; each tool then runs
--repeat times (jq --jq-repeat times: it is slow) and the best wall time is kept. grep counts one
fixed string; jq selects the lines whose msg is one the scanner reads. Ours runs sequentially
(--workers 1) and with its default worker processes. Peak memory is sampled from /proc every
few milliseconds and summed over the process and its workers, since the workers' memory counts
too; ru_maxrss (the largest single process) is shown beside it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from kueue_doctor.logs.signatures import MESSAGES

NEEDLE = "Preemption ongoing"


def _tree_rss(pid: int) -> int:
    """Resident KiB of pid and all its descendants (Linux /proc), 0 once gone."""
    total = 0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                for row in f:
                    if row.startswith("VmRSS:"):
                        total += int(row.split()[1])
                        break
            with open(f"/proc/{p}/task/{p}/children") as f:
                todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def _run(cmd: list[str]) -> tuple[float, int, int]:
    """Wall seconds, peak summed RSS of the process tree (KiB), ru_maxrss (KiB)."""
    # Not /dev/null: GNU grep notices its output is /dev/null and stops at the first match
    # (even with -c), which made the grep anchor a measure of nothing.
    with tempfile.TemporaryFile() as sink:
        return _timed(cmd, sink)


def _timed(cmd: list[str], sink) -> tuple[float, int, int]:
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.DEVNULL)
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(child.pid))
            done.wait(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # grep exits 1 when nothing matched
        sys.exit(f"failed: {' '.join(cmd)}")
    return wall, peak[0], usage.ru_maxrss


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("file")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--jq-repeat", type=int, default=1)
    p.add_argument("--no-jq", action="store_true", help="skip jq (minutes on 1 GB)")
    args = p.parse_args(argv)
    size = os.path.getsize(args.file)
    msgs = sorted({m.decode().rstrip('"') for m in MESSAGES})
    jq_filter = "select(.msg | IN(" + ",".join(f'"{m}"' for m in msgs) + ")) | .msg"
    ours = [sys.executable, "-m", "kueue_doctor", "logs", "-o", "json", "--fail-on", "never", args.file]
    tools = {
        "kueue-doctor logs --workers 1": ([*ours, "--workers", "1"], args.repeat),
        f"kueue-doctor logs ({os.cpu_count()} CPUs)": (ours, args.repeat),
        f"grep -c '{NEEDLE}'": (["grep", "-c", NEEDLE, args.file], args.repeat),
    }
    if args.no_jq:
        pass
    elif shutil.which("jq"):
        tools["jq (same lines)"] = (["jq", "-c", "-R", "fromjson? | " + jq_filter, args.file], args.jq_repeat)
    else:
        print("jq not found: apt-get install jq", file=sys.stderr)
    subprocess.run(["cat", args.file], stdout=subprocess.DEVNULL, check=True)  # page cache
    results = {}
    for name, (cmd, repeat) in tools.items():
        runs = [_run(cmd) for _ in range(max(1, repeat))]
        results[name] = (min(r[0] for r in runs), max(r[1] for r in runs), max(r[2] for r in runs))
    print(f"file: {args.file} ({size / 1e6:.0f} MB), {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"  {'tool':38s} {'wall':>8s} {'MB/s':>8s} {'peak RSS (tree)':>16s} {'max proc':>9s}")
    for name, (wall, tree, single) in results.items():
        print(f"  {name:38s} {wall:7.2f}s {size / 1e6 / wall:8.1f} {tree / 1024:13.0f} MB {single / 1024:6.0f} MB")
    grep = size / results[f"grep -c '{NEEDLE}'"][0]
    for name in list(results)[:2]:
        mbs = size / results[name][0]
        line = f"  {name}: {mbs / grep:.2f} of grep (aim >= 0.5)"
        if "jq (same lines)" in results:
            line += f", {mbs / (size / results['jq (same lines)'][0]):.1f}x jq (aim >= 5)"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
