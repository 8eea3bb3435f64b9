"""Build the facts of one snapshot: every workload's state, each queue's observation and its
guarantee (``kueue_doctor.guarantee``), victims, health, what was read. Computed once."""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from .. import heap
from ..api import objects as o
from ..api.pods import index_pods
from ..api.state import ClusterState
from ..engine.afs import AfsBehaviour, order_key
from ..engine.assignment import MODE_NAMES
from ..engine.config import EngineConfig
from ..engine.model import AdmissionModel
from ..engine.preemption import Preemptor
from ..engine.tas.snapshot import tas_pod_marks
from ..engine.transformations import TransformBehaviour
from ..engine.workload import WorkloadInfo
from ..guarantee import Evaluator, NotRunning, QueueObservation, Waiting
from ..keys import WorkloadKey
from ..kueue.constants import ADMISSION_GATE, JOB_UID_LABEL, QUEUE_NAME_LABEL
from ..kueue.constants import POD_GROUP_NAME_LABEL as POD_GROUP_LABEL
from ..kueue.eviction import preemptor_queue
from ..kueue.releases import release_for
from ..kueue.version import parse_version
from ..sources.snapshot import GatheredSnapshot, latest_timestamp, utc
from .capacity import capacity_facts
from .facts import (
    CohortFacts,
    ControllerHealth,
    Facts,
    HeadFacts,
    HeldWithoutPods,
    NodeHealth,
    NotReleased,
    NotRunningKind,
    NotRunningReason,
    PreemptionTarget,
    PreferenceBug,
    QueueFacts,
    QuotaShortfall,
    ReadCounts,
    TimeSource,
    VictimFacts,
    WorkloadFacts,
    WorkloadState,
)
from .tas import cycle_tas, head_topology, tas_view

RATE_WINDOW = timedelta(hours=1)


Conditions = dict[str, o.Condition]
_NO_CONDITIONS: Conditions = {}


def conditions_of(w: o.Workload) -> Conditions:
    """The workload's conditions by type, the first of a type winning as ``Workload.condition``
    finds it: the facts read five of them per workload, most of which have none."""
    conds = w.status.conditions
    return o.conditions_by_type(conds) if conds else _NO_CONDITIONS


def _true(conds: Conditions, ctype: str) -> bool:
    c = conds.get(ctype)
    return c is not None and c.status == "True"


def workload_state(w: o.Workload, conds: Conditions | None = None) -> WorkloadState:
    conds = conditions_of(w) if conds is None else conds
    if _true(conds, "Finished"):
        return WorkloadState.FINISHED
    if _true(conds, "QuotaReserved"):
        return WorkloadState.EVICTED_HOLDING_QUOTA if _true(conds, "Evicted") else WorkloadState.ADMITTED
    if not w.active:
        return WorkloadState.INACTIVE
    return WorkloadState.PENDING


def waiting_since(w: o.Workload, now: datetime, conds: Conditions | None = None) -> datetime:
    """Since when the tenant waits: creation, or the last requeue after an eviction."""
    conds = conditions_of(w) if conds is None else conds
    t = w.meta.creation_timestamp or now
    if not conds:
        return t
    rq = conds.get("Requeued")
    if rq is not None and rq.last_transition_time and not _true(conds, "Evicted"):
        t = max(t, rq.last_transition_time)
    ev = conds.get("Evicted")
    if ev is not None and ev.last_transition_time and not _true(conds, "QuotaReserved") and ev.status == "False":
        t = max(t, ev.last_transition_time)
    return t


def admitted_at(w: o.Workload, conds: Conditions | None = None) -> datetime | None:
    conds = conditions_of(w) if conds is None else conds
    c = conds.get("Admitted") or conds.get("QuotaReserved")
    return c.last_transition_time if c is not None and c.status == "True" else None


