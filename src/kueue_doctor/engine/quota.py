"""The quota tree: ClusterQueues and Cohorts, subtree quota, usage, what can be borrowed.

Upstream: pkg/cache/scheduler/resource_node.go (SubtreeQuota, localQuota, addUsage,
removeUsage, available, potentialAvailable), clusterqueue_snapshot.go,
preemption/classical/hierarchical_preemption.go (FindHeightOfLowestSubtreeThatFits).
Amounts are ints: millicores for cpu, units otherwise.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

FR = tuple[str, str]
# the usage of a node on a resource, as some view of the tree holds it
UsageOf = Callable[["QuotaNode", FR], int]


@dataclass(slots=True)
class Quota:
    nominal: int = 0
    borrowing_limit: int | None = None
    lending_limit: int | None = None


class QuotaNode:
    """A ClusterQueue or a Cohort in the tree."""

    __slots__ = ("children", "is_cq", "local", "name", "parent", "quotas", "subtree", "usage", "weight")

    def __init__(self, name: str, is_cq: bool, quotas: dict[FR, Quota], weight: float = 1.0):
        self.name = name
        self.is_cq = is_cq
        self.parent: QuotaNode | None = None
        self.children: list[QuotaNode] = []
        self.quotas = quotas
        self.subtree: dict[FR, int] = {}
        self.usage: dict[FR, int] = {}
        self.weight = weight
        self.local: dict[FR, int] = {}   # localQuota per fr, derived in recompute_subtree

    # -- structure -----------------------------------------------------------------
    def has_parent(self) -> bool:
        return self.parent is not None

    def ancestors(self) -> Iterator[QuotaNode]:
        n = self.parent
        while n is not None:
            yield n
            n = n.parent

    def root(self) -> QuotaNode:
        n = self
        while n.parent is not None:
            n = n.parent
        return n

    def child_cqs(self) -> list[QuotaNode]:
        return [c for c in self.children if c.is_cq]

    def child_cohorts(self) -> list[QuotaNode]:
        return [c for c in self.children if not c.is_cq]

    def height(self) -> int:
        if self.is_cq:
            return 0
        h = min(len(self.children), 1)
        for c in self.children:
            if not c.is_cq:
                h = max(h, c.height() + 1)
        return h

    # -- static aggregation --------------------------------------------------------
    def local_quota(self, fr: FR) -> int:
        return self.local.get(fr, 0)

    def _derive_local(self) -> None:
        self.local = {fr: max(0, self.subtree.get(fr, 0) - q.lending_limit)
                      for fr, q in self.quotas.items() if q.lending_limit is not None}

    def nominal(self, fr: FR) -> int:
        q = self.quotas.get(fr)
        return q.nominal if q is not None else 0

    def borrowing_limit(self, fr: FR) -> int | None:
        q = self.quotas.get(fr)
        return q.borrowing_limit if q is not None else None

    # -- usage -----------------------------------------------------------------------
    def local_available(self, fr: FR) -> int:
        return max(0, self.local.get(fr, 0) - self.usage.get(fr, 0))

    def add_usage(self, fr: FR, v: int) -> None:
        """What goes past the local quota's free part goes up; a negative amount (a reserve over
        the borrowing limit) never does, as upstream's addUsage has it."""
        n = self
        while True:
            used = n.usage.get(fr, 0)
            la = max(0, n.local.get(fr, 0) - used)
            n.usage[fr] = used + v
            if n.parent is None or v <= la:
                return
            v -= la
            n = n.parent

    def remove_usage(self, fr: FR, v: int) -> None:
        n = self
        while True:
            used = n.usage.get(fr, 0)
            stored = used - n.local.get(fr, 0)
            n.usage[fr] = used - v
            if stored <= 0 or n.parent is None:
                return
            if stored < v:
                v = stored
            n = n.parent

    def add_usages(self, usage: dict[FR, int]) -> None:
        for fr, v in usage.items():
            self.add_usage(fr, v)

    def remove_usages(self, usage: dict[FR, int]) -> None:
        for fr, v in usage.items():
            self.remove_usage(fr, v)

    # -- capacity ------------------------------------------------------------------
    def available_raw(self, fr: FR, used: UsageOf | None = None) -> int:
        """``used``: the usage to read instead of the tree's own (RemovalShadow.used)."""
        u = self.usage.get(fr, 0) if used is None else used(self, fr)
        if self.parent is None:
            return self.subtree.get(fr, 0) - u
        pa = self.parent.available_raw(fr, used)
        bl = self.borrowing_limit(fr)
        lq = self.local.get(fr, 0)
        if bl is not None:
            stored = self.subtree.get(fr, 0) - lq
            pa = min(stored - max(0, u - lq) + bl, pa)
        return max(0, lq - u) + pa

    def available(self, fr: FR) -> int:
        """What a ClusterQueue can still admit on ``fr`` (never negative)."""
        return max(0, self.available_raw(fr))

    def potential_available(self, fr: FR) -> int:
        if self.parent is None:
            return self.subtree.get(fr, 0)
        a = self.local_quota(fr) + self.parent.potential_available(fr)
        bl = self.borrowing_limit(fr)
        if bl is not None:
            a = min(self.subtree.get(fr, 0) + bl, a)
        return a

    # -- borrowing ----------------------------------------------------------------
    def borrowing_with(self, fr: FR, v: int) -> bool:
        if self.is_cq:
            return self.nominal(fr) < self.usage.get(fr, 0) + v
        return self.usage.get(fr, 0) + v > self.subtree.get(fr, 0)

    def borrowing(self, fr: FR) -> bool:
        return self.borrowing_with(fr, 0)

    def within_nominal_in(self, frs: Iterable[FR]) -> bool:
        """IsWithinNominalInResources: subtree quota covers usage on every fr."""
        return all(self.subtree.get(fr, 0) >= self.usage.get(fr, 0) for fr in frs)

    def find_height(self, fr: FR, val: int) -> tuple[int, bool]:
        """(height of the lowest subtree that can host ``val`` more, may reclaim in hierarchy)."""
        if not self.borrowing_with(fr, val) or self.parent is None:
            return 0, self.parent is not None
        remaining = val - self.local_available(fr)
        for node in self.ancestors():
            if not node.borrowing_with(fr, remaining):
                return node.height(), node.parent is not None
            remaining -= node.local_available(fr)
        return self.root().height(), False

    def quantities_fit_in_quota(self, req: dict[FR, int]) -> tuple[bool, dict[FR, int]]:
        fits = True
        remaining: dict[FR, int] = {}
        for fr, v in req.items():
            if self.subtree.get(fr, 0) < self.usage.get(fr, 0) + v:
                fits = False
            remaining[fr] = max(0, v - self.local_available(fr))
        return fits, remaining

    def __repr__(self) -> str:
        return f"{'CQ' if self.is_cq else 'Cohort'}({self.name})"


