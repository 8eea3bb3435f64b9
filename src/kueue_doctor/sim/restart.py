"""A simulator that starts from a gathered cluster instead of an empty one.

Simulated time 0 is the snapshot's time. Admitted workloads hold their quota and run for the
rest of their runtime; pending ones are queued as the snapshot shows them (same creation
times, priorities, requeue state), so the engine's first cycle sees what Kueue saw. What is not
in a snapshot, how long each workload will still run, comes from a ``RuntimeModel`` the user can
read and override. Nodes are not simulated here: admission is decided by quota, and pods run as
soon as they are released (a TAS or node-bound forecast would need the pods' placement).
"""
from __future__ import annotations

import copy
import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from ..api import objects as o
from ..api.history import condition_time, finished_durations, job_deadlines
from ..api.quantity import format_amount
from ..api.state import ClusterState
from ..engine.workload import pod_requests
from ..keys import WorkloadKey
from .forking import workload_copy
from .nodes import RUNNING, SimPod
from .scenario import JOB, Scenario, WorkloadSpec
from .simulator import QUEUED, RUNNING_W, Simulator, SimWorkload


@dataclass
class RuntimeModel:
    """How long a workload runs, in the order the forecast asks: a fixed runtime the user gave,
    else the durations of finished workloads of its ClusterQueue (of the whole snapshot when its
    queue has none), capped by its Job's activeDeadlineSeconds; with neither, the deadline itself."""
    fixed: float | None = None
    history: dict[str, list[float]] = field(default_factory=dict)
    deadlines: dict[WorkloadKey, float] = field(default_factory=dict)

    @classmethod
    def from_state(cls, state: ClusterState, fixed: float | None = None) -> RuntimeModel:
        return cls(fixed, finished_durations(state), job_deadlines(state))

    def resampled(self, rng: np.random.Generator) -> RuntimeModel:
        """The same model over a bootstrap resample of each queue's history: a replicate drawn
        from it carries the uncertainty of having seen only that many finished workloads."""
        history = {cq: sorted(float(v[int(i)]) for i in rng.integers(len(v), size=len(v)))
                   for cq, v in self.history.items() if v}
        return RuntimeModel(self.fixed, history, dict(self.deadlines))

    @property
    def deterministic(self) -> bool:
        """Whether every draw gives the same runtimes whatever the seed: a fixed runtime, or no
        history at all (deadlines only). Then every replicate is the same run."""
        return self.fixed is not None or not any(self.history.values())

    def pooled(self) -> list[float]:
        return sorted(d for v in self.history.values() for d in v)

    def source(self, key: WorkloadKey, cq: str) -> str:
        if self.fixed is not None:
            return "--runtime"
        if self.history.get(cq):
            return f"{_workloads(len(self.history[cq]))} of ClusterQueue {cq}"
        if self.pooled():
            return f"{_workloads(len(self.pooled()))} of the snapshot (none of {cq})"
        if key in self.deadlines:
            return "the Job's activeDeadlineSeconds"
        return "unknown"

    def known(self, key: WorkloadKey, cq: str) -> bool:
        return self.source(key, cq) != "unknown"

    def remaining(self, rng: np.random.Generator, key: WorkloadKey, cq: str, elapsed: float) -> float:
        """Seconds still to run for a workload that has run ``elapsed`` seconds (0: not started)."""
        deadline = self.deadlines.get(key)
        if self.fixed is not None:
            total = self.fixed
        else:
            seen = self.history.get(cq) or self.pooled()
            if seen:
                # a workload that has run t seconds lasts longer than t: draw among those that did
                longer = [d for d in seen if d > elapsed] or seen
                total = float(longer[int(rng.integers(len(longer)))])
                if total <= elapsed:
                    total = elapsed + total
            elif deadline is not None:
                total = deadline
            else:
                raise ValueError(f"no runtime known for {key}")
        if deadline is not None:
            total = min(total, deadline)
        return max(1.0, total - elapsed)


def _workloads(n: int) -> str:
    return f"{n} finished workload{'' if n == 1 else 's'}"


@functools.lru_cache(maxsize=4096)
def _formatted(resource: str, amount: int) -> str:
    return format_amount(resource, amount)   # a few distinct requests among 100,000 workloads


def _spec(w: o.Workload, key: WorkloadKey, at: float, runtime: float, sim: Simulator) -> WorkloadSpec:
    first = w.pod_sets[0] if w.pod_sets else None
    wi = sim.model.infos[key]
    if first is None:
        per_pod = {}
    elif not sim.config.resource_rules.active and wi.pod_sets:
        per_pod = wi.pod_sets[0].per_pod     # the engine read the template already, and no rule changed it
    else:
        per_pod = pod_requests(first.template)
    return WorkloadSpec(at=at, namespace=key.namespace, name=key.name, queue=w.queue_name,
                        requests={r: _formatted(r, a) for r, a in per_pod.items()},
                        pods=sum(ps.count for ps in w.pod_sets) or 1,
                        priority=w.priority or 0, runtime=runtime, kind=JOB)


