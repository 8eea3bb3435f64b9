"""``run.kind: assign`` and ``totalRequests`` (flavorassigner/ASSIGN-FORMAT.md)."""
from __future__ import annotations

from ..api.quantity import Quantity
from ..engine.assignment import MODE_NAMES, POSSIBILITY_BY_NAME, POSSIBILITY_NAMES, Assignment, Attempt
from ..engine.flavors import FlavorAssigner, ReplacedSlice
from ..engine.snapshot import build_snapshot
from ..engine.workload import WorkloadInfo
from ..errors import InputError
from ..keys import WorkloadKey
from .scenario import Scenario
from .setup import engine_config, prepare_state


def _amounts(raw: dict | None) -> dict[str, int]:
    return {r: Quantity.parse(q).amount(r) for r, q in (raw or {}).items()}


def _workload(scn: Scenario, cfg) -> WorkloadInfo:
    wl = scn.state.workloads.get(WorkloadKey.parse(str(scn.run.get("workload", ""))))
    if wl is None:
        raise InputError("names no Workload in objects", field="run.workload")
    return WorkloadInfo(wl, cfg.gate("ReclaimablePods"), cfg.requeuing_timestamp, rules=cfg.resource_rules)


def _replaced(scn: Scenario) -> ReplacedSlice | None:
    raw = scn.run.get("replaceWorkloadSlice")
    if not raw:
        return None
    return ReplacedSlice([(ps.get("name", ""), int(ps.get("count", 0) or 0), _amounts(ps.get("requests")),
                           dict(ps.get("flavors") or {})) for ps in raw.get("podSets", [])])


def _oracle(scn: Scenario):
    spec = scn.run.get("preemptionOracle") or {}
    default = spec.get("default") or {"possibility": "Preempt", "borrowingAfter": 0}
    results = spec.get("results") or {}

    def oracle(cq, wi, fr, val):
        r = (results.get(fr[0]) or {}).get(fr[1]) or default
        return POSSIBILITY_BY_NAME[r["possibility"]], int(r.get("borrowingAfter", 0))
    return oracle


def run_assign(scn: Scenario, gates: dict[str, bool]) -> list[str]:
    cfg = engine_config(scn, gates)
    snap = build_snapshot(prepare_state(scn), cfg)
    cq_name = str(scn.run.get("clusterQueue") or "")
    cq = snap.cluster_queues.get(cq_name) or snap.inactive.get(cq_name)
    if cq is None:
        raise InputError("names no ClusterQueue in objects", field="run.clusterQueue")
    for name, flavors in (scn.run.get("usage") or {}).items():
        target = snap.cluster_queues[name]
        for flavor, res in flavors.items():
            for r, q in res.items():
                target.node.add_usage((flavor, r), Quantity.parse(q).amount(r))
    flavors = {k: v for k, v in snap.flavors.items() if k not in set(scn.run.get("deletedFlavors") or [])}
    wi = _workload(scn, cfg)
    got = FlavorAssigner(wi, cq, flavors, cfg, _oracle(scn), _replaced(scn)).assign()
    observe = cfg.gate("UnadmittedWorkloadsObservability")
    exp = scn.expect
    diffs: list[str] = []
    if "representativeMode" in exp and MODE_NAMES[got.representative_mode()] != exp["representativeMode"]:
        diffs.append(f"representativeMode: expected {exp['representativeMode']}, got "
                     f"{MODE_NAMES[got.representative_mode()]} ({got.message()})")
    if "assignment" in exp:
        diffs += compare_assignment(exp["assignment"], got, observe)
    if "podSetFlavors" in exp:
        for ps_name, want in exp["podSetFlavors"].items():
            ps = next((p for p in got.pod_sets if p.name == ps_name), None)
            have = {r: f.name for r, f in ps.flavors.items()} if ps else {}
            if have != want:
                diffs.append(f"podSetFlavors[{ps_name}]: expected {want}, got {have}")
    if "noFitReason" in exp and observe and got.no_fit_reason != exp["noFitReason"]:
        diffs.append(f"noFitReason: expected {exp['noFitReason']!r}, got {got.no_fit_reason!r}")
    if "attemptNoFitReasons" in exp and observe:
        for flavor, want in exp["attemptNoFitReasons"].items():
            for ps in got.pod_sets:
                for at in ps.attempts:
                    if at.flavor == flavor and at.no_fit_reason != want:
                        diffs.append(f"attempt {ps.name}/{flavor} noFitReason: "
                                     f"expected {want!r}, got {at.no_fit_reason!r}")
    return diffs


def _attempt_view(at: Attempt, observe: bool) -> dict:
    return {"flavor": at.flavor, "mode": MODE_NAMES[at.mode], "borrow": at.borrow,
            "preemptionPossibility": POSSIBILITY_NAMES.get(at.possibility) if at.possibility is not None else None,
            "reasons": sorted(at.reasons), "noFitReason": at.no_fit_reason if observe else ""}


