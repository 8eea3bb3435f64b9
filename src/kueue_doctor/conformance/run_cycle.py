"""``run.kind: cycle``: run Kueue's scheduling cycle and compare admissions, preemptions and queues."""
from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from ..api.quantity import Quantity
from ..engine.model import AdmissionModel
from ..engine.queues import ClusterQueueQueue
from ..engine.scheduler import Entry, Scheduler
from ..keys import WorkloadKey
from ..engine.tas.cycle import topology_of
from .compare import compare_keys, workload_keys
from .run_tas_assign import _assignment_json as assignment_json
from .run_tas_assign import _want_assignment as want_assignment
from .scenario import Scenario
from .setup import engine_config, prepare_state

# expect keys this runner compares; any other key fails the case (a key it cannot check is not a pass)
KNOWN_KEYS = ("admitted", "preempted", "pending", "inadmissible")
PSA_KEYS = {"name", "count", "flavors", "resourceUsage", "topologyAssignment"}


def build(scn: Scenario, cfg) -> Scheduler:
    return AdmissionModel(prepare_state(scn), cfg).scheduler


def run(scn: Scenario, gates: dict[str, bool]) -> list[str]:
    cfg = engine_config(scn, gates)
    sched = build(scn, cfg)
    now = scn.now or datetime.now(UTC)
    admitted: dict[WorkloadKey, Entry] = {}
    preempted: dict[WorkloadKey, str] = {}
    for _ in range(int(scn.run.get("count", 1))):
        res = sched.schedule(now)
        for e in res.admitted:
            admitted[e.key] = e
        for t in res.preempted:
            preempted[t.key] = t.reason
    exp = scn.expect
    diffs = [f"expect.{k}: not compared by the cycle runner" for k in exp if k not in KNOWN_KEYS]
    if "admitted" in exp:
        want = exp["admitted"] or {}
        diffs += compare_keys("admitted", workload_keys(want), admitted)
        for key, w in want.items():
            entry = admitted.get(WorkloadKey.parse(str(key)))
            if entry is None or entry.assignment is None:
                continue
            if w.get("clusterQueue") != entry.cq_name:
                diffs.append(f"admitted[{key}].clusterQueue: expected {w.get('clusterQueue')}, got {entry.cq_name}")
            topo = topology_of(entry.assignment)
            got_psa = [{"name": ps.name, "count": ps.count,
                        "flavors": {r: f.name for r, f in ps.flavors.items()},
                        "resourceUsage": {r: ps.requests.get(r, 0) for r in ps.flavors},
                        "topologyAssignment": assignment_json(topo.get(ps.name))}
                       for ps in entry.assignment.pod_sets]
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
    getters: tuple[tuple[str, Callable[[ClusterQueueQueue], list[WorkloadKey]]], ...] = (
        ("pending", lambda q: [w.key for w in q.active()]), ("inadmissible", lambda q: list(q.inadmissible)))
    for key, getter in getters:
        for cq, want in (exp.get(key) or {}).items():
            q = sched.queues.queues.get(cq)
            got = getter(q) if q is not None else []
            if sorted(workload_keys(want or [])) != sorted(got):
                diffs.append(f"{key}[{cq}]: expected {sorted(want or [])}, got {sorted(str(k) for k in got)}")
    return diffs
