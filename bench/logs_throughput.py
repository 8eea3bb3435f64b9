"""Throughput of `kueue-doctor logs` next to grep -c, rg -c and jq on the same file, in the same run.

    python bench/logs_throughput.py --make /tmp/kd          # writes both mixes there (once), runs all
    python bench/logs_throughput.py /tmp/kd/v5-1g.log ...   # or any files

--make writes the two mixes of bench/logs_generate.py: the whole controller at V(5) (1 GB) and a
busy cluster's scheduler lines (--mix scheduler, 512 MB). Each file is read once first so every
tool finds it in the page cache; each tool then runs --repeat times (jq --jq-repeat times: it is
slow, and off unless --jq) and the best wall time is kept. grep and rg count one fixed string, their
output read through a pipe (GNU grep stops at the first match when its output is /dev/null, even
with -c); rg is skipped, with a message, where it is not installed. Ours runs sequentially
(--workers 1) and with one worker per CPU. Peak memory is sampled from /proc every few
milliseconds and summed over the process and its workers, since the workers' memory counts too;
ru_maxrss (the largest single process) is shown beside it, and the least CPU time of the runs
(user and system, workers included), which a loaded machine inflates less than the wall.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time

from kueue_doctor.logs.signatures import MESSAGES

NEEDLE = "Preemption ongoing"
GREP, RG = f"grep -c '{NEEDLE}'", f"rg -c '{NEEDLE}'"


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


def _run(cmd: list[str]) -> tuple[float, int, int, float]:
    """Wall seconds, peak summed RSS of the process tree (KiB), ru_maxrss (KiB), CPU seconds (user
    and system, the process and the workers it waited for)."""
    # A pipe, read here, not /dev/null: GNU grep notices its output is /dev/null and stops at
    # the first match (even with -c), which made the grep anchor a measure of nothing.
    start = time.perf_counter()
    child = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    reader = threading.Thread(target=lambda: child.stdout.read() if child.stdout else None, daemon=True)
    reader.start()
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss(child.pid))
            done.wait(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(child.pid, 0)
    reader.join()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # grep exits 1 when nothing matched
        sys.exit(f"failed: {' '.join(cmd)}")
    return wall, peak[0], usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def _make(folder: str) -> list[str]:
    import logs_generate

    os.makedirs(folder, exist_ok=True)
    files = []
    for name, size, mix in (("v5-1g.log", "1G", "v5"), ("scheduler-512m.log", "512M", "scheduler")):
        path = os.path.join(folder, name)
        if not os.path.exists(path):
            logs_generate.main([path, "--size", size, "--mix", mix])
        files.append(path)
    return files


def bench(path: str, repeat: int, jq_repeat: int, jq: bool) -> None:
    size = os.path.getsize(path)
    msgs = sorted({m.decode().rstrip('"') for m in MESSAGES})
    jq_filter = "select(.msg | IN(" + ",".join(f'"{m}"' for m in msgs) + ")) | .msg"
    ours = [sys.executable, "-m", "kueue_doctor", "logs", "-o", "json", "--fail-on", "never", path]
    cpus = os.cpu_count() or 1
    tools = {
        "kueue-doctor logs --workers 1": ([*ours, "--workers", "1"], repeat),
        f"kueue-doctor logs --workers {cpus}": ([*ours, "--workers", str(cpus)], repeat),
        GREP: (["grep", "-c", NEEDLE, path], repeat),
    }
    if shutil.which("rg"):
        tools[RG] = (["rg", "-c", NEEDLE, path], repeat)
    else:
        print("rg not found (apt-get install ripgrep): no rg -c figure", file=sys.stderr)
    if not jq:
        pass
    elif shutil.which("jq"):
        tools["jq (same lines)"] = (["jq", "-c", "-R", "fromjson? | " + jq_filter, path], jq_repeat)
    else:
        print("jq not found: apt-get install jq", file=sys.stderr)
    subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)  # page cache
    results = {}
    for _ in range(max(1, repeat)):   # the tools in turn, so a change of the machine's speed hits all
        for name, (cmd, times) in tools.items():
            if name in results and len(results[name]) >= times:
                continue
            results.setdefault(name, []).append(_run(cmd))
    best = {name: (min(r[0] for r in runs), max(r[1] for r in runs), max(r[2] for r in runs),
                   min(r[3] for r in runs)) for name, runs in results.items()}
    print(f"file: {path} ({size / 1e6:.0f} MB), {cpus} CPUs, load average {os.getloadavg()[0]:.2f}")
    # CPU seconds beside the wall: on a machine others load, the wall says little, the CPU more
    print(f"  {'tool':38s} {'wall':>8s} {'MB/s':>8s} {'CPU':>8s} {'peak RSS (tree)':>16s} {'max proc':>9s}")
    for name, (wall, tree, single, cpu) in best.items():
        print(f"  {name:38s} {wall:7.2f}s {size / 1e6 / wall:8.1f} {cpu:7.2f}s {tree / 1024:13.0f} MB "
              f"{single / 1024:6.0f} MB")
    for name in list(best)[:2]:
        mbs = size / 1e6 / best[name][0]
        line = f"  {name}: {mbs:.0f} MB/s, {mbs / (size / 1e6 / best[GREP][0]):.2f}x grep -c"
        if RG in best:
            line += f", {mbs / (size / 1e6 / best[RG][0]):.2f}x rg -c"
        if "jq (same lines)" in best:
            line += f", {mbs / (size / 1e6 / best['jq (same lines)'][0]):.1f}x jq"
        print(line)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--make", metavar="DIR", help="write both mixes into DIR (unless there) and bench them")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--jq", action="store_true", help="also run jq (minutes on 1 GB)")
    p.add_argument("--jq-repeat", type=int, default=1)
    args = p.parse_args(argv)
    files = list(args.files) + (_make(args.make) if args.make else [])
    if not files:
        p.error("name files or --make DIR")
    _compiled()
    for path in files:
        bench(path, args.repeat, args.jq_repeat, args.jq)
    return 0


def _compiled() -> None:
    """The package's bytecode written, as pip writes it when it installs: with an editable
    install and PYTHONDONTWRITEBYTECODE set (as on this project's machines) every run would
    compile each module again (about 50 ms of a 1 GB run's start-up), which no install does."""
    import compileall

    import kueue_doctor

    root = os.path.dirname(kueue_doctor.__file__)
    if not compileall.compile_dir(root, quiet=1):
        print(f"could not compile {root}: figures include compiling at each start", file=sys.stderr)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
