"""`explain`: why is this workload pending (or not running)? The chain of reasons, read off
the diagnosis facts; only what is about this one workload (its assigner verdict as if it
were the head, its node slots, its log lines) is computed here."""
from __future__ import annotations

import collections
import gzip
import math
from datetime import datetime, timedelta
from typing import Any

from ..api.quantity import format_amount, human_amount
from ..engine.assignment import MODE_NAMES, NO_FIT
from ..engine.preemption import Preemptor, blocking_preemption_gates
from ..engine.workload import closed_preemption_gates, is_parent, is_variant, parent_ref, variant_flavor
from ..errors import InputError
from ..guarantee import Fit
from ..keys import WorkloadKey
from ..kueue.bugs import affected, bug
from ..sources.snapshot import GatheredSnapshot
from .diagnose import rfc3339, scan_logs
from .facts import Facts, PreferenceBug, WorkloadState
from .findings import CauseId
from .gather import build_facts, preference_bug
from .steps.words import minutes
from .tas import cycle_tas, head_topology
from .topology_explain import topology_items

FIT_WORDS = {
    Fit.FITS: "fits the nominal quota its ClusterQueue leaves unused",
    Fit.NEEDS_MORE_THAN_UNUSED_NOMINAL: "needs more than the nominal quota its ClusterQueue leaves unused: not "
                                        "guaranteed (it waits for admitted work to finish, or for borrowing or "
                                        "preemption where the queue allows them)",
    Fit.NO_ELIGIBLE_FLAVOR: "can use none of its ClusterQueue's flavors: not guaranteed",
    Fit.RESOURCE_NOT_COVERED: "requests a resource no resource group of its ClusterQueue covers: never admitted",
    Fit.QUEUE_AT_NOMINAL: "is not guaranteed: its ClusterQueue already uses all of its nominal quota",
    Fit.SIBLING_ADMITTED: "is a concurrent-admission variant whose parent already runs as another variant here: "
                          "owed nothing (Kueue switches it off, or it waits to migrate)",
}


