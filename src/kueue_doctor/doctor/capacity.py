"""Can the nodes honour the nominal quotas? Facts for the ``quota-misconfiguration`` cause.

DESIGN.md, Words: *a guarantee that cannot be honoured* is a flavor whose nominal quotas add
up to more than the Ready, schedulable capacity of the nodes the flavor selects. Kueue never
looks at nodes when it admits (outside TAS): it admits against quota, and work admitted beyond
what the nodes hold stays unschedulable. This module states, per (ResourceFlavor, resource)
that some ClusterQueue or Cohort gives nominal quota for, what is promised and what the nodes
can hold, and turns the shortfalls into cause candidates.

Pure: no I/O, no clock. Two entry points, kept apart so the doctor can call either:

- :func:`capacity_facts` builds a :class:`CapacityReport` (typed, frozen facts, integers only;
  cpu in millicores, everything else in units, as the engine counts them);
- :func:`quota_misconfiguration_causes` turns a report into :class:`~.findings.Cause` candidates.

Decisions (each shows in the facts, so a reader can undo it):

- **Which nodes a flavor selects.** A node whose labels contain every ``nodeLabels`` pair of the
  flavor (Kueue injects these as a node selector into the pods it admits on the flavor). A
  flavor without ``nodeLabels`` selects every node; ``selects_all_nodes`` says so, because the
  check is then weak: the capacity counted is an upper bound (it includes nodes meant for other
  flavors), so a pass proves little while a shortfall is certain.
- **Which of them count.** Only Ready (``Ready`` condition ``True``), schedulable (not
  ``spec.unschedulable``) nodes without an untolerated taint make up ``ready_capacity``.
  A node whose ``Ready`` is ``False``/``Unknown`` is NotReady; a node with no ``Ready`` condition
  at all (hand-written or stripped snapshots) is *ready-unknown*, counted apart: we do not know
  it is Ready, so it does not back the guarantee, but a shortfall it would cover is reported
  with lower confidence.
- **Taints.** A NoSchedule/NoExecute taint that is neither one of the flavor's ``nodeTaints``
  (Kueue only admits workloads that tolerate those) nor tolerated by the flavor's
  ``tolerations`` (Kueue adds those to the pods) keeps the flavor's pods off the node unless the
  workload itself tolerates it. Kueue does not require that toleration before it admits, so such
  a node backs the guarantee only for some workloads: it is left out of ``ready_capacity`` and
  listed as *tainted* (``tainted_nodes``), its amount in ``doubtful_capacity``. A shortfall that
  the tainted (or ready-unknown) nodes would cover is reported with lower confidence: clusters
  often add such tolerations to every GPU pod (ExtendedResourceToleration, webhooks).
- **Inactive ClusterQueues** (stopPolicy, missing flavor, cohort cycle) still count in
  ``nominal_total``: their quota is still promised in their spec, a stopped (Hold) queue keeps
  its running work, and the fix for an inactive queue reactivates the promise. ``nominal_active``
  is the sum without them; a shortfall that needs their quota gets lower confidence.
- **Cluster-wide sums.** Every ClusterQueue and every Cohort's own ``resourceGroups`` count,
  whatever cohort tree they belong to: different trees still share the same nodes.
- **Overlapping flavors.** When two flavors select some of the same nodes, those nodes' capacity
  backs both flavors' quotas, so each per-flavor check can pass while their sum cannot be met.
  For every group of flavors connected through shared nodes, the check runs on every connected
  subset of two or more flavors (Hall's condition: a set of flavors can be honoured together
  only if the Ready nodes any of them may use hold their summed quota); the tightest subset is
  reported. Groups larger than :data:`MAX_EXHAUSTIVE` flavors are only checked as a whole
  (``exhaustive`` False).
- **Latent shortfalls.** ``reserved_total`` is the quota Kueue has reserved right now on the
  pair (the engine's usage of every ClusterQueue). While it is below ``ready_capacity`` the
  shortfall holds no admitted work off the nodes yet (``binding`` False): the cause is then
  reported with low confidence, since it cannot explain work that waits today. Once Kueue has
  reserved all the Ready nodes hold (always so when they hold nothing), any further admission
  within nominal quota cannot run.
- **Cannot tell.** With no Node objects at all, the report's status is ``unknown`` and it holds
  no per-flavor facts: never "fine".
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from itertools import combinations

from ..api import objects as o
from ..api.quantity import format_amount
from ..api.state import ClusterState
from ..engine.config import EngineConfig
from ..engine.eligibility import tolerates
from ..engine.quota import FR
from ..engine.snapshot import QuotaSnapshot, build_snapshot, inactive_reason, quotas_of
from .findings import Cause, CauseId, Confidence

CAUSE_ID = CauseId.QUOTA_MISCONFIGURATION
NO_NODES_REASON = "no Nodes read: collect `kubectl get nodes -o yaml`"
# Overlap groups up to this many flavors are checked on every connected subset (2**12 subsets).
MAX_EXHAUSTIVE = 12
TAINT_EFFECTS = ("NoSchedule", "NoExecute")


class CapacityStatus(StrEnum):
    KNOWN = "known"
    UNKNOWN = "unknown"


class NodeState(StrEnum):
    """How a node the flavor selects stands, first matching state wins (in this order)."""
    NOT_READY = "not-ready"            # Ready condition False or Unknown
    READY_UNKNOWN = "ready-unknown"    # no Ready condition at all
    CORDONED = "cordoned"              # spec.unschedulable
    TAINTED = "tainted"                # Ready, schedulable, an untolerated NoSchedule/NoExecute taint
    READY = "ready"                    # backs the guarantee


class QuotaKind(StrEnum):
    CLUSTER_QUEUE = "ClusterQueue"
    COHORT = "Cohort"


@dataclass(frozen=True, slots=True)
class QuotaShare:
    """One ClusterQueue's or Cohort's own nominal quota for the pair."""
    kind: QuotaKind
    name: str
    nominal: int
    cohort: str          # the cohort it is in (a Cohort: its parent); "" when none
    cohort_root: str     # the root of its cohort tree (a root Cohort: itself); "" when none or in a cycle
    active: bool         # ClusterQueues: Kueue's active state; Cohorts: False only when in a cycle
    inactive_reason: str = ""
    reserved: int = 0    # quota Kueue has reserved on the pair now (ClusterQueues only)


@dataclass(frozen=True, slots=True)
class NodeCapacity:
    """A node a flavor selects, and what it holds of the resource (allocatable)."""
    name: str
    state: NodeState
    amount: int
    taint: str = ""      # the untolerated taint, for TAINTED nodes ("key=value:Effect")


class _Promise:
    """What follows from a promise (``nominal_total``) against the Ready nodes behind it."""
    __slots__ = ()
    nominal_total: int
    reserved_total: int
    ready_capacity: int

    @property
    def misconfigured(self) -> bool:
        return self.nominal_total > self.ready_capacity

    @property
    def shortfall(self) -> int:
        return max(0, self.nominal_total - self.ready_capacity)

    @property
    def binding(self) -> bool:
        """Kueue has already reserved as much as the Ready nodes hold: more admitted work cannot run."""
        return self.misconfigured and self.reserved_total >= self.ready_capacity


@dataclass(frozen=True, slots=True)
class FlavorCapacity(_Promise):
    """What is promised on one (flavor, resource) and what the flavor's nodes can hold."""
    flavor: str
    resource: str
    flavor_found: bool                     # False: no such ResourceFlavor, it selects no node
    selects_all_nodes: bool                # the flavor has no nodeLabels (a weak check)
    node_labels: tuple[tuple[str, str], ...]
    nominal_total: int                     # every ClusterQueue and Cohort, cluster-wide
    nominal_active: int                    # the same without inactive ClusterQueues / cyclic Cohorts
    quotas: tuple[QuotaShare, ...]
    reserved_total: int                    # quota reserved now by the ClusterQueues on the pair
    ready_capacity: int                    # READY nodes
    doubtful_capacity: int                 # TAINTED and READY_UNKNOWN nodes
    total_capacity: int                    # every selected node, whatever its state
    nodes: tuple[NodeCapacity, ...]
    ready_nodes: tuple[str, ...]
    not_ready_nodes: tuple[str, ...]
    ready_unknown_nodes: tuple[str, ...]
    cordoned_nodes: tuple[str, ...]
    tainted_nodes: tuple[str, ...]
    shared_with: tuple[str, ...]           # other flavors with quota for the resource on some same node

    @property
    def cluster_queues(self) -> tuple[str, ...]:
        """ClusterQueues with a non-zero nominal quota on the pair."""
        return tuple(q.name for q in self.quotas if q.kind is QuotaKind.CLUSTER_QUEUE and q.nominal > 0)


