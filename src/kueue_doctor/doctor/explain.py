"""`explain`: why is this workload pending (or not running)? The chain of reasons."""
from __future__ import annotations

from datetime import timedelta
from typing import Optional

from ..api.quantity import format_amount
from ..engine.assignment import MODE_NAMES, NO_FIT
from ..engine.preemption import Preemptor
from ..errors import InputError
from ..sources.snapshot import Snapshot
from .context import Context, build_context
from .diagnose import scan_logs
from .steps import minutes, victims
from .violations import not_running_reason, pending_in_order, queue_snapshots


def _tree(ctx: Context, cq_name: str, frs) -> list[dict]:
    """The quota arithmetic for ``frs`` from the ClusterQueue up to its root cohort."""
    cq = queue_snapshots(ctx).get(cq_name)
    if cq is None:
        return []
    rows = []
    node = cq.node
    while node is not None:
        for fr in frs:
            q = node.quotas.get(fr)
            rows.append({
                "node": ("ClusterQueue " if node.is_cq else "Cohort ") + node.name, "flavor": fr[0], "resource": fr[1],
                "nominal": format_amount(fr[1], q.nominal if q else 0),
                "subtreeQuota": format_amount(fr[1], node.subtree.get(fr, 0)),
                "used": format_amount(fr[1], node.usage.get(fr, 0)),
                "borrowingLimit": format_amount(fr[1], q.borrowing_limit) if q and q.borrowing_limit is not None else None,
                "lendingLimit": format_amount(fr[1], q.lending_limit) if q and q.lending_limit is not None else None,
                "available": format_amount(fr[1], node.available(fr)) if node.is_cq else None,
                "maxAvailable": format_amount(fr[1], node.potential_available(fr)) if node.is_cq else None,
            })
        node = node.parent
    return rows


