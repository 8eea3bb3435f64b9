"""What each simulated ClusterQueue observes, for the guarantee: pending work in the engine's
queue order, and admitted work whose pods do not run yet, with the simulator's own clock."""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from ..guarantee import NotRunning, QueueObservation, Waiting

if TYPE_CHECKING:  # pragma: no cover
    from .simulator import Simulator

RESERVED = "reserved"   # sim.simulator's state for admitted work that does not run yet


def observations(sim: Simulator, include_inactive: bool = False,
                 times: dict[float, datetime] | None = None,
                 only: set[str] | None = None) -> dict[str, QueueObservation]:
    """``times``: sim.dt already computed, kept by a caller that samples often (the same few
    waiting-since times come back at every sample); ``only``: the queues to observe (all if None)."""
    times = {} if times is None else times

    def at(t: float) -> datetime:
        d = times.get(t)
        if d is None:
            d = times[t] = sim.dt(t)
        return d

    esnap = sim.model.snapshot
    cqs = {**esnap.cluster_queues, **esnap.inactive} if include_inactive else dict(esnap.cluster_queues)
    if only is not None:
        cqs = {name: cq for name, cq in cqs.items() if name in only}
    not_running: dict[str, list[NotRunning]] = {name: [] for name in cqs}
    for sw in sim.workloads.values():
        if sw.state == RESERVED and sw.cluster_queue in not_running:
            wi = cqs[sw.cluster_queue].workloads.get(sw.key)
            if wi is not None:
                gated = sw.released_at is None or sw.admitted_at is None or sw.released_at < sw.admitted_at
                not_running[sw.cluster_queue].append(NotRunning(
                    wi, sim.dt(sw.waiting_since), "not released to Kubernetes" if gated else "pods not running"))
    out = {}
    workloads = sim.workloads
    for name, cq in cqs.items():
        pending = [Waiting(wi, at(workloads[wi.key].waiting_since))
                   for wi in sim.model.queues.pending_in_order(name) if wi.key in workloads]
        out[name] = QueueObservation(cq, pending, not_running[name])
    return out
