"""Causes Kueue's own admission machinery makes: admitted work that Kueue keeps evicting because
its pods never become ready (pods-ready-timeout-loop), and quota held by workloads whose
admission checks never pass (admission-check-stuck). Both read the objects as Kueue writes them:
the Workload's conditions, requeueState and admissionChecks, its Pods, the Configuration's
waitForPodsReady, and the ProvisioningRequests of the checks."""
from __future__ import annotations

from dataclasses import dataclass

from ...api import objects as o
from ...duration import go
from ...kueue import constants as kc
from ...kueue.podsready import resolve
from ..facts import Facts, WorkloadFacts
from ..findings import Cause, CauseId, Confidence, Violation

# what a pod's container waits on that no timeout will cure
POD_BLOCKERS = ("ImagePullBackOff", "ErrImagePull", "InvalidImageName", "CrashLoopBackOff",
                "CreateContainerConfigError", "CreateContainerError")
STUCK_CHECK_STATES = ("Retry", "Rejected")
BAD_PROVISIONING = ("Failed", "BookingExpired", "CapacityRevoked")


@dataclass(frozen=True, slots=True)
class NotReadyLoop:
    facts: WorkloadFacts
    evictions: int            # PodsReadyTimeout evictions so far (requeueState.count, or 1 from the condition)
    deactivated: bool         # past backoffLimitCount: Kueue gave up on it
    blocker: str              # what its pods wait on, as the pods say ("" when no pod was read)


def pod_blocker(pods: tuple[o.Pod, ...]) -> str:
    for p in pods:
        for cs in p.container_statuses:
            waiting = (cs.get("state") or {}).get("waiting") or {}
            if waiting.get("reason") in POD_BLOCKERS:
                return f"pod {p.meta.name}: {waiting['reason']}" + (f" ({waiting['message']})"
                                                                   if waiting.get("message") else "")
        sched = o.find_condition(p.conditions, "PodScheduled")
        if sched is not None and sched.status == "False":
            return f"pod {p.meta.name}: not scheduled, {sched.reason}" + (f": {sched.message}" if sched.message else "")
    return ""


def not_ready_loops(facts: Facts) -> list[NotReadyLoop]:
    out = []
    workloads = facts.state.workloads
    for key, wf in facts.workloads.items():
        w = workloads[key]
        if w.active and not w.status.conditions:
            continue   # no PodsReady condition to wait on: most workloads of a large cluster
        ready = w.condition(kc.PODS_READY)
        waiting_for_pods = ready is not None and ready.status == "False"
        if w.active and not waiting_for_pods:
            continue   # neither given up on nor waiting for its pods: the common case, decided at once
        evicted = w.condition("Evicted")
        by_timeout = evicted is not None and evicted.reason in (kc.EVICTED_BY_PODS_READY_TIMEOUT,
                                                               "Deactivated" + "DueTo" + kc.REQUEUING_LIMIT_EXCEEDED)
        count = w.status.requeue_state.count if w.status.requeue_state is not None else 0
        deact = w.condition(kc.DEACTIVATION_TARGET)
        deactivated = (not w.active) and ((deact is not None and deact.reason == kc.REQUEUING_LIMIT_EXCEEDED)
                                          or (evicted is not None and kc.REQUEUING_LIMIT_EXCEEDED in evicted.reason))
        # evicted by the timeout at least once and still not ready (or given up on)
        if not (deactivated or (waiting_for_pods and (by_timeout or (count and evicted is not None
                                                                        and evicted.status == "False")))):
            continue
        if not by_timeout and not deactivated and evicted is not None and evicted.reason not in ("", "QuotaReserved"):
            continue   # its last eviction was something else (preemption, a check)
        out.append(NotReadyLoop(wf, max(count, 1), deactivated, pod_blocker(wf.pods)))
    return out