@dataclass(frozen=True, slots=True)
class OverlapCapacity(_Promise):
    """Flavors sharing nodes for one resource; the numbers are those of the ``tightest`` subset."""
    resource: str
    flavors: tuple[str, ...]               # the flavors connected through shared nodes
    shared_nodes: tuple[str, ...]          # nodes two or more of them select
    tightest: tuple[str, ...]              # the subset whose quota is furthest over (or closest to) its nodes
    nominal_total: int
    nominal_active: int
    reserved_total: int
    ready_capacity: int                    # READY nodes any flavor of ``tightest`` may use (each counted once)
    doubtful_capacity: int
    exhaustive: bool                       # every connected subset was checked


@dataclass(frozen=True, slots=True)
class CapacityReport:
    status: CapacityStatus
    reason: str = ""                       # why the status is UNKNOWN
    nodes_read: int = 0
    flavors: tuple[FlavorCapacity, ...] = ()
    overlaps: tuple[OverlapCapacity, ...] = ()

    @property
    def misconfigured(self) -> bool | None:
        """None when it cannot be told; otherwise whether any flavor or overlap falls short."""
        if self.status is CapacityStatus.UNKNOWN:
            return None
        return any(f.misconfigured for f in self.flavors) or any(x.misconfigured for x in self.overlaps)

    def get(self, flavor: str, resource: str) -> FlavorCapacity | None:
        for f in self.flavors:
            if f.flavor == flavor and f.resource == resource:
                return f
        return None


