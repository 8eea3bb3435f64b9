"""Typed facts about one cluster state, computed once per diagnosis and read by every step,
cause, ``explain``, the exporter and the renderers. Numbers stay numbers (engine integers,
datetimes, timedeltas) until a renderer formats them."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..api import objects as o
from ..engine.config import EngineConfig
from ..engine.model import AdmissionModel
from ..engine.quota import FR
from ..guarantee import QueueGuarantee
from ..keys import WorkloadKey
from ..kueue.releases import KueueRelease

if TYPE_CHECKING:  # pragma: no cover
    from ..logs.report import LogReport
    from .capacity import CapacityReport
    from .tas import HeadTopology, TASView


class WorkloadState(StrEnum):
    PENDING = "pending"
    ADMITTED = "admitted"
    EVICTED_HOLDING_QUOTA = "evicted, still holding quota"
    FINISHED = "finished"
    INACTIVE = "inactive (spec.active=false)"
    UNQUEUED = "not queued"      # its LocalQueue or ClusterQueue is missing, or the LocalQueue is stopped


class NotRunningKind(StrEnum):
    ADMISSION_CHECK = "admission-check"   # quota reserved, an admission check not Ready yet
    SUSPENDED = "suspended"               # the Job is still suspended
    GATED = "gated"                       # pods still carry Kueue's admission scheduling gate
    UNSCHEDULABLE = "unschedulable"       # released, but pods have no node
    ORPHANED = "orphaned"                 # its Job is gone; it holds quota nobody waits on


@dataclass(frozen=True, slots=True)
class NotRunningReason:
    kind: NotRunningKind
    text: str

    def __str__(self) -> str:
        return self.text

    @property
    def not_released(self) -> bool:
        """Kueue admitted it but did not hand it to Kubernetes (step 4's not-released)."""
        return self.kind in (NotRunningKind.SUSPENDED, NotRunningKind.GATED)


class TimeSource(StrEnum):
    """Where the snapshot's "now" came from: waits are measured up to it."""
    GIVEN = "given"          # --now, or the caller
    MANIFEST = "manifest"    # manifest.json collectedAt (collect, simulate --snapshot-at)
    LOG = "log"              # the controller log's last line
    OBJECTS = "objects"      # the newest timestamp any object records: waits are lower bounds
    CLOCK = "clock"          # nothing says when: the reader's clock


@dataclass(frozen=True, slots=True)
class WorkloadFacts:
    key: WorkloadKey
    state: WorkloadState
    cluster_queue: str                  # admitted to, or routed to by its LocalQueue ("" if none)
    local_queue: str
    priority: int
    waiting_since: datetime             # creation, or the last requeue after an eviction
    admitted_at: datetime | None     # QuotaReserved/Admitted transition
    position: int | None = None      # 1-based position among the queue's pending work
    not_running: NotRunningReason | None = None   # admitted but not running: why
    pods: tuple[o.Pod, ...] = ()
    job: o.Job | None = None
    # admission fair sharing orders its ClusterQueue: its LocalQueue's usage (engine/afs.py) and
    # that LocalQueue's rank, lowest usage first, among the LocalQueues with pending work there
    lq_usage: float | None = None
    lq_rank: tuple[int, int] | None = None   # (rank, LocalQueues ranked)


@dataclass(frozen=True, slots=True)
class VictimFacts:
    """An evicted workload that still holds its quota."""
    key: WorkloadKey
    cluster_queue: str
    evicted_at: datetime
    held: timedelta
    live_pods: tuple[str, ...]
    past_grace: tuple[str, ...]         # pods past deletionTimestamp + grace, still present
    grace_seconds: int
    preemptor_cluster_queue: str
    pod_group: bool                     # pod-based (keeps quota until its pods are gone)


@dataclass(frozen=True, slots=True)
class PreemptionTarget:
    key: WorkloadKey
    reason: str
    cluster_queue: str


@dataclass(frozen=True, slots=True)
class QuotaShortfall:
    """A request no assignment can ever meet: more than the most quota the ClusterQueue can
    ever reach for the resource (its nominal quota, plus what its cohort could lend within its
    borrowing limit: the engine's ``potential_available``), on any flavor it offers."""
    resource: str
    needs: int                          # the head's request (largest pod set, or in total)
    most: int                           # the most any flavor (or all of them, for a total) can give
    nominal: int                        # of that flavor (or all flavors), the queue's own share of ``most``
    flavors: tuple[str, ...]
    per_pod_set: bool                   # one pod set alone needs more than any single flavor gives


@dataclass(frozen=True, slots=True)
class HeadFacts:
    """What the engine's flavor assigner says of a queue's head right now."""
    key: WorkloadKey
    mode: str                           # Fit / Preempt / NoFit
    message: str
    targets: tuple[PreemptionTarget, ...]
    exceeds: tuple[QuotaShortfall, ...] = ()    # non-empty: it can never be admitted in this queue
    topology: HeadTopology | None = None         # a head that asks for a topology: TAS's reading (doctor/tas.py)
    # PreemptionOverBorrowing and kubernetes-sigs/kueue#13607: the head's flavors and mode by the
    # ordering the engine did not use (None when both orderings choose alike)
    preference_bug: PreferenceBug | None = None


@dataclass(frozen=True, slots=True)
class PreferenceBug:
    """A head under PreemptionOverBorrowing whose flavor depends on #13616: before it, a flavor
    without preemption candidates won over one that fits on a shallower borrowing level."""
    buggy_flavors: tuple[str, ...]      # what a release before the fix chooses ...
    buggy_mode: str                     # ... and how (Preempt/NoFit: the head stays pending)
    fixed_flavors: tuple[str, ...]      # what a fixed release chooses
    fixed_mode: str

    def how(self, cluster_queue: str) -> str:
        """What a release before the fix does, as a phrase ("chooses flavor ...")."""
        return (f"chooses flavor {', '.join(self.buggy_flavors) or '-'} ({self.buggy_mode}: no preemption "
                f"candidates) over flavor {', '.join(self.fixed_flavors) or '-'} ({self.fixed_mode}) every cycle, "
                f"because {cluster_queue}'s PreemptionOverBorrowing compares the borrowing level before the "
                f"preemption mode")


@dataclass(frozen=True, slots=True)
class HeldWithoutPods:
    """A workload whose quota reservation stands (QuotaReserved=True) while no pod of it is
    alive and none is being created: admitted (its Job not suspended, no pod exists) or
    evicted with its pods gone (kubernetes-sigs/kueue#14811). Only built when Pods were read."""
    key: WorkloadKey
    cluster_queue: str
    since: datetime                     # admission, or the eviction for an evicted one
    held: timedelta
    evicted: bool
    eviction_reason: str                # the Evicted condition's reason ("" when not evicted)
    usage: dict[FR, int]                # the quota it holds
    job: str                            # "Job ns/name (suspended)", or "" when none was read
    detail: str                         # the conditions that say so, for evidence


@dataclass(frozen=True, slots=True)
class NotReleased:
    key: WorkloadKey
    reason: str
    held: timedelta                     # since admission


@dataclass(slots=True)
class QueueFacts:
    name: str
    cohort: str
    root: str
    strategy: str
    inactive_reason: str                # "" when active
    active_condition: o.Condition | None
    guarantee: QueueGuarantee
    pending: tuple[WorkloadKey, ...]    # in the engine's queue order
    not_running: dict[WorkloadKey, NotRunningReason] = field(default_factory=dict)   # admitted -> why not running
    not_released: tuple[NotReleased, ...] = ()
    head: HeadFacts | None = None    # computed for queues in violation
    admissions_last_hour: int = 0
    preemptions_last_hour: int = 0
    last_admission: datetime | None = None

    @property
    def inactive(self) -> bool:
        return bool(self.inactive_reason) or (self.active_condition is not None
                                              and self.active_condition.status == "False")


@dataclass(frozen=True, slots=True)
class CohortFacts:
    name: str
    parent: str
    root: str
    subtree_quota: dict[FR, int]
    usage: dict[FR, int]


@dataclass(frozen=True, slots=True)
class ReadCounts:
    """What the diagnosis saw: objects by kind, logs, and what collection could not read."""
    objects: dict[str, int]
    log_files: int
    log_lines: int
    log_parsed: int
    failed_kinds: tuple[str, ...]       # kinds `collect` could not list (forbidden, timeout, ...)
    workloads_with_times: int           # Workloads with a QuotaReserved transition time

    def count(self, kind: str) -> int:
        return self.objects.get(kind, 0)

    @property
    def kueue_objects(self) -> int:
        return sum(self.objects.get(k, 0) for k in ("ClusterQueue", "LocalQueue", "Workload", "ResourceFlavor",
                                                    "Cohort"))

    def failed(self, kind: str) -> bool:
        return kind in self.failed_kinds


@dataclass(frozen=True, slots=True)
class NodeHealth:
    not_ready: tuple[str, ...]
    cordoned: tuple[str, ...]
    ready: int


@dataclass(frozen=True, slots=True)
class ControllerHealth:
    deployment: str | None           # namespace/name, None when not read
    ready_replicas: int
    replicas: int
    restarts: dict[str, int]            # controller pod -> restarts


@dataclass
class Facts:
    origin: str
    now: datetime
    time_source: TimeSource
    min_wait: timedelta
    version: str | None
    release: KueueRelease | None
    config: EngineConfig
    model: AdmissionModel
    read: ReadCounts
    workloads: dict[WorkloadKey, WorkloadFacts]
    queues: dict[str, QueueFacts]
    cohorts: dict[str, CohortFacts]
    victims: tuple[VictimFacts, ...]
    nodes: NodeHealth
    controller: ControllerHealth
    logs: LogReport | None
    log_files: tuple[str, ...]
    capacity: CapacityReport | None
    collection_gaps: tuple[str, ...]
    manifest: dict[str, Any]
    held_without_pods: tuple[HeldWithoutPods, ...] = ()
    tas: TASView | None = None                   # largest free domain per TAS flavor and level

    @property
    def state(self) -> Any:
        return self.model.state

    def violating(self) -> list[QueueFacts]:
        return [q for _, q in sorted(self.queues.items()) if q.guarantee.violated]