def not_running_reason(w: o.Workload, pods: Sequence[o.Pod], job: o.Job | None) -> NotRunningReason | None:
    """Why an admitted workload is not running yet, or None if it runs (or we cannot tell)."""
    if w.is_true("Evicted") or w.is_true("Finished"):
        return None
    if not w.is_true("Admitted"):
        # quota reserved, but Kueue admits (and releases) only once every admission check is Ready
        waiting = [f"{c.get('name', '?')} ({c.get('state', '?')})" for c in w.status.admission_checks
                   if c.get("state") != "Ready"]
        if waiting:
            return NotRunningReason(NotRunningKind.ADMISSION_CHECK,
                                    "held by admission check(s) " + ", ".join(waiting))
    if job is not None and job.suspend:
        return NotRunningReason(NotRunningKind.SUSPENDED, "Job still suspended")
    live = [p for p in pods if p.phase not in ("Succeeded", "Failed") and p.meta.deletion_timestamp is None]
    if not live:
        return None
    if any(ADMISSION_GATE in p.spec.scheduling_gates for p in live):
        return NotRunningReason(NotRunningKind.GATED, f"pods still carry the {ADMISSION_GATE} scheduling gate")
    unscheduled = [p for p in live if not p.spec.node_name and p.phase in ("Pending", "")]
    if unscheduled:
        return NotRunningReason(NotRunningKind.UNSCHEDULABLE,
                                f"{len(unscheduled)} pod(s) unschedulable (no node has room)")
    return None


@dataclass(frozen=True)
class JobIndex:
    """The Jobs as ``orphan_reason`` asks about them, built once per snapshot: asked per admitted
    Workload without pods, a walk over every Job made a snapshot of Workloads and Jobs without
    Pods quadratic."""
    uids: frozenset[str]
    suspended: dict[str, list[tuple[str, o.Job]]]   # namespace -> its suspended Jobs (name, Job), by name

    @classmethod
    def of(cls, state: ClusterState) -> JobIndex:
        suspended: dict[str, list[tuple[str, o.Job]]] = {}
        for (ns, name), j in sorted(state.jobs.items()):
            if j.suspend:
                suspended.setdefault(ns, []).append((name, j))
        return cls(frozenset(j.meta.uid for j in state.jobs.values()), suspended)


def orphan_reason(w: o.Workload, jobs: JobIndex) -> NotRunningReason | None:
    """An admitted Workload whose own Job is gone (kubernetes-sigs/kueue#1789): if a suspended Job
    of the same name waits in its LocalQueue, that Job can never get a Workload ("already
    exists") and the quota is held for nothing; otherwise the quota is merely held."""
    owner_uids = {str(r.get("uid")) for r in w.meta.owner_references if r.get("kind") == "Job" and r.get("uid")}
    if w.meta.labels.get(JOB_UID_LABEL):
        owner_uids.add(w.meta.labels[JOB_UID_LABEL])
    if not owner_uids or not jobs.uids.isdisjoint(owner_uids):
        return None
    ns = w.meta.namespace
    for jname, j in jobs.suspended.get(ns, []):
        if j.meta.labels.get(QUEUE_NAME_LABEL) == w.queue_name and w.meta.name.startswith(f"job-{jname}-"):
            return NotRunningReason(NotRunningKind.SUSPENDED,
                                    f"its Job {ns}/{jname} is suspended and cannot get a Workload of its own: this "
                                    f"Workload is left from an older Job of that name, whose uid "
                                    f"{sorted(owner_uids)[0]} no Job has (kubernetes-sigs/kueue#1789)")
    return NotRunningReason(NotRunningKind.ORPHANED,
                            f"orphaned: no Job with uid {sorted(owner_uids)[0]} exists, yet it holds its quota "
                            f"(kubernetes-sigs/kueue#1789)")


def failed_kinds(manifest: dict[str, Any]) -> tuple[str, ...]:
    out = []
    for f in manifest.get("failed") or []:
        if isinstance(f, dict) and f.get("kind") and not f.get("optional"):
            out.append(str(f["kind"]))
    return tuple(out)