# -- the fact builder -------------------------------------------------------------------------

def capacity_facts(state: ClusterState, snapshot: QuotaSnapshot | None = None) -> CapacityReport:
    """Nominal quota against node capacity, per (flavor, resource) that has any nominal quota.

    ``snapshot`` (the doctor's ``ctx.model.snapshot``) supplies the quota Kueue has reserved;
    without it one is built from ``state``. Quotas and cohort roots are read from the objects,
    not the snapshot's tree, because the snapshot unlinks inactive ClusterQueues and drops cohorts
    in cycles while their quota is still promised.
    """
    if not state.nodes:
        return CapacityReport(CapacityStatus.UNKNOWN, NO_NODES_REASON)
    if snapshot is None:
        snapshot = build_snapshot(state, EngineConfig())
    shares = _quota_shares(state, snapshot)
    nodes = [state.nodes[n] for n in sorted(state.nodes)]

    per_flavor: dict[FR, FlavorCapacity] = {}
    selected: dict[FR, frozenset[str]] = {}
    for fr in sorted(shares):
        fname, resource = fr
        flavor = state.resource_flavors.get(fname)
        caps = _node_capacities(flavor, resource, nodes)
        selected[fr] = frozenset(c.name for c in caps)
        per_flavor[fr] = _flavor_fact(fname, resource, flavor, shares[fr], caps)

    overlaps: list[OverlapCapacity] = []
    for resource in sorted({r for _, r in per_flavor}):
        facts = {f: fc for (f, r), fc in per_flavor.items() if r == resource}
        sel = {f: selected[(f, resource)] for f in facts}
        neighbours = {f: tuple(sorted(g for g in facts if g != f and sel[f] & sel[g])) for f in facts}
        for f, fc in facts.items():
            if neighbours[f]:
                per_flavor[(f, resource)] = replace(fc, shared_with=neighbours[f])
        for group in _components(neighbours):
            if len(group) >= 2:
                overlaps.append(_overlap_fact(resource, group, {f: per_flavor[(f, resource)] for f in group},
                                              neighbours))
    return CapacityReport(CapacityStatus.KNOWN, "", len(state.nodes),
                          tuple(per_flavor[fr] for fr in sorted(per_flavor)), tuple(overlaps))


