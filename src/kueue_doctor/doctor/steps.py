"""Steps 2 to 6 of the recipe, each with the cause candidates its evidence supports."""
from __future__ import annotations

import re
from collections import defaultdict
from datetime import timedelta
from typing import Optional

from ..engine.assignment import FIT, MODE_NAMES
from ..engine.drs import dominant_resource_share
from ..engine.preemption import Preemptor
from ..guarantee import QueueGuarantee
from ..kueue.bugs import affected, bug
from ..kueue.releases import DRS_EXACT
from .context import Context
from .findings import FAIL, PASS, Cause, Step, Violation
from .violations import pending_in_order, queue_snapshots

PREEMPTOR_PATH = re.compile(r"preemptor path: (\S+?);")


def preemptor_queue(eviction_message: str) -> str:
    """The preempting ClusterQueue named at the end of an eviction message's preemptor path."""
    m = PREEMPTOR_PATH.search(eviction_message or "")
    return m.group(1).rstrip("/").split("/")[-1] if m else ""


def minutes(d: timedelta) -> str:
    m = d.total_seconds() / 60
    return f"{m:.0f} min" if m >= 1 else f"{d.total_seconds():.0f} s"


# -- step 2: fragmentation -------------------------------------------------------------------

def step2(ctx: Context, violations: list[Violation], not_running: dict) -> tuple[Step, list[Cause]]:
    step = Step(2, "Rule out fragmentation")
    state = ctx.state
    if not state.nodes or not state.pods:
        step.summary = "no Nodes and Pods in the snapshot: collect `kubectl get nodes,pods -A -o yaml`"
        return step, []
    causes = []
    from ..frag.diagnose import FRAGMENTATION, diagnose as frag_diagnose
    from ..frag.from_state import node_shapes, queue_demands
    # node shapes once, then only slot counting per queue; the costly placement-policy what-if
    # runs once, for the shapes fragmentation strands
    now, empty, running = node_shapes(state)
    cache: dict = {}
    per_queue = [(v, frag_diagnose(now, queue_demands(state, v.cluster_queue, now,
                                                      [wi.obj for wi in pending_in_order(ctx, v.cluster_queue)],
                                                      cache), slot_cache=cache))
                 for v in violations]
    fragmented = [f for _, fs in per_queue for f in fs if f.cause == FRAGMENTATION]
    if fragmented:
        redo = frag_diagnose(now, [f.demand for f in fragmented], running, empty, policies=("BestFit", "FGD"),
                             slot_cache=cache)
        for f, r in zip(fragmented, redo):
            f.policy_slots, f.policy_refused = r.policy_slots, r.policy_refused
    problem = False
    for v, findings in per_queue:
        unsched = [k for k, r in not_running.get(v.cluster_queue, {}).items() if "unschedulable" in r]
        for f in findings:
            step.evidence.append(f"{v.cluster_queue}: {f.summary()}")
            if f.cause == FRAGMENTATION:
                problem = True
                gains = ", ".join(f"{p} +{g}" for p, g in f.policy_gain().items() if g > 0)
                causes.append(Cause("fragmentation", "high" if unsched else "medium", [v.cluster_queue],
                                    v.pending_workloads,
                                    f"{v.cluster_queue}: enough free resources in total but no node has room for "
                                    f"{f.demand.shape.describe()}.",
                                    [f"{v.cluster_queue}: {f.summary()}"] + ([f"placement policies would have "
                                                                               f"fit more: {gains}"] if gains else []),
                                    "Pack GPU pods (MostAllocated / bin-packing scoring), drain and defragment "
                                    "nodes, or size workloads to the free node shapes.",
                                    weight=len(v.pending_workloads)))
        for k in unsched:
            step.evidence.append(f"{v.cluster_queue}: admitted workload {k} has unschedulable pods")
    step.status = FAIL if problem else PASS
    step.summary = ("free capacity is stranded on nodes that cannot take the pending shapes" if problem else
                    "no violating queue is blocked by fragmentation" if violations else
                    "no violation to explain")
    return step, causes


# -- step 3: admission and preemption rates ------------------------------------------------------

