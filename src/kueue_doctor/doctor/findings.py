"""The shapes a diagnosis is made of: step results, cause candidates, violations, and the
closed vocabularies they use (statuses, cause ids, confidence)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from ..engine.quota import FR
from ..keys import WorkloadKey


class StepStatus(StrEnum):
    PASS = "pass"          # saw the data that could have failed it, and it did not
    FAIL = "fail"
    UNKNOWN = "unknown"    # did not see that data: says what to collect
    SKIPPED = "skipped"    # nothing to check (e.g. no violation to rule fragmentation out for)


class Confidence(StrEnum):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        return {"low": 1, "medium": 2, "high": 3}[self.value]


class CauseId(StrEnum):
    FRAGMENTATION = "fragmentation"
    SLOW_PREEMPTION_RELEASE = "slow-preemption-release"
    STUCK_PREEMPTION_TARGET = "stuck-preemption-target"
    DRS_ROUNDING = "drs-rounding"
    NOT_RELEASED = "not-released"
    HEAD_OF_LINE_BLOCKING = "head-of-line-blocking"
    INACTIVE_QUEUE = "inactive-queue"
    CONTROLLER_UNHEALTHY = "controller-unhealthy"
    NODE_UNHEALTHY = "node-unhealthy"
    QUOTA_MISCONFIGURATION = "quota-misconfiguration"
    QUOTA_HELD_WITHOUT_PODS = "quota-held-without-pods"
    PREEMPTION_RETRY_STORM = "preemption-retry-storm"
    HEAD_EXCEEDS_MAX_QUOTA = "head-exceeds-max-quota"
    PODS_READY_TIMEOUT_LOOP = "pods-ready-timeout-loop"
    ADMISSION_CHECK_STUCK = "admission-check-stuck"
    TOPOLOGY_FRAGMENTATION = "topology-fragmentation"
    NO_CANDIDATES_FLAVOR_PREFERRED = "no-candidates-flavor-preferred"


class Verdict(StrEnum):
    """The answer to step 1, which the exit status reports (docs/doctor.md, "Exit status")."""
    NO_VIOLATION = "no-violation"
    VIOLATION = "violation"
    UNKNOWN = "unknown"


@dataclass
class Step:
    step: int
    name: str
    status: StepStatus = StepStatus.UNKNOWN
    summary: str = ""
    evidence: list[str] = field(default_factory=list)
    read: dict[str, int] = field(default_factory=dict)   # what the step looked at, by kind

    def to_json(self) -> dict:
        return {"step": self.step, "name": self.name, "status": str(self.status), "summary": self.summary,
                "read": self.read, "evidence": self.evidence}


@dataclass
class Cause:
    id: CauseId
    confidence: Confidence
    cluster_queues: list[str] = field(default_factory=list)
    workloads: list[WorkloadKey] = field(default_factory=list)
    summary: str = ""
    evidence: list[str] = field(default_factory=list)
    remedy: str = ""
    # how much violation it explains: violating workloads it accounts for
    weight: float = 0.0
    cluster_wide: bool = False

    def merge(self, other: Cause) -> None:
        self.merge_all([other])

    def merge_all(self, others: list[Cause]) -> None:
        """``merge`` each of ``others`` in turn. What is already listed is looked up in sets: a
        cause found on 100 violating queues, each naming hundreds of pending workloads, made
        merging them one by one quadratic (10 s at 100,000 Workloads)."""
        queues, workloads, evidence = set(self.cluster_queues), set(self.workloads), set(self.evidence)
        for other in others:
            if other.confidence.rank > self.confidence.rank:
                self.confidence = other.confidence
            for cq in other.cluster_queues:
                if cq not in queues:
                    queues.add(cq)
                    self.cluster_queues.append(cq)
            for w in other.workloads:
                if w not in workloads:
                    workloads.add(w)
                    self.workloads.append(w)
            for e in other.evidence:
                if e not in evidence:
                    evidence.add(e)
                    self.evidence.append(e)
            if not self.summary:
                self.summary = other.summary
            elif other.summary and other.summary not in self.summary:
                self.summary += " " + other.summary
            self.remedy = self.remedy or other.remedy
            self.weight = max(self.weight, other.weight)
            self.cluster_wide = self.cluster_wide or other.cluster_wide

    def to_json(self) -> dict:
        return {"id": str(self.id), "confidence": str(self.confidence), "clusterQueues": self.cluster_queues,
                "workloads": [str(k) for k in self.workloads], "summary": self.summary, "evidence": self.evidence,
                "remedy": self.remedy}


@dataclass(frozen=True)
class ResourceFigures:
    nominal: int
    reserved: int
    pending_that_fits: int


@dataclass
class Violation:
    cluster_queue: str
    resources: dict[FR, ResourceFigures]
    pending_workloads: list[WorkloadKey]    # violating pending work, then admitted-but-not-running work
    since: datetime | None
    not_running: list[WorkloadKey] = field(default_factory=list)
