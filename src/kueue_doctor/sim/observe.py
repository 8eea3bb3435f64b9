"""What each simulated ClusterQueue observes, for the guarantee: pending work in the engine's
queue order, and admitted work whose pods do not run yet, with the simulator's own clock."""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ..guarantee import NotRunning, QueueObservation, Waiting
from ..guarantee.evaluate import saturated

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.snapshot import ClusterQueueSnapshot
    from ..engine.workload import WorkloadInfo
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
                  reserved: Iterable[WorkloadKey], all_pending: bool = True) -> QueueObservation:
    """One queue's observation; ``reserved``: the keys of its workloads in state RESERVED (others
    are skipped), in the order their not-running entries are listed. ``all_pending`` False: a
    queue at its nominal quota lists no pending work, which Evaluator.evaluate does not read then
    (unless asked for every workload's verdict)."""
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
    if not all_pending and saturated(cq):
        return QueueObservation(cq, (), not_running)
    wis = sim.model.queues.pending_in_order(cq.name)
    if not all_pending:
        return QueueObservation(cq, _Pending(wis, sim, at), not_running)
    return QueueObservation(cq, [Waiting(wi, at(workloads[wi.key].waiting_since))
                                 for wi in wis if wi.key in workloads], not_running)


class _Pending(Sequence[Waiting]):
    """Pending work (of the simulated workloads) whose Waiting entries are made as they are read:
    a sample's evaluation (``complete=False``) often stops before the end."""

    def __init__(self, wis: list[WorkloadInfo], sim: Simulator, at: Callable[[float], datetime]):
        self._wis, self._sim, self._at = wis, sim, at
        self._all: list[Waiting] | None = None

    def __iter__(self) -> Iterator[Waiting]:
        if self._all is not None:
            yield from self._all
            return
        workloads, at = self._sim.workloads, self._at
        for wi in self._wis:
            sw = workloads.get(wi.key)
            if sw is not None:
                yield Waiting(wi, at(sw.waiting_since))

    def _list(self) -> list[Waiting]:
        if self._all is None:
            self._all = list(self)
        return self._all

    def __len__(self) -> int:
        return len(self._list())

    def __getitem__(self, i):  # an index or a slice, as Sequence allows
        return self._list()[i]
