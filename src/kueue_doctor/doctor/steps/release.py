"""Step 4: release to Kubernetes (gate removed, Job unsuspended), and victims holding quota."""
from __future__ import annotations

from datetime import timedelta

from ..facts import Facts, NotRunningKind, WorkloadState
from ..findings import Cause, CauseId, Confidence, Step, StepStatus, Violation
from .words import minutes

VICTIM_SLOW = timedelta(minutes=2)


def step4(facts: Facts, found: list[Violation]) -> tuple[Step, list[Cause]]:
    state = facts.state
    admitted_wfs = [w for w in facts.workloads.values()
                    if w.state in (WorkloadState.ADMITTED, WorkloadState.EVICTED_HOLDING_QUOTA)]
    step = Step(4, "Release to Kubernetes", read={"admittedWorkload": len(admitted_wfs), "Pod": len(state.pods),
                                                  "Job": len(state.jobs)})
    if not admitted_wfs:
        step.status = StepStatus.SKIPPED
        step.summary = "no admitted workload to check"
        return step, []
    known = [w for w in admitted_wfs if w.pods or w.job is not None or w.not_running is not None]
    step.read["admittedWorkloadWithPodsOrJob"] = len(known)
    if not known:
        step.summary = ("cannot tell: no Pod or Job of any admitted workload was read: collect "
                        "`kubectl get pods,jobs -A -o yaml`")
        return step, []
    causes = []
    violating = {v.cluster_queue for v in found}
    gated = [(name, n) for name, q in sorted(facts.queues.items()) for n in q.not_released]
    for cq, n in gated:
        step.evidence.append(f"{n.key} ({cq}) admitted {minutes(n.held)} ago but {n.reason}")
        if cq in violating:
            causes.append(Cause(CauseId.NOT_RELEASED, Confidence.HIGH, [cq], [n.key],
                                f"{cq}: admitted workloads were never handed to Kubernetes.",
                                [f"{n.key} admitted {minutes(n.held)} ago but {n.reason}"],
                                "Check the Kueue job reconciler and webhooks (logs around 'Job admitted, "
                                "unsuspending' / gate removal), foreign scheduling gates, and RBAC for pods/jobs.",
                                weight=1))
    for w in admitted_wfs:
        if w.not_running is not None and w.not_running.kind is NotRunningKind.ORPHANED:
            step.evidence.append(f"{w.key} ({w.cluster_queue}) is {w.not_running}")
    unlinked = len(admitted_wfs) - len(known)
    if unlinked:
        step.evidence.append(f"{unlinked} admitted workload(s) with no Pod or Job read: their release is unknown")
    for v in facts.victims:
        what = (f"{len(v.past_grace)} pod(s) past their grace period still present" if v.past_grace
                else f"{len(v.live_pods)} pod(s) terminating (grace {v.grace_seconds} s)" if v.live_pods
                else "no pods left")
        step.evidence.append(f"victim {v.key} ({v.cluster_queue}) evicted {minutes(v.held)} ago still holds its "
                             f"quota: {what}" + (f"; preempted by {v.preemptor_cluster_queue}"
                                                 if v.preemptor_cluster_queue else ""))
    bad = gated or any(v.held >= VICTIM_SLOW for v in facts.victims)
    step.status = StepStatus.FAIL if bad else StepStatus.PASS
    step.summary = ("; ".join(s for s in (
        f"{len(gated)} admitted workload(s) not released" if gated else "",
        f"{len(facts.victims)} preemption victim(s) still holding quota" if facts.victims else "") if s)
        or f"all {len(known)} admitted workload(s) with Pods or Jobs read were released and victims gave "
           f"their quota back")
    return step, causes
