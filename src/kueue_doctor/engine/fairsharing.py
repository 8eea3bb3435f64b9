"""Fair-sharing preemption: take from the queues whose share (DRS) is highest.

Upstream: pkg/scheduler/preemption/preemption.go (fairPreemptions, runFirstFsStrategy,
runSecondFsStrategy), fairsharing/ordering.go, target.go, least_common_ancestor.go,
strategy.go. Reference: kueue-semantics.md §5.7-5.8.
"""
from __future__ import annotations

import math
from collections.abc import Iterator

from ..kueue.constants import IN_CLUSTER_QUEUE, IN_COHORT_FAIR_SHARING, IN_COHORT_RECLAMATION
from ..kueue.releases import DrsMode
from .config import LESS_THAN_INITIAL_SHARE, LESS_THAN_OR_EQUAL_TO_FINAL_SHARE
from .drs import DRS, compare_drs, dominant_resource_share
from .preemption import Preemptor, Target, satisfies_policy, uses_resources
from .quota import FR, QuotaNode
from .snapshot import ClusterQueueSnapshot
from .workload import WorkloadInfo


def strategy_passes(name: str, p_new: DRS, t_old: DRS, t_new: DRS | None) -> bool:
    if name == LESS_THAN_OR_EQUAL_TO_FINAL_SHARE:
        if t_new is None:
            # as upstream: API validation only lets LessThanInitialShare be the second strategy,
            # the one pass that has no target share after preemption
            raise ValueError(f"{name} needs the target's share after preemption")
        return compare_drs(p_new, t_new) <= 0
    if name == LESS_THAN_INITIAL_SHARE:
        return compare_drs(p_new, t_old) < 0
    raise ValueError(f"unknown fair-sharing preemption strategy {name!r}")


class TargetOrdering:
    """Yields the ClusterQueue to take from next, re-reading shares each time (ordering.go)."""

    def __init__(self, pre: Preemptor, cq: ClusterQueueSnapshot, candidates: dict[str, list[WorkloadInfo]]):
        self.pre = pre
        self.cq = cq
        self.candidates = candidates
        self.pruned: set[int] = set()
        self.ancestors = {id(n) for n in cq.node.ancestors()}

    def drs(self, node: QuotaNode) -> DRS:
        return dominant_resource_share(node, None, self.pre.config.drs_mode)

    def borrowing(self, d: DRS) -> bool:
        return d.borrowing if self.pre.config.drs_mode == DrsMode.EXACT else not d.is_zero()

    def drop(self, name: str) -> None:
        self.pruned.add(id(self.pre.snapshot.cluster_queues[name].node))

    def __iter__(self) -> Iterator[str]:
        root = self.cq.node.root()
        if root is self.cq.node:
            while self.candidates.get(self.cq.name):
                yield self.cq.name
            return
        while id(root) not in self.pruned:
            t = self._next(root)
            if t is not None:
                yield t

    def _next(self, cohort: QuotaNode) -> str | None:
        best_cq: tuple[QuotaNode, DRS] | None = None  # (node, its share)
        best_co: tuple[QuotaNode, DRS] | None = None
        for child in cohort.children:
            if id(child) in self.pruned:
                continue
            d = self.drs(child)
            if child.is_cq:
                if (not self.borrowing(d) and child is not self.cq.node) or not self.candidates.get(child.name):
                    self.pruned.add(id(child))
                    continue
                if best_cq is None:
                    best_cq = (child, d)
                    continue
                c = compare_drs(d, best_cq[1])
                if c > 0 or (c == 0 and self._first_sorts_before(child.name, best_cq[0].name)):
                    best_cq = (child, d)
            else:
                if not self.borrowing(d) and id(child) not in self.ancestors:
                    self.pruned.add(id(child))
                    continue
                if best_co is None or compare_drs(d, best_co[1]) >= 0:
                    best_co = (child, d)
        if best_co is not None and (best_cq is None or compare_drs(best_co[1], best_cq[1]) >= 0):
            return self._next(best_co[0])
        if best_cq is None:  # and no cohort either
            self.pruned.add(id(cohort))
            return None
        return best_cq[0].name

    def _first_sorts_before(self, a: str, b: str) -> bool:
        ka = self.pre.sort_key(self.candidates[a][0], a, self.cq.name)
        kb = self.pre.sort_key(self.candidates[b][0], b, self.cq.name)
        return ka < kb


