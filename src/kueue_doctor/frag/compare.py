"""Run several policies x seeds of one trace in parallel and summarise them like the paper.

The paper plots the median over seeds 42-51 with a band; its README and bar charts quote
means at 100 % and 130 % arrived load. Both are reported.
"""
from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import lru_cache

from .policies import policy_class
from .replay import replay
from .trace import read_nodes, read_pods


@dataclass
class Run:
    policy: str
    seed: int
    allocation: dict[int, float]
    fragmentation: dict[int, float]
    final_allocation: float
    failed: int
    seconds: float


@lru_cache(maxsize=4)
def _load(nodes_path: str, pods_path: str):
    return read_nodes(nodes_path), read_pods(pods_path)


def run_one(nodes_path: str, pods_path: str, policy: str, seed: int, tune: float | None) -> Run:
    nodes, pods = _load(nodes_path, pods_path)
    start = time.perf_counter()
    r = replay(nodes, pods, policy, seed, tune)
    took = time.perf_counter() - start
    return Run(r.policy, seed, r.allocation_curve(), r.fragmentation_curve(), r.final_allocation,
               r.failed, took)


def run_grid(nodes_path: str, pods_path: str, policies: Sequence[str], seeds: Sequence[int],
             tune: float | None, jobs: int = 0, progress: Callable[[int], None] | None = None) -> list[Run]:
    """Every policy x seed, in that order; ``progress(n)`` after each of the n runs done so far."""
    # Fail on bad input here, in this process, not inside a worker.
    names = [policy_class(p).name for p in policies]
    _load(nodes_path, pods_path)
    tasks = [(nodes_path, pods_path, p, s, tune) for s in seeds for p in names]
    jobs = jobs or os.cpu_count() or 1
    tick = progress or (lambda n: None)
    if jobs <= 1 or len(tasks) == 1:
        out = []
        for t in tasks:
            out.append(run_one(*t))
            tick(len(out))
        return out
    with ProcessPoolExecutor(max_workers=min(jobs, len(tasks))) as pool:
        futures = [pool.submit(run_one, *t) for t in tasks]
        for n, _ in enumerate(as_completed(futures), 1):
            tick(n)
        return [f.result() for f in futures]


@dataclass
class PolicySummary:
    policy: str
    runs: int
    alloc_mean: dict[int, float]     # column -> mean over seeds
    alloc_median: dict[int, float]
    alloc_low: dict[int, float]      # 25th percentile (the paper's 50 % band)
    alloc_high: dict[int, float]     # 75th percentile
    frag_median: dict[int, float]
    seconds_mean: float
    failed_mean: float


def _quantile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    values = sorted(values)
    pos = q * (len(values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def summarise(runs: Sequence[Run]) -> list[PolicySummary]:
    by_policy: dict[str, list[Run]] = {}
    for r in runs:
        by_policy.setdefault(r.policy, []).append(r)
    out = []
    for policy, rs in by_policy.items():
        cols = sorted(set.intersection(*(set(r.allocation) for r in rs)))
        fcols = sorted(set.intersection(*(set(r.fragmentation) for r in rs)))
        a = {x: [r.allocation[x] for r in rs] for x in cols}
        out.append(PolicySummary(
            policy, len(rs),
            {x: statistics.fmean(v) for x, v in a.items()},
            {x: statistics.median(v) for x, v in a.items()},
            {x: _quantile(v, 0.25) for x, v in a.items()},
            {x: _quantile(v, 0.75) for x, v in a.items()},
            {x: statistics.median([r.fragmentation[x] for r in rs]) for x in fcols},
            statistics.fmean(r.seconds for r in rs), statistics.fmean(r.failed for r in rs)))
    return out


def table(summaries: Sequence[PolicySummary], columns: Sequence[int] = (90, 100, 130)) -> str:
    head = ["policy", "runs"] + [f"alloc@{c}" for c in columns] + [f"frag@{columns[1 if len(columns) > 1 else 0]}",
                                                                   "failed", "s/run"]
    rows = [head]
    mid = columns[1 if len(columns) > 1 else 0]
    for s in sorted(summaries, key=lambda s: -s.alloc_mean.get(max(columns), 0.0)):
        rows.append([s.policy, str(s.runs)]
                    + [f"{s.alloc_mean[c]:.2f}" if c in s.alloc_mean else "-" for c in columns]
                    + [f"{s.frag_median[mid]:.2f}" if mid in s.frag_median else "-",
                       f"{s.failed_mean:.0f}", f"{s.seconds_mean:.2f}"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True)))
                     for r in rows)
