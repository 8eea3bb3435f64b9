"""``run.kind: preemption``: ask for the targets that let a workload fit (FORMAT.md)."""
from __future__ import annotations

from datetime import UTC, datetime

from ..engine.preemption import Preemptor
from ..engine.quota import FR
from ..engine.snapshot import build_snapshot
from ..engine.workload import WorkloadInfo
from ..errors import InputError
from ..keys import WorkloadKey
from .compare import compare_keys, workload_keys
from .scenario import Scenario
from .setup import engine_config, prepare_state


def run(scn: Scenario, gates: dict[str, bool]) -> list[str]:
    cfg = engine_config(scn, gates)
    snap = build_snapshot(prepare_state(scn), cfg)
    wl = scn.state.workloads.get(WorkloadKey.parse(str(scn.run.get("workload", ""))))
    cq = snap.cluster_queues.get(str(scn.run.get("clusterQueue") or ""))
    if wl is None or cq is None:
        raise InputError("run.workload or run.clusterQueue names no object in objects")
    wi = WorkloadInfo(wl, cfg.gate("ReclaimablePods"), cfg.requeuing_timestamp, rules=cfg.resource_rules)
    assignment = scn.run.get("assignment") or {}
    modes = scn.run.get("assignmentModes") or {}
    usage: dict[FR, int] = {}
    frs_need: set[FR] = set()
    for ps in wi.pod_sets:
        totals = ps.total()
        for res, flavor in (assignment.get(ps.name) or {}).items():
            fr = (flavor, res)
            usage[fr] = usage.get(fr, 0) + totals.get(res, 0)
            if (modes.get(ps.name) or {}).get(res, "Preempt") == "Preempt":
                frs_need.add(fr)
    before = {n.name: dict(n.usage) for n in snap.nodes()}
    now = scn.now or datetime.now(UTC)
    targets = Preemptor(snap, cfg, now).get_targets(wi, cq, usage, frs_need)
    diffs = []
    after = {n.name: dict(n.usage) for n in snap.nodes()}
    norm = lambda d: {n: {k: v for k, v in u.items() if v} for n, u in d.items()}  # noqa: E731
    if norm(before) != norm(after):
        diffs.append("the snapshot was not restored after the preemption search")
    want = scn.expect.get("preempted")
    if want is not None:
        got = {t.key: t.reason for t in targets}
        diffs += compare_keys("preempted", workload_keys(w["workload"] for w in want), got)
        for w in want:
            got_reason = got.get(WorkloadKey.parse(str(w["workload"])))
            if w.get("reason") and got_reason is not None and got_reason != w["reason"]:
                diffs.append(f"preempted[{w['workload']}].reason: expected {w['reason']}, got {got_reason}")
    return diffs