def _cohort_root(name: str, cohorts: dict[str, o.Cohort]) -> tuple[str, bool]:
    """(root, in a cycle) of a cohort; a cohort named but without an object is its own root."""
    seen: list[str] = []
    n = name
    while True:
        if n in seen:
            return "", True
        seen.append(n)
        co = cohorts.get(n)
        parent = co.parent if co is not None else ""
        if not parent:
            return n, False
        n = parent


def _quota_shares(state: ClusterState, snapshot: QuotaSnapshot) -> dict[FR, list[QuotaShare]]:
    out: dict[FR, list[QuotaShare]] = {}
    for name in sorted(state.cluster_queues):
        cq = state.cluster_queues[name]
        root, cycle = _cohort_root(cq.cohort, state.cohorts) if cq.cohort else ("", False)
        reason = inactive_reason(cq, state, cycle)
        cqs = snapshot.cluster_queues.get(name) or snapshot.inactive.get(name)
        usage = cqs.node.usage if cqs is not None else {}
        for fr, q in quotas_of(cq.resource_groups).items():
            out.setdefault(fr, []).append(QuotaShare(QuotaKind.CLUSTER_QUEUE, name, q.nominal, cq.cohort, root,
                                                     not reason, reason, usage.get(fr, 0)))
    for name in sorted(state.cohorts):
        co = state.cohorts[name]
        root, cycle = _cohort_root(name, state.cohorts)
        for fr, q in quotas_of(co.resource_groups).items():
            out.setdefault(fr, []).append(QuotaShare(QuotaKind.COHORT, name, q.nominal, co.parent, root,
                                                     not cycle, "CohortCycle" if cycle else ""))
    return out


def _taint_text(t: o.Taint) -> str:
    return f"{t.key}={t.value}:{t.effect}" if t.value else f"{t.key}:{t.effect}"


def _untolerated(node: o.Node, flavor: o.ResourceFlavor) -> o.Taint | None:
    for taint in node.taints:
        if taint.effect not in TAINT_EFFECTS:
            continue
        if any(t.key == taint.key and t.value == taint.value and t.effect == taint.effect
               for t in flavor.node_taints):
            continue  # Kueue admits on the flavor only workloads that tolerate its nodeTaints
        if any(tolerates(t, taint) for t in flavor.tolerations):
            continue
        return taint
    return None


def _node_capacities(flavor: o.ResourceFlavor | None, resource: str, nodes: list[o.Node]) -> list[NodeCapacity]:
    if flavor is None:
        return []
    out = []
    for node in nodes:
        labels = node.meta.labels
        if any(labels.get(k) != v for k, v in flavor.node_labels.items()):
            continue
        alloc = node.allocatable or node.capacity
        qty = alloc.get(resource)
        amount = qty.amount(resource) if qty is not None else 0
        ready = node.ready()
        taint = None
        if ready is False:
            st = NodeState.NOT_READY
        elif ready is None:
            st = NodeState.READY_UNKNOWN
        elif node.unschedulable:
            st = NodeState.CORDONED
        else:
            taint = _untolerated(node, flavor)
            st = NodeState.TAINTED if taint is not None else NodeState.READY
        out.append(NodeCapacity(node.meta.name, st, amount, _taint_text(taint) if taint is not None else ""))
    return out


def _names(caps: Iterable[NodeCapacity], state: NodeState) -> tuple[str, ...]:
    return tuple(c.name for c in caps if c.state is state)