def link(child: QuotaNode, parent: QuotaNode) -> None:
    child.parent = parent
    parent.children.append(child)


def recompute_subtree(node: QuotaNode) -> None:
    """SubtreeQuota bottom-up (updateCohortResourceNode + accumulateFromChild)."""
    if node.is_cq:
        node.subtree = {fr: q.nominal for fr, q in node.quotas.items()}
        node._derive_local()
        return
    sub = {fr: q.nominal for fr, q in node.quotas.items()}
    for c in node.children:
        recompute_subtree(c)
        for fr, v in c.subtree.items():
            sub[fr] = sub.get(fr, 0) + v - c.local_quota(fr)
    node.subtree = sub
    node._derive_local()


def recompute_usage(node: QuotaNode) -> None:
    """Cohort usage from children (used after building; add/remove keep it in step)."""
    if node.is_cq:
        return
    usage: dict[FR, int] = {}
    for c in node.children:
        recompute_usage(c)
        for fr, v in c.usage.items():
            usage[fr] = usage.get(fr, 0) + max(0, v - c.local_quota(fr))
    node.usage = usage


class UsageJournal:
    """The usage of every node of each tree a cycle changes, as it was before the first change.

    Restoring it ends the cycle exactly. Undoing each change by the inverse walk does not: a
    negative add passes nothing up, so a later remove_usage of it (which does pass up) is not its
    inverse once other changes came between (upstream never undoes: its snapshot is per cycle)."""

    __slots__ = ("saved",)

    def __init__(self) -> None:
        self.saved: dict[int, list[tuple[QuotaNode, dict[FR, int]]]] = {}

    def touch(self, node: QuotaNode) -> None:
        """Call before ``node``'s tree changes for the rest of the cycle."""
        root = node.root()
        if id(root) in self.saved:
            return
        nodes = []
        stack = [root]
        while stack:
            n = stack.pop()
            nodes.append((n, dict(n.usage)))
            stack.extend(n.children)
        self.saved[id(root)] = nodes

    def restore(self) -> None:
        for nodes in self.saved.values():
            for n, usage in nodes:
                n.usage.clear()
                n.usage.update(usage)
        self.saved.clear()