def collection_gaps(manifest: dict[str, Any]) -> tuple[str, ...]:
    """What `collect` could not read (manifest.json "failed"), so a reader knows what is missing."""
    out = []
    for f in manifest.get("failed") or []:
        if isinstance(f, dict):
            what = f.get("kind") or f.get("what") or "?"
            why = f.get("reason") or "failed"
            out.append(f"{what}: {why}" + (f" ({f['message']})" if f.get("message") else "")
                       + (" [optional]" if f.get("optional") else ""))
        else:
            out.append(str(f))
    return tuple(out)


def release_of(state: ClusterState) -> tuple[str | None, Any, dict[str, bool]]:
    dep = state.kueue_deployment()
    version = dep.kueue_version() if dep else None
    gates = dict(dep.feature_gates()) if dep else {}
    if state.configuration is not None:
        gates.update(state.configuration.feature_gates)
    release = None
    if version:
        try:
            parse_version(version)
            release = release_for(version, gates)
        except Exception:  # an unparsable tag (a dev build): use the engine's defaults
            release = None
    return version, release, gates


def afs_positions(model: AdmissionModel, order: dict[str, list]) -> tuple[dict[WorkloadKey, float],
                                                                          dict[WorkloadKey, tuple[int, int]]]:
    """Per pending workload of a ClusterQueue that admission fair sharing orders: its LocalQueue's
    usage, and that LocalQueue's rank (lowest usage first) among those with pending work there."""
    usage: dict[WorkloadKey, float] = {}
    rank: dict[WorkloadKey, tuple[int, int]] = {}
    for name, pending in order.items():
        q = model.queues.queues.get(name)
        if q is None or q.ledger is None:
            continue
        lq_usage: dict[str, float] = {}
        for wi in pending:
            u = q.usage(wi)
            if u is not None:
                usage[wi.key] = u
                lq_usage.setdefault(wi.queue_name, u)
        ranked = {n: i for i, n in enumerate(sorted(lq_usage, key=lambda n: (order_key(lq_usage[n]), n)), 1)}
        for wi in pending:
            if wi.queue_name in ranked:
                rank[wi.key] = (ranked[wi.queue_name], len(ranked))
    return usage, rank


def snapshot_time(snap: GatheredSnapshot, logs: Any) -> tuple[datetime, TimeSource]:
    if snap.taken_at is not None:
        return snap.taken_at, TimeSource.MANIFEST
    if logs is not None and getattr(logs, "last", None):
        return utc(logs.last), TimeSource.LOG
    t = latest_timestamp(snap.state)
    if t is not None:
        return t, TimeSource.OBJECTS
    return datetime.now().astimezone(), TimeSource.CLOCK   # nothing in the folder says when


def engine_config(state: ClusterState) -> EngineConfig:
    """The engine settings of the snapshot's Kueue release and Configuration: what every command
    that runs the engine on a snapshot (diagnose, explain, whatif, diff) runs it with."""
    _version, release, gates = release_of(state)
    cfg = EngineConfig.from_kueue(state.configuration, release.gates if release else gates)
    if release is not None:
        cfg.drs_mode = release.drs_mode
        # the release's transformation arithmetic (engine/transformations.py, 'Per release')
        cfg.resource_rules = dataclasses.replace(cfg.resource_rules,
                                                 behaviour=TransformBehaviour.for_release(release.version))
        cfg.afs_behaviour = AfsBehaviour.for_release(release.version)
        cfg.tas_pod_marks = tas_pod_marks(release.version)
        cfg.concurrent_admission_preemption_gates = release.concurrent_admission_preemption_gates
        cfg.no_candidates_ranked_last = release.no_candidates_ranked_last
    return cfg


