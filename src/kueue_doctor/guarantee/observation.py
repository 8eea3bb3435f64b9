"""What one ClusterQueue observes: its pending work in queue order, and admitted work that
does not run yet. Callers (doctor, simulator, exporter) say since when each one waits: the
doctor reads it from conditions, the simulator from its own clock."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ..engine.snapshot import ClusterQueueSnapshot
from ..engine.workload import WorkloadInfo


@dataclass(frozen=True, slots=True)
class Waiting:
    """A pending workload and since when its tenant waits (creation or last requeue)."""
    workload: WorkloadInfo
    since: datetime


@dataclass(frozen=True, slots=True)
class NotRunning:
    """An admitted workload that does not run yet (gated, suspended, unschedulable, held by an
    admission check), the reason in words, and since when it waits."""
    workload: WorkloadInfo
    since: datetime
    reason: str


@dataclass(frozen=True, slots=True)
class QueueObservation:
    cluster_queue: ClusterQueueSnapshot
    pending: Sequence[Waiting]          # in the engine's queue order (QueueManager.pending_in_order)
    not_running: Sequence[NotRunning] = ()
