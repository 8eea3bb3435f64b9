"""What each simulated ClusterQueue observes, for the guarantee: pending work in the engine's
queue order, and admitted work whose pods do not run yet, with the simulator's own clock."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from ..guarantee import NotRunning, QueueObservation, Waiting

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.snapshot import ClusterQueueSnapshot
    from ..keys import WorkloadKey
    from .simulator import Simulator

RESERVED = "reserved"   # sim.simulator's state for admitted work that does not run yet


def observations(sim: Simulator, include_inactive: bool = False,
                 times: dict[float, datetime] | None = None,
                 only: set[str] | None = None) -> dict[str, QueueObservation]:
    """``times``: sim.dt already computed, kept by a caller that samples often (the same few
    waiting-since times come back at every sample); ``only``: the queues to observe (all if None)."""
    esnap = sim.model.snapshot
    cqs = {**esnap.cluster_queues, **esnap.inactive} if include_inactive else dict(esnap.cluster_queues)
    if only is not None:
        cqs = {name: cq for name, cq in cqs.items() if name in only}
    reserved: dict[str, list[WorkloadKey]] = {name: [] for name in cqs}
    for sw in sim.workloads.values():
        if sw.state == RESERVED and sw.cluster_queue in reserved:
            reserved[sw.cluster_queue].append(sw.key)
    at = clock(sim, times)
    return {name: observe_queue(sim, cq, at, reserved[name]) for name, cq in cqs.items()}


def clock(sim: Simulator, times: dict[float, datetime] | None = None) -> Callable[[float], datetime]:
    """sim.dt, remembered in ``times`` (the same few waiting-since times come back often)."""
    times = {} if times is None else times

    def at(t: float) -> datetime:
        d = times.get(t)
        if d is None:
            d = times[t] = sim.dt(t)
        return d
    return at


def observe_queue(sim: Simulator, cq: ClusterQueueSnapshot, at: Callable[[float], datetime],
                  reserved: Iterable[WorkloadKey]) -> QueueObservation:
    """One queue's observation; ``reserved``: the keys of its workloads in state RESERVED (others
    are skipped), in the order their not-running entries are listed."""
    workloads = sim.workloads
    not_running = []
    for key in reserved:
        sw = workloads[key]
        if sw.state != RESERVED:
            continue
        wi = cq.workloads.get(key)
        if wi is not None:
            gated = sw.released_at is None or sw.admitted_at is None or sw.released_at < sw.admitted_at
            not_running.append(NotRunning(
                wi, at(sw.waiting_since), "not released to Kubernetes" if gated else "pods not running"))
    wis = sim.model.queues.pending_in_order(cq.name)
    return QueueObservation(cq, [Waiting(wi, at(workloads[wi.key].waiting_since))
                                 for wi in wis if wi.key in workloads], not_running)