def build_facts(snap: GatheredSnapshot, min_wait: timedelta, now: datetime | None = None, logs: Any = None) -> Facts:
    with heap.paused():   # what is built here lives as long as the facts
        return _build_facts(snap, min_wait, now, logs)


def _build_facts(snap: GatheredSnapshot, min_wait: timedelta, now: datetime | None, logs: Any) -> Facts:
    state = snap.state
    version, release, _gates = release_of(state)
    cfg = engine_config(state)
    if now is not None:
        time_source = TimeSource.GIVEN
    else:
        now, time_source = snapshot_time(snap, logs)
    model = AdmissionModel(state, cfg)
    pods_of, jobs_of = index_pods(state)
    evaluator = Evaluator(model.snapshot.flavors, cfg, min_wait)

    workloads: dict[WorkloadKey, WorkloadFacts] = {}
    timed = 0
    admissions: dict[str, int] = defaultdict(int)
    preemptions: dict[str, int] = defaultdict(int)
    last_admission: dict[str, datetime] = {}
    since = now - RATE_WINDOW
    positions: dict[WorkloadKey, int] = {}
    esnap = model.snapshot
    all_cqs = {**esnap.cluster_queues, **esnap.inactive}
    order = {name: model.queues.pending_in_order(name) for name in all_cqs}
    for lst in order.values():
        for i, wi in enumerate(lst, 1):
            positions[wi.key] = i
    queued = {wi.key for lst in order.values() for wi in lst}
    afs_usage, afs_rank = afs_positions(model, order)
    job_index = JobIndex.of(state)
    infos = model.infos
    for key, w in state.workloads.items():
        ns = key.namespace
        conds = conditions_of(w)
        st = workload_state(w, conds)
        if st is WorkloadState.PENDING and key not in queued:
            st = WorkloadState.UNQUEUED
        pods = pods_of.get(key, ())
        job = jobs_of.get(key)
        if w.status.admission is not None and _true(conds, "QuotaReserved"):
            routed = w.status.admission.cluster_queue
        else:
            lq = state.local_queues.get((ns, w.queue_name))
            routed = lq.cluster_queue if lq is not None else ""
        nr = not_running_reason(w, pods, job) if st is WorkloadState.ADMITTED else None
        if nr is None and st is WorkloadState.ADMITTED and not pods and job is None and state.jobs:
            nr = orphan_reason(w, job_index)
        info = infos.get(key)
        if info is None or info.obj is not w:
            info = model.info(w)
        workloads[key] = WorkloadFacts(key, st, routed, w.queue_name, info.priority, waiting_since(w, now, conds),
                                       admitted_at(w, conds), positions.get(key), nr, tuple(pods), job,
                                       afs_usage.get(key), afs_rank.get(key))
        if not conds:
            continue
        qr = conds.get("QuotaReserved")
        if qr is not None and qr.last_transition_time is not None:
            timed += 1
            if qr.status == "True" and w.status.admission and qr.last_transition_time <= now:
                adm_cq = w.status.admission.cluster_queue
                if since <= qr.last_transition_time:
                    admissions[adm_cq] += 1
                if adm_cq not in last_admission or last_admission[adm_cq] < qr.last_transition_time:
                    last_admission[adm_cq] = qr.last_transition_time
        pc = conds.get("Preempted")
        if pc is not None and pc.status == "True" and pc.last_transition_time and since <= pc.last_transition_time:
            ev = conds.get("Evicted")
            preemptions[preemptor_queue(ev.message if ev else "") or routed] += 1
    if logs is not None:
        log_rates(logs, since, now, admissions, last_admission)

    queues: dict[str, QueueFacts] = {}
    for name, cq in sorted(all_cqs.items()):
        pending = [Waiting(wi, workloads[wi.key].waiting_since) for wi in order[name]]
        not_running: dict[WorkloadKey, NotRunningReason] = {}
        observed_nr: list[NotRunning] = []
        not_released: list[NotReleased] = []
        for key, wi in cq.workloads.items():
            wf = workloads.get(key)
            if wf is None or wf.not_running is None:
                continue
            not_running[key] = wf.not_running
            if wf.not_running.kind is NotRunningKind.ORPHANED:
                continue   # nobody waits on it: quota held, not work kept from running
            observed_nr.append(NotRunning(wi, wf.waiting_since, wf.not_running.text))
            if wf.not_running.not_released:
                held = now - (wf.admitted_at or now)
                if held >= min_wait:
                    not_released.append(NotReleased(key, wf.not_running.text, held))
        g = evaluator.evaluate(QueueObservation(cq, pending, observed_nr), now, detail=True)
        obj = cq.obj
        cohort = obj.cohort or ""
        root = esnap.cohorts[cohort].root().name if cohort in esnap.cohorts else cohort
        active_cond = o.find_condition(obj.status.conditions, "Active")
        qf = QueueFacts(name, cohort, root, cq.strategy, esnap.inactive[name].inactive_reason
                        if name in esnap.inactive else "", active_cond, g, tuple(wi.key for wi in order[name]),
                        not_running, tuple(sorted(not_released, key=lambda n: str(n.key))),
                        admissions_last_hour=admissions.get(name, 0), preemptions_last_hour=preemptions.get(name, 0),
                        last_admission=last_admission.get(name))
        if g.violated and name in esnap.cluster_queues and order[name]:
            qf.head = head_facts(model, cfg, now, name, order[name][0])
        queues[name] = qf

    cohorts = {name: CohortFacts(name, node.parent.name if node.parent else "", node.root().name,
                                 dict(node.subtree), dict(node.usage)) for name, node in sorted(esnap.cohorts.items())}
    facts = Facts(
        origin=snap.origin, now=now, time_source=time_source, min_wait=min_wait, version=version, release=release,
        config=cfg, model=model,
        read=ReadCounts(state.counts(), len(snap.log_files), logs.lines if logs is not None else 0,
                        logs.parsed if logs is not None else 0, failed_kinds(snap.manifest), timed),
        workloads=workloads, queues=queues, cohorts=cohorts, victims=tuple(find_victims(state, workloads, now)),
        nodes=node_health(state), controller=controller_health(state), logs=logs, log_files=tuple(snap.log_files),
        capacity=capacity_facts(state, esnap), collection_gaps=collection_gaps(snap.manifest), manifest=snap.manifest,
        held_without_pods=tuple(held_without_pods(state, workloads, model, now)), tas=tas_view(model))
    heap.settle()
    return facts