def _flavor_fact(fname: str, resource: str, flavor: o.ResourceFlavor | None, shares: list[QuotaShare],
                 caps: list[NodeCapacity]) -> FlavorCapacity:
    nominal = sum(q.nominal for q in shares)
    ready = sum(c.amount for c in caps if c.state is NodeState.READY)
    return FlavorCapacity(
        flavor=fname, resource=resource, flavor_found=flavor is not None,
        selects_all_nodes=flavor is not None and not flavor.node_labels,
        node_labels=tuple(sorted(flavor.node_labels.items())) if flavor is not None else (),
        nominal_total=nominal, nominal_active=sum(q.nominal for q in shares if q.active),
        quotas=tuple(shares), reserved_total=sum(q.reserved for q in shares),
        ready_capacity=ready,
        doubtful_capacity=sum(c.amount for c in caps if c.state in (NodeState.TAINTED, NodeState.READY_UNKNOWN)),
        total_capacity=sum(c.amount for c in caps), nodes=tuple(caps),
        ready_nodes=_names(caps, NodeState.READY), not_ready_nodes=_names(caps, NodeState.NOT_READY),
        ready_unknown_nodes=_names(caps, NodeState.READY_UNKNOWN), cordoned_nodes=_names(caps, NodeState.CORDONED),
        tainted_nodes=_names(caps, NodeState.TAINTED), shared_with=())


def _components(neighbours: dict[str, tuple[str, ...]]) -> list[tuple[str, ...]]:
    seen: set[str] = set()
    out = []
    for start in sorted(neighbours):
        if start in seen:
            continue
        group, todo = set(), [start]
        while todo:
            f = todo.pop()
            if f in group:
                continue
            group.add(f)
            todo.extend(neighbours[f])
        seen |= group
        out.append(tuple(sorted(group)))
    return out


def _connected(subset: tuple[str, ...], neighbours: dict[str, tuple[str, ...]]) -> bool:
    members = set(subset)
    reached, todo = set(), [subset[0]]
    while todo:
        f = todo.pop()
        if f in reached:
            continue
        reached.add(f)
        todo.extend(g for g in neighbours[f] if g in members)
    return reached == members


def _union(facts: Iterable[FlavorCapacity], states: tuple[NodeState, ...]) -> int:
    """Capacity of the nodes in ``states`` for any of the flavors, each node counted once."""
    amounts: dict[str, int] = {}
    for fc in facts:
        for c in fc.nodes:
            if c.state in states:
                amounts[c.name] = c.amount
    return sum(amounts.values())


def _overlap_fact(resource: str, group: tuple[str, ...], facts: dict[str, FlavorCapacity],
                  neighbours: dict[str, tuple[str, ...]]) -> OverlapCapacity:
    count: dict[str, int] = {}
    for fc in facts.values():
        for c in fc.nodes:
            count[c.name] = count.get(c.name, 0) + 1
    shared = tuple(sorted(n for n, k in count.items() if k >= 2))
    exhaustive = len(group) <= MAX_EXHAUSTIVE
    if exhaustive:
        subsets = [s for k in range(2, len(group) + 1) for s in combinations(group, k) if _connected(s, neighbours)]
    else:
        subsets = [group]
    best: tuple[tuple[int, int, tuple[str, ...]], tuple[str, ...], int, int] | None = None
    for s in subsets:
        nominal = sum(facts[f].nominal_total for f in s)
        ready = _union((facts[f] for f in s), (NodeState.READY,))
        key = (ready - nominal, len(s), s)  # least slack first, then the smaller subset
        if best is None or key < best[0]:
            best = (key, s, nominal, ready)
    assert best is not None
    _, tight, nominal, ready = best
    tf = [facts[f] for f in tight]
    return OverlapCapacity(
        resource=resource, flavors=group, shared_nodes=shared, tightest=tight, nominal_total=nominal,
        nominal_active=sum(f.nominal_active for f in tf), reserved_total=sum(f.reserved_total for f in tf),
        ready_capacity=ready,
        doubtful_capacity=_union(tf, (NodeState.READY, NodeState.TAINTED, NodeState.READY_UNKNOWN)) - ready,
        exhaustive=exhaustive)


# -- cause candidates -------------------------------------------------------------------------

_LEVELS = ("high", "medium", "low")


def _confidence(doubts: int) -> str:
    return _LEVELS[min(doubts, 2)]


