"""``run.kind: cycle``: run Kueue's scheduling cycle and compare admissions, preemptions and queues."""
from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime

from ..api import objects as o
from ..api.quantity import Quantity
from ..engine.assignment import FIT, Assignment, Mode, Possibility
from ..engine.model import AdmissionModel
from ..engine.queues import ClusterQueueQueue
from ..engine.scheduler import CycleResult, Entry, Scheduler
from ..engine.tas.cycle import topology_of
from ..engine.workload import WorkloadInfo
from ..keys import WorkloadKey
from ..kueue import constants as kc
from ..kueue.eviction import cohort_path, preempted_workload_message, preemption_message
from .compare import compare_keys, workload_keys
from .run_tas_assign import _assignment_json as assignment_json
from .run_tas_assign import _want_assignment as want_assignment
from .scenario import Scenario
from .setup import engine_config, prepare_state

# expect keys this runner compares; any other key fails the case (a key it cannot check is not a pass)
KNOWN_KEYS = ("admitted", "preempted", "pending", "inadmissible", "events", "eventsOrdered", "workloadConditions")
PSA_KEYS = {"name", "count", "flavors", "resourceUsage", "topologyAssignment"}


GO_MAX_SECONDS = 9223372036.854775807   # time.Duration's maximum, what a zero creation time gives


def wait_seconds(wi: WorkloadInfo, now: datetime) -> str:
    created = wi.obj.meta.creation_timestamp
    if created is None or created.year <= 1:
        return f"{GO_MAX_SECONDS:.0f}"
    return f"{min((now - created).total_seconds(), GO_MAX_SECONDS):.0f}"


def attempts_for_events(a: Assignment | None) -> str:
    """FormatFlavorAssignmentAttemptsForEvents."""
    if a is None:
        return ""
    parts = []
    for ps in a.pod_sets:
        atts = []
        for at in ps.attempts:
            if at.mode == FIT and at.borrow == 0:
                continue
            txt = at.flavor + "(" + (str(Mode(at.mode)) if at.possibility is None
                                     else f"preemptionMode={Possibility(at.possibility)}")
            if at.borrow > 0:
                txt += f";borrow={at.borrow}"
            if at.reasons:
                txt += ";" + ";".join(at.reasons)
            atts.append(txt + ")")
        if atts:
            parts.append(f"{ps.name}: " + ", ".join(atts))
    return " | ".join(parts)


def cq_path(sched: Scheduler, cq_name: str) -> str:
    cq = sched.snap.cluster_queues.get(cq_name)
    names: list[str] = []
    node = cq.node if cq is not None else None
    while node is not None:
        names.insert(0, node.name)
        node = node.parent
    return cohort_path(names or [cq_name])


def effective(wi: WorkloadInfo) -> str:
    return f"effective priority: {wi.priority} (base: {wi.priority}, boost: 0)"


Event = dict[str, str]
Conditions = dict[WorkloadKey, dict[str, o.Condition]]