def log_rates(logs: Any, since: datetime, now: datetime, admissions: dict[str, int],
              last_admission: dict[str, datetime]) -> None:
    """Admissions per queue from the log's per-minute timeline, inside the window (the log may
    cover much more than the last hour; it has no per-minute count of preemptions issued)."""
    from ..logs.timeparse import parse_ts
    for cq_name, q in (logs.per_cluster_queue or {}).items():
        a = 0
        for row in q.get("perMinute") or []:
            ts = parse_ts(row.get("minute", ""))
            if ts is None:
                continue
            t = utc(ts)
            if row.get("admitted") and t <= now and (cq_name not in last_admission or last_admission[cq_name] < t):
                last_admission[cq_name] = t
            if since - timedelta(minutes=1) < t <= now:
                a += int(row.get("admitted", 0) or 0)
        admissions[cq_name] = max(admissions[cq_name], a)


def head_facts(model: AdmissionModel, cfg: EngineConfig, now: datetime, name: str, head: WorkloadInfo) -> HeadFacts:
    cqs = model.snapshot.cluster_queues[name]
    pre = Preemptor(model.snapshot, cfg, now)
    # with the TAS snapshots a cycle would build, so that a TAS head is placed (and its victims
    # chosen) by topology as in Kueue's cycle
    with cycle_tas(model.scheduler) as tas:
        assignment, targets = model.scheduler.get_assignments(head, cqs, pre)
        topology = head_topology(model, head, [f for g in cqs.groups for f in g.flavors], tas, assignment)
        bug = preference_bug(model, head, cqs, pre, assignment)
    return HeadFacts(head.key, MODE_NAMES[assignment.representative_mode()], assignment.message(),
                     tuple(PreemptionTarget(t.key, t.reason, t.cluster_queue) for t in targets),
                     max_quota_shortfalls(cqs, head), topology, bug)


