"""Step 1: which ClusterQueues have a guarantee violation now."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Optional

from ..api import objects as o
from ..api.quantity import format_amount
from ..engine.snapshot import ClusterQueueSnapshot
from ..engine.workload import WorkloadInfo
from ..guarantee import QueueGuarantee, evaluate
from .context import ADMISSION_GATE, Context
from .findings import FAIL, PASS, Step, Violation


def rfc3339(t: Optional[datetime]) -> Optional[str]:
    return None if t is None else t.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def queue_snapshots(ctx: Context) -> dict[str, ClusterQueueSnapshot]:
    snap = ctx.model.snapshot
    return {**snap.cluster_queues, **snap.inactive}


def pending_in_order(ctx: Context, cq: str) -> list[WorkloadInfo]:
    """The queue's pending workloads in Kueue's heap order (priority, then queue-order time)."""
    if ctx.pending_by_cq is None:
        grouped: dict[str, list[WorkloadInfo]] = {}
        for wi in ctx.infos.values():
            w = wi.obj
            if ctx.pending(w):
                name = ctx.lq_to_cq.get((w.meta.namespace, w.queue_name))
                if name:
                    wi.extra["waiting_since"] = ctx.waiting_since(w)
                    grouped.setdefault(name, []).append(wi)
        for lst in grouped.values():
            lst.sort(key=lambda wi: (-wi.priority, wi.queue_order_timestamp(), wi.uid))
        ctx.pending_by_cq = grouped
    return list(ctx.pending_by_cq.get(cq, []))


def not_running_reason(ctx: Context, key: str, w: o.Workload) -> Optional[str]:
    """Why an admitted workload is not running yet, or None if it runs (or we cannot tell)."""
    if w.is_true("Evicted") or w.is_true("Finished"):
        return None
    job = ctx.jobs_of.get(key)
    if job is not None and job.suspend:
        return "Job still suspended"
    pods = ctx.pods_of.get(key)
    if not pods:
        return None
    live = [p for p in pods if p.phase not in ("Succeeded", "Failed") and p.meta.deletion_timestamp is None]
    if not live:
        return None
    if any(ADMISSION_GATE in p.spec.scheduling_gates for p in live):
        return "pods still carry the kueue.x-k8s.io/admission scheduling gate"
    unscheduled = [p for p in live if not p.spec.node_name and p.phase in ("Pending", "")]
    if unscheduled:
        return f"{len(unscheduled)} pod(s) unschedulable (no node has room)"
    return None


def evaluate_queue(ctx: Context, name: str, cq: ClusterQueueSnapshot) -> tuple[QueueGuarantee, dict[str, str]]:
    pending = pending_in_order(ctx, name)
    not_running, reasons = [], {}
    usage_within = all(cq.node.usage.get(fr, 0) <= q.nominal for fr, q in cq.node.quotas.items())
    for key, wi in cq.workloads.items():
        reason = not_running_reason(ctx, key, wi.obj)
        if reason is None:
            continue
        reasons[key] = reason
        if usage_within:  # only work inside the nominal quota is guaranteed
            not_running.append((wi, ctx.waiting_since(wi.obj)))
    return evaluate(cq, pending, ctx.now, ctx.min_wait, not_running), reasons


def step1(ctx: Context) -> tuple[Step, list[Violation], dict[str, QueueGuarantee], dict[str, dict[str, str]]]:
    step = Step(1, "Detect guarantee violations")
    violations, guarantees, not_running = [], {}, {}
    for name, cq in sorted(queue_snapshots(ctx).items()):
        g, reasons = evaluate_queue(ctx, name, cq)
        guarantees[name] = g
        not_running[name] = reasons
        if not g.violated:
            continue
        frs = [fr for fr, v in g.pending_fits.items() if v] or sorted(
            {fr for k in g.not_running for fr in cq.workloads[k].usage})
        resources = {f"{fr[0]}/{fr[1]}": {"nominal": format_amount(fr[1], g.nominal.get(fr, 0)),
                                          "reserved": format_amount(fr[1], g.reserved.get(fr, 0)),
                                          "pendingThatFits": format_amount(fr[1], g.pending_fits.get(fr, 0))}
                     for fr in sorted(frs)}
        violations.append(Violation(name, resources, g.violating + g.not_running, rfc3339(g.since),
                                    list(g.not_running)))
        gpu = [r for r in resources if "gpu" in r] or list(resources)
        detail = "; ".join(f"{r}: nominal {v['nominal']}, reserved {v['reserved']}, pending that fits "
                           f"{v['pendingThatFits']}" for r, v in resources.items() if r in gpu)
        step.evidence.append(f"{name}: {len(g.violating)} pending and {len(g.not_running)} admitted-but-not-running "
                             f"workload(s) fit the nominal quota and waited over {int(ctx.min_wait.total_seconds() // 60)} min"
                             f" ({detail})")
    if violations:
        step.status = FAIL
        step.summary = f"{len(violations)} ClusterQueue(s) with a guarantee violation: " + \
            ", ".join(v.cluster_queue for v in violations)
    else:
        step.status = PASS
        waiting = sum(len(g.fitting) for g in guarantees.values())
        step.summary = ("no ClusterQueue has work that fits its nominal quota waiting past the threshold"
                        + (f" ({waiting} fitting workload(s) waited less)" if waiting else ""))
    return step, violations, guarantees, not_running