def quota_misconfiguration_causes(report: CapacityReport) -> list[Cause]:
    """One ``quota-misconfiguration`` candidate per (flavor, resource) that falls short, and one per
    group of overlapping flavors whose tightest subset falls short while some of its flavors pass
    alone. An UNKNOWN report gives none (the report's reason says what to collect).

    Confidence starts high (the quota exceeds Ready nodes it selects by its labels) and drops a
    level for each doubt: the flavor does not exist; tainted or ready-unknown nodes would cover
    the shortfall; only inactive queues' quota makes it short. A latent shortfall (Kueue has reserved
    less than the Ready nodes hold, ``binding`` False) is low: it explains no work waiting today.
    """
    if report.status is CapacityStatus.UNKNOWN:
        return []
    by_fr = {(f.flavor, f.resource): f for f in report.flavors}
    out = [_flavor_cause(f) for f in report.flavors if f.misconfigured]
    for x in report.overlaps:
        if not x.misconfigured or all(by_fr[(f, x.resource)].misconfigured for f in x.tightest):
            continue
        out.append(_overlap_cause(x, [by_fr[(f, x.resource)] for f in x.tightest]))
    return out


def _amt(resource: str, amount: int) -> str:
    return format_amount(resource, amount)


def _quota_lines(fc: FlavorCapacity) -> list[str]:
    lines = []
    for q in fc.quotas:
        if q.nominal == 0:
            continue
        where = f"cohort {q.cohort}, root {q.cohort_root or '?'}" if q.cohort else "no cohort"
        state = "" if q.active else f", inactive ({q.inactive_reason})"
        lines.append(f"{q.kind} {q.name} ({where}{state}): nominal {_amt(fc.resource, q.nominal)} "
                     f"{fc.resource} on {fc.flavor}")
    return lines


def _node_lines(fc: FlavorCapacity) -> list[str]:
    r = fc.resource
    lines = []
    if not fc.flavor_found:
        lines.append(f"ResourceFlavor {fc.flavor} does not exist: it selects no node")
    elif fc.selects_all_nodes:
        lines.append(f"flavor {fc.flavor} has no nodeLabels: it selects every node, so its capacity is an upper bound")
    elif not fc.nodes:
        labels = ",".join(f"{k}={v}" for k, v in fc.node_labels)
        lines.append(f"no node carries flavor {fc.flavor}'s nodeLabels {labels}")
    if fc.flavor_found:
        lacking = [c.name for c in fc.nodes if c.state is NodeState.READY and c.amount == 0]
        lines.append(f"{len(fc.ready_nodes)} Ready, schedulable node(s) selected by {fc.flavor} hold "
                     f"{_amt(r, fc.ready_capacity)} {r}"
                     + (f" ({len(lacking)} of them have no allocatable {r})" if lacking else ""))
    for c in fc.nodes:
        if c.state is NodeState.NOT_READY:
            lines.append(f"node {c.name} is NotReady ({_amt(r, c.amount)} {r} not counted)")
        elif c.state is NodeState.READY_UNKNOWN:
            lines.append(f"node {c.name} has no Ready condition ({_amt(r, c.amount)} {r} not counted)")
        elif c.state is NodeState.CORDONED:
            lines.append(f"node {c.name} is cordoned ({_amt(r, c.amount)} {r} not counted)")
        elif c.state is NodeState.TAINTED:
            lines.append(f"node {c.name} has taint {c.taint} that flavor {fc.flavor} does not tolerate "
                         f"({_amt(r, c.amount)} {r} not counted)")
    if fc.shared_with:
        lines.append(f"nodes of {fc.flavor} also back the quota of flavor(s) {', '.join(fc.shared_with)}")
    return lines


def _doubts(found: bool, nominal: int, nominal_active: int, ready: int, doubtful: int) -> list[str]:
    doubts = []
    if not found:
        doubts.append("the flavor does not exist (the queues naming it are inactive)")
    if nominal <= ready + doubtful:
        doubts.append("the tainted or ready-unknown nodes would cover it if the workloads tolerate them / "
                      "they are Ready")
    if nominal_active <= ready:
        doubts.append("only the quota of inactive queues makes it short")
    return doubts


