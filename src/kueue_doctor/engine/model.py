"""One object for a cluster's admission state: the cache, the queues and the scheduler."""
from __future__ import annotations

from datetime import datetime

from ..api.state import ClusterState
from .config import EngineConfig
from .queues import QueueManager
from .scheduler import CycleResult, Scheduler
from .snapshot import build_snapshot
from .workload import WorkloadInfo


class AdmissionModel:
    """Kueue's view of a cluster: admitted workloads in the quota tree, pending ones queued."""

    def __init__(self, state: ClusterState, config: EngineConfig):
        self.state = state
        self.config = config
        self.snapshot = build_snapshot(state, config)
        self.queues = QueueManager(equivalence_hashing=config.gate("SchedulingEquivalenceHashing"))
        for name, cq in state.cluster_queues.items():
            self.queues.add_cluster_queue(name, cq.queueing_strategy)
        for (ns, name), lq in state.local_queues.items():
            if lq.stop_policy in ("", "None"):
                self.queues.local_queues[(ns, name)] = lq.cluster_queue
        self.unqueued: list[WorkloadInfo] = []   # pending workloads whose LocalQueue/ClusterQueue is missing
        for wl in state.workloads.values():
            if wl.is_true("QuotaReserved") or wl.is_true("Finished") or not wl.active:
                continue
            wi = self.info(wl)
            if not self.queues.add(wi):
                self.unqueued.append(wi)
        limit_ranges: dict = {}
        for (ns, _), lr in state.limit_ranges.items():
            limit_ranges.setdefault(ns, []).append(lr)
        self.scheduler = Scheduler(self.snapshot, self.queues, config, limit_ranges)

    def info(self, wl) -> WorkloadInfo:
        return WorkloadInfo(wl, self.config.gate("ReclaimablePods"), self.config.requeuing_timestamp)

    def cycle(self, now: datetime) -> CycleResult:
        return self.scheduler.schedule(now)
