"""Causes about quota that cannot serve the queue: a head that asks for more than the queue can
ever reach (head-exceeds-max-quota), and quota reserved by a workload that has no pod to use it
(quota-held-without-pods)."""
from __future__ import annotations

from ...api.quantity import format_amount
from ..facts import Facts, HeldWithoutPods, QueueFacts, QuotaShortfall
from ..findings import Cause, CauseId, Confidence, Violation
from ..steps.words import minutes


def shortfall_text(s: QuotaShortfall) -> str:
    where = (f"flavor {s.flavors[0]}" if s.per_pod_set else f"flavors {', '.join(s.flavors)} together")
    lent = s.most - s.nominal
    return (f"needs {format_amount(s.resource, s.needs)} {s.resource}"
            + (" in one pod set" if s.per_pod_set else "")
            + f", the most this queue can ever get is {format_amount(s.resource, s.most)} ({where}: nominal "
            f"{format_amount(s.resource, s.nominal)}"
            + (f" + {format_amount(s.resource, lent)} its cohort can lend within its borrowing limit" if lent > 0
               else ", nothing more to borrow") + ")")


def head_exceeds_max_quota(q: QueueFacts, v: Violation) -> list[Cause]:
    """A StrictFIFO head that no quota can ever admit: it is re-headed every cycle for ever,
    and everything behind it waits for ever (the sharper form of head-of-line-blocking)."""
    h = q.head
    if h is None or not h.exceeds or q.strategy != "StrictFIFO":
        return []
    behind = [k for k in v.pending_workloads if k != h.key]
    if not behind:
        return []
    needs = "; ".join(shortfall_text(s) for s in h.exceeds)
    return [Cause(
        CauseId.HEAD_EXCEEDS_MAX_QUOTA, Confidence.HIGH, [q.name], [h.key, *behind],
        f"{q.name}'s head {h.key} can never be admitted: it {needs}. {q.name} is StrictFIFO, so the "
        f"{len(behind)} workload(s) behind it that fit the nominal quota wait for ever.",
        [f"head {h.key} can never be admitted: {shortfall_text(s)}" for s in h.exceeds]
        + [f"flavor assigner: {h.message}" if h.message else "",
           f"waiting behind it within nominal quota: {', '.join(map(str, behind[:5]))}"],
        f"Stop or delete {h.key} (`kubectl patch workload -n {h.key.namespace} {h.key.name} --type merge -p "
        f"'{{\"spec\":{{\"active\":false}}}}'`) or shrink its request to fit; or raise {q.name}'s nominal quota / "
        f"borrowingLimit (or the cohort's) to what it needs; switching {q.name} to BestEffortFIFO lets the "
        f"work behind it run meanwhile.", weight=len(behind))]


def held_without_pods_causes(facts: Facts, q: QueueFacts, v: Violation) -> list[Cause]:
    """Quota reserved in a violating queue by workloads that have no pod, for longer than the
    wait threshold: the quota is taken and nothing uses it (seen after a WaitForPodsReady
    recovery eviction, kubernetes-sigs/kueue#14811)."""
    held = [h for h in facts.held_without_pods if h.held >= facts.min_wait and _holds_for(facts, h, q)]
    if not held:
        return []
    evicted = [h for h in held if h.evicted]
    lines = [_evidence(h) for h in held[:5]]
    if len(held) > 5:
        lines.append(f"and {len(held) - 5} more")
    ready = [h for h in evicted if h.eviction_reason == "PodsReadyTimeout"]
    if ready:
        lines.append("an eviction by PodsReadyTimeout that left the reservation in place matches "
                     "kubernetes-sigs/kueue#14811 (WaitForPodsReady recovery eviction)")
    # an evicted workload with QuotaReserved=True and no pods is a contradiction Kueue does not
    # leave for long; an admitted one without pods could be a Job controller that is slow
    confidence = Confidence.HIGH if evicted or any(h.job for h in held) else Confidence.MEDIUM
    names = ", ".join(str(h.key) for h in held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
    return [Cause(
        CauseId.QUOTA_HELD_WITHOUT_PODS, confidence, [q.name], [h.key for h in held] + v.pending_workloads,
        f"{names} hold(s) quota {'in' if all(h.cluster_queue == q.name for h in held) else 'borrowed from'} "
        f"{q.name} with no pod running or being created "
        f"(for {minutes(max(h.held for h in held))}), so the quota the pending work needs is taken by nothing.",
        lines,
        "Release the reservation: deactivate the workload (`kubectl patch workload -n NS NAME --type merge -p "
        "'{\"spec\":{\"active\":false}}'`) and reactivate it, or delete it so its job recreates it; for an admitted "
        "workload, check why its Job creates no pods (job controller, quota, webhooks).",
        weight=len(v.pending_workloads))]


def _holds_for(facts: Facts, h: HeldWithoutPods, q: QueueFacts) -> bool:
    """Whether ``h``'s reservation keeps quota from ``q``: it is in ``q``, or in a queue of
    ``q``'s cohort tree that borrows for it (the borrowed quota is what ``q`` lends)."""
    if h.cluster_queue == q.name:
        return True
    other = facts.queues.get(h.cluster_queue)
    if other is None or not q.root or other.root != q.root:
        return False
    cq = facts.model.snapshot.cluster_queues.get(h.cluster_queue)
    return cq is not None and any(cq.node.borrowing(fr) for fr in h.usage)


def _evidence(h: HeldWithoutPods) -> str:
    usage = ", ".join(f"{format_amount(fr[1], n)} {fr[1]} ({fr[0]})" for fr, n in sorted(h.usage.items()) if n)
    what = (f"evicted {minutes(h.held)} ago" if h.evicted else f"admitted {minutes(h.held)} ago")
    return (f"{h.key} ({h.cluster_queue}): {what}, still holds {usage or 'its quota'}; {h.detail}; no pod exists"
            + (f"; {h.job}" if h.job else ""))
