"""Causes read off a violating queue: inactive queue, head-of-line blocking, and the victims
its head waits for (stuck or slowly terminating preemption targets)."""
from __future__ import annotations

from datetime import timedelta

from ...kueue.bugs import affected, bug
from ..facts import Facts, QueueFacts
from ..findings import Cause, CauseId, Confidence, Violation
from ..steps.words import minutes
from .quota import head_exceeds_max_quota, held_without_pods_causes

SLOW_RELEASE_HELD = timedelta(minutes=1)
SLOW_RELEASE_GRACE = 120   # seconds: a grace period long enough to throttle a queue


def release_evidence(facts: Facts, cause: CauseId) -> list[str]:
    if facts.release is None:
        return ["Kueue version unknown"]
    b = bug(str(cause))
    if b.affected(facts.release):
        return [f"Kueue {facts.release.label} is affected ({b.issue}); fixed in {b.fixed_in}"]
    return [f"Kueue {facts.release.label} carries the fix for {b.issue}"]


def inactive_remedy(why: str) -> str:
    if why.startswith("FlavorNotFound"):
        return ("Remove the missing ResourceFlavor(s) from the ClusterQueue's resourceGroups, or recreate them: "
                + why.split(":", 1)[-1].strip() + ".")
    if why == "Stopped":
        return "Set spec.stopPolicy back to None."
    return "Fix what makes the ClusterQueue inactive (see its Active condition)."


def inactive_cause(q: QueueFacts, v: Violation) -> Cause:
    why = q.inactive_reason
    cond = q.active_condition
    msg = cond.message if cond is not None else ""
    return Cause(CauseId.INACTIVE_QUEUE, Confidence.HIGH, [q.name], v.pending_workloads,
                 f"ClusterQueue {q.name} is inactive ({why or (cond.reason if cond else '')}), so Kueue admits none "
                 f"of its work.",
                 [e for e in (f"engine: {why}" if why else "", f"status Active=False: {msg}" if msg else "") if e],
                 inactive_remedy(why), weight=len(v.pending_workloads))


def head_of_line(q: QueueFacts, v: Violation) -> list[Cause]:
    """StrictFIFO re-heads a head that cannot be admitted every cycle: the work behind it that
    fits the nominal quota is never considered."""
    h = q.head
    if h is None or q.strategy != "StrictFIFO" or h.mode == "Fit" or h.targets or h.exceeds:
        return []   # (a head that can never fit is head-exceeds-max-quota, in quota.py)
    if h.key in q.guarantee.fitting:
        return []
    behind = [k for k in v.pending_workloads if k != h.key]
    if not behind:
        return []
    return [Cause(
        CauseId.HEAD_OF_LINE_BLOCKING, Confidence.HIGH, [q.name], behind,
        f"{q.name} is StrictFIFO and its head {h.key} cannot be admitted ({h.mode}); Kueue puts it back at the "
        f"front every cycle, so the {len(behind)} workload(s) behind it that fit the nominal quota are never "
        f"considered.",
        [f"head {h.key}: {h.message}", f"waiting behind it within nominal quota: {', '.join(map(str, behind[:5]))}"],
        f"Switch {q.name} to queueingStrategy BestEffortFIFO, or make the head admissible (smaller request, "
        f"borrowing room, or preemption while borrowing), or move it to its own queue.",
        weight=len(behind))]


