"""Run the engine's scheduling cycle on a cluster state at one instant, to a fixed point.

The cycle is the one the simulator runs (``AdmissionModel.cycle``); between cycles the
workloads a cycle preempted stop at once and queue again (``AdmissionModel.release`` with
requeue, as the simulator's release after eviction does, without the pods' grace period), so
an admission that needs preemption, or that frees a head for the next one, is followed to its
end. Time does not move: nothing finishes by itself, and a workload still in its requeue
backoff stays parked unless the caller asks for a later ``now``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ..api.state import ClusterState
from ..engine.config import EngineConfig
from ..engine.model import AdmissionModel
from ..keys import WorkloadKey

# A fixed point is reached in a handful of cycles (each admits at least one head or preempts);
# the bound only stops a cycle of preemptions that never settles.
MAX_CYCLES = 500


@dataclass
class Outcome:
    """What the cycles did for one workload."""
    admitted: bool
    cluster_queue: str = ""
    # pod set -> resource -> flavor, as admitted
    flavors: dict[str, dict[str, str]] = field(default_factory=dict)
    # every workload preempted on the way (the target's own victims and those of other heads)
    preempted: list[WorkloadKey] = field(default_factory=list)
    # the target's own victims, in the cycle that admitted it or the ones before
    victims: list[WorkloadKey] = field(default_factory=list)
    # every workload a cycle admitted on the way, in order (``diff`` reads them)
    admissions: list[WorkloadKey] = field(default_factory=list)
    cycles: int = 0


def replay(state: ClusterState, config: EngineConfig, key: WorkloadKey | None, now: datetime,
           max_cycles: int = MAX_CYCLES, model: AdmissionModel | None = None) -> Outcome:
    """Cycles at ``now`` until ``key`` is admitted or a cycle neither admits nor preempts
    (``key`` None: to that fixed point). ``model``: the caller's model of ``state``, to read
    the queues and usage the cycles leave."""
    model = model if model is not None else AdmissionModel(state, config)
    out = Outcome(False)
    for _ in range(max_cycles):
        res = model.cycle(now)
        out.cycles += 1
        for e in res.entries:
            if e.key == key and e.targets:
                out.victims += [t.key for t in e.targets if t.key not in out.victims]
        for e in res.admitted:
            out.admissions.append(e.key)
            if e.key == key:
                out.admitted, out.cluster_queue = True, e.cq_name
                out.flavors = {ps.name: {r: f.name for r, f in ps.flavors.items()} for ps in e.assigned.pod_sets}
                return out
        evicted = [t.key for t in res.preempted] + [m.key for m in res.migrated]
        for k in evicted:
            out.preempted.append(k)
            model.release(k, now, requeue=True)
        if not res.admitted and not evicted:
            return out
    return out


def tree_of(state: ClusterState, cq_name: str) -> set[str]:
    """The ClusterQueues of ``cq_name``'s cohort tree (itself alone without a cohort)."""
    def root(cohort: str) -> str:
        seen: set[str] = set()
        while cohort and cohort not in seen:
            seen.add(cohort)
            parent = state.cohorts[cohort].parent if cohort in state.cohorts else ""
            if not parent:
                return cohort
            cohort = parent
        return cohort
    cq = state.cluster_queues.get(cq_name)
    if cq is None or not cq.cohort:
        return {cq_name}
    mine = root(cq.cohort)
    return {n for n, c in state.cluster_queues.items() if c.cohort and root(c.cohort) == mine}


def scoped(state: ClusterState, cq_name: str) -> ClusterState:
    """The part of ``state`` that can change what ``cq_name``'s cohort tree admits: quota trees
    share nothing, so the other trees' queues and workloads are left out (a cycle over 100,000
    workloads costs seconds, over one tree milliseconds). With Topology-Aware Scheduling the
    trees share nodes, so nothing is left out."""
    if state.topologies:
        return state
    tree = tree_of(state, cq_name)
    out = ClusterState(resource_flavors=state.resource_flavors, cohorts=state.cohorts,
                       priority_classes=state.priority_classes, namespaces=state.namespaces,
                       limit_ranges=state.limit_ranges, configuration=state.configuration,
                       deployments=state.deployments, admission_checks=state.admission_checks,
                       provisioning_request_configs=state.provisioning_request_configs,
                       provisioning_requests=state.provisioning_requests)
    out.cluster_queues = {n: c for n, c in state.cluster_queues.items() if n in tree}
    out.local_queues = {k: lq for k, lq in state.local_queues.items() if lq.cluster_queue in tree}
    for k, w in state.workloads.items():
        adm = w.status.admission
        if adm is not None and w.is_true("QuotaReserved"):
            if adm.cluster_queue in tree:
                out.workloads[k] = w
        elif (k.namespace, w.queue_name) in out.local_queues:
            out.workloads[k] = w
    return out
