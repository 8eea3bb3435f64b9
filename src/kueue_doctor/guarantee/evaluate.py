"""Does a queue's waiting work fit its nominal quota, on flavors the work can use?

Eligibility is the engine's own (``engine.eligibility``): a flavor whose node labels the pod's
node selector or required affinity excludes, whose taints it does not tolerate, or that the
allowed-flavors annotation leaves out, is no room for that work however idle its quota is.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import TypeVar

from ..api import objects as o
from ..engine.config import EngineConfig
from ..engine.eligibility import allowed_flavors, flavor_problem, ignores_undeclared
from ..engine.quota import FR
from ..engine.snapshot import ClusterQueueSnapshot
from ..engine.workload import WorkloadInfo, parent_ref
from ..keys import WorkloadKey
from .observation import QueueObservation
from .verdict import DEFAULT_MIN_WAIT, Fit, FitVerdict, QueueGuarantee

# per pod-set group: the flavors it may use, in the queue's order, and what it needs of them
Step = tuple[tuple[str, ...], dict[str, int]]
Plan = tuple[tuple[Step, ...], tuple[str, ...]]     # (steps, reasons flavors were excluded)
Since = TypeVar("Since", datetime, float)   # a datetime, or the simulator's seconds
_SampleRecord = tuple[WorkloadInfo, str, str, bool, tuple[tuple[str, int], ...],
                      tuple[Step, ...] | None, dict[FR, int] | None]


# The verdicts that say nothing of the workload itself, one of each for all: a large cluster's
# queues at their nominal quota give one per pending workload (80,000 of 100,000). Frozen, and
# their ``placed`` read-only, so sharing them cannot let one workload's verdict change another's.
QUEUE_AT_NOMINAL = FitVerdict(Fit.QUEUE_AT_NOMINAL, MappingProxyType({}))
SIBLING_ADMITTED = FitVerdict(Fit.SIBLING_ADMITTED, MappingProxyType({}))


class Evaluator:
    """Evaluates queues of one cluster; keeps each workload's fit plan while the workload lives,
    since a simulation asks about the same pending work at every sample."""

    def __init__(self, flavors: Mapping[str, o.ResourceFlavor], config: EngineConfig,
                 min_wait: timedelta = DEFAULT_MIN_WAIT):
        self.flavors = flavors
        self.config = config
        self.min_wait = min_wait
        self._plans: dict[tuple[str, WorkloadKey], tuple[WorkloadInfo, Plan | Fit]] = {}
        self._workload_facts: dict[WorkloadKey, tuple[WorkloadInfo, bool, dict[str, int]]] = {}
        self._sampled: dict[WorkloadKey, _SampleRecord] = {}

    def evaluate(self, obs: QueueObservation, now: datetime, detail: bool = False) -> QueueGuarantee:
        """``detail``: keep a verdict for every pending workload (the doctor's explain reads them).
        The simulator's samples take ``sample`` instead, which computes only what they record."""
        cq = obs.cluster_queue
        node = cq.node
        nominal = {fr: q.nominal for fr, q in node.quotas.items()}
        reserved = {fr: node.usage.get(fr, 0) for fr in nominal}
        unused = {fr: max(0, nominal[fr] - reserved[fr]) for fr in nominal}
        free = dict(unused)
        pending_fits: dict[FR, int] = {}
        fitting: list[WorkloadKey] = []
        violating: list[WorkloadKey] = []
        verdicts: dict[WorkloadKey, FitVerdict] = {}
        since: datetime | None = None
        min_wait = self.min_wait
        not_running: list[WorkloadKey] = []
        # admitted work is guaranteed to run only while the queue is inside its nominal quota
        if all(reserved[fr] <= nominal[fr] for fr in nominal):
            for nr in obs.not_running:
                if now - nr.since >= min_wait:
                    not_running.append(nr.workload.key)
                    since = _earliest(since, nr.since + min_wait)
        # what any flavor could still give per resource: a cheap first test before placing
        room = _room(unused)
        workload_facts = self._workload_facts
        full = saturated(cq)
        # ConcurrentAdmission: once one variant of a parent holds quota here, the other variants
        # are switched off or wait to migrate; the parent's work runs, so they owe it nothing
        running_parents = {uid for w in cq.workloads.values() if (uid := parent_ref(w.obj)[1])}
        for waiting in obs.pending if detail or not full else ():
            wi = waiting.workload
            if running_parents and parent_ref(wi.obj)[1] in running_parents:
                if detail:
                    verdicts[wi.key] = SIBLING_ADMITTED
                continue
            if full:  # a queue at or above its nominal quota guarantees nothing more
                if detail:
                    verdicts[wi.key] = QUEUE_AT_NOMINAL
                continue
            # larger than any flavor's room: no flavor can take it (checked before the plan, which
            # costs more, unless a verdict must say which flavors were excluded)
            facts = workload_facts.get(wi.key)
            if facts is None or facts[0] is not wi:
                facts = self._facts(wi)
            reducible, largest = facts[1], facts[2]
            too_big = not reducible and any(v > room.get(r, 0) for r, v in largest.items())
            if too_big and not detail:
                continue
            plan = self.plan(cq, wi)
            if isinstance(plan, Fit):
                if detail:
                    verdicts[wi.key] = FitVerdict(plan)
                continue
            steps, excluded = plan
            if not steps and excluded:
                if detail:
                    verdicts[wi.key] = FitVerdict(Fit.NO_ELIGIBLE_FLAVOR, excluded=excluded)
                continue
            if too_big:
                verdicts[wi.key] = FitVerdict(Fit.NEEDS_MORE_THAN_UNUSED_NOMINAL, excluded=excluded)
                continue
            # the quota nominal would give: pending work taken in queue order until it is used up
            placed = _fit_within(steps, free)
            if placed is not None:
                for fr, v in placed.items():
                    free[fr] -= v
                    pending_fits[fr] = pending_fits.get(fr, 0) + v
            # guaranteed when it alone fits what the queue leaves unused
            alone = placed if placed is not None else _fit_within(steps, unused)
            if alone is None and reducible:
                alone = self._partial(cq, wi, free, unused, pending_fits)[1]
            if alone is None:
                if detail:
                    verdicts[wi.key] = FitVerdict(Fit.NEEDS_MORE_THAN_UNUSED_NOMINAL, excluded=excluded)
                continue
            if detail:
                verdicts[wi.key] = FitVerdict(Fit.FITS, alone, excluded)
            fitting.append(wi.key)
            if now - waiting.since >= min_wait:
                violating.append(wi.key)
                since = _earliest(since, waiting.since + min_wait)
        return QueueGuarantee(cq.name, nominal, reserved, pending_fits, tuple(fitting), tuple(violating),
                              tuple(not_running), since, verdicts)

    def cutoff(self, now: datetime) -> datetime:
        """Work waiting since this time or earlier has waited the threshold (``now - since >=
        min_wait``, exact: both are whole microseconds)."""
        try:
            return now - self.min_wait
        except OverflowError:   # a threshold longer than the calendar: nothing has waited it
            return datetime.min.replace(tzinfo=now.tzinfo)

    def sample(self, cq: ClusterQueueSnapshot, pending: Iterable[tuple[WorkloadInfo, Since]],
               not_running_waited: bool, cutoff: Since,
               oldest: Since | None = None) -> tuple[dict[FR, int], bool, bool]:
        """What a simulator's sample records of the queue, as ``evaluate`` finds it for the same
        observation: (``pending_fits``, whether some pending work fits, ``violated``).
        ``pending``: (workload, waiting since) in queue order, read only as far as needed; work
        waiting since ``cutoff`` or earlier has waited the threshold (``cutoff(now)``, or the
        same on the caller's own clock); ``not_running_waited``: some admitted work of the queue
        that does not run has waited it. It stops as soon as none of the three can change (every
        interval samples every queue: sim/metrics.py), and keeps per workload what it reads.
        ``oldest``: the earliest ``since`` in ``pending``, if the caller knows it."""
        node = cq.node
        usage = node.usage
        free: dict[FR, int] = {}
        within = full = True
        for fr, q in node.quotas.items():
            used = usage.get(fr, 0)
            free[fr] = q.nominal - used if used < q.nominal else 0
            within = within and used <= q.nominal
            full = full and used >= q.nominal
        # admitted work is guaranteed to run only while the queue is inside its nominal quota
        nr = not_running_waited and within
        pending_fits: dict[FR, int] = {}
        if full:   # a queue at or above its nominal quota guarantees its pending work nothing more
            return pending_fits, False, nr
        unused = dict(free)
        room = free_room = _room(unused)   # per resource, the roomiest flavor's (see evaluate)
        fitting = violating = False
        # no pending work has waited the threshold: once nothing more can be placed, no first
        # violation is left to find among it
        young = oldest is not None and oldest > cutoff
        free_left = True   # some (flavor, resource) has quota left to place pending work in
        parents: set[str] | None = None
        records = self._sampled
        for wi, since in pending:
            if not free_left and fitting:
                # nothing more can be placed and something fits: only a first violation is left
                if violating or nr or young:
                    break
                if since > cutoff:
                    continue
            rec = records.get(wi.key)
            if rec is None or rec[0] is not wi or rec[1] != cq.name:
                rec = self._sample_record(cq, wi)
            _, _, parent, reducible, largest, steps, simple = rec
            if steps is None:   # no flavor, no resource group: evaluate's verdicts say which
                continue
            if parent:
                if parents is None:   # ConcurrentAdmission: see evaluate
                    parents = {uid for w in cq.workloads.values() if (uid := parent_ref(w.obj)[1])}
                if parent in parents:
                    continue
            placing_only = False
            if not reducible:
                if _exceeds(largest, room):   # no flavor can take it
                    continue
                # whether it fits alone changes nothing recorded (something fits, and it cannot be
                # the first violation): only where it is placed is left to know
                placing_only = fitting and (violating or nr or since > cutoff)
                if placing_only and (not free_left or _exceeds(largest, free_room)):
                    continue   # and what is left cannot take it
            # the quota nominal would give: pending work taken in queue order until it is used up
            placed: Mapping[FR, int] | None = None
            if free_left:
                if simple is not None:   # one flavor for all: the first fit is that flavor's
                    placed = simple if all(free.get(fr, 0) >= x for fr, x in simple.items()) else None
                else:
                    placed = _fit_within(steps, free)
            if placed is not None:
                if placed:
                    for fr, v in placed.items():
                        free[fr] -= v
                        pending_fits[fr] = pending_fits.get(fr, 0) + v
                    free_left = any(v > 0 for v in free.values())
                    free_room = _room(free)
            elif placing_only:
                continue
            # guaranteed when it alone fits what the queue leaves unused
            alone = placed if placed is not None else _fit_within(steps, unused)
            if alone is None and reducible:
                placed, alone = self._partial(cq, wi, free, unused, pending_fits)
                if placed:
                    free_left = any(v > 0 for v in free.values())
                    free_room = _room(free)
            if alone is None:
                continue
            fitting = True
            if since <= cutoff:
                violating = True
        return pending_fits, fitting, violating or nr

    def _partial(self, cq: ClusterQueueSnapshot, wi: WorkloadInfo, free: dict[FR, int], unused: Mapping[FR, int],
                 pending_fits: dict[FR, int]) -> tuple[dict[FR, int] | None, dict[FR, int] | None]:
        """PartialAdmission: Kueue admits fewer pods, down to each pod set's minCount. (What the
        least admissible part takes of ``free``, taken off it and added to ``pending_fits``; what
        it alone would take of ``unused``), None where it does not fit."""
        least = self.plan(cq, wi, minimal=True)
        if isinstance(least, Fit) or not least[0]:
            return None, None
        placed = _fit_within(least[0], free)
        if placed is not None:
            for fr, v in placed.items():
                free[fr] -= v
                pending_fits[fr] = pending_fits.get(fr, 0) + v
        return placed, placed if placed is not None else _fit_within(least[0], unused)

    def _sample_record(self, cq: ClusterQueueSnapshot, wi: WorkloadInfo) -> _SampleRecord:
        """What ``sample`` reads of a pending workload: (``wi``, queue, parent uid, reducible,
        largest pod-set totals, plan steps or None when no flavor can take it, and the steps'
        usage when they are one flavor each)."""
        facts = self._workload_facts.get(wi.key)
        if facts is None or facts[0] is not wi:
            facts = self._facts(wi)
        plan = self.plan(cq, wi)
        steps: tuple[Step, ...] | None = None
        simple: dict[FR, int] | None = None
        if not isinstance(plan, Fit) and (plan[0] or not plan[1]):
            steps = plan[0]
            if all(len(flavors) == 1 for flavors, _ in steps):
                simple = {}
                for flavors, wanted in steps:
                    for r, x in wanted.items():
                        fr = (flavors[0], r)
                        simple[fr] = simple.get(fr, 0) + x
        rec = self._sampled[wi.key] = (wi, cq.name, parent_ref(wi.obj)[1], facts[1],
                                       tuple(facts[2].items()), steps, simple)
        return rec

    def plan(self, cq: ClusterQueueSnapshot, wi: WorkloadInfo, minimal: bool = False) -> Plan | Fit:
        """Per pod-set group and resource group: the eligible flavors and what the group needs
        (``minimal``: with every pod set at its minCount, as partial admission may take it)."""
        ck = (cq.name + "#min", wi.key) if minimal else (cq.name, wi.key)
        cached = self._plans.get(ck)
        if cached is not None and cached[0] is wi:
            return cached[1]
        plan = self._make_plan(cq, wi, minimal)
        self._plans[ck] = (wi, plan)
        return plan

    def _facts(self, wi: WorkloadInfo) -> tuple[WorkloadInfo, bool, dict[str, int]]:
        """(``wi``, may partial admission take fewer pods, the largest pod-set total per resource)."""
        reducible = self.config.gate("PartialAdmission") and any(
            ps.min_count is not None and ps.min_count < ps.count for ps in wi.pod_sets)
        largest: dict[str, int] = {}
        for ps in wi.pod_sets:   # no flavor with less room than this can take the workload
            for r, v in ps.total().items():
                if v > largest.get(r, 0):
                    largest[r] = v
        facts = self._workload_facts[wi.key] = (wi, reducible, largest)
        return facts

    def _make_plan(self, cq: ClusterQueueSnapshot, wi: WorkloadInfo, minimal: bool = False) -> Plan | Fit:
        allowed = allowed_flavors(wi, self.config)
        ignore_undeclared = ignores_undeclared(self.config)
        covers_pods = cq.covers("pods")
        steps: list[Step] = []
        excluded: list[str] = []
        for ids in _pod_set_groups(wi):
            req: dict[str, int] = {}
            for i in ids:
                ps = wi.pod_sets[i]
                if minimal and ps.min_count is not None and ps.min_count < ps.count:
                    ps = ps.scaled_to(ps.min_count)
                for r, v in ps.total().items():
                    req[r] = req.get(r, 0) + v
                if covers_pods:
                    req["pods"] = req.get("pods", 0) + ps.count
            specs = [wi.obj.pod_sets[i].template for i in ids if i < len(wi.obj.pod_sets)]
            done: set[str] = set()
            for res, v in req.items():
                if res in done or v == 0:
                    continue
                group = cq.group_for(res)
                if group is None:
                    if ignore_undeclared:
                        continue
                    return Fit.RESOURCE_NOT_COVERED
                usable = []
                for fname in group.flavors:
                    if allowed is not None and fname not in allowed:
                        excluded.append(f"flavor {fname} is not in the workload's allowed flavors")
                        continue
                    problem = flavor_problem(fname, self.flavors.get(fname), specs)
                    if problem:
                        excluded.append(problem)
                        continue
                    usable.append(fname)
                wanted = {r: x for r, x in req.items() if r in group.covered and x}
                done.update(wanted)
                if not usable:
                    return ((), tuple(dict.fromkeys(excluded)))
                steps.append((tuple(usable), wanted))
        return tuple(steps), tuple(dict.fromkeys(excluded))

    def forget(self, key: WorkloadKey) -> None:
        """Drop what is cached for a workload that is gone (the simulator calls this)."""
        self._workload_facts.pop(key, None)
        self._sampled.pop(key, None)
        for k in [k for k in self._plans if k[1] == key]:
            del self._plans[k]


def _room(free: Mapping[FR, int]) -> dict[str, int]:
    """Per resource, what the roomiest flavor has: work needing more of it fits no flavor."""
    room: dict[str, int] = {}
    for fr, v in free.items():
        room[fr[1]] = max(room.get(fr[1], 0), v)
    return room


def _exceeds(need: Iterable[tuple[str, int]], room: Mapping[str, int]) -> bool:
    """Some resource needs more than ``room`` has (a loop: no generator on the sampler's path)."""
    for r, v in need:  # noqa: SIM110
        if v > room.get(r, 0):
            return True
    return False


def saturated(cq: ClusterQueueSnapshot) -> bool:
    """At or above its nominal quota on every (flavor, resource): the queue guarantees its pending
    work nothing more, and ``Evaluator.evaluate`` reads that work only for its verdicts."""
    usage = cq.node.usage
    return all(usage.get(fr, 0) >= q.nominal for fr, q in cq.node.quotas.items())


def _pod_set_groups(wi: WorkloadInfo) -> list[list[int]]:
    """Pod sets that share a podSetGroupName take one flavor together, as Kueue assigns them."""
    groups: dict[str, list[int]] = {}
    for i in range(len(wi.pod_sets)):
        tr = wi.obj.pod_sets[i].topology_request if i < len(wi.obj.pod_sets) else None
        key = str(i)
        if isinstance(tr, dict) and tr.get("podSetGroupName"):
            key = "g:" + str(tr["podSetGroupName"])
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def _fit_within(steps: Sequence[Step], free: Mapping[FR, int]) -> dict[FR, int] | None:
    """Flavors (first that fits, in the queue's order) under which the work fits in ``free``."""
    placed: dict[FR, int] = {}
    for flavors, wanted in steps:
        for flavor in flavors:
            for r, x in wanted.items():
                if free.get((flavor, r), 0) - placed.get((flavor, r), 0) < x:
                    break
            else:
                for r, x in wanted.items():
                    placed[(flavor, r)] = placed.get((flavor, r), 0) + x
                break
        else:
            return None
    return placed


def _earliest(a: datetime | None, b: datetime) -> datetime:
    return b if a is None or b < a else a