def step3(ctx: Context, violations: list[Violation]) -> tuple[Step, dict[str, tuple[int, int]]]:
    step = Step(3, "Admission and preemption rates")
    window = timedelta(hours=1)
    since = ctx.now - window
    admissions: dict[str, int] = defaultdict(int)
    preemptions: dict[str, int] = defaultdict(int)
    seen = False
    for key, wi in ctx.infos.items():
        w = wi.obj
        qr = w.condition("QuotaReserved")
        if qr is not None and qr.last_transition_time is not None:
            seen = True
            if qr.status == "True" and since <= qr.last_transition_time <= ctx.now and w.status.admission:
                admissions[w.status.admission.cluster_queue] += 1
        pc = w.condition("Preempted")
        if pc is not None and pc.status == "True" and pc.last_transition_time and since <= pc.last_transition_time:
            ev = w.condition("Evicted")
            cq = preemptor_queue(ev.message if ev else "") or ctx.cluster_queue_of(w)
            preemptions[cq] += 1
    logs = ctx.logs
    if logs is not None:
        for cq, q in (logs.per_cluster_queue or {}).items():
            seen = True
            admissions[cq] = max(admissions[cq], int(q.get("admissions", 0) or 0))
            preemptions[cq] = max(preemptions[cq], int(q.get("preemptionsIssued", q.get("preemptions", 0)) or 0))
    if not seen:
        step.summary = "no workload conditions, events or logs with times: collect Workloads with status and controller logs"
        return step, {}
    stalled = []
    for name in sorted(queue_snapshots(ctx)):
        a, p = admissions.get(name, 0), preemptions.get(name, 0)
        violating = any(v.cluster_queue == name for v in violations)
        if violating or a or p:
            step.evidence.append(f"{name}: {a} admission(s), {p} preemption(s) issued in the last hour"
                                 + (" while in violation" if violating else ""))
        if violating and a == 0:
            stalled.append(name)
    step.status = FAIL if stalled else PASS
    step.summary = (f"no admissions in the last hour for violating queue(s) {', '.join(stalled)}" if stalled
                    else "Kueue is admitting in every violating queue" if violations else "admissions are flowing")
    return step, {k: (admissions[k], preemptions[k]) for k in set(admissions) | set(preemptions)}


# -- step 4: release to Kubernetes, victims holding quota ----------------------------------------

def victims(ctx: Context) -> list[dict]:
    """Evicted workloads that still hold their quota, with the state of their pods."""
    out = []
    for key, wi in ctx.infos.items():
        w = wi.obj
        if not (w.is_true("Evicted") and w.is_true("QuotaReserved")):
            continue
        ev = w.condition("Evicted")
        since = ev.last_transition_time or ctx.now
        pods = [p for p in ctx.pods_of.get(key, []) if p.phase not in ("Succeeded", "Failed")]
        past_grace = []
        grace = 0
        for p in pods:
            g = p.meta.deletion_grace_period_seconds
            if g is None:
                g = p.spec.termination_grace_period_seconds
            grace = max(grace, g or 0)
            if p.meta.deletion_timestamp is not None and p.meta.deletion_timestamp + timedelta(seconds=g or 0) < ctx.now:
                past_grace.append(p.meta.name)
        preemptor_cq = preemptor_queue(ev.message)
        out.append({"key": key, "cq": ctx.cluster_queue_of(w), "since": since, "held": ctx.now - since,
                    "pods": pods, "past_grace": past_grace, "grace": grace, "preemptor_cq": preemptor_cq,
                    "pod_group": any(p.meta.labels.get("kueue.x-k8s.io/pod-group-name") for p in pods)
                    or (bool(pods) and key not in ctx.jobs_of and not any(
                        r.get("kind") == "Job" for r in w.meta.owner_references))})
    return out