def cycle_record(sched: Scheduler, res: CycleResult, now: datetime, observability: bool,
                 events: list[Event], conds: Conditions) -> None:
    """The events one cycle records and the conditions it writes (scheduler.go processEntry,
    issuePreemptions, admit, requeueAndUpdate)."""
    def ev(key: WorkloadKey, etype: str, reason: str, message: str) -> None:
        events.append({"object": str(key), "type": etype, "reason": reason, "message": message})

    def cond(key: WorkloadKey, c: o.Condition) -> None:
        conds.setdefault(key, {})[c.type] = c

    preempted = {t.key for t in res.preempted}
    admitted = {e.key for e in res.admitted}
    for e in res.entries:
        if e.key in admitted and second_pass(e.wi.obj):
            continue   # a re-admission after node replacement records neither event
        if e.key in admitted:
            msg = f"Quota reserved in ClusterQueue {e.cq_name}, wait time since queued was {wait_seconds(e.wi, now)}s"
            considered = attempts_for_events(e.assignment)
            if considered:
                msg += f"; Flavors considered: {considered}"
            ev(e.key, "Normal", "QuotaReserved", msg)
            cond(e.key, o.Condition("QuotaReserved", "True", "QuotaReserved",
                                    f"Quota reserved in ClusterQueue {e.cq_name}"))
            ev(e.key, "Normal", "Admitted", f"Admitted by ClusterQueue {e.cq_name}, wait time since reservation was 0s")
            cond(e.key, o.Condition("Admitted", "True", "Admitted", "The workload is admitted"))
            continue
        for t in e.targets:
            if t.key not in preempted:
                continue
            base = preemption_message(e.wi.uid, e.wi.obj.meta.labels.get(kc.JOB_UID_LABEL, ""), t.reason,
                                      cq_path(sched, e.cq_name), cq_path(sched, t.cluster_queue))
            prio = f"; preemptor {effective(e.wi)}; preemptee {effective(t.wi)}"
            ev(t.key, "Normal", "EvictedDueToPreempted", base)
            ev(t.key, "Normal", "Preempted", base + prio)
            ev(e.key, "Normal", "PreemptedWorkload",
               preempted_workload_message(t.wi.namespace, t.wi.name, t.wi.uid, t.cluster_queue) + prio)
            cond(t.key, o.Condition("Evicted", "True", "Preempted", base))
            cond(t.key, o.Condition("Preempted", "True", t.reason, base))
    for e in list(res.entries) + list(res.inadmissible):
        if e.key in admitted:
            continue
        cs = e.conditions() if e in res.entries else [
            o.Condition("QuotaReserved", "False", e.reason or "Pending", e.inadmissible_msg),
            o.Condition("Admitted", "False", "NoReservation", "The workload has no reservation")]
        if not cs:
            continue
        if e in res.entries and e.node_failure_eviction:
            ev(e.key, "Normal", "EvictedDueToNodeFailures", e.node_failure_eviction)
            continue
        if second_pass(e.wi.obj):
            ev(e.key, "Warning", "SecondPassFailed", e.inadmissible_msg)
            continue
        for c in cs:
            if c.type == "QuotaReserved" and not observability:
                c = o.Condition(c.type, c.status, "Pending", c.message)
            cond(e.key, c)
        reason = cs[0].reason if observability else "Pending"
        ev(e.key, "Warning", reason, e.inadmissible_msg)


def compare_events(want: list, got: list[Event], ordered: bool) -> list[str]:
    def norm(w: dict, g: Event) -> Event:
        return {k: g[k] for k in ("object", "type", "reason", "message") if k in w}
    want_l = [dict(w) for w in want]
    if ordered:
        got_l = [norm(w, g) for w, g in zip(want_l, got, strict=False)]
        if len(got) != len(want_l) or got_l != want_l:
            return [f"events: expected {want_l}, got {got}"]
        return []
    rest = list(got)
    missing = []
    for w in want_l:
        for i, g in enumerate(rest):
            if norm(w, g) == w:
                del rest[i]
                break
        else:
            missing.append(w)
    if missing or rest:
        return [f"events: expected but missing {missing}; not expected {rest}"]
    return []


def compare_conditions(want: dict, conds: Conditions, before: dict[WorkloadKey, o.Workload]) -> list[str]:
    """Each listed workload's whole condition set: what it had before the cycle, as the cycle
    changed it (types compared with status, reason and message)."""
    diffs = []
    for key_s, want_cs in (want or {}).items():
        key = WorkloadKey.parse(str(key_s))
        wi_obj = before.get(key)
        current: dict[str, o.Condition] = {c.type: c for c in (wi_obj.status.conditions if wi_obj else [])}
        current.update(conds.get(key, {}))
        got = sorted(({"type": c.type, "status": c.status, "reason": c.reason, "message": c.message}
                      for c in current.values()), key=lambda c: c["type"])
        exp = sorted(({k: str(v) for k, v in c.items()} for c in want_cs or []), key=lambda c: c["type"])
        if got != exp:
            diffs.append(f"workloadConditions[{key_s}]: expected {exp}, got {got}")
    return diffs


def second_pass(wl: o.Workload) -> bool:
    """QueueSecondPassIfNeeded, which upstream's TAS runner calls for every workload: an
    admitted TAS workload with unhealthy nodes is queued again for node replacement."""
    return wl.is_true("QuotaReserved") and wl.status.admission is not None and bool(wl.status.unhealthy_nodes)


def build(scn: Scenario, cfg) -> Scheduler:
    model = AdmissionModel(prepare_state(scn), cfg)
    if cfg.gate("TopologyAwareScheduling") and cfg.gate("TASFailedNodeReplacement"):
        for wi in model.infos.values():
            if second_pass(wi.obj):
                model.queues.add(wi)
    return model.scheduler


