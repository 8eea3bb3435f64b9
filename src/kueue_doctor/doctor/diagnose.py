"""The six-step recipe over a snapshot: violations, steps, causes (JSON contract of issue 5)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from ..guarantee import DEFAULT_MIN_WAIT
from ..kueue.bugs import release_notes
from ..sources.snapshot import Snapshot
from .context import Context, build_context
from .findings import CONFIDENCE_RANK, Cause, Step, Violation
from .steps import queue_causes, step2, step3, step4, step5, step6
from .violations import step1

LOG_STALE_AFTER = 15 * 60  # seconds

# log finding id -> how it counts for the doctor (confidence when the logs alone show it)
LOG_CAUSES = {"stuck-preemption-target": "medium", "slow-preemption-release": "medium", "drs-rounding": "medium",
              "head-of-line-blocking": "medium", "inactive-queue": "medium", "controller-unhealthy": "medium"}


@dataclass
class Diagnosis:
    context: Context
    violations: list[Violation]
    steps: list[Step]
    causes: list[Cause]
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"kueueVersion": self.context.version,
                "snapshotTime": self.context.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "violations": [v.to_json() for v in self.violations],
                "steps": [s.to_json() for s in self.steps],
                "causes": [c.to_json() for c in self.causes],
                "releaseNotes": self.notes,
                "collectionGaps": collection_gaps(self.context.snapshot.manifest)}


def collection_gaps(manifest: dict) -> list[str]:
    """What `collect` could not read (manifest.json "failed"), so a reader knows what is missing."""
    out = []
    for f in manifest.get("failed") or []:
        if isinstance(f, dict):
            what = f.get("kind") or f.get("what") or "?"
            why = f.get("reason") or "failed"
            out.append(f"{what}: {why}" + (f" ({f['message']})" if f.get("message") else "")
                       + (" [optional]" if f.get("optional") else ""))
        else:
            out.append(str(f))
    return out


def scan_logs(snap: Snapshot):
    if not snap.log_files:
        return None
    from ..logs import scan
    return scan(snap.log_files)


def diagnose(snap: Snapshot, min_wait: timedelta = DEFAULT_MIN_WAIT, now=None) -> Diagnosis:
    logs = scan_logs(snap)
    ctx = build_context(snap, min_wait, now, logs)
    s1, violations, guarantees, not_running = step1(ctx)
    s2, frag_causes = step2(ctx, violations, not_running)
    s3, _rates = step3(ctx, violations)
    s4, release_causes, vict = step4(ctx, violations, not_running)
    s5 = step5(ctx)
    s6, health_causes, bad_nodes = step6(ctx)
    candidates = frag_causes + release_causes + health_causes + queue_causes(ctx, violations, guarantees, vict, bad_nodes)
    candidates += log_causes(ctx, violations)
    causes = rank(candidates, violations)
    notes = release_notes(ctx.release, ctx.config.fair_sharing)
    return Diagnosis(ctx, violations, [s1, s2, s3, s4, s5, s6], causes, notes)


def log_causes(ctx: Context, violations: list[Violation]) -> list[Cause]:
    if ctx.logs is None:
        return []
    violating = {v.cluster_queue for v in violations}
    now = ctx.now.timestamp()
    out = []
    for f in ctx.logs.findings:
        if f.id not in LOG_CAUSES:
            continue
        # A signature that stopped long before the snapshot describes the past (the queue was
        # fixed, the controller recovered): it is evidence of nothing now.
        if f.last is not None and now - f.last > LOG_STALE_AFTER:
            continue
        j = f.to_json()
        cqs = [c for c in j.get("clusterQueues", []) if c in violating]
        if f.id == "head-of-line-blocking":
            # only a StrictFIFO queue re-heads a workload that cannot fit
            cqs = [c for c in cqs if getattr(ctx.state.cluster_queues.get(c), "queueing_strategy", "")
                   == "StrictFIFO"]
        if not cqs and f.id != "controller-unhealthy":
            continue
        out.append(Cause(f.id, LOG_CAUSES[f.id], cqs, list(j.get("workloads", []))[:20],
                         j.get("summary", ""), [f"log: {j.get('summary', '')}"] +
                         [f"log: {e}" for e in (j.get("examples") or [])[:2] if isinstance(e, str)],
                         cluster_wide=f.id == "controller-unhealthy"))
    return out


def rank(candidates: list[Cause], violations: list[Violation]) -> list[Cause]:
    """Merge candidates per cause id; keep those that explain a violation; most explanatory first."""
    if not violations:
        return []
    violating = {v.cluster_queue: len(v.pending_workloads) for v in violations}
    merged: dict[str, Cause] = {}
    for c in candidates:
        if not c.cluster_wide and not any(q in violating for q in c.cluster_queues):
            continue
        if c.id in merged:
            merged[c.id].merge(c)
        else:
            merged[c.id] = Cause(c.id, c.confidence, list(c.cluster_queues), list(c.workloads), c.summary,
                                 list(c.evidence), c.remedy, c.weight, c.cluster_wide)
    for c in merged.values():
        c.weight = sum(violating.get(q, 0) for q in c.cluster_queues) or (0.5 if c.cluster_wide else 0)
    return sorted(merged.values(), key=lambda c: (-len([q for q in c.cluster_queues if q in violating]),
                                                  -CONFIDENCE_RANK[c.confidence], -c.weight, c.id))
