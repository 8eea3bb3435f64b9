"""One object for a cluster's admission state: the cache, the queues and the scheduler."""
from __future__ import annotations

from datetime import datetime

from ..api import objects as o
from ..api.state import ClusterState
from ..keys import WorkloadKey
from .afs import UsageLedger
from .config import EngineConfig
from .queues import QueueManager
from .scheduler import CycleResult, Scheduler
from .snapshot import build_snapshot
from .workload import WorkloadInfo, info_of, infos_of, is_parent, is_variant


class AdmissionModel:
    """Kueue's view of a cluster: admitted workloads in the quota tree, pending ones queued."""

    def __init__(self, state: ClusterState, config: EngineConfig):
        self.state = state
        self.config = config
        # one engine view per workload, shared by the cache, the queues and callers (info())
        self.infos: dict[WorkloadKey, WorkloadInfo] = infos_of(state.workloads, config)
        # read once: asked of every workload below (concurrent_parent is False without the gate)
        concurrent = config.gate("ConcurrentAdmission")
        self.snapshot = build_snapshot(state, config, [
            wi for wi in self.infos.values() if wi.obj.status.admission and wi.obj.is_true("QuotaReserved")
            and not (concurrent and self.concurrent_parent(wi.obj, wi.obj.status.admission.cluster_queue))])
        self.queues = QueueManager(equivalence_hashing=config.gate("SchedulingEquivalenceHashing"),
                                   allowed_flavors_in_hash=config.gate("ConcurrentAdmission"))
        if config.afs_enabled() and config.admission_fair_sharing is not None:
            # seeded from the LocalQueues' persisted status (no status: no entry, usage 0)
            self.queues.afs_ledger = UsageLedger.from_local_queues(
                state.local_queues, config.admission_fair_sharing, config.afs_behaviour)
        for name, cq in state.cluster_queues.items():
            self.queues.add_cluster_queue(name, cq.queueing_strategy, cq.admission_mode)
        for (ns, name), lq in state.local_queues.items():
            if lq.stop_policy in ("", "None"):
                self.queues.local_queues[(ns, name)] = lq.cluster_queue
        self._trees: dict[int, list[str]] | None = None
        self.dirty: set[str] = set()           # ClusterQueues whose parked workloads get retried
        self.unqueued: list[WorkloadInfo] = []   # pending workloads whose LocalQueue/ClusterQueue is missing
        for wi in self.infos.values():
            wl = wi.obj
            if not wl.active or (wl.status.conditions and (wl.is_true("QuotaReserved") or wl.is_true("Finished"))):
                continue
            if concurrent and self.concurrent_parent(wl, self.queues.cluster_queue_for(wi)):
                continue
            if not self.queues.add(wi):
                self.unqueued.append(wi)
        limit_ranges: dict[str, list[o.LimitRange]] = {}
        for (ns, _), lr in state.limit_ranges.items():
            limit_ranges.setdefault(ns, []).append(lr)
        self.scheduler = Scheduler(self.snapshot, self.queues, config, limit_ranges)

    def concurrent_parent(self, wl: o.Workload, cq_name: str | None) -> bool:
        """A ConcurrentAdmission parent: its variants queue and hold quota, it does neither
        (queue Manager.AddOrUpdateWorkload, ClusterQueue.PushOrUpdate, Cache.AddOrUpdateWorkload:
        a non-variant in a ClusterQueue with a concurrentAdmissionPolicy, or a Workload labelled parent)."""
        if not self.config.gate("ConcurrentAdmission") or is_variant(wl):
            return False
        if is_parent(wl):
            return True
        cq = self.state.cluster_queues.get(cq_name or "")
        return cq is not None and cq.concurrent_admission_policy is not None

    def info(self, wl: o.Workload) -> WorkloadInfo:
        key = WorkloadKey.of(wl.meta)
        wi = self.infos.get(key)
        if wi is None or wi.obj is not wl:
            wi = self.infos[key] = info_of(wl, self.config, key)
        return wi

    def cycle(self, now: datetime) -> CycleResult:
        if self.dirty:
            self.queues.queue_inadmissible(sorted(self.dirty), now)
            self.dirty.clear()
        return self.scheduler.schedule(now)

    # -- lifecycle events (what Kueue's controllers do between cycles) --------------------------
    def submit(self, wl: o.Workload) -> WorkloadInfo:
        """A new pending workload."""
        wi = self.info(wl)
        if self.concurrent_parent(wl, self.queues.cluster_queue_for(wi)):
            return wi
        if not self.queues.add(wi):
            self.unqueued.append(wi)
        return wi

    def _tree_queues(self, cq_name: str) -> list[str]:
        cq = self.snapshot.cluster_queues.get(cq_name)
        if cq is None:
            return [cq_name]
        if self._trees is None:  # the cohort forest does not change while the model lives
            self._trees = {}
            for n, c in self.snapshot.cluster_queues.items():
                self._trees.setdefault(id(c.node.root()), []).append(n)
        return self._trees[id(cq.node.root())]

    def release(self, key: WorkloadKey, now: datetime, requeue: bool) -> WorkloadInfo | None:
        """Quota released: a workload finished (``requeue`` False) or an evicted one stopped running
        (``requeue`` True, it queues again). Parked workloads of the cohort tree are retried."""
        cq_name = self.snapshot.workload_cq.get(key)
        if cq_name is None:
            return None
        cq = self.snapshot.cluster_queues[cq_name]
        wi = cq.workloads[key]
        self.snapshot.remove_workload(wi, lasting=True)
        wi.usage = {}
        wi.cluster_queue = ""
        wi.quota_reserved_at = None
        if requeue:
            wi.evicted = False
            wi.refresh_order(self.config.requeuing_timestamp)
            self.queues.add(wi, now)
        else:
            self.queues.delete(wi)
        # Kueue batches these requeues (1 s); ours are coalesced until the next cycle.
        self.dirty.update(self._tree_queues(cq_name))
        return wi

    def backoff_finished(self, key: WorkloadKey, now: datetime) -> None:
        """A parked workload's requeue backoff ended (Requeued=True, BackoffFinished): retried
        at the next cycle."""
        cq_name = self.queues.cluster_queue_for(self.infos[key]) if key in self.infos else None
        if cq_name:
            self.dirty.add(cq_name)

    def admitted(self) -> list[WorkloadInfo]:
        return list(self.snapshot.all_workloads())
