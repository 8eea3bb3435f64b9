"""Pending workloads per ClusterQueue: the active heap, the inadmissible set, requeueing.

Upstream: pkg/cache/queue/cluster_queue.go (ordering, RequeueIfNotPresent),
manager.go (Heads, QueueInadmissibleWorkloads), inadmissible_workloads.go.
Reference: kueue-semantics.md §3.1, §3.8.
"""
from __future__ import annotations

import hashlib
import heapq
import itertools
import json
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..keys import WorkloadKey
from ..kueue.constants import ALLOWED_FLAVORS_ANNOTATION
from ..kueue.logvocab import REQUEUE_FAILED_AFTER_NOMINATION as FAILED_AFTER_NOMINATION
from ..kueue.logvocab import REQUEUE_NAMESPACE_MISMATCH as NAMESPACE_MISMATCH
from ..kueue.logvocab import REQUEUE_NO_FIT as NO_FIT
from ..kueue.logvocab import REQUEUE_PENDING_PREEMPTION as PENDING_PREEMPTION
from ..kueue.logvocab import REQUEUE_PREEMPTION_FAILED as PREEMPTION_FAILED
from ..kueue.logvocab import REQUEUE_PREEMPTION_NO_CANDIDATES as PREEMPTION_NO_CANDIDATES
from .afs import USAGE_BASED, UsageLedger, amounts_of_usage, order_key
from .workload import WorkloadInfo

IMMEDIATE_BEST_EFFORT = {FAILED_AFTER_NOMINATION, PENDING_PREEMPTION, "PendingMigration", PREEMPTION_FAILED}


def scheduling_hash(wi: WorkloadInfo, allowed_flavors: bool = False) -> str:
    """Workloads that Kueue treats as the same shape (computeSchedulingHash): same priority and
    pod-set shapes, whatever their names, namespaces or timestamps; with ConcurrentAdmission
    (``allowed_flavors``) also the same allowed-flavors annotation (variants of one parent differ)."""
    allowed = wi.obj.meta.annotations.get(ALLOWED_FLAVORS_ANNOTATION) if allowed_flavors else None
    pod_sets = []
    for ps, spec_ps in zip(wi.pod_sets, wi.obj.pod_sets, strict=True):
        t = spec_ps.template
        tr = spec_ps.topology_request
        pod_sets.append((
            ps.name, ps.count, ps.min_count, tuple(sorted(ps.per_pod.items())), tuple(sorted(t.node_selector.items())),
            tuple(tuple((e.key, e.operator, tuple(e.values)) for e in term.match_expressions)
                  for term in t.required_node_terms),
            tuple((x.key, x.operator, x.value, x.effect) for x in t.tolerations),
            None if tr is None else json.dumps(tr, sort_keys=True, default=str)))
    # a simulation hashes every workload it queues, a few shapes over and over: the digest of
    # each shape once (what is hashed is exactly what the key holds)
    shape = (wi.priority, allowed, tuple(pod_sets))
    h = _SHAPE_HASHES.get(shape)
    if h is None:
        if len(_SHAPE_HASHES) >= _SHAPE_HASHES_MAX:
            _SHAPE_HASHES.clear()
        h = _SHAPE_HASHES[shape] = _digest(*shape)
    return h


_SHAPE_HASHES: dict[tuple[Any, ...], str] = {}
_SHAPE_HASHES_MAX = 4096


def _digest(priority: int, allowed: str | None, pod_sets: tuple[tuple[Any, ...], ...]) -> str:
    shape: dict[str, Any] = {"priority": priority, "podSets": [{
        "name": name, "count": count, "minCount": min_count, "requests": list(requests),
        "nodeSelector": list(selector), "affinity": [list(term) for term in affinity],
        "tolerations": list(tolerations), "topology": topology if topology is not None else "null",
    } for name, count, min_count, requests, selector, affinity, tolerations, topology in pod_sets]}
    if allowed is not None:
        shape["allowedFlavors"] = allowed
    return hashlib.sha256(json.dumps(shape, sort_keys=True, default=str).encode()).hexdigest()


@dataclass
class QueuedState:
    """Bookkeeping the queue keeps per workload."""
    pop_cycle: int = -1
    hash: str = ""