def preference_bug(model: AdmissionModel, head: WorkloadInfo, cqs: Any, pre: Preemptor,
                   assignment: Any) -> PreferenceBug | None:
    """The head's flavor assignment by the other ordering of #13616, when the ClusterQueue prefers
    PreemptionOverBorrowing and the two differ in mode."""
    if cqs.obj.flavor_fungibility.preference != "PreemptionOverBorrowing":
        return None
    cfg = model.scheduler.config
    used = cfg.no_candidates_ranked_last
    cfg.no_candidates_ranked_last = not used
    try:
        other, _ = model.scheduler.get_assignments(head, cqs, pre)
    finally:
        cfg.no_candidates_ranked_last = used
    fixed, buggy = (assignment, other) if used else (other, assignment)
    if fixed.representative_mode() == buggy.representative_mode():
        return None

    def flavors(a: Any) -> tuple[str, ...]:
        return tuple(sorted({c.name for ps in a.pod_sets for c in ps.flavors.values()}))
    return PreferenceBug(flavors(buggy), MODE_NAMES[buggy.representative_mode()], flavors(fixed),
                         MODE_NAMES[fixed.representative_mode()])


def max_quota_shortfalls(cq: Any, wi: WorkloadInfo) -> tuple[QuotaShortfall, ...]:
    """What ``wi`` asks for beyond the most quota ``cq`` can ever reach: no preemption, no
    lending and no release of usage can admit it there. Per resource, one pod set's request
    against the best single flavor (a pod set takes one flavor), and the whole request against
    all flavors together (pod sets may take different ones)."""
    out = []
    per_resource: dict[str, list[int]] = {}
    for ps in wi.pod_sets:
        for r, v in ps.total().items():
            per_resource.setdefault(r, []).append(v)
    for r, asks in sorted(per_resource.items()):
        group = cq.group_for(r)
        if group is None or not group.flavors:
            continue   # a resource no group covers: the flavor assigner says so (not a quota ceiling)
        caps = {f: cq.node.potential_available((f, r)) for f in group.flavors}
        best = max(caps, key=lambda f: caps[f])
        if max(asks) > caps[best]:
            out.append(QuotaShortfall(r, max(asks), caps[best], cq.node.nominal((best, r)), (best,), True))
        elif sum(asks) > sum(caps.values()):
            out.append(QuotaShortfall(r, sum(asks), sum(caps.values()),
                                      sum(cq.node.nominal((f, r)) for f in group.flavors), tuple(group.flavors), False))
    return tuple(out)