def run(scn: Scenario, gates: dict[str, bool]) -> list[str]:
    cfg = engine_config(scn, gates)
    sched = build(scn, cfg)
    now = scn.now or datetime.now(UTC)
    admitted: dict[WorkloadKey, Entry] = {}
    preempted: dict[WorkloadKey, str] = {}
    events: list[Event] = []
    conds: Conditions = {}
    before = {k: copy.deepcopy(w) for k, w in scn.state.workloads.items()}
    for _ in range(int(scn.run.get("count", 1))):
        res = sched.schedule(now)
        cycle_record(sched, res, now, cfg.gate("UnadmittedWorkloadsObservability"), events, conds)
        for e in res.admitted:
            admitted[e.key] = e
        for t in res.preempted:
            preempted[t.key] = t.reason
    exp = scn.expect
    diffs = [f"expect.{k}: not compared by the cycle runner" for k in exp if k not in KNOWN_KEYS]
    if "admitted" in exp:
        want = exp["admitted"] or {}
        got_keys = set(admitted) | {k for k, w in before.items() if second_pass(w)}
        diffs += compare_keys("admitted", workload_keys(want), got_keys)
        for key, w in want.items():
            wkey = WorkloadKey.parse(str(key))
            entry = admitted.get(wkey)
            old_adm = before[wkey].status.admission if wkey in before and second_pass(before[wkey]) else None
            if entry is not None and entry.assignment is not None:
                cq_name = entry.cq_name
                topo = topology_of(entry.assignment)
                got_psa = [{"name": ps.name, "count": ps.count,
                            "flavors": {r: f.name for r, f in ps.flavors.items()},
                            "resourceUsage": {r: ps.requests.get(r, 0) for r in ps.flavors},
                            "topologyAssignment": assignment_json(topo.get(ps.name))}
                           for ps in entry.assignment.pod_sets]
            elif old_adm is not None:   # no replacement found: the admission it held before the cycle
                cq_name = old_adm.cluster_queue
                got_psa = [{"name": ps.name, "count": ps.count, "flavors": dict(ps.flavors),
                            "resourceUsage": {r: q.amount(r) for r, q in ps.resource_usage.items()},
                            "topologyAssignment": assignment_json(ps.topology_assignment)}
                           for ps in old_adm.pod_set_assignments]
            else:
                continue
            if w.get("clusterQueue") != cq_name:
                diffs.append(f"admitted[{key}].clusterQueue: expected {w.get('clusterQueue')}, got {cq_name}")
            want_psa = [{"name": p["name"], "count": int(p.get("count", 0)), "flavors": dict(p.get("flavors") or {}),
                         "resourceUsage": {r: Quantity.parse(q).amount(r)
                                           for r, q in (p.get("resourceUsage") or {}).items()},
                         "topologyAssignment": want_assignment(p.get("topologyAssignment"))}
                        for p in w.get("podSetAssignments") or []]
            for p in w.get("podSetAssignments") or []:
                for k in sorted(set(p) - PSA_KEYS):
                    diffs.append(f"admitted[{key}].podSetAssignments[{p.get('name')}].{k}: "
                                 "not compared by the cycle runner")
            if "resourceUsage" not in str(w):
                for p in got_psa:
                    p.pop("resourceUsage")
                for p in want_psa:
                    p.pop("resourceUsage")
            if got_psa != want_psa:
                diffs.append(f"admitted[{key}].podSetAssignments: expected {want_psa}, got {got_psa}")
    if "preempted" in exp:
        want = exp["preempted"] or []
        diffs += compare_keys("preempted", workload_keys(w["workload"] for w in want), preempted)
        for w in want:
            got_reason = preempted.get(WorkloadKey.parse(str(w["workload"])))
            if w.get("reason") and got_reason is not None and got_reason != w["reason"]:
                diffs.append(f"preempted[{w['workload']}].reason: expected {w['reason']}, got {got_reason}")
    if "events" in exp:
        diffs += compare_events(exp["events"] or [], events, bool(exp.get("eventsOrdered", False)))
    if "workloadConditions" in exp:
        diffs += compare_conditions(exp["workloadConditions"], conds, before)
    getters: tuple[tuple[str, Callable[[ClusterQueueQueue], list[WorkloadKey]]], ...] = (
        ("pending", lambda q: [w.key for w in q.active()]), ("inadmissible", lambda q: list(q.inadmissible)))
    for key, getter in getters:
        for cq, want in (exp.get(key) or {}).items():
            q = sched.queues.queues.get(cq)
            got = getter(q) if q is not None else []
            if sorted(workload_keys(want or [])) != sorted(got):
                diffs.append(f"{key}[{cq}]: expected {sorted(want or [])}, got {sorted(str(k) for k in got)}")
    return diffs