def _flavor_cause(fc: FlavorCapacity) -> Cause:
    r = fc.resource
    doubts = _doubts(fc.flavor_found, fc.nominal_total, fc.nominal_active, fc.ready_capacity, fc.doubtful_capacity)
    latent = not fc.binding
    confidence = "low" if latent else _confidence(len(doubts))
    queues = list(fc.cluster_queues)
    summary = (f"Nominal quotas for {r} on flavor {fc.flavor} add up to {_amt(r, fc.nominal_total)} but its Ready, "
               f"schedulable nodes hold {_amt(r, fc.ready_capacity)}: {_amt(r, fc.shortfall)} of the guarantee "
               f"of {', '.join(queues) or 'its cohorts'} cannot be honoured.")
    if latent:
        summary += (f" Latent: {_amt(r, fc.reserved_total)} is reserved now, within what the nodes hold, "
                    "so it holds no admitted work off the nodes yet.")
    evidence = _quota_lines(fc) + _node_lines(fc)
    evidence.append(f"reserved now on {fc.flavor}: {_amt(r, fc.reserved_total)} {r}")
    evidence += [f"doubt: {d}" for d in doubts]
    return Cause(CAUSE_ID, Confidence(confidence), queues, [], summary, evidence, _remedy(fc))


def _remedy(fc: FlavorCapacity) -> str:
    r = fc.resource
    parts = [f"lower the nominal quotas of {', '.join(q.name for q in fc.quotas if q.nominal > 0)} for "
             f"{fc.flavor}/{r} by {_amt(r, fc.shortfall)} in total"]
    down = fc.not_ready_nodes + fc.ready_unknown_nodes + fc.cordoned_nodes
    if down:
        parts.append(f"recover or uncordon {', '.join(down)}")
    if fc.tainted_nodes:
        parts.append(f"add the tolerations for {', '.join(sorted({c.taint for c in fc.nodes if c.taint}))} "
                     f"to flavor {fc.flavor} if its workloads may run there")
    parts.append("add nodes")
    if not fc.flavor_found:
        parts.append(f"recreate ResourceFlavor {fc.flavor} or remove it from the queues")
    elif fc.selects_all_nodes or not fc.nodes:
        parts.append(f"fix flavor {fc.flavor}'s nodeLabels so they select the nodes meant to back it")
    else:
        parts.append(f"fix flavor {fc.flavor}'s nodeLabels if they miss nodes meant to back it")
    text = "; or ".join(parts)
    return text[0].upper() + text[1:] + "."


def _overlap_cause(x: OverlapCapacity, facts: list[FlavorCapacity]) -> Cause:
    r = x.resource
    doubts = _doubts(all(f.flavor_found for f in facts), x.nominal_total, x.nominal_active, x.ready_capacity,
                     x.doubtful_capacity)
    latent = not x.binding
    queues: list[str] = []
    for f in facts:
        queues += [q for q in f.cluster_queues if q not in queues]
    names = ", ".join(x.tightest)
    summary = (f"Flavors {names} select some of the same nodes: their nominal quotas for {r} add up to "
               f"{_amt(r, x.nominal_total)} but the Ready nodes any of them may use hold "
               f"{_amt(r, x.ready_capacity)}, so their guarantees cannot all be honoured at once "
               f"({_amt(r, x.shortfall)} short) although each flavor alone may fit.")
    if latent:
        summary += f" Latent: {_amt(r, x.reserved_total)} is reserved now, within what the nodes hold."
    evidence = [f"flavor {f.flavor}: nominal {_amt(r, f.nominal_total)}, Ready capacity {_amt(r, f.ready_capacity)}"
                for f in facts]
    evidence.append(f"nodes selected by two or more of {', '.join(x.flavors)}: {len(x.shared_nodes)} "
                    f"({', '.join(x.shared_nodes[:10])}{', ...' if len(x.shared_nodes) > 10 else ''})")
    if not x.exhaustive:
        evidence.append(f"{len(x.flavors)} overlapping flavors: only checked as a whole")
    for f in facts:
        evidence += _quota_lines(f)
    evidence += [f"doubt: {d}" for d in doubts]
    remedy = (f"Make the nodeLabels of {names} select disjoint nodes (the usual intent), or lower their nominal "
              f"quotas for {r} by {_amt(r, x.shortfall)} in total, or add nodes.")
    return Cause(CAUSE_ID, Confidence("low" if latent else _confidence(len(doubts))), queues, [], summary, evidence,
                 remedy)