def step4(ctx: Context, violations: list[Violation], not_running: dict) -> tuple[Step, list[Cause], list[dict]]:
    step = Step(4, "Release to Kubernetes")
    vict = victims(ctx)
    if not ctx.state.pods and not ctx.state.jobs:
        step.summary = "no Pods or Jobs in the snapshot: collect `kubectl get pods,jobs -A -o yaml`"
        return step, [], vict
    causes = []
    violating = {v.cluster_queue for v in violations}
    gated = []
    for cq, reasons in sorted(not_running.items()):
        for key, reason in sorted(reasons.items()):
            if "gate" in reason or "suspended" in reason:
                w = ctx.infos[key].obj
                since = (w.condition("Admitted") or w.condition("QuotaReserved")).last_transition_time or ctx.now
                if ctx.now - since >= ctx.min_wait:
                    gated.append((cq, key, reason, ctx.now - since))
    for cq, key, reason, held in gated:
        step.evidence.append(f"{key} ({cq}) admitted {minutes(held)} ago but {reason}")
        if cq in violating:
            causes.append(Cause("not-released", "high", [cq], [key],
                                f"{cq}: admitted workloads were never handed to Kubernetes.",
                                [f"{key} admitted {minutes(held)} ago but {reason}"],
                                "Check the Kueue job reconciler and webhooks (logs around 'Job admitted, "
                                "unsuspending' / gate removal), foreign scheduling gates, and RBAC for pods/jobs.",
                                weight=1))
    for v in vict:
        state = (f"{len(v['past_grace'])} pod(s) past their grace period still present" if v["past_grace"]
                 else f"{len(v['pods'])} pod(s) terminating (grace {v['grace']} s)" if v["pods"] else "no pods left")
        step.evidence.append(f"victim {v['key']} ({v['cq']}) evicted {minutes(v['held'])} ago still holds its quota: "
                             f"{state}" + (f"; preempted by {v['preemptor_cq']}" if v["preemptor_cq"] else ""))
    bad = gated or any(v["held"] >= timedelta(minutes=2) for v in vict)
    step.status = FAIL if bad else PASS
    step.summary = ("; ".join(s for s in (
        f"{len(gated)} admitted workload(s) not released" if gated else "",
        f"{len(vict)} preemption victim(s) still holding quota" if vict else "") if s)
        or "every admitted workload was released and victims gave their quota back")
    return step, causes, vict


# -- step 5: logs ---------------------------------------------------------------------------------

def step5(ctx: Context) -> Step:
    step = Step(5, "Kueue controller logs (V(5))")
    logs = ctx.logs
    if logs is None:
        step.summary = ("no controller log in the snapshot: collect `kubectl logs -n kueue-system "
                        "deploy/kueue-controller-manager` with --zap-log-level=5")
        return step
    for f in logs.findings:
        step.evidence.append(f"{f.id}: {f.to_json().get('summary', '')}")
        for ex in (f.to_json().get("examples") or [])[:2]:
            step.evidence.append(f"  {ex}" if isinstance(ex, str) else f"  {ex}")
    step.status = FAIL if logs.findings else PASS
    step.summary = (f"{len(logs.findings)} known signature(s) in {logs.lines} log lines: "
                    + ", ".join(f.id for f in logs.findings)) if logs.findings else \
        f"no known failure signature in {logs.lines} log lines"
    return step


# -- step 6: health -----------------------------------------------------------------------------

def step6(ctx: Context) -> tuple[Step, list[Cause], list[str]]:
    step = Step(6, "System health")
    state = ctx.state
    causes = []
    if not state.nodes and state.kueue_deployment() is None and ctx.logs is None:
        step.summary = "no Nodes, Kueue Deployment or logs in the snapshot: collect them"
        return step, [], []
    bad_nodes = []
    for name, n in sorted(state.nodes.items()):
        ready = n.ready()
        if ready is False or ready is None and n.conditions:
            bad_nodes.append(name)
            step.evidence.append(f"node {name} is NotReady")
        elif n.unschedulable:
            step.evidence.append(f"node {name} is cordoned")
    dep = state.kueue_deployment()
    unhealthy = False
    if dep is not None and dep.ready_replicas < dep.replicas:
        unhealthy = True
        step.evidence.append(f"kueue-controller-manager: {dep.ready_replicas}/{dep.replicas} replicas ready")
    for (ns, name), p in state.pods.items():
        if "kueue-controller-manager" in name:
            restarts = sum(int(c.get("restartCount", 0) or 0) for c in p.container_statuses)
            if restarts:
                step.evidence.append(f"controller pod {ns}/{name} restarted {restarts} time(s)")
                unhealthy = unhealthy or restarts >= 3
    if ctx.logs is not None:
        f = ctx.logs.finding("controller-unhealthy")
        if f is not None:
            unhealthy = True
            step.evidence.append(f"logs: {f.to_json().get('summary', '')}")
    if unhealthy:
        causes.append(Cause("controller-unhealthy", "medium", [], [], "The Kueue controller is not healthy.",
                            [e for e in step.evidence if "controller" in e or "logs:" in e],
                            "Check the controller's restarts, leader election and API errors.", cluster_wide=True))
    if bad_nodes:
        causes.append(Cause("node-unhealthy", "medium", [], [],
                            f"{len(bad_nodes)} node(s) NotReady: {', '.join(bad_nodes[:5])}.",
                            [f"node {n} is NotReady" for n in bad_nodes],
                            "Recover or replace the nodes; pods on them cannot terminate or run.", cluster_wide=True))
    step.status = FAIL if (bad_nodes or unhealthy) else PASS
    step.summary = ("; ".join(s for s in (f"{len(bad_nodes)} NotReady node(s)" if bad_nodes else "",
                                          "controller unhealthy" if unhealthy else "") if s)
                    or "nodes Ready, controller healthy")
    return step, causes, bad_nodes


