"""When will a pending workload be admitted? Seeded replicates of the simulator started from
the snapshot (sim/restart.py), each drawing the runtimes still to come from the runtime model;
the spread of their admission times is the forecast. The restarted simulator is built once and
forked per replicate (``Simulator.fork``), each fork drawing its own runtimes.

Percentiles are nearest-rank over all replicates, a replicate that did not admit the workload
within the horizon counting as "later than the horizon": P90 is then reported as beyond it
rather than estimated from the replicates that did."""
from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..api.state import ClusterState
from ..engine.model import AdmissionModel
from ..keys import WorkloadKey
from .perturb import replicate_seed
from .restart import RuntimeModel, draw_runtimes, restarted
from .simulator import Simulator


class _Admitted(Exception):
    """Raised from the run's progress hook to stop a replicate once the target is admitted."""


@dataclass
class Replicate:
    seed: int
    admitted_at: float | None                    # seconds after the snapshot; None: not within the horizon
    positions: list[tuple[float, int | None]] = field(default_factory=list)   # (t, 1-based position)


def nearest_rank(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100.0 * len(ordered)) - 1)]


def position(sim: Simulator, key: WorkloadKey, cq: str) -> int | None:
    q = sim.model.queues.queues.get(cq)
    if q is None:
        return None
    for i, wi in enumerate(sim.model.queues.pending_in_order(cq), 1):
        if wi.key == key:
            return i
    return None


def run_replicate(base: Simulator, key: WorkloadKey, runtimes: RuntimeModel, seed: int,
                  horizon: float, sample_every: float) -> Replicate:
    """One replicate on a fork of ``base`` (a ``restarted`` simulator, left as it was)."""
    sim = base.fork()
    draw_runtimes(sim, runtimes, seed)
    target = sim.workloads[key]
    rep = Replicate(seed, None)
    next_sample = [0.0]

    def hook(t: float) -> None:
        while next_sample[0] <= t and next_sample[0] <= horizon:
            rep.positions.append((next_sample[0], position(sim, key, target.cluster_queue)))
            next_sample[0] += sample_every
        if target.first_admitted_at is not None:
            raise _Admitted

    rep.positions.append((0.0, position(sim, key, target.cluster_queue)))
    next_sample[0] = sample_every
    sim.progress = hook
    with contextlib.suppress(_Admitted):
        sim.run(horizon)
    if target.first_admitted_at is not None:
        rep.admitted_at = max(0.0, target.first_admitted_at)
    return rep


def ahead_of(model: AdmissionModel, key: WorkloadKey) -> tuple[str, list[WorkloadKey]]:
    """The workload's ClusterQueue and the pending workloads before it in its queue order now,
    from the engine model of the snapshot (the one ``explain`` reads positions from)."""
    wi = model.infos.get(key)
    cq = (model.queues.cluster_queue_for(wi) or "") if wi is not None else ""
    order = [w.key for w in model.queues.pending_in_order(cq)] if cq else []
    return cq, order[:order.index(key)] if key in order else order


# what the forked workers run replicates of (inherited through fork, never pickled)
_SHARED: dict[str, Any] = {}


def _replicate_in_worker(rep_seed: int) -> Replicate:
    a = _SHARED
    return run_replicate(a["base"], a["key"], a["runtimes"], rep_seed, a["horizon"], a["sample_every"])


def run_replicates(base: Simulator, key: WorkloadKey, runtimes: RuntimeModel, seeds: list[int], horizon: float,
                   sample_every: float, workers: int = 1) -> list[Replicate]:
    """The replicates in seed order, in ``workers`` forked processes when there are several:
    each replicate is its own fork of ``base`` with its own seed, so the result does not depend
    on how many workers ran them (tested)."""
    import multiprocessing
    workers = min(workers, len(seeds))
    # fork: the children get the built simulator as it is, nothing pickled; they touch no
    # stream or lock the parent's threads (a progress spinner) may hold, and return results only
    if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
        return [run_replicate(base, key, runtimes, s, horizon, sample_every) for s in seeds]
    _SHARED.update(base=base, key=key, runtimes=runtimes, horizon=horizon, sample_every=sample_every)
    try:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return pool.map(_replicate_in_worker, seeds, chunksize=1)
    finally:
        _SHARED.clear()


def forecast(state: ClusterState, now: datetime, key: WorkloadKey, runtimes: RuntimeModel, replicates: int,
             seed: int, horizon: float, sample_every: float = 300.0, workers: int = 1,
             **release: Any) -> dict[str, Any]:
    base = restarted(state, now, **release)
    seeds = [replicate_seed(seed, r) for r in range(replicates)]
    if runtimes.deterministic and seeds:
        # the seed only draws runtimes, and none is drawn: every replicate is this one run
        # (tested against running them all)
        one = run_replicate(base, key, runtimes, seeds[0], horizon, sample_every)
        reps = [Replicate(s, one.admitted_at, list(one.positions)) for s in seeds]
    else:
        reps = run_replicates(base, key, runtimes, seeds, horizon, sample_every, workers)
    times = [r.admitted_at if r.admitted_at is not None else math.inf for r in reps]
    admitted = [t for t in times if math.isfinite(t)]
    pct = {f"p{q}": nearest_rank(times, q) for q in (10, 50, 90)}
    return {
        "replicates": [{"seed": r.seed, "admittedAfterSeconds": r.admitted_at,
                        "positions": [[t, p] for t, p in r.positions]} for r in reps],
        "admittedWithinHorizon": len(admitted),
        "percentiles": {k: (v if math.isfinite(v) else None) for k, v in pct.items()},
    }