def pods_ready_causes(facts: Facts, found: list[Violation]) -> list[Cause]:
    loops = not_ready_loops(facts)
    if not loops or not found:
        return []
    cfg = facts.state.configuration
    settings = None
    if facts.release is not None:
        settings = resolve(cfg.wait_for_pods_ready if cfg else None, cfg.api_version if cfg else None,
                           facts.release.version, facts.release.gates).settings
    block = settings is not None and settings.block_admission
    violating = [v.cluster_queue for v in found]
    own = {lp.facts.cluster_queue for lp in loops}
    # with blockAdmission a workload that waits for its pods holds back every admission; without
    # it, only its own queue's quota is held
    queues = violating if block else [q for q in violating if q in own]
    if not queues:
        return []
    evidence = []
    for lp in loops:
        wf = lp.facts
        evidence.append(f"{wf.key} ({wf.cluster_queue}): evicted by PodsReadyTimeout {lp.evictions} time(s)"
                        + ("; deactivated after the requeuing limit" if lp.deactivated else "; still not ready")
                        + (f"; {lp.blocker}" if lp.blocker else "; no Pod of it was read: `kubectl describe pod`"))
    if settings is not None:
        r = settings.requeuing
        limit = "no limit" if r.backoff_limit_count is None else f"backoffLimitCount {r.backoff_limit_count}"
        evidence.append(f"waitForPodsReady: timeout {go(settings.timeout)}, blockAdmission "
                        f"{str(settings.block_admission).lower()}, {limit} ({settings.source})")
    blockers = sorted({lp.blocker.split(": ", 1)[1].split(" (")[0] for lp in loops if lp.blocker})
    why = ", ".join(blockers) or "pods not read"
    summary = (f"{len(loops)} admitted workload(s) never get their pods ready ({why}) "
               f"and Kueue evicts them by PodsReadyTimeout, requeues them and admits them again, in a loop"
               + (": with waitForPodsReady.blockAdmission Kueue admits nothing else while one waits for its pods, "
                  f"so the fitting work of {', '.join(queues)} waits" if block else
                  f": the quota they hold keeps {', '.join(queues)}'s fitting work waiting") + ".")
    remedy = ("Fix what the pods wait on (the image name or registry credentials, the node selector or a taint "
              "no node tolerates: `kubectl describe pod`), or stop the workload; lower "
              "waitForPodsReady.requeuingStrategy.backoffLimitCount so Kueue deactivates such work sooner"
              + ("; with blockAdmission one such workload stalls every queue: consider blockAdmission false" if block
                 else "") + ".")
    return [Cause(CauseId.PODS_READY_TIMEOUT_LOOP, Confidence.HIGH, queues, [lp.facts.key for lp in loops], summary,
                  evidence, remedy, weight=sum(len(v.pending_workloads) for v in found if v.cluster_queue in queues))]


def admission_check_causes(facts: Facts, found: list[Violation]) -> list[Cause]:
    """Quota reserved (or reserved again and again) by workloads whose admission checks do not
    pass: the quota is held, nothing runs, and the queue's fitting work waits behind it."""
    violating = {v.cluster_queue: v for v in found}
    stuck: dict[str, list[str]] = {}
    keys: dict[str, list] = {}
    requests_by_workload: dict[str, list[o.ProvisioningRequest]] = {}
    for pr in getattr(facts.state, "provisioning_requests", {}).values():
        for ref in pr.meta.owner_references:
            if ref.get("kind") == "Workload":
                requests_by_workload.setdefault(f"{pr.meta.namespace}/{ref.get('name')}", []).append(pr)
    for key, wf in facts.workloads.items():
        if wf.cluster_queue not in violating:
            continue
        w = facts.state.workloads[key]
        states = w.status.check_states
        if not states:
            continue
        reserved = w.is_true("QuotaReserved") and not w.is_true("Admitted")
        evicted = w.condition("Evicted")
        retried = evicted is not None and evicted.reason == kc.EVICTED_BY_ADMISSION_CHECK
        bad = [s for s in states if s.state in STUCK_CHECK_STATES or "Previously: Retry" in s.message]
        prs = [pr for pr in requests_by_workload.get(str(key), [])
               if any(pr.is_true(c) for c in BAD_PROVISIONING)]
        held = reserved and wf.admitted_at is None and (facts.now - wf.waiting_since) >= facts.min_wait
        if not (bad or prs or retried or held):
            continue
        parts = []
        if reserved:
            parts.append("quota reserved, Admitted=False (" + (w.condition("Admitted").reason
                                                                if w.condition("Admitted") else "") + ")")
        elif retried:
            parts.append(f"evicted by its admission check ({evicted.message or evicted.reason})")
        parts += [f"check {s.name}: {s.state}" + (f" ({s.message})" if s.message else "") for s in states
                  if s.state != "Ready"]
        for pr in prs:
            cond = next(c for t in BAD_PROVISIONING if pr.is_true(t) and (c := pr.condition(t)) is not None)
            parts.append(f"ProvisioningRequest {pr.meta.name}: {cond.type}" + (f": {cond.message}" if cond.message
                                                                                 else ""))
        stuck.setdefault(wf.cluster_queue, []).append(f"{key}: " + "; ".join(parts))
        keys.setdefault(wf.cluster_queue, []).append(key)
    out = []
    for cq, lines in stuck.items():
        v = violating[cq]
        names = sorted({s.name for k in keys[cq] for s in facts.state.workloads[k].status.check_states
                        if s.state != "Ready"})
        out.append(Cause(
            CauseId.ADMISSION_CHECK_STUCK, Confidence.HIGH, [cq], keys[cq],
            f"{len(lines)} workload(s) of {cq} hold or keep re-taking its quota while admission check(s) "
            f"{', '.join(names) or '(none named)'} do not pass, so nothing of theirs runs and the "
            f"{len(v.pending_workloads)} fitting workload(s) of {cq} wait.",
            lines[:10] + ([f"and {len(lines) - 10} more"] if len(lines) > 10 else []),
            "Look at the check's controller: for a ProvisioningRequest check, `kubectl describe provisioningrequest` "
            "(cluster-autoscaler capacity, the ProvisioningRequestConfig's class and retryStrategy); a check that "
            "keeps failing holds quota: lower its retryStrategy.backoffLimitCount, or take the check off the "
            "ClusterQueue (spec.admissionChecksStrategy) until capacity returns.",
            weight=len(v.pending_workloads)))
    return out