# -- engine-based causes --------------------------------------------------------------------

def head_analysis(ctx: Context, name: str) -> Optional[dict]:
    """What the engine says about the queue's head right now."""
    cqs = ctx.model.snapshot.cluster_queues.get(name)
    pending = pending_in_order(ctx, name)
    if cqs is None or not pending:
        return None
    head = pending[0]
    pre = Preemptor(ctx.model.snapshot, ctx.config, ctx.now)
    assignment, targets = ctx.model.scheduler.get_assignments(head, cqs, pre)
    return {"head": head, "mode": assignment.representative_mode(), "message": assignment.message(),
            "targets": targets, "strategy": cqs.strategy}


def queue_causes(ctx: Context, violations: list[Violation], guarantees: dict[str, QueueGuarantee],
                 vict: list[dict], bad_nodes: list[str]) -> list[Cause]:
    causes: list[Cause] = []
    snap = ctx.model.snapshot
    for v in violations:
        name = v.cluster_queue
        cq_obj = ctx.state.cluster_queues.get(name)
        inactive = snap.inactive.get(name)
        active_cond = next((c for c in (cq_obj.status.conditions if cq_obj else []) if c.type == "Active"), None)
        if inactive is not None or (active_cond is not None and active_cond.status == "False"):
            why = inactive.inactive_reason if inactive is not None else ""
            msg = active_cond.message if active_cond is not None else ""
            causes.append(Cause("inactive-queue", "high", [name], v.pending_workloads,
                                f"ClusterQueue {name} is inactive ({why or (active_cond.reason if active_cond else '')}), "
                                f"so Kueue admits none of its work.",
                                [e for e in (f"engine: {why}" if why else "", f"status Active=False: {msg}" if msg else "") if e],
                                _inactive_remedy(why), weight=len(v.pending_workloads)))
            continue
        h = head_analysis(ctx, name)
        if h is None:
            continue
        head = h["head"]
        fitting = set(guarantees[name].fitting)
        blocked_behind = [k for k in v.pending_workloads if k != head.key]
        if h["mode"] != FIT and not h["targets"] and head.key not in fitting and h["strategy"] == "StrictFIFO" \
                and blocked_behind:
            causes.append(Cause(
                "head-of-line-blocking", "high", [name], blocked_behind,
                f"{name} is StrictFIFO and its head {head.key} cannot be admitted "
                f"({MODE_NAMES[h['mode']]}); Kueue puts it back at the front every cycle, so the "
                f"{len(blocked_behind)} workload(s) behind it that fit the nominal quota are never considered.",
                [f"head {head.key}: {h['message']}",
                 f"waiting behind it within nominal quota: {', '.join(blocked_behind[:5])}"],
                f"Switch {name} to queueingStrategy BestEffortFIFO, or make the head admissible (smaller request, "
                f"borrowing room, or preemption while borrowing), or move it to its own queue.",
                weight=len(blocked_behind)))
        # victims this queue is waiting for
        for t in vict:
            waits = t["preemptor_cq"] == name or any(x.key == t["key"] for x in h["targets"])
            if not waits:
                continue
            if t["past_grace"]:
                aff = affected(ctx.release, "stuck-preemption-target")
                causes.append(Cause(
                    "stuck-preemption-target", "high" if aff is not False else "medium", [name],
                    v.pending_workloads,
                    f"Preemption victim {t['key']} has pods stuck terminating past their grace period and still holds "
                    f"its quota; every head that targets it waits or is skipped.",
                    [f"{t['key']}: evicted {minutes(t['held'])} ago, pods past grace: {', '.join(t['past_grace'][:3])}"]
                    + ([f"pods are on NotReady node(s): {', '.join(bad_nodes[:3])}"] if bad_nodes else [])
                    + _release_evidence(ctx, "stuck-preemption-target"),
                    "Force-delete the stuck pods (or recover the node); upgrade to "
                    + bug("stuck-preemption-target").fixed_in + ".", weight=len(v.pending_workloads)))
            elif t["held"] >= timedelta(minutes=1) and t["grace"] >= 120:
                aff = affected(ctx.release, "slow-preemption-release")
                causes.append(Cause(
                    "slow-preemption-release", "high" if (aff is not False and t["pod_group"]) else "medium", [name],
                    v.pending_workloads,
                    f"{name}'s head waits for victim {t['key']} to release quota: its pods take up to "
                    f"{t['grace']} s to terminate and a pod group keeps its quota until they are gone, so the "
                    f"queue admits about one preempting workload per grace period.",
                    [f"{t['key']}: evicted {minutes(t['held'])} ago, {len(t['pods'])} pod(s) terminating, "
                     f"grace {t['grace']} s"] + _release_evidence(ctx, "slow-preemption-release"),
                    "Shorten terminationGracePeriodSeconds / preStop hooks of preemptible workloads, or run Kueue "
                    "v0.17+ with FastQuotaReleaseInPodIntegration=true.", weight=len(v.pending_workloads)))
    causes += drs_causes(ctx, violations)
    return causes


