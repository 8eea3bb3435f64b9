"""The shapes a diagnosis is made of: steps, cause candidates, violations."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

PASS, FAIL, UNKNOWN = "pass", "fail", "unknown"
CONFIDENCE_RANK = {"high": 3, "medium": 2, "low": 1}

CAUSES = ("fragmentation", "slow-preemption-release", "stuck-preemption-target", "drs-rounding", "not-released",
          "head-of-line-blocking", "inactive-queue", "controller-unhealthy", "node-unhealthy",
          "quota-misconfiguration")


@dataclass
class Step:
    step: int
    name: str
    status: str = UNKNOWN
    summary: str = ""
    evidence: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"step": self.step, "name": self.name, "status": self.status, "summary": self.summary,
                "evidence": self.evidence}


@dataclass
class Cause:
    id: str
    confidence: str
    cluster_queues: list[str] = field(default_factory=list)
    workloads: list[str] = field(default_factory=list)
    summary: str = ""
    evidence: list[str] = field(default_factory=list)
    remedy: str = ""
    # how much violation it explains: violating workloads it accounts for
    weight: float = 0.0
    cluster_wide: bool = False

    def merge(self, other: "Cause") -> None:
        if CONFIDENCE_RANK[other.confidence] > CONFIDENCE_RANK[self.confidence]:
            self.confidence = other.confidence
        for cq in other.cluster_queues:
            if cq not in self.cluster_queues:
                self.cluster_queues.append(cq)
        for w in other.workloads:
            if w not in self.workloads:
                self.workloads.append(w)
        for e in other.evidence:
            if e not in self.evidence:
                self.evidence.append(e)
        if not self.summary:
            self.summary = other.summary
        elif other.summary and other.summary not in self.summary:
            self.summary += " " + other.summary
        self.remedy = self.remedy or other.remedy
        self.weight = max(self.weight, other.weight)
        self.cluster_wide = self.cluster_wide or other.cluster_wide

    def to_json(self) -> dict:
        return {"id": self.id, "confidence": self.confidence, "clusterQueues": self.cluster_queues,
                "workloads": self.workloads, "summary": self.summary, "evidence": self.evidence,
                "remedy": self.remedy}


@dataclass
class Violation:
    cluster_queue: str
    resources: dict[str, dict[str, str]]
    pending_workloads: list[str]
    since: Optional[str]
    not_running: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"clusterQueue": self.cluster_queue, "resources": self.resources,
                "pendingWorkloads": self.pending_workloads, "since": self.since}