class RemovalShadow:
    """The tree's usage as it would be with a set of workloads' usage taken off, kept in step as
    the set grows and as usage is added to the tree itself.

    Upstream's fits (pkg/scheduler/scheduler.go, cq.Fits under SimulateWorkloadRemoval) takes
    every target of the cycle out of the snapshot and puts it back, per entry. A cohort's usage
    is a function of its children's totals (what add_usage/remove_usage pass up is the change in
    ``max(0, usage - localQuota)``), so the removal of a set is order-free and can be kept as a
    difference per node: ``delta`` = real usage - shadow usage. A ClusterQueue's delta is the
    usage removed from it; a cohort's is the sum of its children's ``terms`` (the change each
    makes to what it passes up). ``refresh`` after any lasting change of a node's usage."""

    __slots__ = ("delta", "terms")

    def __init__(self) -> None:
        self.delta: dict[int, dict[FR, int]] = {}
        self.terms: dict[int, dict[FR, int]] = {}

    def remove(self, node: QuotaNode, usage: dict[FR, int]) -> None:
        d = self.delta.setdefault(id(node), {})
        for fr, v in usage.items():
            d[fr] = d.get(fr, 0) + v
        self.refresh(node)

    def refresh(self, node: QuotaNode) -> None:
        """Bring the deltas above ``node`` in step with its (and its ancestors') usage."""
        c = node
        while c.parent is not None:
            p = c.parent
            new: dict[FR, int] = {}
            for fr, d in self.delta.get(id(c), {}).items():
                u, lq = c.usage.get(fr, 0), c.local.get(fr, 0)
                t = max(0, u - lq) - max(0, u - d - lq)
                if t:
                    new[fr] = t
            old = self.terms.get(id(c), {})
            if new or old:
                dp = self.delta.setdefault(id(p), {})
                for fr in new.keys() | old.keys():
                    dp[fr] = dp.get(fr, 0) + new.get(fr, 0) - old.get(fr, 0)
                self.terms[id(c)] = new
            c = p

    def used(self, n: QuotaNode, fr: FR) -> int:
        d = self.delta.get(id(n))
        return n.usage.get(fr, 0) - (d.get(fr, 0) if d else 0)

    def fits(self, node: QuotaNode, usage: dict[FR, int], extra: Iterable[tuple[QuotaNode, dict[FR, int]]]) -> bool:
        """Does ``usage`` fit ``node`` in the shadow with ``extra`` (ClusterQueue node, usage)
        removed as well? (remove_usage's walk, on an overlay of the shadow)."""
        overlay: dict[tuple[int, FR], int] = {}

        def used(n: QuotaNode, fr: FR) -> int:
            v = overlay.get((id(n), fr))
            return self.used(n, fr) if v is None else v

        for cq_node, u in extra:
            for fr, v in u.items():
                n = cq_node
                while True:
                    cur = used(n, fr)
                    stored = cur - n.local.get(fr, 0)
                    overlay[(id(n), fr)] = cur - v
                    if stored <= 0 or n.parent is None:
                        break
                    v = min(v, stored)
                    n = n.parent
        return all(max(0, node.available_raw(fr, used)) >= v for fr, v in usage.items())
