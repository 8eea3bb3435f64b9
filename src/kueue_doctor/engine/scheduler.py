"""The scheduling cycle: heads, nomination, ordering, processing, requeueing.

Upstream: pkg/scheduler/scheduler.go (schedule, nominate, getAssignments,
processEntry, requeueAndUpdate), fair_sharing_iterator.go, flavorassigner/podset_reducer.go.
Reference: kueue-semantics.md §3. The cache (admitted workloads, usage) lives in a
``QuotaSnapshot`` that persists across cycles; each cycle's temporary changes are undone.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from ..api import objects as o
from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue import constants as kc
from ..kueue.constants import SLICE_REPLACEMENT_ANNOTATION as SLICE_ANNOTATION
from ..kueue.eviction import flavor_migration_message
from ..kueue.logvocab import REQUEUE_FAILED_AFTER_NOMINATION as FAILED_AFTER_NOMINATION
from ..kueue.logvocab import REQUEUE_GENERIC as GENERIC
from ..kueue.logvocab import REQUEUE_NAMESPACE_MISMATCH as NAMESPACE_MISMATCH
from ..kueue.logvocab import REQUEUE_NO_FIT as R_NO_FIT
from ..kueue.logvocab import REQUEUE_PENDING_MIGRATION as PENDING_MIGRATION
from ..kueue.logvocab import REQUEUE_PENDING_PREEMPTION as PENDING_PREEMPTION
from ..kueue.logvocab import REQUEUE_PREEMPTION_GATED as R_PREEMPTION_GATED
from ..kueue.logvocab import REQUEUE_PREEMPTION_NO_CANDIDATES as PREEMPTION_NO_CANDIDATES
from ..kueue.logvocab import STATUS_ASSUMED as ASSUMED  # entry status
from ..kueue.logvocab import STATUS_NOMINATED as NOMINATED
from ..kueue.logvocab import STATUS_NOT_NOMINATED as NOT_NOMINATED
from ..kueue.logvocab import STATUS_PREEMPTION_GATED as PREEMPTION_GATED
from ..kueue.logvocab import STATUS_SKIPPED as SKIPPED
from . import admissionchecks, podsready
from .assignment import DEFERRED_FIT, FIT, NO_FIT, PREEMPT, Assignment
from .config import EngineConfig
from .drs import DRS, compare_drs, dominant_resource_share
from .eligibility import label_selector_matches
from .flavors import FlavorAssigner, ReplacedSlice
from .preemption import Preemptor, Target, afs_usage_of, blocking_preemption_gates
from .preemption_index import CandidateIndex
from .queues import QueueManager
from .quota import FR, QuotaNode, RemovalShadow, UsageJournal
from .snapshot import ClusterQueueSnapshot, QuotaSnapshot
from .tas.cycle import CycleAssignment, CycleTAS, TASUsage, assignment_usage, explicitly_requests_tas, topology_of
from .workload import WorkloadInfo, is_admitted, is_variant, parent_ref, variant_flavor


@dataclass
class Entry:
    wi: WorkloadInfo
    cq_name: str
    assignment: Assignment | None = None
    targets: list[Target] = field(default_factory=list)
    status: str = NOT_NOMINATED
    inadmissible_msg: str = ""
    requeue_reason: str = GENERIC
    reason: str = ""          # QuotaReserved=False reason Kueue writes
    replaced: ReplacedSlice | None = None
    replaced_key: WorkloadKey | None = None
    gates: list[str] = field(default_factory=list)   # closed preemption gates that blocked it (preemptionGated)
    second_pass: bool = False        # a TAS node replacement of an admitted workload
    node_failure_eviction: str = ""  # TASFailedNodeReplacementFailFast: why it was evicted
    # its ClusterQueue's preemptor: the workload last re-queued waiting for its victims
    # (Head.IsPreemptor), which PrioritizePreemptorWorkloads puts first and lets hold its quota
    is_preemptor: bool = False

    @property
    def key(self) -> WorkloadKey:
        return self.wi.key

    def conditions(self) -> list[o.Condition]:
        """The conditions Kueue writes on a workload this cycle left pending (requeueAndUpdate):
        QuotaReserved=False with the granular reason (``Pending`` with UnadmittedWorkloadsObservability
        off is the caller's to map), Admitted=False, and BlockedOnPreemptionGates=True when a closed
        preemption gate stopped its preemptions. [] for an entry that is admitted or nominated."""
        if self.status not in (NOT_NOMINATED, SKIPPED, PREEMPTION_GATED):
            return []
        out = [o.Condition(kc.QUOTA_RESERVED, "False", self.reason or kc.PENDING, self.inadmissible_msg)]
        if self.status == PREEMPTION_GATED:
            out.append(o.Condition(kc.BLOCKED_ON_PREEMPTION_GATES, "True", kc.PREEMPTION_GATED,
                                   self.inadmissible_msg))
        out.append(o.Condition(kc.ADMITTED, "False", kc.NO_RESERVATION, "The workload has no reservation"))
        return out

    @property
    def assigned(self) -> Assignment:
        """The flavor assignment of a nominated entry (an entry found inadmissible has none)."""
        if self.assignment is None:
            raise ValueError(f"{self.key} was not nominated: it has no flavor assignment")
        return self.assignment


@dataclass(slots=True)
class Migration:
    """A variant evicted because a more favourable sibling fits (ConcurrentAdmission): it gets
    Evicted=True, reason FlavorMigration, and no Preempted condition."""
    wi: WorkloadInfo
    evictor: WorkloadKey
    cluster_queue: str
    reason: str = kc.EVICTED_BY_FLAVOR_MIGRATION
    message: str = ""

    @property
    def key(self) -> WorkloadKey:
        return self.wi.key


# (ancestor cohort id, workload key) -> the share of the child on the workload's path
_Shares = dict[tuple[int, WorkloadKey], DRS]


class CycleTargets:
    """Workloads already chosen as preemption targets in this cycle (PreemptedWorkloads),
    also indexed by cohort tree: a victim in another tree never changes a queue's capacity.

    Two ways to keep the tree's usage without them, for ``Scheduler.fits`` and the overlap
    recompute (both as upstream's SimulateWorkloadRemoval would leave it):
    - ``physical`` (classical preemption): a target's usage leaves the tree when it is chosen and
      comes back when the cycle ends (``journal.restore``); its workload stays listed (the
      preemptor's ``excluded`` hides it from a recompute's search), ``removed`` keeps what each
      ClusterQueue gave up so that ``real_usage`` can still read the tree as it is;
    - otherwise (fair sharing, whose tournament reads the tree with the targets in it): ``shadow``
      keeps the usage without them beside the tree.
    Whoever changes the tree's usage for the rest of the cycle calls ``usage_added``; ``journal``
    puts every tree the cycle changed back as it was."""

    def __init__(self, snap: QuotaSnapshot, physical: bool = False, index: CandidateIndex | None = None) -> None:
        self.snap = snap
        self.all: dict[WorkloadKey, Target] = {}
        self.by_root: dict[int, dict[WorkloadKey, Target]] = {}
        self.shadow = RemovalShadow()
        self.physical = physical
        self.index = index
        self.removed: dict[str, dict[FR, int]] = {}
        self.journal = UsageJournal()

    def __contains__(self, key: WorkloadKey) -> bool:
        return key in self.all

    def add(self, t: Target, cq: ClusterQueueSnapshot, target_cq: ClusterQueueSnapshot) -> None:
        if t.key in self.all:
            return
        self.all[t.key] = t
        self.by_root.setdefault(id(cq.node.root()), {})[t.key] = t
        if not self.physical:
            self.shadow.remove(target_cq.node, t.wi.usage)
            return
        self.journal.touch(target_cq.node)
        target_cq.node.remove_usages(t.wi.usage)
        gave = self.removed.setdefault(target_cq.name, {})
        for fr, v in t.wi.usage.items():
            gave[fr] = gave.get(fr, 0) + v
        if self.index is not None:
            self.index.workload_gone(t.wi, target_cq)

    def usage_added(self, cq: ClusterQueueSnapshot, usage: dict[FR, int]) -> None:
        """Add usage for the rest of the cycle (undone at its end)."""
        self.journal.touch(cq.node)
        if self.physical and self.removed and any(v < 0 for v in usage.values()):
            # a negative reserve passes nothing up: what it leaves in the cohort depends on the
            # ClusterQueue's usage, which upstream's snapshot reads with the targets in it
            self.put_back()
            cq.node.add_usages(usage)
            self.take_out()
        else:
            cq.node.add_usages(usage)
        if not self.physical:
            self.shadow.refresh(cq.node)
        elif self.index is not None:
            self.index.cq_usage_changed(cq)

    def real_usage(self, cq: ClusterQueueSnapshot, fr: FR) -> int:
        """A ClusterQueue's usage with this cycle's targets in it."""
        return cq.node.usage.get(fr, 0) + self.removed.get(cq.name, {}).get(fr, 0)

    def put_back(self) -> None:
        """The targets' usage back into the tree (physical)."""
        for name, usage in self.removed.items():
            self.snap.cluster_queues[name].node.add_usages(usage)

    def take_out(self) -> None:
        """The undo of put_back."""
        for name, usage in self.removed.items():
            self.snap.cluster_queues[name].node.remove_usages(usage)

    def tree(self, cq: ClusterQueueSnapshot) -> dict[WorkloadKey, Target]:
        return self.by_root.get(id(cq.node.root()), {})


@dataclass
class CycleResult:
    admitted: list[Entry] = field(default_factory=list)
    preempted: list[Target] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    inadmissible: list[Entry] = field(default_factory=list)
    preemption_skips: dict[str, int] = field(default_factory=dict)
    migrated: list[Migration] = field(default_factory=list)   # FlavorMigration evictions


class Scheduler:
    """Drives cycles over a persistent cache (``snapshot``) and queue manager."""

    def __init__(self, snapshot: QuotaSnapshot, queues: QueueManager, config: EngineConfig,
                 limit_ranges: dict[str, list[o.LimitRange]] | None = None):
        self.snap = snapshot
        self.queues = queues
        self.config = config
        self.limit_ranges = limit_ranges or {}
        self.tas: CycleTAS | None = None
        self.tas_keys: list[WorkloadKey] = []   # admitted workloads whose TAS usage the cycle counts
        self.tas_removed: set[WorkloadKey] = set()   # ... whose usage is taken off for a simulation
        # False: every cycle as upstream's code goes (walks, removal per recompute), the reference
        # the equivalence tests compare the indexed cycle with
        self.use_candidate_index = True
        self.candidate_index_after = 1.0   # CandidateIndex.build_after (the tests build it at once)

    # -- the cycle -----------------------------------------------------------------------
    def schedule(self, now: datetime) -> CycleResult:
        res = CycleResult()
        active = sorted(self.snap.cluster_queues)
        heads = self.queues.heads(active)
        if not heads:
            return res
        preemptor = Preemptor(self.snap, self.config, now)
        # classical preemption: targets leave the tree as they are chosen, and each search reads
        # the cycle's candidate index instead of walking the cohort (issue 17); the fair-sharing
        # tournament reads the tree with the targets in it, and its searches walk as upstream's
        physical = not self.config.fair_sharing and self.use_candidate_index
        if physical:
            preemptor.index = CandidateIndex(self.snap, self.candidate_index_after)
        self.tas = self.cycle_tas()
        entries, inadmissible = self.nominate(heads, preemptor, now)
        res.entries, res.inadmissible = entries, inadmissible
        preempted_in_cycle = CycleTargets(self.snap, physical, preemptor.index)
        order = self.fair_sharing_order(entries) if self.config.fair_sharing else self.classical_order(entries)
        for e in order:
            self.process_entry(e, preemptor, preempted_in_cycle, res, now)
        preempted_in_cycle.journal.restore()   # the targets' usage back in as well (physical)
        for e in res.admitted:
            self.admit(e, now)
        for t in res.preempted:
            t.wi.evicted = True
            t.wi.preempted_reason = t.reason
            self.snap.cluster_queues[t.cluster_queue].changed()
        for m in res.migrated:
            m.wi.evicted = True
            m.wi.eviction_reason = m.reason
            self.snap.cluster_queues[m.cluster_queue].changed()
        for e in entries:
            if e.second_pass and e.status != ASSUMED:
                continue   # back to the second-pass queue (or evicted), not to the ClusterQueue's
            if e.status != ASSUMED:
                reason = e.requeue_reason
                if e.status in (NOMINATED, SKIPPED) and reason == GENERIC:
                    reason = FAILED_AFTER_NOMINATION
                self.queues.requeue(e.wi, reason, now)
        for e in inadmissible:
            self.queues.requeue(e.wi, e.requeue_reason, now)
        self.tas = None   # the TAS snapshots belong to this cycle (callers outside one get no TAS yet)
        return res

    # -- nomination ---------------------------------------------------------------------
    def nominate(self, heads: list[WorkloadInfo], preemptor: Preemptor,
                 now: datetime) -> tuple[list[Entry], list[Entry]]:
        entries: list[Entry] = []
        inadmissible: list[Entry] = []
        for wi in heads:
            cq_name = self.queues.cluster_queue_for(wi) or ""
            e = Entry(wi, cq_name)
            e.is_preemptor = self.queues.is_preemptor(wi)
            cq = self.snap.cluster_queues.get(cq_name)
            if admissionchecks.failed(wi.obj):   # a check in Retry or Rejected (admission checks)
                e.inadmissible_msg = admissionchecks.FAILED_CHECKS_MESSAGE
                e.reason = "PendingEvaluation"
                inadmissible.append(e)
                continue
            if cq is None:
                e.inadmissible_msg = (f"ClusterQueue {cq_name} is inactive" if cq_name in self.snap.inactive
                                      else f"ClusterQueue {cq_name} not found")
                e.reason = "Suspended" if cq_name in self.snap.inactive else "Misconfigured"
                inadmissible.append(e)
                continue
            problem = self.admissibility(wi, cq)
            if problem:
                e.inadmissible_msg, reason = problem
                e.requeue_reason = reason
                e.reason = "Misconfigured"
                inadmissible.append(e)
                continue
            self.find_replaced(e, cq)
            e.assignment, e.targets = self.get_assignments(wi, cq, preemptor, e.replaced)
            wi.last_assignment = e.assignment
            entries.append(e)
        return entries, inadmissible

    def admissibility(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot) -> tuple[str, str] | None:
        if self.snap.namespaces:
            labels = self.snap.namespaces.get(wi.namespace)
            if labels is None:
                return f"Could not obtain workload namespace: namespace {wi.namespace} not found", GENERIC
            if not label_selector_matches(cq.namespace_selector, labels):
                return "Workload namespace doesn't match ClusterQueue selector", NAMESPACE_MISMATCH
        problem = invalid_resources(wi.obj, self.limit_ranges.get(wi.namespace, []))
        if problem:
            return problem, GENERIC
        return None

    def find_replaced(self, e: Entry, cq: ClusterQueueSnapshot) -> None:
        ref = e.wi.obj.meta.annotations.get(SLICE_ANNOTATION)
        if not ref or not self.config.gate("ElasticJobsViaWorkloadSlices"):
            return
        try:
            key = WorkloadKey.parse(ref)
        except InputError:
            return  # upstream looks the value up as a workload key: a malformed one names none
        old = cq.workloads.get(key)
        if old is None or old.obj.status.admission is None:
            return
        flavors = {p.name: p.flavors for p in old.obj.status.admission.pod_set_assignments}
        e.replaced = ReplacedSlice([(ps.name, ps.count, ps.total(), dict(flavors.get(ps.name, {})))
                                    for ps in old.pod_sets])
        e.replaced_key = key

    def assigner(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, preemptor: Preemptor,
                 replaced: ReplacedSlice | None = None,
                 nomination: dict[tuple[int, str], str] | None = None) -> FlavorAssigner:
        return FlavorAssigner(wi, cq, self.snap.flavors, self.config, preemptor.simulate, replaced,
                              nomination=nomination, tas=self.tas)

    def get_assignments(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, preemptor: Preemptor,
                        replaced: ReplacedSlice | None = None,
                        nomination: dict[tuple[int, str], str] | None = None) -> tuple[Assignment, list[Target]]:
        if preemptor.afs_usage is None:   # the doctor's and explain's preemptors come here too
            preemptor.afs_usage = afs_usage_of(self.queues)
        fa = self.assigner(wi, cq, preemptor, replaced, nomination)
        full = fa.assign()
        mode = full.representative_mode()
        if mode == FIT:
            return full, []
        if mode == PREEMPT:
            preemptor.tas_fits = self.tas_fit_check(fa, full)
            try:
                targets = preemptor.get_targets(wi, cq, full.usage, full.frs_needing_preemption(), memo=True)
            finally:
                preemptor.tas_fits = None
            preemptor.forget()
            self.topology_for_preemption(fa, full, targets)
            if targets:
                return full, targets
        if self.config.gate("PartialAdmission") and any(
                ps.min_count is not None and ps.min_count < ps.count for ps in wi.pod_sets):
            found = self.reduce_pod_sets(wi, cq, fa, preemptor)
            if found is not None:
                return found
        return full, []

    def reduce_pod_sets(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, fa: FlavorAssigner,
                        preemptor: Preemptor) -> tuple[Assignment, list[Target]] | None:
        """PodSetReducer.Search: the largest counts (down to minCount) that fit or can preempt."""
        deltas = [(ps.count - ps.min_count) if ps.min_count is not None and ps.min_count < ps.count else 0
                  for ps in wi.pod_sets]
        total = sum(deltas)
        results: dict[int, tuple[bool, Assignment, list[Target]]] = {}  # (fits or can preempt, ...)

        def attempt(i: int) -> tuple[bool, Assignment, list[Target]]:
            if i not in results:
                counts = [ps.count - (d * i // total) for ps, d in zip(wi.pod_sets, deltas, strict=True)]
                a = fa.assign(counts)
                m = a.representative_mode()
                ok = False
                targets: list[Target] = []
                if m == FIT:
                    ok = True
                elif m == PREEMPT:
                    targets = preemptor.get_targets(wi, cq, a.usage, a.frs_needing_preemption())
                    ok = bool(targets)
                results[i] = (ok, a, targets)
            return results[i]

        lo, hi = 0, total + 1  # sort.Search over [0, total]
        while lo < hi:
            mid = (lo + hi) // 2
            if not attempt(mid)[0]:
                lo = mid + 1
            else:
                hi = mid
        if lo <= total and attempt(lo)[0]:
            return attempt(lo)[1], attempt(lo)[2]
        return None

    # -- ordering --------------------------------------------------------------------------
    def classical_order(self, entries: list[Entry]) -> list[Entry]:
        prio = self.config.gate("PrioritySortingWithinCohort")

        preemptors = self.config.gate("PrioritizePreemptorWorkloads")

        def key(e: Entry) -> tuple[bool, bool, int, int, datetime]:
            return (not e.wi.obj.is_true("QuotaReserved"), not (preemptors and e.is_preemptor), e.assigned.borrows(),
                    -e.wi.priority if prio else 0, e.wi.queue_order_timestamp())
        return sorted(entries, key=key)

    def fair_sharing_order(self, entries: list[Entry]) -> Iterator[Entry]:
        """The fair-sharing tournament: pop one entry at a time, shares re-read on every pop."""
        remaining = {e.cq_name: e for e in entries}
        while remaining:
            name = min(remaining)
            cq = self.snap.cluster_queues[name]
            if cq.node.parent is None:
                yield remaining.pop(name)
                continue
            root = cq.node.root()
            drs = self._tournament_shares(root, remaining)
            winner = self._tournament(root, remaining, drs)
            if winner is None:
                yield remaining.pop(name)
                continue
            yield remaining.pop(winner.cq_name)

    def _tournament_shares(self, root: QuotaNode, remaining: dict[str, Entry]) -> _Shares:
        drs: _Shares = {}
        mode = self.config.drs_mode
        for name, e in remaining.items():
            cq = self.snap.cluster_queues[name]
            if cq.node.root() is not root:
                continue
            cq.node.add_usages(e.assigned.usage)
            node = cq.node
            while node.parent is not None:
                drs[(id(node.parent), e.key)] = dominant_resource_share(node, None, mode)
                node = node.parent
            cq.node.remove_usages(e.assigned.usage)
        return drs

    def _tournament(self, cohort: QuotaNode, remaining: dict[str, Entry], drs: _Shares) -> Entry | None:
        candidates: list[Entry] = []
        for child in cohort.children:
            if child.is_cq:
                if child.name in remaining:
                    candidates.append(remaining[child.name])
            else:
                w = self._tournament(child, remaining, drs)
                if w is not None:
                    candidates.append(w)
        best: Entry | None = None
        for c in candidates:
            if best is None or self._less(c, best, cohort, drs):
                best = c
        return best

    def _less(self, a: Entry, b: Entry, cohort: QuotaNode, drs: _Shares) -> bool:
        if self.config.gate("PrioritizePreemptorWorkloads") and a.is_preemptor != b.is_preemptor:
            return a.is_preemptor
        da, db = drs[(id(cohort), a.key)], drs[(id(cohort), b.key)]
        if self.config.gate("FairSharingPrioritizeNonBorrowing"):
            ba = da.is_borrowing_on([fr for fr, v in a.assigned.usage.items() if v > 0])
            bb = db.is_borrowing_on([fr for fr, v in b.assigned.usage.items() if v > 0])
            if ba != bb:
                return not ba
        c = compare_drs(da, db)
        if c != 0:
            return c < 0
        if self.config.gate("PrioritySortingWithinCohort") and a.wi.priority != b.wi.priority:
            return a.wi.priority > b.wi.priority
        return a.wi.queue_order_timestamp() < b.wi.queue_order_timestamp()

    # -- processing --------------------------------------------------------------------------
    def fits(self, cq: ClusterQueueSnapshot, usage: dict[FR, int], cycle_targets: CycleTargets,
             targets: Iterable[Target]) -> bool:
        """cq.Fits with this cycle's targets and ``targets`` removed, read off the cycle's shadow
        of the tree (same answer as fits_by_removal, without touching the snapshot)."""
        extra: dict[WorkloadKey, tuple[QuotaNode, dict[FR, int]]] = {}
        for t in targets:
            if t.key not in cycle_targets and t.key not in extra:
                extra[t.key] = (self.snap.cq_of(t.wi).node, t.wi.usage)
        return cycle_targets.shadow.fits(cq.node, usage, extra.values())

    def fits_by_removal(self, cq: ClusterQueueSnapshot, usage: dict[FR, int],
                        removed: dict[WorkloadKey, Target], cycle_targets: CycleTargets | None = None) -> bool:
        """fits as upstream does it: take the workloads out of the snapshot, look, put them back."""
        if cycle_targets is not None and cycle_targets.physical:
            cycle_targets.put_back()
        for t in removed.values():
            self.snap.remove_workload(t.wi)
        ok = all(cq.node.available(fr) >= v for fr, v in usage.items())
        for t in removed.values():
            self.snap.add_workload(t.wi, t.cluster_queue)
        if cycle_targets is not None and cycle_targets.physical:
            cycle_targets.take_out()
        return ok

    def process_entry(self, e: Entry, preemptor: Preemptor, cycle_targets: CycleTargets,
                      res: CycleResult, now: datetime) -> None:
        cq = self.snap.cluster_queues[e.cq_name]
        concurrent = self.config.gate("ConcurrentAdmission") and is_variant(e.wi.obj)
        if concurrent and self.admitted_sibling(e.wi, cq, more_favourable=True) is not None:
            e.status = SKIPPED
            e.reason = kc.PENDING_EVALUATION
            e.inadmissible_msg = "A more favorable variant is already admitted"
            if not self.config.gate("FlavorFungibilityPreserveScanProgress"):
                e.wi.last_assignment = None
            return
        a = e.assigned
        mode = a.representative_mode()
        e.second_pass = bool(e.wi.obj.status.unhealthy_nodes) and e.wi.obj.is_true("QuotaReserved")
        if e.second_pass and mode != FIT and self.config.gate("TASFailedNodeReplacementFailFast"):
            e.node_failure_eviction = ("Workload was evicted as there was no replacement for unhealthy node(s): "
                                       + ", ".join(e.wi.obj.status.unhealthy_nodes))
            e.inadmissible_msg = a.message()
            return
        usage: dict[FR, int] = {} if e.wi.obj.is_true("QuotaReserved") else a.usage
        fits = self.fits(cq, usage, cycle_targets, e.targets)
        if any(t.key in cycle_targets for t in e.targets) and \
                self.config.gate("RecomputeAssignmentUponPreemptionTargetsOverlap"):
            mode, fits = self._recompute(e, cq, preemptor, cycle_targets)
            a = e.assigned
            usage = {} if e.wi.obj.is_true("QuotaReserved") else a.usage
        elif fits and not self.tas_fits(e, cycle_targets, cq) and \
                self.config.gate("TASRecomputeAssignmentWithinSchedulingCycle"):
            mode, fits = self._recompute_tas(e, cq, preemptor, cycle_targets)
            a = e.assigned
            usage = {} if e.wi.obj.is_true("QuotaReserved") else a.usage
        # after a recompute: its targets
        if fits and mode != NO_FIT and not self.tas_fits(e, cycle_targets, cq):
            fits = False
        if mode == NO_FIT:
            e.requeue_reason = R_NO_FIT
            e.reason = a.no_fit_reason or "Pending"
            e.inadmissible_msg = a.message()
            return
        if mode == PREEMPT and not e.targets:
            e.requeue_reason = PREEMPTION_NO_CANDIDATES
            e.reason = "WaitingForQuota"
            e.inadmissible_msg = a.message()
            # reserveCapacityForUnreclaimablePreempt: a queue that cannot always reclaim, or (with
            # PrioritizePreemptorWorkloads) a preemptor still waiting for its victims, holds the quota
            if cq.preemption.reclaim_within_cohort != "Any" or (
                    e.is_preemptor and self.config.gate("PrioritizePreemptorWorkloads")):
                cycle_targets.usage_added(cq, self.resources_to_reserve(cq, a, cycle_targets))
                self.reserve_tas(e)
            return
        if mode == PREEMPT:
            gates = blocking_preemption_gates(e.wi, self.config)
            if gates:
                e.status = PREEMPTION_GATED
                e.gates = gates
                e.reason = kc.ADMISSION_GATED
                e.inadmissible_msg = "Workload requires preemption, but it's gated"
                e.requeue_reason = R_PREEMPTION_GATED
                e.wi.last_assignment = None
                return
        if mode == DEFERRED_FIT:
            cycle_targets.usage_added(cq, usage)
            self.reserve_tas(e)
            e.requeue_reason = PENDING_PREEMPTION
            e.reason = "WaitingForPreemptedWorkloads"
            e.inadmissible_msg = "Waiting for the preempted workloads to release quota"
            e.wi.last_assignment = None
            return
        if any(t.key in cycle_targets for t in e.targets):
            e.status = SKIPPED
            e.reason = "WaitingForQuota"
            e.inadmissible_msg = "Workload has overlapping preemption targets with another workload"
            res.preemption_skips[cq.name] = res.preemption_skips.get(cq.name, 0) + 1
            return
        if not fits:
            e.status = SKIPPED
            e.reason = "WaitingForQuota"
            e.inadmissible_msg = "Workload no longer fits after processing another workload"
            if mode == PREEMPT:
                res.preemption_skips[cq.name] = res.preemption_skips.get(cq.name, 0) + 1
            return
        for t in e.targets:
            cycle_targets.add(t, cq, self.snap.cq_of(t.wi))
        cycle_targets.usage_added(cq, usage)
        self.reserve_tas(e)
        if mode == PREEMPT:
            for t in e.targets:
                if not t.wi.evicted:
                    res.preempted.append(t)
            e.requeue_reason = PENDING_PREEMPTION
            e.reason = "WaitingForPreemptedWorkloads"
            e.inadmissible_msg = f"{a.message()}. Pending the preemption of {len(e.targets)} workload(s)"
            e.wi.last_assignment = None
            return
        if concurrent:
            sibling = self.admitted_sibling(e.wi, cq, more_favourable=False)
            if sibling is not None:
                if not self.migration_allowed(e, cq):
                    e.reason = kc.PENDING_EVALUATION
                    e.inadmissible_msg = "Target flavor is below LastAcceptableFlavorName"
                    return
                e.reason = kc.WAITING_FOR_PREEMPTED_WORKLOADS
                e.inadmissible_msg += ". Pending the migration of 1 workload(s)"   # upstream's words, "" first
                e.requeue_reason = PENDING_MIGRATION
                e.wi.last_assignment = None
                if not sibling.evicted:
                    res.migrated.append(Migration(sibling, e.key, cq.name,
                                                  message=flavor_migration_message(e.wi.uid)))
                return
        if self.blocked_by_pods_ready(e, res):   # waitForPodsReady.blockAdmission
            return
        e.status = ASSUMED
        res.admitted.append(e)

    # -- topology-aware scheduling: the cycle's TAS snapshots --------------------------------------
    def cycle_tas(self) -> CycleTAS | None:
        """The TAS flavor snapshots of this cycle, with the TAS usage of the admitted workloads."""
        inputs = self.snap.tas_inputs
        if not inputs.topologies or not self.config.gate("TopologyAwareScheduling"):
            return None
        self.tas_keys = [k for k in self.snap.tas_usage if k in self.snap.workload_cq]
        return CycleTAS(inputs, self.snap.flavors, self.config.gate, [self.snap.tas_usage[k] for k in self.tas_keys])

    def tas_fit_check(self, fa: FlavorAssigner, a: Assignment) -> Callable[[], bool] | None:
        """For preemption: does the topology request fit once the workloads the preemptor has
        taken out of the snapshot so far are gone (workloadFits' TAS part)?"""
        tas = self.tas
        if tas is None or fa.tas is None or not isinstance(a, CycleAssignment):
            return None
        reqs = fa.tas_requests(a, [])
        if not reqs:
            return None

        def fits() -> bool:
            gone = [self.snap.tas_usage[k] for k in self.tas_keys
                    if k not in self.snap.workload_cq and k not in self.tas_removed]
            for g in gone:
                tas.remove(g)
            try:
                return fa.find_topology(reqs, simulate_empty=False)[1] is None
            finally:
                for g in gone:
                    tas.add(g)
        return fits

    def entry_tas_usage(self, a: Assignment | None, net_of: o.Workload | None = None) -> TASUsage:
        """The TAS usage of an assignment; with ``net_of``, only the pods its admission does not
        already hold in the same domains (ComputeTASNetUsage)."""
        if not isinstance(a, CycleAssignment):
            return []
        out: TASUsage = []
        prev: dict[str, o.TopologyAssignment] = {}
        if net_of is not None and net_of.is_true("QuotaReserved") and net_of.status.admission is not None:
            prev = {p.name: p.topology_assignment for p in net_of.status.admission.pod_set_assignments
                    if p.topology_assignment is not None}
        for name, ta in a.topology.items():
            fl = a.tas_flavor.get(name)
            if fl is None:
                continue
            old = {tuple(d.values): d.count for d in prev[name].domains} if name in prev else {}
            net = o.TopologyAssignment(ta.levels, [o.TopologyDomainAssignment(d.values, d.count - old.get(
                tuple(d.values), 0)) for d in ta.domains if d.count > old.get(tuple(d.values), 0)])
            out += assignment_usage(fl, net, a.single_pod.get(name, {}))
        return out

    def remove_tas_usage(self, removed: dict[WorkloadKey, Target]) -> list[WorkloadKey]:
        """Take the TAS usage of ``removed`` off the cycle's TAS snapshots (undo: restore_tas_usage)."""
        if self.tas is None:
            return []
        keys = [k for k in removed if k in self.snap.tas_usage and k not in self.tas_removed]
        for k in keys:
            self.tas.remove(self.snap.tas_usage[k])
            self.tas_removed.add(k)
        return keys

    def restore_tas_usage(self, keys: list[WorkloadKey]) -> None:
        if self.tas is None:
            return
        for k in keys:
            self.tas.add(self.snap.tas_usage[k])
            self.tas_removed.discard(k)

    def reserve_tas(self, e: Entry) -> None:
        if self.tas is not None:
            self.tas.add(self.entry_tas_usage(e.assignment, e.wi.obj))

    def tas_fits(self, e: Entry, cycle_targets: CycleTargets, cq: ClusterQueueSnapshot) -> bool:
        """cq.Fits' TAS part: the entry's topology assignment still has room, with the usage this
        cycle added (and without the workloads being preempted: this cycle's in the tree and the
        entry's own; victims in other cohort trees cannot change what this queue can use)."""
        if self.tas is None:
            return True
        use = self.entry_tas_usage(e.assignment, e.wi.obj)
        if not use:
            return True
        gone = self.remove_tas_usage(_removed(cycle_targets, cq, e.targets))
        try:
            return self.tas.fits(use)
        finally:
            self.restore_tas_usage(gone)

    def _recompute_tas(self, e: Entry, cq: ClusterQueueSnapshot, preemptor: Preemptor,
                       cycle_targets: CycleTargets) -> tuple[int, bool]:
        """TASRecomputeAssignmentWithinSchedulingCycle: assign again on the flavors nominated."""
        preemptor.forget()
        nomination = {(i, res): f.name for i, ps in enumerate(e.assigned.pod_sets) for res, f in ps.flavors.items()}
        # upstream assigns again on the snapshot with the cycle's targets in it
        index, preemptor.index = preemptor.index, None
        if cycle_targets.physical:
            cycle_targets.put_back()
        try:
            a, targets = self.get_assignments(e.wi, cq, preemptor, e.replaced, nomination)
        finally:
            preemptor.forget()
            preemptor.index = index
            if cycle_targets.physical:
                cycle_targets.take_out()
        old_targets = e.targets
        e.assignment, e.targets = a, targets
        e.wi.last_assignment = a
        usage: dict[FR, int] = {} if e.wi.obj.is_true("QuotaReserved") else a.usage
        return a.representative_mode(), self.fits(cq, usage, cycle_targets, old_targets + targets)

    def topology_for_preemption(self, fa: FlavorAssigner, a: Assignment, targets: list[Target]) -> None:
        """updateAssignmentForTAS: a Preempt assignment gets the topology it would take once its
        targets are gone (or, with no targets, on an empty cluster) so that it can reserve it."""
        if self.tas is None or fa.tas is None or not isinstance(a, CycleAssignment):
            return
        wl = fa.wi.obj
        if not (fa.tas_only or any(explicitly_requests_tas(ps) for ps in wl.pod_sets)):
            return
        if wl.status.unhealthy_nodes and wl.status.admission is not None and any(
                ps.topology_assignment is not None for ps in wl.status.admission.pod_set_assignments):
            return
        reqs = fa.tas_requests(a, [])
        gone = self.remove_tas_usage({t.key: t for t in targets})
        try:
            got, _failure = fa.find_topology(reqs, simulate_empty=not targets)
        finally:
            self.restore_tas_usage(gone)
        a.topology = got

    # -- concurrent admission: variants of one parent, one per flavor ------------------------------
    def admitted_sibling(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot,
                         more_favourable: bool) -> WorkloadInfo | None:
        """An admitted variant of the same parent in ``cq`` whose flavor is more (or less) favourable
        than ``wi``'s, by the order of the first resource group's flavors (findAdmittedSibling).
        Upstream walks a Go map; the engine takes siblings in name order."""
        parent_uid = parent_ref(wi.obj)[1]
        if not parent_uid or not cq.groups:
            return None
        flavors = cq.groups[0].flavors
        own = _flavor_index(wi, flavors)
        if own is None:
            return None
        for key in sorted(cq.workloads):
            other = cq.workloads[key]
            if other.uid == wi.uid or parent_ref(other.obj)[1] != parent_uid or not self.variant_admitted(other, cq):
                continue
            idx = _flavor_index(other, flavors)
            if idx is not None and (idx < own if more_favourable else idx > own):
                return other
        return None

    @staticmethod
    def variant_admitted(wi: WorkloadInfo, cq: ClusterQueueSnapshot) -> bool:
        """workload.IsAdmitted for a sibling. One whose quota this engine reserved carries no
        Admitted condition of its own: Kueue wrote Admitted=True in the same patch only if no
        admission check was left to wait for (admissionchecks.admitted_on_reservation)."""
        if not is_admitted(wi):
            return False
        if wi.obj.is_true("Admitted"):
            return True
        return admissionchecks.admitted_on_reservation(wi.obj, cq.obj, {fr[0] for fr in wi.usage})

    def migration_allowed(self, e: Entry, cq: ClusterQueueSnapshot) -> bool:
        """isMigrationAllowed: the target flavor is not below migration.constraints.lastAcceptableFlavorName."""
        policy = cq.obj.concurrent_admission_policy
        if policy is None or policy.last_acceptable_flavor is None:
            return True
        flavors = cq.groups[0].flavors
        last = flavors.index(policy.last_acceptable_flavor) if policy.last_acceptable_flavor in flavors else -1
        own = _flavor_index(e.wi, flavors)
        return own is not None and own <= last

    def blocked_by_pods_ready(self, e: Entry, res: CycleResult) -> bool:
        """waitForPodsReadyIfNeeded: with blockAdmission, a new admission waits while any workload
        holding quota (one admitted earlier in this cycle included) is not PodsReady.

        Upstream patches QuotaReserved=False (WaitingForPodsReady) and blocks the scheduling
        goroutine until they are ready, then admits this entry. The model ends the entry here
        with that reason, keeps its usage for the rest of the cycle and requeues it at once, so
        the first cycle after everything is ready admits it (the caller runs one then).
        """
        cfg = self.config.wait_for_pods_ready
        if cfg is None or not cfg.block_admission or e.wi.obj.is_true("QuotaReserved"):
            return False
        if not res.admitted and not any(not podsready.pods_ready(w.obj) for w in self.snap.all_workloads()):
            return False
        e.status = NOMINATED
        e.reason = podsready.block_reason(True)
        e.inadmissible_msg = podsready.BLOCK_MESSAGE
        e.requeue_reason = FAILED_AFTER_NOMINATION
        return True

    def _recompute(self, e: Entry, cq: ClusterQueueSnapshot, preemptor: Preemptor,
                   cycle_targets: CycleTargets) -> tuple[int, bool]:
        """Assign again without this cycle's targets: -> (mode, fits)."""
        preemptor.forget()
        tree = cycle_targets.tree(cq)
        if cycle_targets.physical:   # their usage is already out of the tree
            preemptor.excluded = tree
        else:
            self.snap.remove_workloads(t.wi for t in tree.values())
        tas_gone = self.remove_tas_usage(tree)   # SimulateWorkloadRemoval takes TAS usage off too
        nomination = {(i, res): f.name for i, ps in enumerate(e.assigned.pod_sets) for res, f in ps.flavors.items()}
        try:
            a, targets = self.get_assignments(e.wi, cq, preemptor, e.replaced, nomination)
        finally:
            preemptor.forget()
            self.restore_tas_usage(tas_gone)
            if cycle_targets.physical:
                preemptor.excluded = frozenset()
            else:
                self.snap.add_workloads((t.wi, t.cluster_queue) for t in tree.values())
        mode = a.representative_mode()
        if mode == FIT:
            mode = DEFERRED_FIT
        e.assignment, e.targets = a, targets
        usage: dict[FR, int] = {} if e.wi.obj.is_true("QuotaReserved") else a.usage
        return mode, self.fits(cq, usage, cycle_targets, targets)

    def resources_to_reserve(self, cq: ClusterQueueSnapshot, a: Assignment,
                             cycle_targets: CycleTargets) -> dict[FR, int]:
        """What an entry that cannot preempt holds on to (reserveCapacityForUnreclaimablePreempt),
        read off the usage with the cycle's targets still in it, as upstream's snapshot has it."""
        out: dict[FR, int] = {}
        node = cq.node
        for fr, v in a.usage.items():
            used = cycle_targets.real_usage(cq, fr)
            if a.borrowing > 0:
                bl = node.borrowing_limit(fr)
                out[fr] = v if bl is None else min(v, node.nominal(fr) + bl - used)
            else:
                out[fr] = max(0, min(v, node.nominal(fr) - used))
        return out

    # -- admission into the cache ---------------------------------------------------------
    def admit(self, e: Entry, now: datetime) -> None:
        wi = e.wi
        usage: dict[FR, int] = {}
        for ps in e.assigned.pod_sets:
            for res, f in ps.flavors.items():
                fr = (f.name, res)
                usage[fr] = usage.get(fr, 0) + ps.requests.get(res, 0)
        self.queues.afs_assumed(wi, e.cq_name, usage, now)   # admission fair sharing: entry penalty
        if e.replaced_key is not None:
            old = self.snap.cluster_queues[e.cq_name].workloads.get(e.replaced_key)
            if old is not None:
                self.snap.remove_workload(old, lasting=True)
                self.queues.state.pop(old.key, None)
        if wi.key in self.snap.workload_cq:   # a second pass (TAS node replacement) re-admits
            self.snap.remove_workload(wi, lasting=True)
        wi.usage = usage
        wi.cluster_queue = e.cq_name
        wi.quota_reserved_at = now
        wi.evicted = False
        wi.last_assignment = None
        self.snap.add_workload(wi, e.cq_name, lasting=True)
        tas_use = self.entry_tas_usage(e.assignment)
        if tas_use:
            self.snap.tas_usage[wi.key] = tas_use
            self.snap.topology_assignments[wi.key] = dict(topology_of(e.assignment))
        q = self.queues.queues.get(e.cq_name)
        if q is not None:
            q.inflight = None
            if q.sticky == wi.key:
                q.sticky = None


def _removed(cycle_targets: CycleTargets, cq: ClusterQueueSnapshot, targets: list[Target]) -> dict[WorkloadKey, Target]:
    removed = dict(cycle_targets.tree(cq))
    removed.update({t.key: t for t in targets})
    return removed


def _flavor_index(wi: WorkloadInfo, flavors: list[str]) -> int | None:
    """resolveFlavorIndex: the position of the variant's flavor in ``flavors`` (None: no annotation,
    or a flavor the ClusterQueue does not list)."""
    f = variant_flavor(wi.obj)
    return flavors.index(f) if f and f in flavors else None


def invalid_resources(wl: o.Workload, limit_ranges: list[o.LimitRange]) -> str:
    """ValidateAdmissibility's resource checks: requests within limits and LimitRanges."""
    for ps in wl.pod_sets:
        for c in ps.template.containers + ps.template.init_containers:
            for res, req in c.requests.items():
                lim = c.limits.get(res)
                if lim is not None and req.value > lim.value:
                    return f"resource validation failed: requests exceed limits for {res} in pod set {ps.name}"
            for lr in limit_ranges:
                for item in lr.limits:
                    if item.type != "Container":
                        continue
                    for res, mx in item.max.items():
                        q = c.requests.get(res) or c.limits.get(res)
                        if q is not None and q.value > mx.value:
                            return f"resource validation failed: {res} of container {c.name} exceeds the LimitRange max"
                    for res, mn in item.min.items():
                        q = c.requests.get(res)
                        if q is not None and q.value < mn.value:
                            return (f"resource validation failed: {res} of container {c.name} "
                                    "is below the LimitRange min")
    return ""