def _expected_attempt(raw: dict, observe: bool) -> dict:
    return {"flavor": raw["flavor"], "mode": raw["mode"], "borrow": int(raw.get("borrow", 0)),
            "preemptionPossibility": raw.get("preemptionPossibility"), "reasons": sorted(raw.get("reasons") or []),
            "noFitReason": raw.get("noFitReason", "") if observe else ""}


def _compare_attempts(ps_name: str, check: str, want_raw: list, got: list[Attempt], observe: bool) -> list[str]:
    want = [_expected_attempt(a, observe) for a in want_raw or []]
    have = [_attempt_view(a, observe) for a in got]
    if check == "exact":
        if want != have:
            return [f"podSet {ps_name} attempts: expected {want}, got {have}"]
        return []
    if not want:
        return []
    by_flavor = {a["flavor"]: a for a in want}
    diffs = []
    if any(a["mode"] == "Fit" for a in have):
        for a in have:
            w = by_flavor.get(a["flavor"])
            if w is None:
                diffs.append(f"podSet {ps_name} attempt {a['flavor']}: not expected, got {a}")
            elif w != a and not (a["mode"] == "Fit" and w["mode"] == "NoFit" and w["reasons"]
                                 and all("does not provide resource" in r for r in w["reasons"])):
                diffs.append(f"podSet {ps_name} attempt {a['flavor']}: expected {w}, got {a}")
    else:
        got_by = {a["flavor"]: a for a in have}
        for f, w in by_flavor.items():
            if got_by.get(f) != w:
                diffs.append(f"podSet {ps_name} attempt {f}: expected {w}, got {got_by.get(f)}")
    return diffs


def compare_assignment(want: dict, got: Assignment, observe: bool) -> list[str]:
    diffs = []
    if int(want.get("borrowing", 0)) != got.borrowing:
        diffs.append(f"borrowing: expected {want.get('borrowing', 0)}, got {got.borrowing}")
    if observe and want.get("noFitReason", "") != got.no_fit_reason:
        diffs.append(f"noFitReason: expected {want.get('noFitReason', '')!r}, got {got.no_fit_reason!r}")
    want_usage = {(f, r): Quantity.parse(q).amount(r) for f, res in (want.get("usage") or {}).items()
                  for r, q in res.items()}
    if want_usage != got.usage:
        diffs.append(f"usage: expected {want_usage}, got {got.usage}")
    want_ps = want.get("podSets") or []
    if [p.get("name") for p in want_ps] != [p.name for p in got.pod_sets]:
        diffs.append(f"podSets: expected {[p.get('name') for p in want_ps]}, got {[p.name for p in got.pod_sets]}")
        return diffs
    check = want.get("attemptsCheck", "flexible")
    for w, g in zip(want_ps, got.pod_sets, strict=True):
        if int(w.get("count", g.count)) != g.count:
            diffs.append(f"podSet {g.name} count: expected {w.get('count')}, got {g.count}")
        if "requests" in w:
            wr = _amounts(w["requests"])
            if wr != g.requests:
                diffs.append(f"podSet {g.name} requests: expected {wr}, got {g.requests}")
        if "flavors" in w:
            wf = {r: (f["name"], f["mode"], int(f.get("triedFlavorIdx", 0))) for r, f in (w["flavors"] or {}).items()}
            gf = {r: (f.name, MODE_NAMES[f.mode], f.tried_idx) for r, f in g.flavors.items()}
            if wf != gf:
                diffs.append(f"podSet {g.name} flavors: expected {wf}, got {gf}")
        if "status" in w:
            want_reasons = sorted((w["status"] or {}).get("reasons") or [])
            if want_reasons != sorted(g.reasons):
                diffs.append(f"podSet {g.name} status.reasons: expected {want_reasons}, got {sorted(g.reasons)}")
        diffs += _compare_attempts(g.name, check, w.get("attempts"), g.attempts, observe)
    return diffs


def run_total_requests(scn: Scenario, gates: dict[str, bool]) -> list[str]:
    cfg = engine_config(scn, gates)
    wi = _workload(scn, cfg)
    replaced = _replaced(scn)
    assigned = (scn.run.get("assignment") or {}).get("podSets") or []
    total: dict[tuple[str, str], int] = {}
    for i, ps in enumerate(wi.pod_sets):
        a = assigned[i] if i < len(assigned) else {}
        count = int(a.get("count", ps.count))
        if replaced is not None and i < len(replaced.pod_sets):
            count = ps.count - replaced.pod_sets[i][1]
        for r, v in ps.scaled_to(count).total().items():
            if v == 0:
                continue
            flavor = (a.get("flavors") or {}).get(r)
            if flavor is None:
                if cfg.quota_check_strategy == "IgnoreUndeclared":
                    continue
                flavor = ""
            total[(flavor, r)] = total.get((flavor, r), 0) + v
    want = {(f, r): Quantity.parse(q).amount(r) for f, res in (scn.expect.get("totalRequests") or {}).items()
            for r, q in res.items()}
    return [] if want == total else [f"totalRequests: expected {want}, got {total}"]