# (LocalQueue usage under AFS, not sticky, -priority, queue order timestamp, uid): the heap order
# of a pending workload. Without AFS the usage part is the same constant for every workload.
SortKey = tuple[tuple[int, float], bool, int, datetime, str]
_NO_USAGE = (1, 0.0)
# (sort key, push sequence, workload); the sequence is unique, so workloads are never compared
_Entry = tuple[SortKey, int, WorkloadInfo]
_sort_key = operator.itemgetter(0)


class ClusterQueueQueue:
    def __init__(self, name: str, strategy: str, equivalence: bool, live: set[str] | None = None):
        """``live``: the manager's names of queues with something live on the heap, kept here."""
        self.name = name
        self._live = live if live is not None else set()
        self.strategy = strategy
        self.equivalence = equivalence and strategy == "BestEffortFIFO"
        self._heap: list[_Entry] = []
        # key -> its live heap entry; an entry on the heap but not here (or not this very
        # tuple) was removed or re-pushed, and pop() skips it (lazy deletion)
        self._entries: dict[WorkloadKey, _Entry] = {}
        self.inadmissible: dict[WorkloadKey, WorkloadInfo] = {}
        self.sticky: WorkloadKey | None = None     # the preemptor waiting for its victims
        self.inadmissible_cycle = -1               # cycle of the last requeue of the inadmissible set
        self.inadmissible_hashes: dict[str, str] = {}
        self.inflight: WorkloadInfo | None = None
        self._seq = itertools.count()
        # SchedulingEquivalenceHashing: heap keys by scheduling hash, so that parking a workload's
        # equivalents need not hash-check the whole heap on every NoFit; keys pushed since the
        # last look-up are indexed at the next, and stale ones (popped, re-hashed) are dropped there
        self._by_hash: dict[str, dict[WorkloadKey, None]] = {}
        self._unindexed: dict[WorkloadKey, None] = {}
        # Admission fair sharing orders this queue by LocalQueue usage (engine/afs.py) when set
        self.ledger: UsageLedger | None = None
        self._ledger_version = -1

    # -- ordering --------------------------------------------------------------------
    def usage(self, wi: WorkloadInfo) -> float | None:
        """The workload's LocalQueue usage, when AFS orders this queue."""
        if self.ledger is None:
            return None
        return self.ledger.usage((wi.namespace, wi.queue_name))

    def _key(self, wi: WorkloadInfo) -> SortKey:
        sticky = self.strategy == "BestEffortFIFO" and self.sticky == wi.key
        u = self.usage(wi)
        return (_NO_USAGE if u is None else order_key(u), not sticky, -wi.priority, wi.queue_order_timestamp(),
                wi.uid)

    def _refresh(self) -> None:
        """A LocalQueue's usage changed (penalty, sample): re-key the whole heap, as upstream
        rebuilds it (heap.Init) when penalties are pending, since many entries move at once."""
        if self.ledger is None or self.ledger.version == self._ledger_version:
            return
        self._ledger_version = self.ledger.version
        self._entries = {k: (self._key(e[2]), e[1], e[2]) for k, e in self._entries.items()}
        self._heap = list(self._entries.values())
        heapq.heapify(self._heap)

    def push(self, wi: WorkloadInfo) -> None:
        entry = (self._key(wi), next(self._seq), wi)
        self._entries[wi.key] = entry  # replaces (and so retires) an earlier entry
        heapq.heappush(self._heap, entry)
        self._live.add(self.name)
        if self.equivalence:
            self._unindexed[wi.key] = None

    def equivalents(self, h: str, hash_of: Callable[[WorkloadInfo], str]) -> list[_Entry]:
        """The heap entries whose workload's scheduling hash is ``h``, in heap order. ``hash_of``
        hashes (once, remembered by the caller) every workload on the heap not hashed yet, as
        handleInadmissibleHash's walk of the whole heap would."""
        for key in self._unindexed:
            entry = self._entries.get(key)
            if entry is not None:
                self._by_hash.setdefault(hash_of(entry[2]), {})[key] = None
        self._unindexed.clear()
        bucket = self._by_hash.get(h)
        if not bucket:
            return []
        same = []
        for key in list(bucket):
            entry = self._entries.get(key)
            if entry is None or hash_of(entry[2]) != h:
                del bucket[key]   # off the heap (it is indexed again when pushed), or hashed anew
            else:
                same.append(entry)
        same.sort(key=lambda e: (e[0], e[1]))
        return same

    def pop(self) -> WorkloadInfo | None:
        self._refresh()
        while self._heap:
            entry = heapq.heappop(self._heap)
            wi = entry[2]
            if self._entries.get(wi.key) is not entry:
                continue
            del self._entries[wi.key]
            if not self._entries:
                self._live.discard(self.name)
            return wi
        return None

    def remove(self, key: WorkloadKey) -> None:
        if self._entries.pop(key, None) is not None and not self._entries:
            self._live.discard(self.name)
        self.inadmissible.pop(key, None)
        if self.sticky == key:
            self.sticky = None

    def active(self) -> list[WorkloadInfo]:
        self._refresh()
        return [e[2] for e in sorted(self._entries.values(), key=lambda e: (e[0], e[1]))]

    def pending_in_order(self) -> list[WorkloadInfo]:
        """Every pending workload, heap and inadmissible set alike, in the order Kueue's heap
        would pop them if all were requeued now (the order the guarantee takes work in)."""
        self._refresh()
        keyed = list(self._entries.values())
        if self.ledger is None and self.inadmissible:   # _key without AFS, inline (every sample asks)
            sticky = self.sticky if self.strategy == "BestEffortFIFO" else None
            keyed += [((_NO_USAGE, wi.key != sticky, -wi.priority, wi.queue_order_timestamp(), wi.uid), -1, wi)
                      for wi in self.inadmissible.values()]
        else:
            keyed += [(self._key(wi), -1, wi) for wi in self.inadmissible.values()]
        keyed.sort(key=_sort_key)   # stable: heap entries before parked ones of an equal key
        return [t[2] for t in keyed]

    def __contains__(self, key: WorkloadKey) -> bool:
        return key in self._entries or key in self.inadmissible

    def pending_count(self) -> int:
        return len(self._entries) + len(self.inadmissible)

    def set_sticky(self, wi: WorkloadInfo) -> None:
        old = self.sticky
        self.sticky = wi.key
        # keys embed the sticky flag: re-key the old and the new preemptor
        for key in (old, wi.key):
            if key and key in self._entries:
                self.push(self._entries[key][2])