def simulator_from_state(state: ClusterState, now: datetime, runtimes: RuntimeModel, seed: int,
                         version: str | None = None, gates: dict[str, bool] | None = None,
                         fair_sharing: dict | None = None) -> Simulator:
    """A simulator whose time 0 is ``now`` on a copy of ``state``; runtimes drawn with ``seed``.

    Workloads whose runtime the model cannot tell stay as the snapshot has them and are never
    finished (the caller checks ``runtimes.known`` first and says what is missing)."""
    sim = restarted(state, now, version, gates, fair_sharing)
    draw_runtimes(sim, runtimes, seed)
    return sim


def restarted(state: ClusterState, now: datetime, version: str | None = None,
              gates: dict[str, bool] | None = None, fair_sharing: dict | None = None) -> Simulator:
    """The simulator at ``now`` before any runtime is drawn: admitted workloads hold their quota
    and do not finish, queued ones have no runtime yet. ``draw_runtimes`` on it (or on each of its
    forks, one per replicate) makes it runnable; building it is the expensive part."""
    # a copy of the state without its pods and nodes, whose Workloads share their metadata and pod
    # sets with the caller's (a run writes neither): deep-copying 100,000 pod templates was most of it
    memo: dict[int, Any] = {id(state.pods): {}, id(state.nodes): {}}
    for w in state.workloads.values():
        workload_copy(w, memo)
    st = copy.deepcopy(state, memo)
    scn = Scenario(name="snapshot", state=st, version=version, gates=dict(gates or {}), fair_sharing=fair_sharing,
                   # as parse_scenario reads it: the snapshot's Configuration decides admission fair sharing
                   admission_fair_sharing=st.configuration.admission_fair_sharing if st.configuration else None)
    sim = Simulator(scn)
    sim.origin = now
    for key in sorted(st.workloads, key=str):
        w = st.workloads[key]
        if w.is_true("Finished") or not w.active:
            continue
        created = w.meta.creation_timestamp or now
        at = (created - now).total_seconds()
        wi = sim.model.infos.get(key)
        if wi is None:
            continue
        if w.is_true("QuotaReserved") and w.status.admission is not None:
            cq = w.status.admission.cluster_queue
            if key not in sim.model.snapshot.workload_cq:
                continue    # a ConcurrentAdmission parent: its variants hold the quota
            start = condition_time(w, "Admitted") or condition_time(w, "QuotaReserved") or created
            elapsed = max(0.0, (now - start).total_seconds())
            spec = _spec(w, key, at, 0.0, sim)
            sw = SimWorkload(spec, key, w, state=RUNNING_W, waiting_since=at, cluster_queue=cq,
                             admitted_at=-elapsed, first_admitted_at=-elapsed, running_since=-elapsed,
                             admissions=1, admitted_true_at=-elapsed, pods_ready_at=-elapsed, was_ready=True)
            sw.pods = [SimPod(key, i, {}, grace=spec.grace) for i in range(spec.pods)]
            for p in sw.pods:
                p.phase = RUNNING
            sim.workloads[key] = sw
            sim.recorder._usage_change(sw, +1)
        else:
            cq_name = sim.model.queues.cluster_queue_for(wi) or ""
            spec = _spec(w, key, at, 3600.0, sim)
            sw = SimWorkload(spec, key, w, state=QUEUED, waiting_since=at, cluster_queue=cq_name)
            sim.workloads[key] = sw
            if cq_name:
                sim.recorder.queued_change(cq_name, +1)
        scn.workloads.append(spec)
    sim.request_cycle()
    return sim


def draw_runtimes(sim: Simulator, runtimes: RuntimeModel, seed: int) -> None:
    """Draw, with ``seed``, how long each workload of a ``restarted`` simulator still runs: an
    admitted one finishes after its remaining runtime, a queued one runs that long once admitted
    (an hour when unknown). Only on a simulator that has not been advanced."""
    assert not sim.started, "runtimes are drawn before the run"
    rng = np.random.default_rng(seed)
    runtimes = runtimes.resampled(rng)
    # the workloads in the order restarted() added them, so one seed draws the same runtimes
    for key, sw in sim.workloads.items():
        if sw.state == RUNNING_W:
            elapsed = -(sw.running_since or 0.0)
            if runtimes.known(key, sw.cluster_queue):
                sw.spec.runtime = runtimes.remaining(rng, key, sw.cluster_queue, elapsed)
                sim.events.at(sw.spec.runtime, "finish", (sw, sw.epoch))
        elif runtimes.known(key, sw.cluster_queue):
            sw.spec.runtime = runtimes.remaining(rng, key, sw.cluster_queue, 0.0)
