"""The per-cycle snapshot: the quota tree plus each ClusterQueue's policies and workloads.

Upstream: pkg/cache/scheduler/snapshot.go, clusterqueue_snapshot.go, cohort_snapshot.go.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..api import objects as o
from ..api.quantity import Quantity
from ..api.state import ClusterState
from ..keys import WorkloadKey
from .config import EngineConfig
from .quota import FR, Quota, QuotaNode, link, recompute_subtree, recompute_usage
from .tas.cycle import TASInputs, TASUsage, admitted_usage
from .workload import CandKey, WorkloadInfo, info_of


@dataclass(slots=True)
class FlavorGroup:
    covered: list[str]
    flavors: list[str]


def quotas_of(groups: list[o.ResourceGroup]) -> dict[FR, Quota]:
    quotas: dict[FR, Quota] = {}
    for g in groups:
        for fq in g.flavors:
            for rq in fq.resources:
                fr = (fq.name, rq.name)
                if fr in quotas:
                    continue  # the first group that lists a pair wins, as in Kueue's cache
                quotas[fr] = Quota(
                    nominal=rq.nominal_quota.amount(rq.name),
                    borrowing_limit=rq.borrowing_limit.amount(rq.name) if rq.borrowing_limit is not None else None,
                    lending_limit=rq.lending_limit.amount(rq.name) if rq.lending_limit is not None else None)
    return quotas


def weight_of(q: Quantity | None) -> float:
    return float(q.value) if q is not None else 1.0


class ClusterQueueSnapshot:
    __slots__ = (
        "_sorted",
        "active",
        "allocatable_generation",
        "fungibility",
        "groups",
        "inactive_reason",
        "name",
        "namespace_selector",
        "node",
        "obj",
        "preemption",
        "strategy",
        "workloads",
    )

    def __init__(self, obj: o.ClusterQueue, node: QuotaNode):
        self.name = obj.meta.name
        self.obj = obj
        self.node = node
        self.groups = [FlavorGroup(list(g.covered_resources), [f.name for f in g.flavors])
                       for g in obj.resource_groups]
        self.workloads: dict[WorkloadKey, WorkloadInfo] = {}
        self.active = True
        self.inactive_reason = ""
        self.fungibility = obj.flavor_fungibility
        self.preemption = obj.preemption
        self.strategy = obj.queueing_strategy
        self.namespace_selector = obj.namespace_selector
        self.allocatable_generation = 0
        self._sorted: list[WorkloadInfo] | None = None

    def sorted_workloads(self) -> list[WorkloadInfo]:
        """Admitted workloads in preemption-candidate order (cached until a lasting change)."""
        if self._sorted is None:
            self._sorted = sorted(self.workloads.values(), key=_cand_key)
        return self._sorted

    def changed(self) -> None:
        self._sorted = None
        self.allocatable_generation += 1

    def group_for(self, resource: str) -> FlavorGroup | None:
        for g in self.groups:
            if resource in g.covered:
                return g
        return None

    def covers(self, resource: str) -> bool:
        return self.group_for(resource) is not None

    @property
    def parent(self) -> QuotaNode | None:
        return self.node.parent

    def __repr__(self) -> str:
        return f"ClusterQueueSnapshot({self.name})"


def _accumulate(into: dict[FR, int], usage: dict[FR, int]) -> None:
    for fr, v in usage.items():
        into[fr] = into.get(fr, 0) + v


def _cand_key(wi: WorkloadInfo) -> CandKey:
    return wi.cand_key


class QuotaSnapshot:
    """Kueue's cache snapshot (upstream ``cache/scheduler.Snapshot``): the active ClusterQueues in
    their cohort trees with their quota and usage, the inactive ones apart, and the admitted
    workloads of each."""

    def __init__(self) -> None:
        self.cluster_queues: dict[str, ClusterQueueSnapshot] = {}
        self.inactive: dict[str, ClusterQueueSnapshot] = {}
        self.cohorts: dict[str, QuotaNode] = {}
        self.flavors: dict[str, o.ResourceFlavor] = {}
        self.namespaces: dict[str, dict[str, str]] = {}
        self.workload_cq: dict[WorkloadKey, str] = {}
        # topology-aware scheduling: what the per-cycle TAS snapshots are built from, and the
        # TAS usage (topology assignments) of admitted workloads
        self.tas_inputs = TASInputs()
        self.tas_usage: dict[WorkloadKey, TASUsage] = {}
        self.topology_assignments: dict[WorkloadKey, dict[str, o.TopologyAssignment]] = {}

    # -- workloads -----------------------------------------------------------------
    def add_workload(self, wi: WorkloadInfo, cq_name: str | None = None, lasting: bool = False) -> None:
        """Add a workload's usage. Temporary changes (the default) must be undone by the caller
        before the cycle ends; ``lasting`` ones (admission) refresh the cached orderings."""
        cq = self.cluster_queues[cq_name or wi.cluster_queue]
        cq.workloads[wi.key] = wi
        cq.node.add_usages(wi.usage)
        self.workload_cq[wi.key] = cq.name
        if lasting:
            cq.changed()

    def remove_workload(self, wi: WorkloadInfo, lasting: bool = False) -> None:
        cq = self.cluster_queues[self.workload_cq.pop(wi.key)]
        del cq.workloads[wi.key]
        cq.node.remove_usages(wi.usage)
        if lasting:
            cq.changed()

    def remove_workloads(self, wis: Iterable[WorkloadInfo]) -> None:
        """remove_workload of many (temporarily): usage taken off once per ClusterQueue, which
        leaves the tree as one by one would (a cohort's usage depends only on its children's
        totals)."""
        per_cq: dict[str, dict[FR, int]] = {}
        for wi in wis:
            name = self.workload_cq.pop(wi.key)
            del self.cluster_queues[name].workloads[wi.key]
            _accumulate(per_cq.setdefault(name, {}), wi.usage)
        for name, usage in per_cq.items():
            self.cluster_queues[name].node.remove_usages(usage)

    def add_workloads(self, placed: Iterable[tuple[WorkloadInfo, str]]) -> None:
        """add_workload of many (workload, ClusterQueue), the undo of remove_workloads."""
        per_cq: dict[str, dict[FR, int]] = {}
        for wi, name in placed:
            self.cluster_queues[name].workloads[wi.key] = wi
            self.workload_cq[wi.key] = name
            _accumulate(per_cq.setdefault(name, {}), wi.usage)
        for name, usage in per_cq.items():
            self.cluster_queues[name].node.add_usages(usage)

    def cq_of(self, wi: WorkloadInfo) -> ClusterQueueSnapshot:
        return self.cluster_queues[self.workload_cq[wi.key]]

    def all_workloads(self) -> Iterator[WorkloadInfo]:
        for cq in self.cluster_queues.values():
            yield from cq.workloads.values()

    def nodes(self) -> Iterator[QuotaNode]:
        for cq in self.cluster_queues.values():
            yield cq.node
        yield from self.cohorts.values()


def build_snapshot(state: ClusterState, config: EngineConfig,
                   workloads: list[WorkloadInfo] | None = None) -> QuotaSnapshot:
    """A snapshot of the cluster: active CQs in their cohort trees, with admitted usage.

    ``workloads`` defaults to every workload of ``state`` that holds a quota reservation.
    """
    snap = QuotaSnapshot()
    snap.flavors = dict(state.resource_flavors)
    snap.namespaces = {n: ns.meta.labels for n, ns in state.namespaces.items()}
    snap.tas_inputs = TASInputs(dict(state.topologies), list(state.nodes.values()), list(state.pods.values()),
                                config.tas_pod_marks)

    cohort_objs = state.cohorts
    names = set(cohort_objs)
    for cq_obj in state.cluster_queues.values():
        if cq_obj.cohort:
            names.add(cq_obj.cohort)
    for cohort_obj in cohort_objs.values():
        if cohort_obj.parent:
            names.add(cohort_obj.parent)

    def parent_of(name: str) -> str:
        co = cohort_objs.get(name)
        return co.parent if co else ""

    in_cycle: set[str] = set()
    for name in names:
        seen = []
        n = name
        while n and n not in seen:
            seen.append(n)
            n = parent_of(n)
        if n:  # came back to a cohort already on the path
            in_cycle.update(seen[seen.index(n):])
    # a cohort under a cycle is cut off from its root too
    def reaches_cycle(name: str) -> bool:
        seen = set()
        while name and name not in seen:
            if name in in_cycle:
                return True
            seen.add(name)
            name = parent_of(name)
        return False

    for name in sorted(names):
        if reaches_cycle(name):
            continue
        co = cohort_objs.get(name)
        quotas = quotas_of(co.resource_groups) if co else {}
        snap.cohorts[name] = QuotaNode(name, False, quotas, weight_of(co.fair_sharing_weight) if co else 1.0)
    for name in sorted(snap.cohorts):
        p = parent_of(name)
        if p and p in snap.cohorts:
            link(snap.cohorts[name], snap.cohorts[p])

    for name in sorted(state.cluster_queues):
        cq_obj = state.cluster_queues[name]
        node = QuotaNode(name, True, quotas_of(cq_obj.resource_groups), weight_of(cq_obj.fair_sharing_weight))
        cqs = ClusterQueueSnapshot(cq_obj, node)
        reason = inactive_reason(cq_obj, state, reaches_cycle(cq_obj.cohort) if cq_obj.cohort else False)
        if reason:
            cqs.active, cqs.inactive_reason = False, reason
            snap.inactive[name] = cqs
            continue
        if cq_obj.cohort:
            link(node, snap.cohorts[cq_obj.cohort])
        snap.cluster_queues[name] = cqs

    for root in [c for c in snap.cohorts.values() if c.parent is None]:
        recompute_subtree(root)
    for cq in snap.cluster_queues.values():
        if cq.node.parent is None:
            recompute_subtree(cq.node)

    if workloads is None:
        workloads = [info_of(w, config, key)
                     for key, w in state.workloads.items() if w.is_true("QuotaReserved") and w.status.admission]
    for cq in snap.inactive.values():
        recompute_subtree(cq.node)  # standalone: their quota still describes what they promise
    for wi in workloads:
        if wi.obj.is_true("Finished") or not wi.obj.active:
            continue
        if state.topologies:
            tas_use = admitted_usage(wi.obj, state.resource_flavors, state.topologies)
            if tas_use:
                snap.tas_usage[wi.key] = tas_use
        if wi.cluster_queue in snap.inactive:
            cq = snap.inactive[wi.cluster_queue]
            cq.workloads[wi.key] = wi
            for fr, v in wi.usage.items():
                cq.node.usage[fr] = cq.node.usage.get(fr, 0) + v
            continue
        if wi.cluster_queue in snap.cluster_queues:
            cq = snap.cluster_queues[wi.cluster_queue]
            cq.workloads[wi.key] = wi
            snap.workload_cq[wi.key] = cq.name
            for fr, v in wi.usage.items():
                cq.node.usage[fr] = cq.node.usage.get(fr, 0) + v
    for root in [c for c in snap.cohorts.values() if c.parent is None]:
        recompute_usage(root)
    return snap


def inactive_reason(cq: o.ClusterQueue, state: ClusterState, cohort_cycle: bool) -> str:
    if cq.stop_policy and cq.stop_policy != "None":
        return "Stopped"
    missing = [f.name for g in cq.resource_groups for f in g.flavors if f.name not in state.resource_flavors]
    if missing:
        return f"FlavorNotFound: {', '.join(sorted(set(missing)))}"
    if cohort_cycle:
        return "CohortCycle"
    return ""