def victim_causes(facts: Facts, q: QueueFacts, v: Violation) -> list[Cause]:
    out = []
    targets = {t.key for t in q.head.targets} if q.head is not None else set()
    for t in facts.victims:
        if t.preemptor_cluster_queue != q.name and t.key not in targets:
            continue
        if t.past_grace:
            aff = affected(facts.release, "stuck-preemption-target")
            bad = facts.nodes.not_ready
            out.append(Cause(
                CauseId.STUCK_PREEMPTION_TARGET, Confidence.HIGH if aff is not False else Confidence.MEDIUM,
                [q.name], v.pending_workloads,
                f"Preemption victim {t.key} has pods stuck terminating past their grace period and still holds its "
                f"quota; every head that targets it waits or is skipped.",
                [f"{t.key}: evicted {minutes(t.held)} ago, pods past grace: {', '.join(t.past_grace[:3])}"]
                + ([f"pods are on NotReady node(s): {', '.join(bad[:3])}"] if bad else [])
                + release_evidence(facts, CauseId.STUCK_PREEMPTION_TARGET),
                "Force-delete the stuck pods (or recover the node); upgrade to "
                + bug("stuck-preemption-target").fixed_in + ".", weight=len(v.pending_workloads)))
        elif t.held >= SLOW_RELEASE_HELD and t.grace_seconds >= SLOW_RELEASE_GRACE:
            aff = affected(facts.release, "slow-preemption-release")
            out.append(Cause(
                CauseId.SLOW_PREEMPTION_RELEASE,
                Confidence.HIGH if (aff is not False and t.pod_group) else Confidence.MEDIUM, [q.name],
                v.pending_workloads,
                f"{q.name}'s head waits for victim {t.key} to release quota: its pods take up to {t.grace_seconds} s "
                f"to terminate and a pod group keeps its quota until they are gone, so the queue admits about one "
                f"preempting workload per grace period.",
                [f"{t.key}: evicted {minutes(t.held)} ago, {len(t.live_pods)} pod(s) terminating, grace "
                 f"{t.grace_seconds} s", *release_evidence(facts, CauseId.SLOW_PREEMPTION_RELEASE)],
                "Shorten terminationGracePeriodSeconds / preStop hooks of preemptible workloads, or run Kueue "
                "v0.17+ with FastQuotaReleaseInPodIntegration=true.", weight=len(v.pending_workloads)))
    return out


def no_candidates_flavor_preferred(facts: Facts, q: QueueFacts, v: Violation) -> list[Cause]:
    """kubernetes-sigs/kueue#13607: under PreemptionOverBorrowing a release before #13616 picks,
    every cycle, a flavor where the head has no preemption candidates over one where it fits."""
    h = q.head
    if h is None or h.preference_bug is None or h.preference_bug.fixed_mode != "Fit":
        return []
    aff = affected(facts.release, CauseId.NO_CANDIDATES_FLAVOR_PREFERRED)
    if aff is False:
        return []
    b = h.preference_bug
    fits = ", ".join(b.fixed_flavors)
    fix = bug(CauseId.NO_CANDIDATES_FLAVOR_PREFERRED).fixed_in
    if aff and facts.release is not None:
        statement = (f"{q.name}'s head {h.key} fits flavor {fits}, but Kueue {facts.release.label} "
                     f"{b.how(q.name)}, so the head never gets in.")
    else:
        statement = (f"{q.name}'s head {h.key} fits flavor {fits} yet stays pending: a Kueue older than {fix} "
                     f"{b.how(q.name)}; collect the kueue-controller-manager Deployment to tell.")
    return [Cause(
        CauseId.NO_CANDIDATES_FLAVOR_PREFERRED, Confidence.HIGH if aff else Confidence.MEDIUM, [q.name],
        v.pending_workloads, statement,
        [f"head {h.key}: {h.message}" if aff else f"head {h.key}: the engine of a fixed release admits it ({fits})",
         f"{q.name}: flavorFungibility.preference PreemptionOverBorrowing",
         *release_evidence(facts, CauseId.NO_CANDIDATES_FLAVOR_PREFERRED)],
        f"Upgrade Kueue to {fix}; until then set {q.name}'s flavorFungibility.preference to "
        f"BorrowingOverPreemption (or remove it), which compares the preemption mode first.",
        weight=len(v.pending_workloads))]


def queue_causes(facts: Facts, found: list[Violation]) -> list[Cause]:
    out: list[Cause] = []
    for v in found:
        q = facts.queues[v.cluster_queue]
        if q.inactive:
            out.append(inactive_cause(q, v))
            continue
        out += head_of_line(q, v)
        out += head_exceeds_max_quota(q, v)
        out += victim_causes(facts, q, v)
        out += held_without_pods_causes(facts, q, v)
        out += no_candidates_flavor_preferred(facts, q, v)
    return out
