"""Step 1: which ClusterQueues have a guarantee violation now (``kueue_doctor.guarantee``)."""
from __future__ import annotations

from ...api.quantity import format_amount
from ...duration import go
from ..facts import Facts, TimeSource
from ..findings import ResourceFigures, Step, StepStatus, Violation

COLLECT_KUEUE = "collect `kubectl get clusterqueues,localqueues,workloads,resourceflavors,cohorts -A -o yaml`"


def missing_evidence(facts: Facts) -> str:
    """Why step 1 cannot decide, or "" when it saw what could show a violation."""
    r = facts.read
    forbidden = [k for k in ("ClusterQueue", "Workload", "LocalQueue") if r.failed(k)]
    forbidden += [k for k in r.failed_kinds if "Kueue API" in k or "kueue.x-k8s.io" in k]
    if forbidden:
        return f"{', '.join(forbidden)} could not be read (see collectionGaps): {COLLECT_KUEUE} with read access"
    if r.kueue_objects == 0:
        return f"no Kueue objects read ({sum(r.objects.values())} objects in all): {COLLECT_KUEUE}"
    if r.count("ClusterQueue") == 0:
        return f"no ClusterQueues read: {COLLECT_KUEUE}"
    if r.count("Workload") == 0:
        counted = sum((cq.status.pending_workloads or 0) + (cq.status.admitted_workloads or 0)
                      for cq in facts.state.cluster_queues.values())
        if counted:
            return (f"ClusterQueue status counts {counted} pending or admitted workload(s) but no Workload "
                    f"objects were read: collect `kubectl get workloads -A -o yaml`")
    return ""


def violations(facts: Facts) -> list[Violation]:
    out = []
    for q in facts.violating():
        g = q.guarantee
        cq = facts.model.snapshot.cluster_queues.get(q.name) or facts.model.snapshot.inactive.get(q.name)
        frs = g.violated_resources(cq.workloads if cq is not None else {})
        out.append(Violation(q.name, {fr: ResourceFigures(g.nominal.get(fr, 0), g.reserved.get(fr, 0),
                                                          g.pending_fits.get(fr, 0)) for fr in frs},
                             list(g.violating + g.not_running), g.since, list(g.not_running)))
    return out


def step1(facts: Facts, found: list[Violation]) -> Step:
    r = facts.read
    step = Step(1, "Detect guarantee violations",
                read={"ClusterQueue": r.count("ClusterQueue"), "LocalQueue": r.count("LocalQueue"),
                      "Workload": r.count("Workload"), "ResourceFlavor": r.count("ResourceFlavor")})
    why = missing_evidence(facts)
    if why:
        step.status = StepStatus.UNKNOWN
        step.summary = f"cannot tell: {why}"
        return step
    wait = go(facts.min_wait.total_seconds())
    pending = sum(len(q.pending) for q in facts.queues.values())
    step.evidence.append(f"read {r.count('ClusterQueue')} ClusterQueue(s), {r.count('Workload')} Workload(s); "
                         f"{pending} pending in queues")
    for v in found:
        q = facts.queues[v.cluster_queue]
        gpu = [fr for fr in v.resources if "gpu" in fr[1]] or list(v.resources)
        detail = "; ".join(f"{fr[0]}/{fr[1]}: nominal {format_amount(fr[1], f.nominal)}, reserved "
                           f"{format_amount(fr[1], f.reserved)}, pending that fits "
                           f"{format_amount(fr[1], f.pending_that_fits)}"
                           for fr, f in v.resources.items() if fr in gpu)
        step.evidence.append(f"{v.cluster_queue}: {len(q.guarantee.violating)} pending and "
                             f"{len(q.guarantee.not_running)} admitted-but-not-running workload(s) fit the nominal "
                             f"quota and waited over {wait} ({detail})")
    if found:
        step.status = StepStatus.FAIL
        step.summary = (f"{len(found)} ClusterQueue(s) with a guarantee violation: "
                        + ", ".join(v.cluster_queue for v in found))
    else:
        step.status = StepStatus.PASS
        waiting = sum(len(q.guarantee.fitting) for q in facts.queues.values())
        if waiting and facts.time_source in (TimeSource.OBJECTS, TimeSource.CLOCK):
            # the waits are measured to the newest object time: they are lower bounds, so work that
            # fits may have waited past the threshold already
            step.status = StepStatus.UNKNOWN
            step.summary = (f"cannot tell: {waiting} workload(s) fit the nominal quota but the snapshot's time is "
                            f"not known (no manifest.json collectedAt, no controller log), so how long they waited "
                            f"is not known: give the time they were gathered with --now")
            return step
        step.summary = (f"no ClusterQueue of {r.count('ClusterQueue')} has work that fits its nominal quota waiting "
                        f"past {wait}" + (f" ({waiting} fitting workload(s) waited less)" if waiting else ""))
    return step