def almost_lca(cq_node: QuotaNode, target_node: QuotaNode) -> tuple[QuotaNode, QuotaNode]:
    """The children of the lowest common ancestor on the preemptor's and on the target's path."""
    pre_path = [cq_node, *cq_node.ancestors()]
    pre_index = {id(n): i for i, n in enumerate(pre_path)}
    prev = target_node
    for n in target_node.ancestors():
        if id(n) in pre_index:
            return pre_path[pre_index[id(n)] - 1], prev
        prev = n
    return cq_node, target_node


def find_candidates(pre: Preemptor, wi: WorkloadInfo, cq: ClusterQueueSnapshot,
                    frs_need: set[FR]) -> dict[str, list[WorkloadInfo]]:
    """Candidates per ClusterQueue, each list in CandidatesOrdering."""
    p = cq.preemption
    grouped: dict[str, list[WorkloadInfo]] = {}

    def collect(source: ClusterQueueSnapshot, policy: str) -> None:
        found = [c for c in pre.ordered(source) if c.key in source.workloads
                 and uses_resources(c, frs_need) and satisfies_policy(wi, c, policy)]
        if found:
            grouped[source.name] = found

    if p.within_cluster_queue not in ("", "Never"):
        collect(cq, p.within_cluster_queue)
    if cq.node.parent is not None and p.reclaim_within_cohort not in ("", "Never"):
        root = cq.node.root()
        for other in pre.snapshot.cluster_queues.values():
            if other is cq or other.node.root() is not root:
                continue
            if any(other.node.borrowing(fr) for fr in frs_need):
                collect(other, p.reclaim_within_cohort)
    return grouped


def fair_preemptions(pre: Preemptor, wi: WorkloadInfo, cq: ClusterQueueSnapshot, usage: dict[FR, int],
                     frs_need: set[FR]) -> list[Target]:
    snap, cfg = pre.snapshot, pre.config
    candidates = find_candidates(pre, wi, cq, frs_need)
    if not candidates:
        return []
    strategies = cfg.preemption_strategies or [LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE]
    cq.node.add_usages(usage)
    within_nominal = cfg.gate("FairSharingPreemptWithinNominal") and \
        all(not cq.node.borrowing(fr) for fr in frs_need)
    targets: list[Target] = []

    def fits() -> bool:
        cq.node.remove_usages(usage)
        ok = pre.workload_fits(cq, usage, True)
        cq.node.add_usages(usage)
        return ok

    def take(w: WorkloadInfo, reason: str, name: str) -> None:
        snap.remove_workload(w)
        targets.append(Target(w, reason, name))

    success = False
    retry: dict[str, list[WorkloadInfo]] = {}
    ordering = TargetOrdering(pre, cq, candidates)
    for name in ordering:
        queue = candidates[name]
        if name == cq.name:
            take(queue.pop(0), IN_CLUSTER_QUEUE, name)
            if fits():
                success = True
                break
            continue
        if within_nominal:
            take(queue.pop(0), IN_COHORT_RECLAMATION, name)
            if fits():
                success = True
                break
            continue
        t_node = snap.cluster_queues[name].node
        p_node, t_top = almost_lca(cq.node, t_node)
        p_new, t_old = ordering.drs(p_node), ordering.drs(t_top)
        if math.isinf(p_new.precise()) and not math.isinf(t_old.precise()):
            retry.setdefault(name, []).extend(queue)
            queue.clear()
            continue
        while queue:
            w = queue.pop(0)
            t_node.remove_usages(w.usage)
            t_new = ordering.drs(t_top)
            t_node.add_usages(w.usage)
            if strategy_passes(strategies[0], p_new, t_old, t_new):
                take(w, IN_COHORT_FAIR_SHARING, name)
                if fits():
                    success = True
                break
            retry.setdefault(name, []).append(w)
        if success:
            break
    if not success and len(strategies) > 1:
        second = TargetOrdering(pre, cq, retry)
        for name in second:
            t_node = snap.cluster_queues[name].node
            p_node, t_top = almost_lca(cq.node, t_node)
            p_new, t_old = second.drs(p_node), second.drs(t_top)
            w = retry[name].pop(0)
            if strategy_passes(strategies[1], p_new, t_old, None):
                take(w, IN_COHORT_FAIR_SHARING, name)
                if fits():
                    success = True
                    break
            second.drop(name)
    cq.node.remove_usages(usage)
    if not success:
        for t in targets:
            snap.add_workload(t.wi, t.cluster_queue)
        return []
    targets = pre.fill_back(cq, usage, targets, True)
    for t in targets:
        snap.add_workload(t.wi, t.cluster_queue)
    return targets