def explain(snap: Snapshot, key: str, min_wait: timedelta = timedelta(minutes=5)) -> dict:
    ns, sep, name = key.partition("/")
    if not sep or not ns or not name:
        raise InputError(f"{key!r}: expected NAMESPACE/NAME of a Workload")
    logs = scan_logs(snap)
    ctx = build_context(snap, min_wait, None, logs)
    w = ctx.state.workloads.get((ns, name))
    if w is None:
        raise InputError(f"no Workload {key} in the snapshot ({len(ctx.state.workloads)} workloads read)")
    wi = ctx.infos[key]
    out: dict = {"workload": key, "chain": [], "snapshotTime": ctx.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "kueueVersion": ctx.version}
    chain = out["chain"]

    def say(topic: str, text: str, **data) -> None:
        chain.append({"topic": topic, "text": text, **({"data": data} if data else {})})

    status = ("finished" if w.is_true("Finished") else "evicted, still holding quota" if w.is_true("Evicted")
              and w.is_true("QuotaReserved") else "admitted" if w.is_true("QuotaReserved") else
              "inactive (spec.active=false)" if not w.active else "pending")
    waited = ctx.now - ctx.waiting_since(w)
    say("status", f"{key} is {status}; waiting for {minutes(waited)} (since creation or last requeue)",
        priority=wi.priority, created=str(w.meta.creation_timestamp))
    qr = w.condition("QuotaReserved")
    if qr is not None and qr.status == "False":
        say("condition", f"QuotaReserved=False, reason {qr.reason}: {qr.message}")

    lq = ctx.state.local_queues.get((ns, w.queue_name))
    if lq is None:
        say("queue", f"LocalQueue {ns}/{w.queue_name} does not exist: Kueue never queues this workload")
        return out
    if lq.stop_policy not in ("", "None"):
        say("queue", f"LocalQueue {ns}/{w.queue_name} is stopped (stopPolicy {lq.stop_policy})")
    cq_name = ctx.cluster_queue_of(w)
    say("queue", f"LocalQueue {ns}/{w.queue_name} -> ClusterQueue {cq_name}")
    all_cqs = queue_snapshots(ctx)
    cq = all_cqs.get(cq_name)
    if cq is None:
        say("queue", f"ClusterQueue {cq_name} does not exist")
        return out
    if cq_name in ctx.model.snapshot.inactive:
        say("queue", f"ClusterQueue {cq_name} is inactive ({cq.inactive_reason}): Kueue admits nothing from it")

    frs = sorted({(f, r) for g in cq.groups for f in g.flavors for r in g.covered
                  if any(r in ps.per_pod for ps in wi.pod_sets)})
    if status == "pending":
        pending = pending_in_order(ctx, cq_name)
        pos = next((i for i, p in enumerate(pending) if p.key == key), None)
        if pos is not None:
            head = pending[0]
            say("position", f"position {pos + 1} of {len(pending)} pending in {cq_name} ({cq.strategy}); head is {head.key}",
                position=pos + 1, pending=len(pending), head=head.key)
            if pos > 0 and cq.strategy == "StrictFIFO":
                say("position", "StrictFIFO: Kueue only considers the head; this workload waits until every "
                                "workload ahead of it is admitted")
        for ps in wi.pod_sets:
            req = ", ".join(f"{r}={format_amount(r, v * ps.count)}" for r, v in sorted(ps.per_pod.items()))
            say("request", f"pod set {ps.name}: {ps.count} pod(s), total {req}")
        say("quota", "quota up the cohort tree (per flavor the workload could use)", rows=_tree(ctx, cq_name, frs))
        if cq_name in ctx.model.snapshot.cluster_queues:
            pre = Preemptor(ctx.model.snapshot, ctx.config, ctx.now)
            a, targets = ctx.model.scheduler.get_assignments(wi, cq, pre)
            mode = MODE_NAMES[a.representative_mode()]
            say("assignment", f"as the head now, Kueue's flavor assigner says {mode}" +
                (f": {a.message()}" if a.message() else ""),
                attempts=[{"podSet": ps.name, "flavor": at.flavor, "mode": MODE_NAMES[at.mode], "borrow": at.borrow,
                           "reasons": at.reasons} for ps in a.pod_sets for at in ps.attempts])
            if targets:
                evicted = {v["key"]: v for v in victims(ctx)}

                def state_of(k: str) -> str:
                    v = evicted.get(k)
                    if v is None:
                        return ""
                    if v["past_grace"]:
                        return f"; already evicted {minutes(v['held'])} ago, pods stuck past their grace period"
                    return f"; already evicted {minutes(v['held'])} ago, still terminating"
                say("preemption", f"preemption could make room by evicting {len(targets)} workload(s): "
                    + ", ".join(f"{t.key} ({t.reason}, in {t.cluster_queue}{state_of(t.key)})" for t in targets),
                    targets=[{"workload": t.key, "reason": t.reason, "clusterQueue": t.cluster_queue,
                              "alreadyEvicted": t.key in evicted} for t in targets])
            elif a.representative_mode() != NO_FIT and mode != "Fit":
                p = cq.preemption
                say("preemption", f"no preemption candidates (withinClusterQueue {p.within_cluster_queue}, "
                                  f"reclaimWithinCohort {p.reclaim_within_cohort}): nothing this queue may evict "
                                  f"would free enough quota")
    else:
        reason = not_running_reason(ctx, key, w)
        if reason:
            say("release", f"admitted to {cq_name} but not running: {reason}")
        elif status == "admitted":
            say("release", "admitted and released to Kubernetes")
    for v in victims(ctx):
        if v["key"] == key:
            say("eviction", f"evicted {minutes(v['held'])} ago; {len(v['pods'])} pod(s) still present"
                + (f", {len(v['past_grace'])} past their grace period" if v["past_grace"] else ""))
    if ctx.state.nodes:
        from ..frag.from_state import node_shapes, pod_shape
        from ..frag.slots import count_slots
        nodes_now = node_shapes(ctx.state)[0]
        for ps, spec_ps in zip(wi.pod_sets, w.pod_sets):
            flavor_name = (a_flavor(ctx, w, ps.name) or (cq.groups[0].flavors[0] if cq.groups else ""))
            flavor = ctx.state.resource_flavors.get(flavor_name)
            shape = pod_shape(spec_ps.template, None, flavor.node_labels if flavor else {},
                              flavor.tolerations if flavor else ())
            slots = count_slots(nodes_now, shape)
            say("nodes", f"pod set {ps.name} on flavor {flavor_name or '-'}: {slots.slots} free slot(s) on "
                         f"{slots.nodes_with_slot} node(s) for {ps.count} pod(s) of {shape.describe()}",
                slots=slots.slots, nodes=slots.nodes_with_slot)
    lines = log_lines(snap, key)
    if lines:
        say("logs", f"{len(lines)} controller log line(s) mention it (last {min(len(lines), 10)} shown)",
            lines=lines[-10:])
    events = [e for e in ctx.state.events if e.involved_name == name and e.involved_namespace == ns]
    for e in sorted(events, key=lambda e: e.last_timestamp or ctx.now)[-5:]:
        say("event", f"{e.type} {e.reason} x{e.count}: {e.message}")
    return out


def a_flavor(ctx: Context, w, pod_set: str) -> Optional[str]:
    if w.status.admission is None:
        return None
    for psa in w.status.admission.pod_set_assignments:
        if psa.name == pod_set and psa.flavors:
            return next(iter(psa.flavors.values()))
    return None


def log_lines(snap: Snapshot, key: str, limit: int = 200) -> list[str]:
    """Controller log lines that name the workload (streamed; only the last ``limit`` kept)."""
    import collections
    import gzip
    ns, _, name = key.partition("/")
    # klog references ({"name","namespace"}), reconcile keys, and "ns/name" strings; a bare name
    # would also match namesakes in other namespaces
    needles = (key.encode(), f'"name":"{name}","namespace":"{ns}"'.encode(),
               f'"namespace":"{ns}","name":"{name}"'.encode())
    kept: collections.deque = collections.deque(maxlen=limit)
    for path in snap.log_files:
        opener = gzip.open if path.endswith(".gz") else open
        try:
            with opener(path, "rb") as fh:
                for raw in fh:
                    if any(n in raw for n in needles):
                        kept.append(raw.decode("utf-8", "replace").rstrip()[:600])
        except OSError:
            continue
    return list(kept)
