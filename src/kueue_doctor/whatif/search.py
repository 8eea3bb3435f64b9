"""The four kinds of change that admit a pending workload, each searched over the engine.

Every candidate change is tried by ``replay`` on the changed state; nothing is inferred from
the quota arithmetic alone. Amounts are searched by bisection, which assumes that more quota,
a higher priority or fewer running workloads never admit less (Kueue's admission is monotone
in these); the answer is then checked to be the smallest: one step less does not admit.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from ..api import objects as o
from ..api.pods import index_pods
from ..api.quantity import format_amount, is_bytes
from ..api.state import ClusterState
from ..duration import go
from ..engine.config import EngineConfig
from ..engine.workload import WorkloadInfo
from ..keys import WorkloadKey
from ..kueue.constants import WORKLOAD_PRIORITY_CLASS_SOURCE
from . import patches as p
from .replay import Outcome, replay, tree_of

MI = 1 << 20
# finish: sets of up to this many workloads are tried exhaustively (fewest first, then least
# resource), within TRIAL_BUDGET engine runs; past it, a greedy set made one-minimal
MAX_FINISH_SET = 3
TRIAL_BUDGET = 400
DOUBLINGS = 6          # quota: how far above current + request the upper bound is looked for


def unit(resource: str) -> int:
    """The step of a searched amount, in Kueue's units: 1 Mi for bytes (written as kubectl
    writes them, Mi or Gi), 1 millicore for cpu, 1 otherwise (whole GPUs)."""
    return MI if is_bytes(resource) else 1


def resource_order(resource: str) -> tuple[int, str]:
    """Scarce first: extended resources (GPUs), then cpu, then memory and storage."""
    return (2 if is_bytes(resource) else 1 if resource == "cpu" else 0, resource)


@dataclass
class Search:
    state: ClusterState          # scoped to the workload's cohort tree
    config: EngineConfig
    key: WorkloadKey
    now: datetime
    cq: str
    api: dict[str, str]
    trials: int = 0
    budget_spent: bool = False
    notes: list[str] = field(default_factory=list)
    # of the whole snapshot, not the scoped tree: how long workloads ran, and their Jobs' deadlines
    history: dict[str, list[float]] = field(default_factory=dict)
    deadlines: dict[WorkloadKey, float] = field(default_factory=dict)

    @functools.cached_property
    def owned(self) -> dict[WorkloadKey, list[o.Pod]]:
        """Which pods are whose: the same for every trial state (they change workloads' fields only)."""
        return index_pods(self.state)[0]

    def finished(self, keys: list[WorkloadKey]) -> ClusterState:
        """The state with these workloads deactivated, their quota and pods gone."""
        return p.deactivated(self.state, keys, self.owned if self.state.pods else None)

    def admits(self, state: ClusterState) -> Outcome:
        self.trials += 1
        return replay(state, self.config, self.key, self.now)

    @property
    def workload(self) -> o.Workload:
        return self.state.workloads[self.key]

    def requests(self) -> dict[str, int]:
        """Resource -> total request of the workload (all pods of every pod set)."""
        wi = WorkloadInfo(self.workload, self.config.gate("ReclaimablePods"), key=self.key)
        out: dict[str, int] = {}
        for ps in wi.pod_sets:
            for r, v in ps.total().items():
                out[r] = out.get(r, 0) + v
        return {r: v for r, v in out.items() if v}

    def tree(self) -> set[str]:
        return tree_of(self.state, self.cq)


def _victims(out: Outcome) -> list[str]:
    return [str(k) for k in out.victims]


def flavors_of(out: Outcome) -> dict[str, dict[str, str]]:
    return {ps: dict(sorted(fl.items())) for ps, fl in out.flavors.items()}


# -- queue: an inactive ClusterQueue or a held LocalQueue ---------------------------------
def queue_changes(s: Search) -> Iterator[dict[str, Any]]:
    """Make the workload's queues admit at all: a ClusterQueue that lists a missing
    ResourceFlavor (those flavors removed) or is stopped, a LocalQueue on hold."""
    state, w = s.state, s.workload
    lq = state.local_queues.get((s.key.namespace, w.queue_name))
    changed = state
    pats: list[dict[str, Any]] = []
    what: list[str] = []
    if lq is not None and lq.stop_policy not in ("", "None"):
        changed = p.with_local_queue(changed, dataclasses.replace(lq, stop_policy="None"))
        pats.append(p.patch(s.api, "LocalQueue", lq.meta.name, lq.meta.namespace, {"spec": {"stopPolicy": "None"}}))
        what.append(f"LocalQueue {lq.meta.namespace}/{lq.meta.name}: stopPolicy {lq.stop_policy} -> None")
    cq = state.cluster_queues.get(s.cq)
    if cq is not None:
        new_cq = cq
        spec: dict[str, Any] = {}
        if cq.stop_policy not in ("", "None"):
            new_cq = dataclasses.replace(new_cq, stop_policy="None")
            spec["stopPolicy"] = "None"
            what.append(f"ClusterQueue {cq.meta.name}: stopPolicy {cq.stop_policy} -> None")
        missing = {f.name for g in cq.resource_groups for f in g.flavors} - set(state.resource_flavors)
        if missing:
            groups = p.without_flavors(cq.resource_groups, missing)
            new_cq = dataclasses.replace(new_cq, resource_groups=groups)
            spec["resourceGroups"] = p.resource_groups_json(groups)
            what.append(f"ClusterQueue {cq.meta.name}: remove missing ResourceFlavor "
                        f"{', '.join(sorted(missing))} from resourceGroups")
        if spec:
            changed = p.with_cluster_queue(changed, new_cq)
            pats.append(p.patch(s.api, "ClusterQueue", cq.meta.name, "", {"spec": spec}))
    if not pats:
        return
    out = s.admits(changed)
    if out.admitted:
        yield {"kind": "queue", "summary": "; ".join(what), "patches": pats,
               "preempts": _victims(out), "flavors": flavors_of(out)}
    else:
        s.notes.append(f"{'; '.join(what)} would not admit it alone")


# -- finish -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Running:
    key: WorkloadKey
    cq: str
    usage: tuple[tuple[tuple[str, str], int], ...]      # ((flavor, resource), amount), sorted
    ends_in: float | None                               # seconds, None: unknown
    expected: float | None = None                       # median seconds still to run, from history
    expected_from: str = ""                             # which history

    def size(self) -> tuple[int, ...]:
        by_r: dict[str, int] = {}
        for (_, r), v in self.usage:
            by_r[r] = by_r.get(r, 0) + v
        return tuple(by_r.get(r, 0) for r in sorted(by_r, key=resource_order))


def expected_end(w: o.Workload, now: datetime, job_deadline: float | None = None) -> float | None:
    """Seconds until the workload ends at the latest: Kueue ends it by its
    maximumExecutionTimeSeconds (set from the Job's ``kueue.x-k8s.io/max-exec-time-seconds``
    label), the Job controller by the Job's activeDeadlineSeconds, counted from its admission
    (the Job is unsuspended then); None when nothing bounds it."""
    elapsed = _elapsed(w, now)
    limits = [x for x in (w.maximum_execution_time_seconds, job_deadline) if x is not None]
    if elapsed is None or not limits:
        return None
    return max(0.0, min(limits) - elapsed)


def _elapsed(w: o.Workload, now: datetime) -> float | None:
    adm = w.condition("Admitted") or w.condition("QuotaReserved")
    if adm is None or adm.status != "True" or adm.last_transition_time is None:
        return None
    return max(0.0, (now - adm.last_transition_time).total_seconds())


def typical_end(history: dict[str, list[float]], pooled: list[float], cq: str, elapsed: float | None,
                bound: float | None) -> tuple[float | None, str]:
    """The median time still to run of a workload that has run ``elapsed`` seconds, among the
    finished workloads of its ClusterQueue (``pooled``, the snapshot's, when its queue has none)
    that ran longer than that (as the forecast draws them), capped by ``bound``; and which history."""
    seen, where = history.get(cq), f"ClusterQueue {cq}"
    if not seen:
        seen, where = pooled, "the snapshot"
    if elapsed is None or not seen:
        return None, ""
    longer = [d for d in seen if d > elapsed]
    if not longer:
        return None, f"it has run longer than all {len(seen)} finished workloads of {where}"
    rest = float(np.median(longer)) - elapsed
    n = len(longer)
    return (min(rest, bound) if bound is not None else rest,
            f"median of {n} finished workload{'s' if n != 1 else ''} of {where} that ran longer")


def selected_nodes(state: ClusterState, rf: o.ResourceFlavor) -> set[str]:
    """The nodes a flavor's node labels select."""
    return {n for n, node in state.nodes.items()
            if all(node.meta.labels.get(k) == v for k, v in rf.node_labels.items())}


def finish_scope(s: Search) -> tuple[set[str], set[str]]:
    """The ClusterQueues and flavors whose running workloads can free what the workload needs:
    its cohort tree's, on its queue's flavors; for a TAS pod set also every queue's on a flavor
    that selects some of the same nodes, in any tree, since a domain's capacity is shared by
    everything on its nodes (a candidate that frees nothing it needs is dropped by the cycle)."""
    state = s.state
    flavors = {f.name for g in state.cluster_queues[s.cq].resource_groups for f in g.flavors}
    cqs = s.tree()
    if any(ps.topology is not None for ps in s.workload.pod_sets) and state.nodes:
        mine: set[str] = set()
        for f in flavors:
            if f in state.resource_flavors and state.resource_flavors[f].topology_name:
                mine |= selected_nodes(state, state.resource_flavors[f])
        shared = {n for n, rf in state.resource_flavors.items() if selected_nodes(state, rf) & mine}
        flavors |= shared
        cqs = cqs | {n for n, c in state.cluster_queues.items()
                     if any(f.name in shared for g in c.resource_groups for f in g.flavors)}
    return cqs, flavors


def running(s: Search, cqs: set[str], flavors: set[str] | None = None) -> list[Running]:
    if flavors is None:
        flavors = {f.name for g in s.state.cluster_queues[s.cq].resource_groups for f in g.flavors}
    wanted = set(s.requests())
    pooled = sorted(d for v in s.history.values() for d in v)
    out = []
    for k, w in sorted(s.state.workloads.items()):
        adm = w.status.admission
        if adm is None or not w.is_true("QuotaReserved") or w.is_true("Finished") or not w.active:
            continue
        if adm.cluster_queue not in cqs:
            continue
        wi = WorkloadInfo(w, s.config.gate("ReclaimablePods"), key=k)
        usage = tuple(sorted((fr, v) for fr, v in wi.usage.items() if v))
        if not any(f in flavors and r in wanted for (f, r), _ in usage):
            continue
        bound = expected_end(w, s.now, s.deadlines.get(k))
        typical, source = typical_end(s.history, pooled, adm.cluster_queue, _elapsed(w, s.now), bound)
        out.append(Running(k, adm.cluster_queue, usage, bound, typical, source))
    return out


def _finish_suggestion(s: Search, chosen: list[Running], out: Outcome, exhaustive: bool) -> dict[str, Any]:
    items = []
    for r in chosen:
        items.append({"workload": str(r.key), "clusterQueue": r.cq,
                      "usage": [{"flavor": f, "resource": res, "amount": format_amount(res, v)}
                                for (f, res), v in r.usage],
                      "endsIn": r.ends_in if r.ends_in is not None else "unknown",
                      "expectedEndIn": r.expected, "expectedFrom": r.expected_from})
    names = ", ".join(str(r.key) for r in chosen)
    one = len(chosen) == 1
    bounds = [r.ends_in for r in chosen if r.ends_in is not None]
    typical = [r.expected for r in chosen if r.expected is not None]
    if len(typical) == len(chosen):
        # the set is freed when the last of it ends
        when = f"; {'it is' if one else 'all are'} expected to end in about {go(round(max(typical)))}"
        if len(bounds) == len(chosen):
            when += f", within {go(round(max(bounds)))} at the latest"
    elif len(bounds) == len(chosen):
        when = f"; {'it' if one else 'all'} will have ended within {go(round(max(bounds)))} at the latest"
    else:
        why = chosen[0].expected_from if one and chosen[0].expected_from else ""
        when = f"; when {'it ends' if one else 'they end'} is unknown" + (f" ({why})" if why else "")
    return {"kind": "finish",
            "summary": f"{len(chosen)} workload{'s' if len(chosen) != 1 else ''} must finish or be preempted: "
                       f"{names}{when}",
            "workloads": items, "minimal": "fewest" if exhaustive else "no-one-less",
            "patches": [p.patch(s.api, "Workload", r.key.name, r.key.namespace, {"spec": {"active": False}})
                        for r in chosen],
            "preempts": _victims(out), "flavors": flavors_of(out)}


def finish_changes(s: Search) -> Iterator[dict[str, Any]]:
    """The fewest admitted workloads (then the least resource) whose end admits it. Workloads
    of one ClusterQueue with the same usage, priority and eviction state are interchangeable
    to the cycle: one stands for its class (the one expected to end first), so sets are tried
    over classes."""
    cands = running(s, *finish_scope(s))
    if not cands:
        return
    classes: dict[tuple, list[Running]] = {}
    for r in cands:
        w = s.state.workloads[r.key]
        # preemption tells them apart by priority and by whether they are already being evicted
        classes.setdefault((r.cq, r.usage, w.priority or 0, w.is_true("Evicted")), []).append(r)
    for members in classes.values():
        members.sort(key=lambda r: (r.ends_in is None, r.ends_in or 0.0, r.key))
    reps = list(classes.values())
    hopeless = _hopeless_alone(s, classes)
    for k in range(1, MAX_FINISH_SET + 1):
        combos = []
        for combo in itertools.combinations_with_replacement(range(len(reps)), k):
            counts: dict[int, int] = {}
            for i in combo:
                counts[i] = counts.get(i, 0) + 1
            if any(c > len(reps[i]) for i, c in counts.items()):
                continue
            chosen = [m for i, c in counts.items() for m in reps[i][:c]]
            total = tuple(sum(col) for col in itertools.zip_longest(*(r.size() for r in chosen), fillvalue=0))
            combos.append((total, chosen))
        combos.sort(key=lambda t: (t[0], [r.key for r in t[1]]))
        for _, chosen in combos:
            if k == 1 and chosen[0].key in hopeless:
                continue
            if s.trials >= TRIAL_BUDGET:
                s.budget_spent = True
                break
            out = s.admits(s.finished([r.key for r in chosen]))
            if out.admitted:
                yield _finish_suggestion(s, chosen, out, exhaustive=True)
                return
        if s.budget_spent:
            break
    yield from _greedy_finish(s, cands)


def _dominates(a: Running, b: Running) -> bool:
    ua, ub = dict(a.usage), dict(b.usage)
    return all(ua.get(fr, 0) >= v for fr, v in ub.items())


def _hopeless_alone(s: Search, classes: dict[tuple, list[Running]]) -> set[WorkloadKey]:
    """Representatives that cannot admit it alone, known from one engine run per group: in a
    group of one ClusterQueue, priority and eviction state, when the class that frees the most
    of everything (if one does) does not admit it, no class of the group does alone."""
    groups: dict[tuple, list[Running]] = {}
    for (cq, _usage, prio, evicted), members in classes.items():
        groups.setdefault((cq, prio, evicted), []).append(members[0])
    out: set[WorkloadKey] = set()
    for reps in groups.values():
        if len(reps) < 2:
            continue
        top = max(reps, key=lambda r: (r.size(), r.key))
        if all(_dominates(top, r) for r in reps) and not s.admits(s.finished([top.key])).admitted:
            out.update(r.key for r in reps)
    return out


def _greedy_finish(s: Search, cands: list[Running]) -> Iterator[dict[str, Any]]:
    """Past the exhaustive sizes: the shortest prefix of the largest-first order that admits
    (by bisection), then each member dropped in turn while it still admits."""
    order = sorted(cands, key=lambda r: (tuple(-x for x in r.size()), r.key))
    keys = [r.key for r in order]
    if not s.admits(s.finished(keys)).admitted:
        return
    lo, hi = 0, len(order)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if s.admits(s.finished(keys[:mid])).admitted:
            hi = mid
        else:
            lo = mid
    chosen = order[:hi]
    for r in sorted(chosen, key=lambda r: (r.size(), r.key)):
        rest = [c for c in chosen if c is not r]
        if rest and s.admits(s.finished([c.key for c in rest])).admitted:
            chosen = rest
    out = s.admits(s.finished([c.key for c in chosen]))
    if out.admitted:
        yield _finish_suggestion(s, chosen, out, exhaustive=False)


# -- quota --------------------------------------------------------------------------------
@dataclass
class QuotaSite:
    """One place a quota could be raised: an object's field for one flavor."""
    kind: str                   # ClusterQueue | Cohort
    name: str
    quota_field: str            # nominalQuota | borrowingLimit | lendingLimit
    flavor: str
    groups: list[o.ResourceGroup]
    ceiling: dict[str, int] = field(default_factory=dict)   # resource -> highest value allowed

    def current(self, resource: str) -> int | None:
        rq = p.quota_of(self.groups, self.flavor, resource)
        if rq is None:
            return None
        q = getattr(rq, p.QUOTA_FIELDS[self.quota_field])
        return None if q is None else q.amount(resource)


def _sites(s: Search, need: dict[str, int]) -> list[QuotaSite]:
    state = s.state
    cq = state.cluster_queues[s.cq]
    flavors = [f.name for g in cq.resource_groups for f in g.flavors]
    sites: list[QuotaSite] = []
    for f in flavors:
        sites.append(QuotaSite("ClusterQueue", s.cq, "nominalQuota", f, cq.resource_groups))
        sites.append(QuotaSite("ClusterQueue", s.cq, "borrowingLimit", f, cq.resource_groups))
        cohort, seen = cq.cohort, set()
        while cohort and cohort not in seen:
            seen.add(cohort)
            co = state.cohorts.get(cohort)
            if co is None:
                break
            sites.append(QuotaSite("Cohort", cohort, "nominalQuota", f, co.resource_groups))
            sites.append(QuotaSite("Cohort", cohort, "borrowingLimit", f, co.resource_groups))
            cohort = co.parent
        for other in sorted(s.tree() - {s.cq}):
            ocq = state.cluster_queues[other]
            site = QuotaSite("ClusterQueue", other, "lendingLimit", f, ocq.resource_groups)
            for r in need:
                rq = p.quota_of(ocq.resource_groups, f, r)
                if rq is not None and rq.lending_limit is not None:
                    site.ceiling[r] = rq.nominal_quota.amount(r)
            if site.ceiling:
                sites.append(site)
    # a limit that is not set is no limit: nothing to raise
    return [x for x in sites if any(x.current(r) is not None for r in need)]


def _apply_site(s: Search, site: QuotaSite, amounts: dict[str, int]) -> tuple[ClusterState, list[o.ResourceGroup]]:
    groups = p.with_quotas(site.groups, site.flavor, site.quota_field, amounts)
    if site.kind == "ClusterQueue":
        cq = s.state.cluster_queues[site.name]
        return p.with_cluster_queue(s.state, dataclasses.replace(cq, resource_groups=groups)), groups
    co = s.state.cohorts[site.name]
    return p.with_cohort(s.state, dataclasses.replace(co, resource_groups=groups)), groups


def _search_site(s: Search, site: QuotaSite, need: dict[str, int]) -> dict[str, Any] | None:
    resources = sorted((r for r in need if site.current(r) is not None
                        and (site.quota_field != "lendingLimit" or r in site.ceiling)), key=resource_order)
    if not resources:
        return None
    cur = {r: site.current(r) or 0 for r in resources}

    def admits(amounts: dict[str, int]) -> Outcome:
        return s.admits(_apply_site(s, site, amounts)[0])

    def aligned(r: str, v: int) -> int:
        u = unit(r)
        return -(-v // u) * u

    # an upper bound that admits: each resource raised by the request, doubled until it does
    if site.quota_field == "lendingLimit":
        hi = {r: site.ceiling[r] for r in resources}
        if not admits(hi).admitted:
            return None
    else:
        step = {r: max(need[r], unit(r)) for r in resources}
        for d in range(DOUBLINGS):
            hi = {r: aligned(r, cur[r] + step[r] * (1 << d)) for r in resources}
            if admits(hi).admitted:
                break
            if s.trials >= TRIAL_BUDGET:
                s.budget_spent = True
                return None
        else:
            return None
    # each resource in turn down to its smallest admitting amount, the others where they are:
    # with monotone admission one step less of any of them then fails
    found = dict(hi)
    for r in resources:
        u = unit(r)
        if admits({**found, r: cur[r]}).admitted:
            found[r] = cur[r]
            continue
        lo_units, hi_units = cur[r] // u, found[r] // u     # lo_units * u <= cur[r]: does not admit
        while hi_units - lo_units > 1:
            mid = (lo_units + hi_units) // 2
            if admits({**found, r: mid * u}).admitted:
                hi_units = mid
            else:
                lo_units = mid
        found[r] = hi_units * u
    changes = {r: v for r, v in found.items() if v != cur[r]}
    if not changes:
        return None
    state, groups = _apply_site(s, site, found)
    out = s.admits(state)
    if not out.admitted:       # not monotone here: say nothing rather than guess
        return None
    words = ", ".join(f"{r} {format_amount(r, cur[r])} -> {format_amount(r, v)}" for r, v in changes.items())
    return {"kind": "quota",
            "summary": f"raise {site.quota_field} of {site.kind} {site.name} for flavor {site.flavor}: {words}",
            "object": {"kind": site.kind, "name": site.name}, "field": site.quota_field, "flavor": site.flavor,
            "changes": [{"resource": r, "from": format_amount(r, cur[r]), "to": format_amount(r, v),
                         "step": format_amount(r, unit(r))} for r, v in changes.items()],
            "delta": {r: v - cur[r] for r, v in changes.items()},
            "patches": [p.patch(s.api, site.kind, site.name, "",
                                {"spec": {"resourceGroups": p.resource_groups_json(groups)}})],
            "preempts": _victims(out), "flavors": flavors_of(out)}


def quota_changes(s: Search, limit: int = 3) -> list[dict[str, Any]]:
    """The smallest quota raises, smallest first (scarce resources compared first), at most ``limit``."""
    need = s.requests()
    found = []
    for site in _sites(s, need):
        sug = _search_site(s, site, need)
        if sug is not None:
            found.append(sug)
        if s.budget_spent:
            break

    def size(sug: dict[str, Any]) -> tuple:
        d = sug["delta"]
        return (len(d), tuple(d.get(r, 0) for r in sorted(need, key=resource_order)),
                sug["object"]["kind"] != "ClusterQueue" or sug["object"]["name"] != s.cq)
    found.sort(key=size)
    for sug in found:
        sug["delta"] = {r: format_amount(r, v) for r, v in sug["delta"].items()}
    return found[:limit]


# -- priority -----------------------------------------------------------------------------
def _with_priority(s: Search, value: int, wpc: o.WorkloadPriorityClass | None) -> ClusterState:
    w = s.workload
    changed = dataclasses.replace(w, priority=value)
    if wpc is not None:
        changed.priority_class_name, changed.priority_class_source = wpc.meta.name, WORKLOAD_PRIORITY_CLASS_SOURCE
    return p.with_workloads(s.state, {s.key: changed})


def _lowest(lo: int, hi: int, admits: Callable[[int], bool]) -> int:
    """The smallest v in (lo, hi] that admits, given that hi does and lo does not."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if admits(mid):
            hi = mid
        else:
            lo = mid
    return hi


def priority_changes(s: Search) -> Iterator[dict[str, Any]]:
    """The lowest priority at which it preempts its way in: an existing WorkloadPriorityClass
    when one suffices, else a value. A victim's priority must be strictly lower than the
    preemptor's (upstream pkg/scheduler/preemption/preemption.go, ``LowerPriority`` candidates
    and the cohort's ``reclaimWithinCohort``/``borrowWithinCohort`` thresholds), so above the
    highest priority admitted in the tree nothing more can be gained."""
    w = s.workload
    base = w.priority if w.priority is not None else 0
    tree = s.tree()
    top = max((x.priority or 0 for x in s.state.workloads.values()
               if x.status.admission is not None and x.status.admission.cluster_queue in tree), default=base)
    hi = max(top + 1, base + 1)

    def admits(v: int) -> bool:
        return s.admits(_with_priority(s, v, None)).admitted
    if not admits(hi):
        return
    value = _lowest(base, hi, admits)
    classes = sorted((c for c in s.state.priority_classes.values() if c.value >= value),
                     key=lambda c: (c.value, c.meta.name))
    wpc = next((c for c in classes if s.admits(_with_priority(s, c.value, c)).admitted), None)
    final = wpc.value if wpc else value
    out = s.admits(_with_priority(s, final, wpc))
    if not out.admitted:
        return
    spec: dict[str, Any] = {"priority": final}
    if wpc is not None:
        if s.api["Workload"].endswith("/v1beta1"):
            spec["priorityClassName"] = wpc.meta.name
            spec["priorityClassSource"] = WORKLOAD_PRIORITY_CLASS_SOURCE
        else:
            spec["priorityClassRef"] = {"group": p.KUEUE_GROUP, "kind": "WorkloadPriorityClass", "name": wpc.meta.name}
    what = f"WorkloadPriorityClass {wpc.meta.name} (value {wpc.value})" if wpc else f"priority {final}"
    victims = _victims(out)
    yield {"kind": "priority",
           "summary": f"raise its priority from {base} to {what}"
                      + (f"; it would preempt {', '.join(victims)}" if victims else ""),
           "from": base, "to": final, "lowestValue": value, "priorityClass": wpc.meta.name if wpc else None,
           "patches": [p.patch(s.api, "Workload", s.key.name, s.key.namespace, {"spec": spec})],
           "preempts": victims, "flavors": flavors_of(out)}


# -- flavor -------------------------------------------------------------------------------
def flavor_changes(s: Search, raw: Callable[[str, str, str], dict[str, Any] | None] | None,
                   limit: int = 2) -> Iterator[dict[str, Any]]:
    """Another flavor of its ClusterQueue it would fit on now, reached by its pod sets' node
    selector: the keys of the queue's flavors' node labels are replaced by that flavor's. The
    patch gives ``spec.podSets`` in full (a merge patch replaces lists), so it is made from the
    object as written (``raw``); without it the change is only a note."""
    cq = s.state.cluster_queues[s.cq]
    names = list(dict.fromkeys(f.name for g in cq.resource_groups for f in g.flavors))
    flavors = [s.state.resource_flavors[n] for n in names if n in s.state.resource_flavors]
    keys = {k for rf in flavors for k in rf.node_labels}
    w = s.workload
    found = 0
    for rf in flavors:
        if not rf.node_labels or found >= limit:
            continue
        selectors = {ps.name: {**{k: v for k, v in ps.template.node_selector.items() if k not in keys},
                               **rf.node_labels} for ps in w.pod_sets}
        if all(selectors[ps.name] == ps.template.node_selector for ps in w.pod_sets):
            continue
        pod_sets = [dataclasses.replace(ps, template=dataclasses.replace(ps.template, node_selector=selectors[ps.name]))
                    for ps in w.pod_sets]
        out = s.admits(p.with_workloads(s.state, {s.key: dataclasses.replace(w, pod_sets=pod_sets)}))
        if not out.admitted or any(f != rf.meta.name for fl in out.flavors.values() for f in fl.values()):
            continue
        sel = ", ".join(f"{k}={v}" for k, v in sorted(rf.node_labels.items()))
        obj = raw("Workload", s.key.namespace, s.key.name) if raw is not None else None
        if obj is None:
            s.notes.append(f"it would fit on flavor {rf.meta.name} with nodeSelector {sel}; the source keeps no "
                           f"object as written to make the patch from (read a folder)")
            continue
        raw_sets = [dict(x) for x in (obj.get("spec") or {}).get("podSets") or []]
        for x in raw_sets:
            tmpl = dict(x.get("template") or {})
            spec = dict(tmpl.get("spec") or {})
            spec["nodeSelector"] = selectors.get(str(x.get("name") or "main"), rf.node_labels)
            tmpl["spec"] = spec
            x["template"] = tmpl
        found += 1
        yield {"kind": "flavor",
               "summary": f"run it on flavor {rf.meta.name}: nodeSelector {sel} on its pod sets (on the Job's pod "
                          f"template too, which Kueue makes the Workload from)",
               "flavor": rf.meta.name, "nodeSelector": dict(sorted(rf.node_labels.items())),
               "patches": [p.patch(s.api, "Workload", s.key.name, s.key.namespace, {"spec": {"podSets": raw_sets}})],
               "preempts": _victims(out), "flavors": flavors_of(out)}


PREFERRED_ANNOTATION = "kueue.x-k8s.io/podset-preferred-topology"
REQUIRED_ANNOTATION = "kueue.x-k8s.io/podset-required-topology"


def _raw_topology(raw_set: dict[str, Any], level: str, mode: str) -> dict[str, Any]:
    """A pod set as written with its required topology asked at ``level`` as ``mode`` (``required``:
    a looser level still held to; ``preferred``: spread if it must), in the field and annotations it
    was written with (topologyRequest, the pod template's annotations)."""
    x = dict(raw_set)
    tr = dict(x.get("topologyRequest") or {})
    if tr.get("required"):
        tr.pop("required")
        tr[mode] = level
        x["topologyRequest"] = tr
    tmpl = dict(x.get("template") or {})
    meta = dict(tmpl.get("metadata") or {})
    ann = dict(meta.get("annotations") or {})
    if REQUIRED_ANNOTATION in ann:
        ann.pop(REQUIRED_ANNOTATION)
        ann[PREFERRED_ANNOTATION if mode == "preferred" else REQUIRED_ANNOTATION] = level
        meta["annotations"] = ann
        tmpl["metadata"] = meta
        x["template"] = tmpl
    return x


def looser_levels(state: ClusterState, level: str) -> list[str]:
    """The levels above ``level`` in the Topologies that have it, nearest first (rack -> block):
    a required level there still keeps the pod set in one domain, only a larger one."""
    out: list[str] = []
    for t in sorted(state.topologies.values(), key=lambda t: t.meta.name):
        if level in t.levels:
            out += [lvl for lvl in reversed(t.levels[:t.levels.index(level)]) if lvl not in out]
    return out


def _topology_trial(s: Search, levels: dict[str, str], mode: str) -> Outcome:
    """The cycle on the state where each named pod set asks for its level as ``mode``."""
    w = s.workload
    def asked(ps: o.PodSet) -> o.PodSet:
        if ps.name not in levels or ps.topology is None:
            return ps
        fields: dict[str, Any] = {"required": None, "preferred": ps.topology.preferred, mode: levels[ps.name]}
        return dataclasses.replace(ps, topology=dataclasses.replace(ps.topology, **fields))
    pod_sets = [asked(ps) for ps in w.pod_sets]
    return s.admits(p.with_workloads(s.state, {s.key: dataclasses.replace(w, pod_sets=pod_sets)}))


def topology_changes(s: Search, raw: Callable[[str, str, str], dict[str, Any] | None] | None
                     ) -> Iterator[dict[str, Any]]:
    """TAS: the nearest looser level still required (rack -> block: one larger domain), else the
    required level as preferred (Kueue then spreads the pod set over the fewest domains it can);
    each checked by the cycle like every other change."""
    w = s.workload
    required = {ps.name: str(ps.topology.required) for ps in w.pod_sets
                if ps.topology is not None and ps.topology.required}
    if not required:
        return
    found: tuple[dict[str, str], str, Outcome] | None = None
    # one pod set's looser level at a time would leave others unchanged; loosening all together
    # by one step is the smaller change when there are several (rare: usually one pod set)
    ladders = {n: looser_levels(s.state, lvl) for n, lvl in required.items()}
    for step in range(max((len(v) for v in ladders.values()), default=0)):
        levels = {n: (ladders[n][min(step, len(ladders[n]) - 1)] if ladders[n] else lvl)
                  for n, lvl in required.items()}
        out = _topology_trial(s, levels, "required")
        if out.admitted:
            found = (levels, "required", out)
            break
    if found is None:
        out = _topology_trial(s, required, "preferred")
        if not out.admitted:
            return
        found = (required, "preferred", out)
    levels, mode, out = found
    if mode == "required":
        what = ", ".join(f"pod set {n}: required {levels[n]} instead of {lvl}" for n, lvl in required.items())
        annotation = REQUIRED_ANNOTATION
    else:
        what = ", ".join(f"pod set {n}: preferred {lvl}" for n, lvl in required.items())
        annotation = PREFERRED_ANNOTATION
    obj = raw("Workload", s.key.namespace, s.key.name) if raw is not None else None
    if obj is None:
        s.notes.append(f"it would fit with {what}; the source keeps no object as written to make the patch from")
        return
    raw_sets = [_raw_topology(dict(x), levels[str(x.get("name") or "main")], mode)
                if str(x.get("name") or "main") in levels else dict(x)
                for x in (obj.get("spec") or {}).get("podSets") or []]
    patches = [p.patch(s.api, "Workload", s.key.name, s.key.namespace, {"spec": {"podSets": raw_sets}})]
    summary = (f"let it spread: {what} instead of required" if mode == "preferred"
               else f"hold it to a larger domain: {what}")
    yield {"kind": "topology",
           "summary": f"{summary} (annotation {annotation} on the Job's pod template too, which Kueue makes "
                      f"the Workload from)",
           "topology": levels, "mode": mode, "patches": patches, "preempts": _victims(out), "flavors": flavors_of(out)}