@dataclass
class QueueManager:
    """All ClusterQueues' pending workloads; LocalQueues route workloads to them."""
    equivalence_hashing: bool = True
    sticky_preemptor: bool = True   # BestEffortFIFO keeps a waiting preemptor at the head (v0.15+)
    allowed_flavors_in_hash: bool = False   # ConcurrentAdmission: the allowed-flavors annotation is hashed
    queues: dict[str, ClusterQueueQueue] = field(default_factory=dict)
    local_queues: dict[tuple[str, str], str] = field(default_factory=dict)
    state: dict[WorkloadKey, QueuedState] = field(default_factory=dict)
    cycle: int = 0
    # LocalQueue usage for admission fair sharing (engine/afs.py); None when AFS is off
    afs_ledger: UsageLedger | None = None
    # names of the ClusterQueues with something live on their heap (the queues keep it)
    live: set[str] = field(default_factory=set)

    def add_cluster_queue(self, name: str, strategy: str, admission_mode: str = "") -> None:
        if name not in self.queues:
            self.queues[name] = ClusterQueueQueue(name, strategy, self.equivalence_hashing, self.live)
        if self.afs_ledger is not None and admission_mode == USAGE_BASED:
            self.queues[name].ledger = self.afs_ledger

    def afs_assumed(self, wi: WorkloadInfo, cq_name: str, usage: dict[tuple[str, str], int], now: datetime) -> None:
        """The scheduler assumed ``wi`` in ``cq_name``: charge its LocalQueue the entry penalty
        (shouldApplyEntryPenalty: AFS on, a usage-based ClusterQueue, not already reserved)."""
        q = self.queues.get(cq_name)
        if q is None or q.ledger is None or wi.obj.is_true("QuotaReserved"):
            return
        q.ledger.push_penalty((wi.namespace, wi.queue_name), wi.key, amounts_of_usage(usage), now)

    def pending_in_order(self, cq_name: str) -> list[WorkloadInfo]:
        q = self.queues.get(cq_name)
        return q.pending_in_order() if q is not None else []

    def cluster_queue_for(self, wi: WorkloadInfo) -> str | None:
        return self.local_queues.get((wi.namespace, wi.queue_name))

    def add(self, wi: WorkloadInfo, now: datetime | None = None) -> bool:
        """Queue a pending workload; False if its LocalQueue or ClusterQueue does not exist.

        With ``now``, a workload still in its requeue backoff (Requeued=False, or requeueAt
        ahead) is parked as inadmissible, as PushOrUpdate does."""
        cq_name = self.cluster_queue_for(wi)
        q = self.queues.get(cq_name) if cq_name else None
        if q is None:
            return False
        st = self.state.get(wi.key)
        if st is None:
            st = self.state[wi.key] = QueuedState()
        if now is not None and not backoff_expired(wi, now):
            q.inadmissible[wi.key] = wi
            return True
        if q.equivalence and q.inadmissible_hashes:  # the hash is only needed while some are parked
            st.hash = st.hash or scheduling_hash(wi, self.allowed_flavors_in_hash)
            if st.hash in q.inadmissible_hashes:
                q.inadmissible[wi.key] = wi
                return True
        q.push(wi)
        return True

    def delete(self, wi: WorkloadInfo) -> None:
        q = self.queues.get(self.cluster_queue_for(wi) or "")
        if q is not None and wi.key in q:
            q.remove(wi.key)
        self.state.pop(wi.key, None)

    def has_heads(self) -> bool:
        """Some ClusterQueue has a workload on its heap (Manager.Heads blocks until one has)."""
        return bool(self.live)

    def heads(self, active: Iterable[str]) -> list[WorkloadInfo]:
        """One popped head per active ClusterQueue."""
        self.cycle += 1
        out = []
        for name in active:
            q = self.queues.get(name)
            if q is None or not q._entries:   # nothing live on the heap: pop() would find nothing
                continue
            wi = q.pop()
            if wi is None:
                continue
            q.inflight = wi
            self.state.setdefault(wi.key, QueuedState()).pop_cycle = self.cycle
            out.append(wi)
        return out

    def is_preemptor(self, wi: WorkloadInfo) -> bool:
        """Is ``wi`` its ClusterQueue's preemptor, the workload last re-queued waiting for its
        victims (upstream's ClusterQueue.IsPreemptor; the sticky head of a BestEffortFIFO queue)?"""
        q = self.queues.get(self.cluster_queue_for(wi) or "")
        return q is not None and q.sticky == wi.key

    def requeue(self, wi: WorkloadInfo, reason: str, now: datetime) -> None:
        q = self.queues.get(self.cluster_queue_for(wi) or "")
        if q is None:
            return
        q.inflight = None
        if wi.key in q:
            return
        st = self.state.setdefault(wi.key, QueuedState())
        if q.strategy == "StrictFIFO":
            immediate = reason != NAMESPACE_MISMATCH
        else:
            immediate = reason in IMMEDIATE_BEST_EFFORT
        if reason in (PENDING_PREEMPTION, "PendingMigration") and self.sticky_preemptor:
            q.set_sticky(wi)
        pending_flavors = wi.last_assignment is not None and wi.last_assignment.pending_flavors()
        if backoff_expired(wi, now) and (immediate or q.inadmissible_cycle >= st.pop_cycle or pending_flavors):
            q.push(wi)
            return
        q.inadmissible[wi.key] = wi
        if q.equivalence and reason in (NO_FIT, PREEMPTION_NO_CANDIDATES):
            h = st.hash or scheduling_hash(wi, self.allowed_flavors_in_hash)
            q.inadmissible_hashes[h] = reason
            st.hash = h
            q._refresh()
            # handleInadmissibleHash: every equivalent on the heap, parked in heap order
            for _, _, other in q.equivalents(h, self._hash_of):
                q.remove(other.key)
                q.inadmissible[other.key] = other

    def _hash_of(self, wi: WorkloadInfo) -> str:
        st = self.state.setdefault(wi.key, QueuedState())
        if not st.hash:
            st.hash = scheduling_hash(wi, self.allowed_flavors_in_hash)
        return st.hash

    def queue_inadmissible(self, names: Iterable[str], now: datetime) -> None:
        """Move parked workloads back to the heap (capacity freed or queues changed)."""
        for name in names:
            q = self.queues.get(name)
            if q is None:
                continue
            q.inadmissible_cycle = self.cycle
            q.inadmissible_hashes.clear()
            for key, wi in list(q.inadmissible.items()):
                if backoff_expired(wi, now):
                    del q.inadmissible[key]
                    q.push(wi)


def backoff_expired(wi: WorkloadInfo, now: datetime) -> bool:
    req = wi.obj.condition("Requeued")
    if req is not None and req.status == "False":
        return False
    rs = wi.obj.status.requeue_state
    if rs is None or rs.requeue_at is None:
        return True
    return now >= rs.requeue_at
