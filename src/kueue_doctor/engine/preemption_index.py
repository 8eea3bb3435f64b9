"""The cycle's index of reclaim candidates: per cohort, the admitted workloads of the borrowing
ClusterQueues under it, in one list in candidate order.

Upstream (classical/hierarchical_preemption.go collectCandidatesInSubtree, candidate_generator.go)
walks every child of each cohort on the preemptor's path and sorts the candidates of every
borrowing ClusterQueue, per search: a cost linear in the queues of the cohort for each head. Here
a search reads the cohort's list from its start and stops once it has its targets, so it sees only
the candidates it could use and those ahead of them.

What the list holds is a superset of what upstream's walk would collect, in the same order:
- the workloads of every ClusterQueue that borrows on some resource (usage above nominal), kept so
  whenever its usage changes for the rest of the cycle (``cq_usage_changed``); a search's own
  temporary removals are left alone (they only lower usage, and are undone);
- ordered by (CandidatesOrdering key, the queue's place in the walk, the workload's place in its
  queue): the order of heapq.merge over the walk's per-queue streams, ties included.
Whatever else the walk would not collect (a queue under the skipped subtree, a queue or cohort on
the way within nominal on the resources needing preemption) is skipped as it is read; with usage
only going down during a search, such a candidate would also fail the validity check
(candidateIsValid), so skipping it lazily changes neither the set nor the order of targets.
"""
from __future__ import annotations

import bisect
from collections.abc import Container, Iterator

from ..keys import WorkloadKey
from .quota import QuotaNode
from .snapshot import ClusterQueueSnapshot, QuotaSnapshot
from .workload import CandKey, WorkloadInfo

# (candidate key, the queue's rank in the walk, the workload's place in its queue, key)
_Entry = tuple[CandKey, int, int, WorkloadKey]


def borrows_any(node: QuotaNode) -> bool:
    """A ClusterQueue above its nominal quota on some resource (a cohort: above its subtree)."""
    sub = node.subtree
    return any(v > sub.get(fr, 0) for fr, v in node.usage.items())


class _TreeIndex:
    __slots__ = ("entries", "members", "span", "where")

    def __init__(self, root: QuotaNode, snap: QuotaSnapshot, gone: Container[WorkloadKey]) -> None:
        # span: a node's range of walk ranks (a ClusterQueue's rank is its lower bound); the walk
        # is the preorder over children in their order, as Preemptor._borrowing_cqs_under goes
        self.span: dict[int, tuple[int, int]] = {}
        self.entries: dict[int, list[_Entry]] = {}   # per cohort
        self.members: dict[str, list[_Entry]] = {}   # indexed ClusterQueue -> its entries
        self.where: dict[WorkloadKey, tuple[WorkloadInfo, ClusterQueueSnapshot]] = {}
        cqs: list[ClusterQueueSnapshot] = []

        def walk(n: QuotaNode) -> None:
            lo = len(cqs)
            if n.is_cq:
                cqs.append(snap.cluster_queues[n.name])
            else:
                self.entries[id(n)] = []
                for c in n.children:
                    walk(c)
            self.span[id(n)] = (lo, max(len(cqs), lo + 1))
        walk(root)
        for cq in cqs:
            if borrows_any(cq.node):
                mine = self._entries_of(cq, gone)
                for a in cq.node.ancestors():
                    self.entries[id(a)] += mine
        for lst in self.entries.values():
            lst.sort()

    def _entries_of(self, cq: ClusterQueueSnapshot, gone: Container[WorkloadKey]) -> list[_Entry]:
        # every workload the queue holds for good: one a search has taken out for the moment is
        # back before the next search, and presence is checked as the list is read
        rank = self.span[id(cq.node)][0]
        out = []
        for pos, wi in enumerate(cq.sorted_workloads()):
            if wi.key not in gone:
                self.where[wi.key] = (wi, cq)
                out.append((wi.cand_key, rank, pos, wi.key))
        self.members[cq.name] = out
        return out

    def _drop(self, cq: ClusterQueueSnapshot, entries: list[_Entry]) -> None:
        for a in cq.node.ancestors():
            lst = self.entries[id(a)]
            for e in entries:
                i = bisect.bisect_left(lst, e)
                if i < len(lst) and lst[i] == e:
                    del lst[i]

    def refresh(self, cq: ClusterQueueSnapshot, gone: Container[WorkloadKey]) -> None:
        """Membership of ``cq`` after a change of its usage for the rest of the cycle."""
        borrowing = borrows_any(cq.node)
        if borrowing and cq.name not in self.members:
            for e in self._entries_of(cq, gone):
                for a in cq.node.ancestors():
                    bisect.insort(self.entries[id(a)], e)
        elif not borrowing and cq.name in self.members:
            self._drop(cq, self.members.pop(cq.name))

    def drop_workload(self, key: WorkloadKey, cq: ClusterQueueSnapshot) -> None:
        mine = self.members.get(cq.name)
        if mine is None:
            return
        for i, e in enumerate(mine):
            if e[3] == key:
                del mine[i]
                self._drop(cq, [e])
                return


