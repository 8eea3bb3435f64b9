"""Step 3: is Kueue admitting and preempting at all, per queue, over the last hour?"""
from __future__ import annotations

from ..facts import Facts
from ..findings import Step, StepStatus, Violation


def step3(facts: Facts, found: list[Violation]) -> Step:
    r = facts.read
    step = Step(3, "Admission and preemption rates",
                read={"WorkloadWithConditionTimes": r.workloads_with_times, "logLines": r.log_parsed})
    if not r.workloads_with_times and not (facts.logs is not None and facts.logs.per_cluster_queue):
        step.summary = ("cannot tell: no workload conditions or logs with times: collect Workloads with status "
                        "and the controller logs")
        return step
    violating = {v.cluster_queue: v for v in found}
    stalled = []
    total = 0
    for name, q in sorted(facts.queues.items()):
        a, p = q.admissions_last_hour, q.preemptions_last_hour
        total += a
        if name in violating or a or p:
            step.evidence.append(f"{name}: {a} admission(s), {p} preemption(s) issued in the last hour"
                                 + (" while in violation" if name in violating else ""))
        v = violating.get(name)
        if v is not None and (q.last_admission is None or (v.since is not None and q.last_admission < v.since)):
            stalled.append(name)
            last = q.last_admission.strftime("%H:%M:%SZ") if q.last_admission else "none seen"
            step.evidence.append(f"{name}: no admission since its violation began "
                                 f"{v.since.strftime('%H:%M:%SZ') if v.since else ''} (last admission: {last})")
    step.status = StepStatus.FAIL if stalled else StepStatus.PASS
    if stalled:
        step.summary = f"no admission since the violation began in queue(s) {', '.join(stalled)}"
    elif found:
        step.summary = "Kueue is admitting in every violating queue"
    else:
        step.summary = f"{total} admission(s) in the last hour; no queue in violation to stall"
    return step