def drs_causes(ctx: Context, violations: list[Violation]) -> list[Cause]:
    if not ctx.config.fair_sharing or not violations:
        return []
    snap = ctx.model.snapshot
    mode = ctx.config.drs_mode
    out = []
    for v in violations:
        cq = snap.cluster_queues.get(v.cluster_queue)
        if cq is None or cq.node.parent is None:
            continue
        root = cq.node.root()
        zero = []
        for other in snap.cluster_queues.values():
            if other is cq or other.node.root() is not root:
                continue
            if not any(other.node.borrowing(fr) for fr in other.node.quotas):
                continue
            legacy = dominant_resource_share(other.node, None, mode)
            status_share = other.obj.status.weighted_share
            if (mode != DRS_EXACT and legacy.is_zero()) or status_share == 0:
                zero.append((other.name, legacy, status_share))
        if zero:
            aff = affected(ctx.release, "drs-rounding")
            out.append(Cause(
                "drs-rounding", "high" if aff else "medium", [v.cluster_queue], v.pending_workloads,
                f"{', '.join(z[0] for z in zero)} borrow(s) but their DominantResourceShare rounds to 0, so "
                f"fair-sharing preemption prunes them and {v.cluster_queue} cannot reclaim its nominal quota.",
                [f"{n} borrows; DRS on this release = {d.rounded()} (status weightedShare {s})" for n, d, s in zero]
                + _release_evidence(ctx, "drs-rounding"),
                "Upgrade to " + bug("drs-rounding").fixed_in + "; meanwhile set lendingLimit 0 on the "
                "reclaiming ClusterQueue or lower the fair-sharing weights.", weight=len(v.pending_workloads)))
    return out


def _release_evidence(ctx: Context, cause: str) -> list[str]:
    if ctx.release is None:
        return ["Kueue version unknown"]
    b = bug(cause)
    if b.affected(ctx.release):
        return [f"Kueue {ctx.release.label} is affected ({b.issue}); fixed in {b.fixed_in}"]
    return [f"Kueue {ctx.release.label} carries the fix for {b.issue}"]


def _inactive_remedy(why: str) -> str:
    if why.startswith("FlavorNotFound"):
        return ("Remove the missing ResourceFlavor(s) from the ClusterQueue's resourceGroups, or recreate them: "
                + why.split(":", 1)[-1].strip() + ".")
    if why == "Stopped":
        return "Set spec.stopPolicy back to None."
    return "Fix what makes the ClusterQueue inactive (see its Active condition)."