class CandidateIndex:
    """The index of each cohort tree, for one cycle (Scheduler.schedule owns one).

    Building a tree's index costs about what it lists; a walk costs about the tree's queues. A
    cycle with a few searches in a tree walks; once its walks have cost as much as the index
    would (``ready``), it builds the index and reads it for the rest of the cycle: never much more
    than the cheaper of the two, whichever the cycle turns out to need."""

    def __init__(self, snap: QuotaSnapshot, build_after: float = 1.0) -> None:
        self.snap = snap
        # how much of the index's cost the walks spend before it is built (0: at the first search)
        self.build_after = build_after
        self.trees: dict[int, _TreeIndex] = {}
        # workloads the cycle has taken out of the snapshot for good (its preemption targets):
        # never listed again
        self.gone: set[WorkloadKey] = set()
        self._walks: dict[int, list[int]] = {}   # root -> [walk cost so far, index cost, queues]

    def ready(self, root: QuotaNode) -> bool:
        """Should this search read the index (building it now if the walks have cost enough)?"""
        if id(root) in self.trees:
            return True
        w = self._walks.get(id(root))
        if w is None:
            queues = workloads = 0
            stack = [root]
            while stack:
                n = stack.pop()
                if n.is_cq:
                    queues += 1
                    workloads += len(self.snap.cluster_queues[n.name].workloads)
                else:
                    stack += n.children
            w = self._walks[id(root)] = [0, workloads + queues, queues]
        w[0] += w[2]
        if w[0] < w[1] * self.build_after:
            return False
        self.tree(root)
        return True

    def tree(self, root: QuotaNode) -> _TreeIndex:
        t = self.trees.get(id(root))
        if t is None:
            t = self.trees[id(root)] = _TreeIndex(root, self.snap, self.gone)
        return t

    def workload_gone(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot) -> None:
        """``wi`` (admitted to ``cq``) became a target of the cycle and its usage left the tree."""
        self.gone.add(wi.key)
        t = self.trees.get(id(cq.node.root()))
        if t is not None:
            t.drop_workload(wi.key, cq)
            t.refresh(cq, self.gone)

    def cq_usage_changed(self, cq: ClusterQueueSnapshot) -> None:
        t = self.trees.get(id(cq.node.root()))
        if t is not None:
            t.refresh(cq, self.gone)

    def candidates(self, level: QuotaNode, skip: QuotaNode, frs_need: set[tuple[str, str]],
                   excluded: Container[WorkloadKey]) -> Iterator[tuple[WorkloadInfo, ClusterQueueSnapshot]]:
        """The workloads upstream's walk would collect under ``level`` (without the ``skip``
        subtree), in candidate order, lazily; the caller classifies them."""
        t = self.tree(level.root())
        lst = t.entries.get(id(level), [])
        lo, hi = t.span[id(skip)]
        where = t.where
        i = 0
        while i < len(lst):
            _ck, rank, _pos, key = lst[i]
            i += 1
            if lo <= rank < hi:
                continue
            wi, cq = where[key]
            if key not in cq.workloads or key in excluded:
                continue
            n: QuotaNode | None = cq.node
            while n is not level and n is not None:
                if n.within_nominal_in(frs_need):
                    break
                n = n.parent
            else:
                yield wi, cq
