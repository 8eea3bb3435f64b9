"""The six-step recipe over a snapshot: facts once, then steps, causes and the verdict."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from ..api.quantity import format_amount
from ..guarantee import DEFAULT_MIN_WAIT
from ..kueue.bugs import release_notes
from ..sources.snapshot import GatheredSnapshot
from .capacity import quota_misconfiguration_causes
from .causes.drs import drs_causes
from .causes.logs import log_causes
from .causes.queues import queue_causes
from .causes.rank import rank
from .causes.readiness import admission_check_causes, pods_ready_causes
from .causes.topology import topology_causes
from .facts import Facts
from .findings import Cause, Confidence, Step, StepStatus, Verdict, Violation
from .gather import build_facts
from .steps.fragmentation import begin_step2
from .steps.guarantee import missing_evidence, step1, violations
from .steps.health import step6
from .steps.logs import step5
from .steps.rates import step3
from .steps.release import step4


def rfc3339(t: datetime | None) -> str | None:
    return None if t is None else t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Diagnosis:
    facts: Facts
    violations: list[Violation]
    steps: list[Step]
    causes: list[Cause]
    notes: list[str] = field(default_factory=list)
    warnings: list[Cause] = field(default_factory=list)   # findings that explain no current violation

    @property
    def verdict(self) -> Verdict:
        s1 = self.steps[0]
        if s1.status is StepStatus.UNKNOWN:
            return Verdict.UNKNOWN
        return Verdict.VIOLATION if self.violations else Verdict.NO_VIOLATION

    def to_json(self) -> dict[str, Any]:
        f = self.facts
        return {"kueueVersion": f.version,
                "snapshotTime": rfc3339(f.now),
                "verdict": str(self.verdict),
                "violations": [violation_json(v) for v in self.violations],
                "steps": [s.to_json() for s in self.steps],
                "causes": [c.to_json() for c in self.causes],
                "warnings": [c.to_json() for c in self.warnings],
                "releaseNotes": self.notes,
                "read": dict(f.read.objects, logFiles=f.read.log_files, logLines=f.read.log_lines),
                "collectionGaps": list(f.collection_gaps)}


def violation_json(v: Violation) -> dict[str, Any]:
    return {"clusterQueue": v.cluster_queue,
            "resources": {f"{fr[0]}/{fr[1]}": {"nominal": format_amount(fr[1], x.nominal),
                                               "reserved": format_amount(fr[1], x.reserved),
                                               "pendingThatFits": format_amount(fr[1], x.pending_that_fits)}
                          for fr, x in v.resources.items()},
            "pendingWorkloads": [str(k) for k in v.pending_workloads], "since": rfc3339(v.since)}


def scan_logs(snap: GatheredSnapshot) -> Any:
    if not snap.log_files:
        return None
    from ..logs import scan
    return scan(snap.log_files)


def diagnose(snap: GatheredSnapshot, min_wait: timedelta = DEFAULT_MIN_WAIT, now: datetime | None = None) -> Diagnosis:
    facts = build_facts(snap, min_wait, now, scan_logs(snap))
    return diagnose_facts(facts)


def diagnose_facts(facts: Facts) -> Diagnosis:
    found = [] if missing_evidence(facts) else violations(facts)
    s1 = step1(facts, found)
    finish_step2 = begin_step2(facts, found)   # its FGD replay runs on the other core meanwhile
    s3 = step3(facts, found)
    s4, release = step4(facts, found)
    s5 = step5(facts)
    s6, health = step6(facts)
    others = queue_causes(facts, found) + drs_causes(facts, found)
    others += log_causes(facts, found)
    others += pods_ready_causes(facts, found) + admission_check_causes(facts, found)
    others += topology_causes(facts, found)
    s2, frag = finish_step2()
    candidates = frag + release + health + others
    # a guarantee that cannot be honoured is a cause only where it already holds work off the
    # nodes; a latent one (low confidence) is a warning whatever the queues' state
    misconfigured = quota_misconfiguration_causes(facts.capacity) if facts.capacity is not None else []
    candidates += [c for c in misconfigured if c.confidence is not Confidence.LOW]
    causes = rank(candidates, found)
    warnings = [c for c in misconfigured if c.confidence is Confidence.LOW or not found
                or not any(q in {v.cluster_queue for v in found} for q in c.cluster_queues)]
    return Diagnosis(facts, found, [s1, s2, s3, s4, s5, s6], causes,
                     release_notes(facts.release, facts.config.fair_sharing, any(
                         cq.flavor_fungibility.preference == "PreemptionOverBorrowing"
                         for cq in facts.state.cluster_queues.values())), warnings)
