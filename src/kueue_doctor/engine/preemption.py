"""Preemption: which admitted workloads must go so that an incoming one fits.

Upstream: pkg/scheduler/preemption/preemption.go (GetTargets, IssuePreemptions),
common/preemption_policy.go, common/ordering.go (CandidatesOrdering),
classical/hierarchical_preemption.go, classical/candidate_generator.go,
preemption_oracle.go. Reference: kueue-semantics.md §5. Fair sharing: fairsharing.py.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Container, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from ..keys import WorkloadKey
from ..kueue.constants import IN_CLUSTER_QUEUE, IN_COHORT_RECLAIM_WHILE_BORROWING, IN_COHORT_RECLAMATION
from .assignment import CAN_PREEMPT, CAN_RECLAIM, NO_CANDIDATES
from .config import EngineConfig
from .preemption_index import CandidateIndex
from .queues import QueueManager
from .quota import FR, QuotaNode
from .snapshot import ClusterQueueSnapshot, QuotaSnapshot
from .workload import CandKey, WorkloadInfo, closed_preemption_gates

# classical candidate variants
WITHIN_CQ, HIERARCHICAL_RECLAIM, RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING = range(4)
VARIANT_REASON = {WITHIN_CQ: IN_CLUSTER_QUEUE, HIERARCHICAL_RECLAIM: IN_COHORT_RECLAMATION,
                  RECLAIM_WITHOUT_BORROWING: IN_COHORT_RECLAMATION,
                  RECLAIM_WHILE_BORROWING: IN_COHORT_RECLAIM_WHILE_BORROWING}


# (candidate, variant, lowest common ancestor or None within the queue, the candidate's queue)
Candidate = tuple[WorkloadInfo, int, QuotaNode | None, ClusterQueueSnapshot]
# CandidatesOrdering: (not evicted, not in the preemptor's queue, -LocalQueue usage, priority,
# -reserved at, uid)
SortKey = tuple[bool, bool, float, int, float, str]
# admission fair sharing: a candidate's LocalQueue usage in its ClusterQueue (None: AFS does not order it)
AfsUsage = Callable[[str, WorkloadInfo], float | None]
# get_targets' question: (workload, ClusterQueue, usage, resources needing preemption)
_MemoKey = tuple[WorkloadKey, str, tuple[tuple[FR, int], ...], tuple[FR, ...]]


@dataclass(slots=True)
class Target:
    wi: WorkloadInfo
    reason: str
    cluster_queue: str

    @property
    def key(self) -> WorkloadKey:
        return self.wi.key


def blocking_preemption_gates(wi: WorkloadInfo, config: EngineConfig) -> list[str]:
    """The closed preemption gates that stop ``wi`` from issuing preemptions ([] when it may).

    The scheduler honours spec.preemptionGates with MultiKueueOrchestratedPreemption on (v0.17+),
    or with ConcurrentAdmission on in releases that gate variants (v0.19+); otherwise gates are
    ignored. A gated workload still gets its targets computed: it just does not evict them
    (scheduler.go processEntry, HasClosedPreemptionGate)."""
    if not (config.gate("MultiKueueOrchestratedPreemption") or
            (config.gate("ConcurrentAdmission") and config.concurrent_admission_preemption_gates)):
        return []
    return closed_preemption_gates(wi.obj)


def satisfies_policy(preemptor: WorkloadInfo, candidate: WorkloadInfo, policy: str) -> bool:
    if policy == "LowerPriority":
        return preemptor.priority > candidate.priority
    if policy == "LowerOrNewerEqualPriority":
        if preemptor.priority > candidate.priority:
            return True
        return preemptor.priority == candidate.priority and \
            preemptor.queue_order_timestamp() < candidate.queue_order_timestamp()
    return policy == "Any"


def uses_resources(wi: WorkloadInfo, frs: set[FR]) -> bool:
    return any(fr in frs for fr in wi.usage)


def afs_term(usage: float | None) -> float:
    """The AFS part of the candidate order: higher LocalQueue usage first. Go's cmp.Compare puts a
    NaN below every number, so a NaN usage (weight 0, before #13481) goes last."""
    if usage is None:
        return 0.0
    return math.inf if math.isnan(usage) else -usage


def candidate_sort_key(wi: WorkloadInfo, cq_name: str, preemptor_cq: str, usage: float | None = None) -> SortKey:
    """CandidatesOrdering: the first to preempt sorts first. ``usage``: the candidate's LocalQueue
    usage, given only for candidates in the preemptor's ClusterQueue (ordering.go
    resourceUsagePreemptionEnabled compares usage only within one ClusterQueue; here that
    group sorts together, so the tuple order matches the pairwise rule)."""
    k = wi.cand_key
    return (k[0], cq_name == preemptor_cq, afs_term(usage), *k[1:])


def afs_usage_of(queues: QueueManager) -> AfsUsage | None:
    """LocalQueue usage as the AFS-ordered ClusterQueues hold it (upstream Info.LocalQueueFSUsage,
    set only for UsageBasedAdmissionFairSharing queues with AFS enabled); None when no release
    rule orders preemption by it."""
    led = queues.afs_ledger
    if led is None or not led.behaviour.preemption_order:
        return None

    def usage(cq_name: str, wi: WorkloadInfo) -> float | None:
        q = queues.queues.get(cq_name)
        return q.usage(wi) if q is not None else None
    return usage


class Preemptor:
    def __init__(self, snapshot: QuotaSnapshot, config: EngineConfig, now: datetime):
        self.snapshot = snapshot
        self.config = config
        self.now = now
        # The flavor assigner's oracle and the nomination that follows often ask the very same
        # question of an unchanged snapshot (one flavor, one resource); answer it once.
        self._memo: tuple[_MemoKey, list[Target]] | None = None
        # TAS (workloadFits' FindTopologyAssignmentsForWorkload): does the preemptor's topology
        # request fit with the workloads removed so far? Set by the scheduler around get_targets.
        self.tas_fits: Callable[[], bool] | None = None
        # admission fair sharing orders candidates within a ClusterQueue by LocalQueue usage
        self.afs_usage: AfsUsage | None = None
        # the cycle's index of reclaim candidates (Scheduler.schedule sets it); without it, or
        # where AFS orders candidates, each search walks the cohort as upstream does
        self.index: CandidateIndex | None = None
        # admitted workloads a search must treat as gone although the snapshot still lists them
        # (the cycle's targets during an overlap recompute, whose usage the cycle took off)
        self.excluded: Container[WorkloadKey] = frozenset()

    # -- entry points ----------------------------------------------------------------
    def get_targets(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, usage: dict[FR, int],
                    frs_need: set[FR], memo: bool = False) -> list[Target]:
        key: _MemoKey = (wi.key, cq.name, tuple(sorted(usage.items())), tuple(sorted(frs_need)))
        if memo and self._memo is not None and self._memo[0] == key:
            return list(self._memo[1])
        if self.config.fair_sharing:
            from .fairsharing import fair_preemptions
            targets = fair_preemptions(self, wi, cq, usage, frs_need)
        else:
            targets = self.classical(wi, cq, usage, frs_need)
        self._memo = (key, list(targets)) if memo else None
        return targets

    def forget(self) -> None:
        """Drop the remembered answer once the snapshot changes."""
        self._memo = None

    def simulate(self, cq: ClusterQueueSnapshot, wi: WorkloadInfo, fr: FR, val: int) -> tuple[int, int]:
        """The preemption oracle of flavor assignment: can preemption make ``val`` of ``fr`` fit?"""
        targets = self.get_targets(wi, cq, {fr: val}, {fr}, memo=True)
        if not targets:
            return NO_CANDIDATES, cq.node.find_height(fr, val)[0]
        for t in targets:
            self.snapshot.remove_workload(t.wi)
        borrow = cq.node.find_height(fr, val)[0]
        for t in targets:
            self.snapshot.add_workload(t.wi, t.cluster_queue)
        any_own = any(t.cluster_queue == cq.name for t in targets)
        return (CAN_PREEMPT if any_own else CAN_RECLAIM), borrow

    # -- shared helpers ------------------------------------------------------------------
    def sort_key(self, wi: WorkloadInfo, cq_name: str, preemptor_cq: str) -> SortKey:
        usage = self.afs_usage(cq_name, wi) if self.afs_usage is not None and cq_name == preemptor_cq else None
        return candidate_sort_key(wi, cq_name, preemptor_cq, usage)

    def ordered(self, cq: ClusterQueueSnapshot) -> list[WorkloadInfo]:
        """A ClusterQueue's admitted workloads in CandidatesOrdering: evicted first, then, where
        AFS orders the queue, higher LocalQueue usage first, then priority and admission time."""
        wls = cq.sorted_workloads()
        if self.afs_usage is None:
            return wls
        usage = {w.key: self.afs_usage(cq.name, w) for w in wls}
        if all(u is None for u in usage.values()):
            return wls
        return sorted(wls, key=lambda w: (w.cand_key[0], afs_term(usage[w.key]), *w.cand_key[1:]))

    def workload_fits(self, cq: ClusterQueueSnapshot, usage: dict[FR, int], allow_borrowing: bool) -> bool:
        node = cq.node
        for fr, v in usage.items():
            if not allow_borrowing and node.borrowing_with(fr, v):
                return False
            if v > node.available(fr):
                return False
        return self.tas_fits is None or self.tas_fits()

    def fill_back(self, cq: ClusterQueueSnapshot, usage: dict[FR, int], targets: list[Target],
                  allow_borrowing: bool) -> list[Target]:
        """Put back every target the workload still fits without (the last one stays out)."""
        i = len(targets) - 2
        while i >= 0:
            t = targets[i]
            self.snapshot.add_workload(t.wi, t.cluster_queue)
            if self.workload_fits(cq, usage, allow_borrowing):
                targets[i] = targets[-1]
                targets.pop()
            else:
                self.snapshot.remove_workload(t.wi)
            i -= 1
        return targets

    # -- classical ----------------------------------------------------------------------
    def classical(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, usage: dict[FR, int],
                  frs_need: set[FR]) -> list[Target]:
        snap = self.snapshot
        p = cq.preemption
        bwc_off = p.borrow_within_cohort is None or p.borrow_within_cohort.policy in ("", "Never")
        under_nominal = all(cq.node.usage.get(fr, 0) < cq.node.nominal(fr) for fr in frs_need)
        streams = self._classical_streams(wi, cq, usage, frs_need)
        has_hierarchy = streams[0].peek() is not None
        no_other = not has_hierarchy and streams[1].peek() is None
        if no_other or (bwc_off and not under_nominal):
            attempts = [True]
        elif bwc_off and not has_hierarchy:
            attempts = [False, True]
        else:
            attempts = [True, False]
        for n, allow_borrowing in enumerate(attempts):
            # allowing borrowing without borrowWithinCohort, every priority candidate is
            # RECLAIM_WITHOUT_BORROWING, which _valid rejects: that stream cannot yield a target
            priority = not (allow_borrowing and bwc_off)
            if n:
                streams = self._classical_streams(wi, cq, usage, frs_need, priority)
            elif not priority:
                streams = (streams[0], _Stream(iter(())), streams[2])
            removed: list[Target] = []
            for cand, variant, lca, cand_cq in _candidate_sequence(streams):
                if not self._valid(cand, variant, lca, cand_cq, allow_borrowing, frs_need):
                    continue
                snap.remove_workload(cand)
                removed.append(Target(cand, VARIANT_REASON[variant], cand_cq.name))
                if self.workload_fits(cq, usage, allow_borrowing):
                    targets = self.fill_back(cq, usage, removed, allow_borrowing)
                    for t in targets:
                        snap.add_workload(t.wi, t.cluster_queue)
                    return targets
            for t in removed:
                snap.add_workload(t.wi, t.cluster_queue)
        return []

    def _classical_streams(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, usage: dict[FR, int],
                           frs_need: set[FR], priority: bool = True) -> tuple[_Stream, _Stream, _Stream]:
        """Hierarchy, priority (unless not ``priority``) and same-queue candidates, each lazily
        in CandidatesOrdering."""
        p = cq.preemption
        same: list[Candidate] = []
        if p.within_cluster_queue not in ("", "Never"):
            same = [(c, WITHIN_CQ, None, cq) for c in self.ordered(cq)
                    if c.key in cq.workloads and c.key not in self.excluded and uses_resources(c, frs_need)
                    and satisfies_policy(wi, c, p.within_cluster_queue)]
        hierarchy: list[Iterator[Candidate]] = []
        by_priority: list[Iterator[Candidate]] = []
        if cq.node.parent is not None and p.reclaim_within_cohort not in ("", "Never"):
            adv, remaining = cq.node.quantities_fit_in_quota(usage)
            prev: QuotaNode = cq.node
            indexed = self.index is not None and self.afs_usage is None and self.index.ready(cq.node.root())
            for s in cq.node.ancestors():
                if adv or priority:
                    bucket = hierarchy if adv else by_priority
                    if indexed:
                        bucket.append(self._indexed_candidates(wi, cq, adv, s, prev, frs_need))
                    else:
                        for cand_cq in self._borrowing_cqs_under(s, prev, cq, frs_need):
                            bucket.append(self._reclaim_candidates(wi, cq, cand_cq, adv, s, frs_need))
                fits, remaining = s.quantities_fit_in_quota(remaining)
                adv = adv or fits
                prev = s
        return (_Stream(heapq.merge(*hierarchy, key=_first_key)), _Stream(heapq.merge(*by_priority, key=_first_key)),
                _Stream(iter(same)))

    def _reclaim_candidates(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, cand_cq: ClusterQueueSnapshot,
                            adv: bool, lca: QuotaNode, frs_need: set[FR]) -> Iterator[Candidate]:
        node = cand_cq.node
        for cand in self.ordered(cand_cq):
            # Removing candidates only lowers this queue's usage: once it stops borrowing, none
            # of its remaining workloads can be a valid reclaim candidate in this search.
            if not any(node.usage.get(fr, 0) > node.nominal(fr) for fr in frs_need):
                return
            if cand.key not in cand_cq.workloads or cand.key in self.excluded:
                continue
            variant = self._classify(wi, cand, cq, adv, frs_need)
            if variant is not None:
                yield cand, variant, lca, cand_cq

    def _indexed_candidates(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, adv: bool, lca: QuotaNode,
                            skip: QuotaNode, frs_need: set[FR]) -> Iterator[Candidate]:
        """What _borrowing_cqs_under + _reclaim_candidates yield for one level, merged in the
        same order, read off the cycle's index (preemption_index.py says why it is the same)."""
        assert self.index is not None
        for cand, cand_cq in self.index.candidates(lca, skip, frs_need, self.excluded):
            variant = self._classify(wi, cand, cq, adv, frs_need)
            if variant is not None:
                yield cand, variant, lca, cand_cq

    def _borrowing_cqs_under(self, s: QuotaNode, skip: QuotaNode, cq: ClusterQueueSnapshot,
                             frs_need: set[FR]) -> list[ClusterQueueSnapshot]:
        out = []
        for child in s.children:
            if child is skip:
                continue
            if child.is_cq:
                if child is not cq.node and not child.within_nominal_in(frs_need):
                    out.append(self.snapshot.cluster_queues[child.name])
            elif not child.within_nominal_in(frs_need):
                out += self._borrowing_cqs_under(child, skip, cq, frs_need)
        return out

    def _classify(self, wi: WorkloadInfo, cand: WorkloadInfo, cq: ClusterQueueSnapshot, adv: bool,
                  frs_need: set[FR]) -> int | None:
        p = cq.preemption
        if not uses_resources(cand, frs_need) or not satisfies_policy(wi, cand, p.reclaim_within_cohort):
            return None
        if adv:
            return HIERARCHICAL_RECLAIM
        bwc = p.borrow_within_cohort
        if bwc is None or bwc.policy in ("", "Never"):
            return RECLAIM_WITHOUT_BORROWING
        if cand.priority >= wi.priority or (bwc.max_priority_threshold is not None
                                            and cand.priority > bwc.max_priority_threshold):
            return RECLAIM_WITHOUT_BORROWING
        return RECLAIM_WHILE_BORROWING

    def _valid(self, cand: WorkloadInfo, variant: int, lca: QuotaNode | None, cand_cq: ClusterQueueSnapshot,
               allow_borrowing: bool, frs_need: set[FR]) -> bool:
        if variant == WITHIN_CQ:
            return True
        if allow_borrowing and variant == RECLAIM_WITHOUT_BORROWING:
            return False
        node = cand_cq.node
        if not any(node.borrowing(fr) for fr in frs_need):
            return False
        n = node.parent
        while n is not None and n is not lca:
            if not any(n.borrowing(fr) for fr in frs_need):
                return False
            n = n.parent
        return True


def _first_key(c: Candidate) -> CandKey:
    return c[0].cand_key


class _Stream:
    """An iterator of candidates one can peek at (None once it is exhausted)."""

    __slots__ = ("_head", "_it", "_peeked")

    def __init__(self, it: Iterator[Candidate]) -> None:
        self._it = it
        self._head: Candidate | None = None
        self._peeked = False

    def peek(self) -> Candidate | None:
        if not self._peeked:
            self._head = next(self._it, None)
            self._peeked = True
        return self._head

    def pop(self) -> Candidate | None:
        v = self.peek()
        self._peeked = False
        return v


def _candidate_sequence(streams: Iterable[_Stream]) -> Iterator[Candidate]:
    """Evicted candidates of each class first (hierarchy, priority, same queue), then the rest."""
    for st in streams:
        while (c := st.peek()) is not None and c[0].evicted:
            st.pop()
            yield c
    for st in streams:
        while (c := st.peek()) is not None:
            st.pop()
            yield c