def quota_rows(facts: Facts, cq_name: str, frs: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """The quota arithmetic for ``frs`` from the ClusterQueue up to its root cohort."""
    esnap = facts.model.snapshot
    cq = esnap.cluster_queues.get(cq_name) or esnap.inactive.get(cq_name)
    if cq is None:
        return []
    rows = []
    node: Any = cq.node
    while node is not None:
        for fr in frs:
            q = node.quotas.get(fr)
            rows.append({
                "node": ("ClusterQueue " if node.is_cq else "Cohort ") + node.name, "flavor": fr[0], "resource": fr[1],
                "nominal": format_amount(fr[1], q.nominal if q else 0),
                "subtreeQuota": format_amount(fr[1], node.subtree.get(fr, 0)),
                "used": format_amount(fr[1], node.usage.get(fr, 0)),
                "borrowingLimit": (format_amount(fr[1], q.borrowing_limit)
                                   if q and q.borrowing_limit is not None else None),
                "lendingLimit": format_amount(fr[1], q.lending_limit) if q and q.lending_limit is not None else None,
                "available": format_amount(fr[1], node.available(fr)) if node.is_cq else None,
                "maxAvailable": format_amount(fr[1], node.potential_available(fr)) if node.is_cq else None,
            })
        node = node.parent
    return rows


def explain(snap: GatheredSnapshot, workload: str | WorkloadKey, min_wait: timedelta = timedelta(minutes=5),
            now: datetime | None = None) -> dict[str, Any]:
    """``workload`` as the user wrote it, ``NAMESPACE/NAME``, or a key already resolved
    (``lookup.find_workload``: by a Job's, pod group's or Pod's name)."""
    key = workload if isinstance(workload, WorkloadKey) else WorkloadKey.parse(workload)
    facts = build_facts(snap, min_wait, now, scan_logs(snap))
    return explain_facts(facts, key)


def explain_facts(facts: Facts, key: WorkloadKey) -> dict[str, Any]:
    state = facts.state
    ns, name = key
    wf = facts.workloads.get(key)
    if wf is None:
        raise InputError(f"no Workload {key} in the snapshot ({len(state.workloads)} workloads read)")
    w = state.workloads[key]
    wi = facts.model.infos[key]
    out: dict[str, Any] = {"workload": str(key), "chain": [], "snapshotTime": rfc3339(facts.now),
                           "kueueVersion": facts.version}
    chain = out["chain"]

    def say(topic: str, text: str, **data: Any) -> None:
        chain.append({"topic": topic, "text": text, **({"data": data} if data else {})})

    if wf.state in (WorkloadState.PENDING, WorkloadState.UNQUEUED):
        when = f"waiting for {minutes(facts.now - wf.waiting_since)} (since creation or last requeue)"
    elif wf.admitted_at is not None:
        when = f"admitted {minutes(facts.now - wf.admitted_at)} ago"
    else:
        when = f"created {minutes(facts.now - wf.waiting_since)} ago"
    say("status", f"{key} is {wf.state}; {when}", priority=wf.priority, created=rfc3339(w.meta.creation_timestamp))
    qr = w.condition("QuotaReserved")
    if qr is not None and qr.status == "False":
        say("condition", f"QuotaReserved=False, reason {qr.reason}: {qr.message}")
    blocked = w.condition("BlockedOnPreemptionGates")
    if blocked is not None and blocked.status == "True":
        say("condition", f"BlockedOnPreemptionGates=True, reason {blocked.reason}: {blocked.message}")
    concurrent = facts.config.gate("ConcurrentAdmission")
    if is_variant(w):
        parent, _ = parent_ref(w)
        siblings = sorted(str(k) for k, o in state.workloads.items()
                          if k != key and parent_ref(o)[0] == parent and k.namespace == ns)
        say("variant", f"a ConcurrentAdmission variant of Workload {ns}/{parent} pursuing flavor "
                       f"{variant_flavor(w) or '(none named)'}" + (f"; its siblings: {', '.join(siblings)}"
                                                                   if siblings else "")
            + ("" if concurrent else "; the ConcurrentAdmission gate is off, so Kueue treats it as a plain workload"),
            parent=f"{ns}/{parent}", flavor=variant_flavor(w), siblings=siblings)
    elif concurrent and is_parent(w):
        say("variant", "a ConcurrentAdmission parent: its variants queue and reserve quota, it does neither")
    lq = state.local_queues.get((ns, w.queue_name))
    if lq is None:
        say("queue", f"LocalQueue {ns}/{w.queue_name} does not exist: Kueue never queues this workload")
        return out
    if lq.stop_policy not in ("", "None"):
        say("queue", f"LocalQueue {ns}/{w.queue_name} is stopped (stopPolicy {lq.stop_policy}): Kueue does not "
                     f"queue its work, and it is not counted against any guarantee")
    cq_name = wf.cluster_queue
    say("queue", f"LocalQueue {ns}/{w.queue_name} -> ClusterQueue {cq_name}")
    esnap = facts.model.snapshot
    cq = esnap.cluster_queues.get(cq_name) or esnap.inactive.get(cq_name)
    q = facts.queues.get(cq_name)
    if cq is None or q is None:
        say("queue", f"ClusterQueue {cq_name} does not exist")
        return out
    if cq_name in esnap.inactive:
        say("queue", f"ClusterQueue {cq_name} is inactive ({cq.inactive_reason}): Kueue admits nothing from it")
    frs = sorted({(f, r) for g in cq.groups for f in g.flavors for r in g.covered
                  if any(r in ps.per_pod for ps in wi.pod_sets)})
    if wf.state is WorkloadState.PENDING:
        if wf.position is not None:
            head = q.pending[0]
            say("position", f"position {wf.position} of {len(q.pending)} pending in {cq_name} ({cq.strategy}); "
                            f"head is {head}", position=wf.position, pending=len(q.pending), head=str(head))
            if wf.lq_usage is not None and wf.lq_rank is not None:
                rank, ranked = wf.lq_rank
                say("position", f"admission fair sharing orders {cq_name} by LocalQueue usage, before priority: "
                                f"{ns}/{w.queue_name} has usage {wf.lq_usage:.4g}, rank {rank} of {ranked} "
                                f"LocalQueue(s) with pending work (lowest first)",
                    localQueueUsage=wf.lq_usage if math.isfinite(wf.lq_usage) else str(wf.lq_usage),
                    localQueueRank=rank, localQueuesRanked=ranked)
            if wf.position > 1 and cq.strategy == "StrictFIFO":
                say("position", "StrictFIFO: Kueue only considers the head; this workload waits until every "
                                "workload ahead of it is admitted")
        for ps in wi.pod_sets:
            req = ", ".join(f"{r}={human_amount(r, v * ps.count)}" for r, v in sorted(ps.per_pod.items()))
            say("request", f"pod set {ps.name}: {ps.count} pod(s), total {req}")
        verdict = q.guarantee.verdicts.get(key)
        if verdict is not None:
            placed = ", ".join(f"{fr[0]}/{fr[1]}={human_amount(fr[1], v)}" for fr, v in sorted(verdict.placed.items()))
            waited = key in q.guarantee.violating
            say("guarantee", f"it {FIT_WORDS[verdict.fit]}" + (f" (on {placed})" if placed else "")
                + ("; it waited past the threshold: a guarantee violation" if waited else "")
                + "".join(f"; {e}" for e in verdict.excluded),
                fit=str(verdict.fit), excludedFlavors=list(verdict.excluded), violation=waited)
        say("quota", "quota up the cohort tree (per flavor the workload could use)",
            rows=quota_rows(facts, cq_name, frs))
        if cq_name in esnap.cluster_queues:
            pre = Preemptor(esnap, facts.config, facts.now)
            # as a cycle would: with its TAS snapshots, so a TAS pod set is placed by topology
            with cycle_tas(facts.model.scheduler) as tas:
                a, targets = facts.model.scheduler.get_assignments(wi, cq, pre)
                topo = head_topology(facts.model, wi, [f for g in cq.groups for f in g.flavors], tas, a)
                pref_bug = preference_bug(facts.model, wi, cq, pre, a)
            mode = MODE_NAMES[a.representative_mode()]
            say("assignment", f"as the head now, Kueue's flavor assigner says {mode}" +
                (f": {a.message()}" if a.message() else ""),
                attempts=[{"podSet": ps.name, "flavor": at.flavor, "mode": MODE_NAMES[at.mode], "borrow": at.borrow,
                           "reasons": at.reasons} for ps in a.pod_sets for at in ps.attempts])
            if pref_bug is not None:
                known = preference_bug_item(facts, cq_name, pref_bug)
                if known is not None:
                    say("known-bug", known, issue=bug(CauseId.NO_CANDIDATES_FLAVOR_PREFERRED).issue,
                        buggyFlavors=list(pref_bug.buggy_flavors), fixedFlavors=list(pref_bug.fixed_flavors))
            if mode == "Fit" and qr is not None and qr.status == "False" and qr.message:
                # the model admits what Kueue itself refused: a Kueue bug, a release we model wrongly,
                # or objects that changed between Kueue's last attempt and the snapshot
                say("disagreement", f"Kueue's own QuotaReserved condition refuses it ({qr.message}) while this "
                                    f"model of Kueue {facts.version or '(version unknown)'} admits it: a Kueue bug, "
                                    f"a behaviour the model lacks, or objects that changed since Kueue's last "
                                    f"attempt; trust the condition", kueueSays=qr.message)
            if topo is not None:
                for item in topology_items(topo):
                    say("topology", item[0], **item[1])
            victims = {v.key: v for v in facts.victims}
            gates = blocking_preemption_gates(wi, facts.config) if targets else []
            if gates:
                say("preemption-gates", f"blocked by preemption gate(s) {', '.join(gates)}: it needs preemption, "
                                        "but Kueue issues none while a gate is closed (the controller that owns "
                                        "the gate, MultiKueue or ConcurrentAdmission, opens it)", gates=gates)
            elif closed_preemption_gates(w) and targets:
                say("preemption-gates", f"closed preemption gate(s) {', '.join(closed_preemption_gates(w))}, "
                                        "ignored: neither MultiKueueOrchestratedPreemption nor (v0.19+) "
                                        "ConcurrentAdmission is on")
            if targets:
                def state_of(k: WorkloadKey) -> str:
                    v = victims.get(k)
                    if v is None:
                        return ""
                    if v.past_grace:
                        return f"; already evicted {minutes(v.held)} ago, pods stuck past their grace period"
                    return f"; already evicted {minutes(v.held)} ago, still terminating"
                say("preemption", f"preemption could make room by evicting {len(targets)} workload(s): "
                    + ", ".join(f"{t.key} ({t.reason}, in {t.cluster_queue}{state_of(t.key)})" for t in targets),
                    targets=[{"workload": str(t.key), "reason": t.reason, "clusterQueue": t.cluster_queue,
                              "alreadyEvicted": t.key in victims} for t in targets])
            elif a.representative_mode() != NO_FIT and mode != "Fit":
                p = cq.preemption
                say("preemption", f"no preemption candidates (withinClusterQueue {p.within_cluster_queue}, "
                                  f"reclaimWithinCohort {p.reclaim_within_cohort}): nothing this queue may evict "
                                  + ("would make room for its topology" if topo is not None and topo.failing
                                     else "would free enough quota"))
    elif wf.not_running:
        say("release", f"admitted to {cq_name} but not running: {wf.not_running}")
        counted = key in q.guarantee.not_running
        say("guarantee", "admitted work that does not run is guaranteed while its queue is within its nominal "
            "quota: " + ("it waited past the threshold, a guarantee violation" if counted else
                         "not counted as a violation (" + ("nobody waits on an orphaned Workload"
                                                           if wf.not_running.kind == "orphaned" else
                                                           "the queue is above its nominal quota, or it waited "
                                                           "less than the threshold") + ")"),
            notRunning=str(wf.not_running.kind), violation=counted)
    elif wf.state is WorkloadState.ADMITTED:
        say("release", "admitted and released to Kubernetes" if wf.pods or wf.job else
            "admitted; no Pods or Job of it were read, so whether it runs is unknown")
    for v in facts.victims:
        if v.key == key:
            say("eviction", f"evicted {minutes(v.held)} ago; {len(v.live_pods)} pod(s) still present"
                + (f", {len(v.past_grace)} past their grace period" if v.past_grace else ""))
    if state.nodes:
        from ..engine.nodes import count_slots, node_infos, pod_needs
        from ..frag.from_state import shape_of
        nodes_now = node_infos(state)
        verdict = q.guarantee.verdicts.get(key)
        for ps, spec_ps in zip(wi.pod_sets, w.pod_sets, strict=True):
            flavor_name = (admitted_flavor(w, ps.name) or _placed_flavor(verdict)
                           or (cq.groups[0].flavors[0] if cq.groups else ""))
            flavor = state.resource_flavors.get(flavor_name)
            needs = pod_needs(spec_ps.template, None, [flavor] if flavor else [])
            slots, with_slot = count_slots(nodes_now, needs)
            say("nodes", f"pod set {ps.name} on flavor {flavor_name or '-'}: {slots} free slot(s) on "
                         f"{with_slot} node(s) for {ps.count} pod(s) of {shape_of(needs).describe()}",
                slots=slots, nodes=with_slot)
    lines = log_lines(facts.log_files, key)
    if lines:
        say("logs", f"{len(lines)} controller log line(s) mention it (last {min(len(lines), 10)} shown)",
            lines=lines[-10:])
    events = [e for e in state.events if e.involved_name == name and e.involved_namespace == ns]
    for e in sorted(events, key=lambda e: e.last_timestamp or facts.now)[-5:]:
        say("event", f"{e.type} {e.reason} x{e.count}: {e.message}")
    return out


def preference_bug_item(facts: Facts, cq_name: str, b: PreferenceBug) -> str | None:
    """What kubernetes-sigs/kueue#13607 does to this workload on the snapshot's release."""
    known = bug(CauseId.NO_CANDIDATES_FLAVOR_PREFERRED)
    aff = affected(facts.release, CauseId.NO_CANDIDATES_FLAVOR_PREFERRED)
    wanted, how = ", ".join(b.buggy_flavors) or "-", b.how(cq_name)
    if aff is False:
        return None
    if aff and facts.release is not None:
        return (f"Kueue {facts.release.label} carries {known.issue}: it {how}; the workload stays pending until "
                f"{wanted} has room. Fixed in {known.fixed_in}; until then set flavorFungibility.preference "
                f"BorrowingOverPreemption on {cq_name}")
    return (f"Kueue version unknown, and the answer depends on it: a release without the fix for {known.issue}"
            f", fixed in {known.fixed_in}, {how}; the answer above is a fixed release's. Collect the "
            f"kueue-controller-manager Deployment to tell")


def _placed_flavor(verdict: Any) -> str | None:
    if verdict is None or not verdict.placed:
        return None
    return next(iter(sorted(verdict.placed)))[0]


def admitted_flavor(w: Any, pod_set: str) -> str | None:
    if w.status.admission is None:
        return None
    for psa in w.status.admission.pod_set_assignments:
        if psa.name == pod_set and psa.flavors:
            return str(next(iter(psa.flavors.values())))
    return None


def log_lines(files: tuple[str, ...], key: WorkloadKey, limit: int = 200) -> list[str]:
    """Controller log lines that name the workload (streamed; only the last ``limit`` kept)."""
    ns, name = key
    # klog references ({"name","namespace"}), reconcile keys, and "ns/name" strings; a bare name
    # would also match namesakes in other namespaces
    refs = (f'"name":"{name}","namespace":"{ns}"', f'"namespace":"{ns}","name":"{name}"')
    # ...and the same inside Docker's json-file wrapper, where the line's quotes are escaped
    needles = (str(key).encode(), *(r.encode() for r in refs), *(r.replace('"', '\\"').encode() for r in refs))
    kept: collections.deque[str] = collections.deque(maxlen=limit)
    for path in files:
        opener: Any = gzip.open if path.endswith(".gz") else open
        try:
            with opener(path, "rb") as fh:
                for raw in fh:
                    if any(n in raw for n in needles):
                        kept.append(raw.decode("utf-8", "replace").rstrip()[:600])
        except OSError:
            continue
    return list(kept)