def held_without_pods(state: ClusterState, workloads: dict[WorkloadKey, WorkloadFacts], model: AdmissionModel,
                      now: datetime) -> list[HeldWithoutPods]:
    """Workloads that hold quota with no pod alive and none being created. Without any Pod read
    nothing can be said (the collection may simply lack pods), so nothing is listed."""
    if not state.pods:
        return []
    cqs = {**model.snapshot.cluster_queues, **model.snapshot.inactive}
    out = []
    for key, wf in workloads.items():
        if wf.state not in (WorkloadState.ADMITTED, WorkloadState.EVICTED_HOLDING_QUOTA):
            continue
        if any(p.phase not in ("Succeeded", "Failed") for p in wf.pods):
            continue   # some pod lives (or terminates): the release and victim steps judge it
        w = state.workloads[key]
        evicted = wf.state is WorkloadState.EVICTED_HOLDING_QUOTA
        job = wf.job
        if not evicted:
            if wf.not_running is not None:
                continue   # gated, suspended, held by an admission check, orphaned: said elsewhere
            if wf.pods:
                continue   # its pods finished; Kueue marks it Finished next
        ev = w.condition("Evicted")
        since = (ev.last_transition_time if evicted and ev is not None else None) or wf.admitted_at or now
        conds = [f"{t}=True" for t in ("QuotaReserved", "Admitted", "Evicted") if w.is_true(t)]
        reason = ev.reason if evicted and ev is not None else ""
        detail = ", ".join(conds) + (f" (Evicted reason {reason}: {ev.message})" if evicted and ev is not None
                                     and ev.message else f" (Evicted reason {reason})" if reason else "")
        if w.status.admission is not None:
            detail += "; status.admission still set"
        cq = cqs.get(wf.cluster_queue)
        wi = cq.workloads.get(key) if cq is not None else None
        usage = dict(wi.usage) if wi is not None else {}
        job_text = ""
        if job is not None:
            job_text = f"Job {job.meta.namespace}/{job.meta.name}" + (" (suspended)" if job.suspend else "")
        out.append(HeldWithoutPods(key, wf.cluster_queue, since, now - since, evicted, reason, usage, job_text,
                                   detail))
    return sorted(out, key=lambda h: str(h.key))


def find_victims(state: ClusterState, workloads: dict[WorkloadKey, WorkloadFacts],
                 now: datetime) -> list[VictimFacts]:
    out = []
    for key, w in state.workloads.items():
        wf = workloads[key]
        if wf.state is not WorkloadState.EVICTED_HOLDING_QUOTA:
            continue
        ev = w.condition("Evicted")
        evicted_at = (ev.last_transition_time if ev is not None else None) or now
        live = [p for p in wf.pods if p.phase not in ("Succeeded", "Failed")]
        past_grace, grace = [], 0
        for p in live:
            g = p.meta.deletion_grace_period_seconds
            if g is None:
                g = p.spec.termination_grace_period_seconds
            grace = max(grace, g or 0)
            if p.meta.deletion_timestamp is not None and p.meta.deletion_timestamp + timedelta(seconds=g or 0) < now:
                past_grace.append(p.meta.name)
        pod_group = any(p.meta.labels.get(POD_GROUP_LABEL) for p in live) or (
            bool(live) and wf.job is None and not any(r.get("kind") == "Job" for r in w.meta.owner_references))
        out.append(VictimFacts(key, wf.cluster_queue, evicted_at, now - evicted_at, tuple(p.meta.name for p in live),
                               tuple(past_grace), grace, preemptor_queue(ev.message if ev is not None else ""),
                               pod_group))
    return sorted(out, key=lambda v: str(v.key))  # in the order of their text, as reports list them


def node_health(state: ClusterState) -> NodeHealth:
    not_ready, cordoned, ready = [], [], 0
    for name, n in sorted(state.nodes.items()):
        r = n.ready()
        if r is False or (r is None and n.conditions):
            not_ready.append(name)
        elif n.unschedulable:
            cordoned.append(name)
        elif r:
            ready += 1
    return NodeHealth(tuple(not_ready), tuple(cordoned), ready)


def controller_health(state: ClusterState) -> ControllerHealth:
    dep = state.kueue_deployment()
    restarts = {}
    for (ns, name), p in sorted(state.pods.items()):
        if "kueue-controller-manager" in name:
            n = sum(int(c.get("restartCount", 0) or 0) for c in p.container_statuses)
            restarts[f"{ns}/{name}"] = n
    if dep is None:
        return ControllerHealth(None, 0, 0, restarts)
    return ControllerHealth(f"{dep.meta.namespace}/{dep.meta.name}", dep.ready_replicas, dep.replicas, restarts)
