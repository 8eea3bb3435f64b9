"""``run.kind: cycle``: run Kueue's scheduling cycle and compare admissions, preemptions and queues."""
from __future__ import annotations

from datetime import UTC, datetime

from ..api.quantity import Quantity
from ..engine.model import AdmissionModel
from ..engine.scheduler import Scheduler
from .compare import compare_sets
from .scenario import Scenario
from .setup import engine_config, prepare_state


def build(scn: Scenario, cfg) -> Scheduler:
    return AdmissionModel(prepare_state(scn), cfg).scheduler


def run(scn: Scenario, gates: dict[str, bool]) -> list[str]:
    cfg = engine_config(scn, gates)
    sched = build(scn, cfg)
    now = scn.now or datetime.now(UTC)
    admitted, preempted = {}, {}
    for _ in range(int(scn.run.get("count", 1))):
        res = sched.schedule(now)
        for e in res.admitted:
            admitted[e.key] = e
        for t in res.preempted:
            preempted[t.key] = t.reason
    exp = scn.expect
    diffs = []
    if "admitted" in exp:
        want = exp["admitted"] or {}
        diffs += compare_sets("admitted", want, admitted)
        for key, w in want.items():
            entry = admitted.get(key)
            if entry is None or entry.assignment is None:
                continue
            if w.get("clusterQueue") != entry.cq_name:
                diffs.append(f"admitted[{key}].clusterQueue: expected {w.get('clusterQueue')}, got {entry.cq_name}")
            got_psa = [{"name": ps.name, "count": ps.count,
                        "flavors": {r: f.name for r, f in ps.flavors.items()},
                        "resourceUsage": {r: ps.requests.get(r, 0) for r in ps.flavors}}
                       for ps in entry.assignment.pod_sets]
            want_psa = [{"name": p["name"], "count": int(p.get("count", 0)), "flavors": dict(p.get("flavors") or {}),
                         "resourceUsage": {r: Quantity.parse(q).amount(r)
                                           for r, q in (p.get("resourceUsage") or {}).items()}}
                        for p in w.get("podSetAssignments") or []]
            if "resourceUsage" not in str(w):
                for p in got_psa:
                    p.pop("resourceUsage")
                for p in want_psa:
                    p.pop("resourceUsage")
            if got_psa != want_psa:
                diffs.append(f"admitted[{key}].podSetAssignments: expected {want_psa}, got {got_psa}")
    if "preempted" in exp:
        want = exp["preempted"] or []
        diffs += compare_sets("preempted", [w["workload"] for w in want], preempted)
        for w in want:
            if w.get("reason") and w["workload"] in preempted and preempted[w["workload"]] != w["reason"]:
                diffs.append(f"preempted[{w['workload']}].reason: "
                             f"expected {w['reason']}, got {preempted[w['workload']]}")
    for key, getter in (("pending", lambda q: [w.key for w in q.active()]),
                        ("inadmissible", lambda q: list(q.inadmissible))):
        for cq, want in (exp.get(key) or {}).items():
            q = sched.queues.queues.get(cq)
            got = getter(q) if q is not None else []
            if sorted(want or []) != sorted(got):
                diffs.append(f"{key}[{cq}]: expected {sorted(want or [])}, got {sorted(got)}")
    return diffs
