"""``run.kind: tas-assign`` (tas/TAS-FORMAT.md): one call of the per-flavor TAS placement.

The snapshot is built from the scenario's Topology, TAS ResourceFlavor, Nodes and Pods plus
``run.tasUsage``; ``run.podSets`` are the requests; ``run.workload`` is passed as WithWorkload.
Every key of ``expect`` (and of ``run``) is checked or fails the case: nothing is ignored.
"""
from __future__ import annotations

from typing import Any

from ..api import objects as o
from ..api.fields import Fields
from ..api.parse import parse_pod_spec, parse_topology_assignment, parse_topology_request
from ..api.quantity import Quantity
from ..engine.tas import TASPodSetRequest, build_flavor_snapshot, find_topology_assignments
from ..engine.tas.snapshot import HOSTNAME, domain_id
from ..errors import InputError
from ..keys import WorkloadKey
from .scenario import Scenario
from .setup import engine_config

RUN_KEYS = {"kind", "flavor", "workload", "tasUsage", "podSets"}
POD_SET_KEYS = {"name", "count", "requests", "topologyRequest", "podSetGroupName", "nodeSelector",
                "tolerations", "affinity", "previousAssignment"}
EXPECT_KEYS = {"podSets"}
RESULT_KEYS = {"topologyAssignment", "failureReason"}


def _amounts(raw: dict | None) -> dict[str, int]:
    return {r: Quantity.parse(str(q)).amount(r) for r, q in (raw or {}).items()}


def _pod_set(raw: dict, i: int) -> TASPodSetRequest:
    where = f"run.podSets[{i}]"
    unknown = set(raw) - POD_SET_KEYS
    if unknown:
        raise InputError(f"fields the runner cannot use: {sorted(unknown)}", field=where)
    spec = parse_pod_spec(Fields({k: raw[k] for k in ("nodeSelector", "tolerations", "affinity") if k in raw}))
    tr = parse_topology_request(Fields(raw["topologyRequest"])) if raw.get("topologyRequest") else None
    group = raw.get("podSetGroupName")
    if group is None and tr is not None:
        group = tr.pod_set_group_name
    prev = parse_topology_assignment(Fields(raw["previousAssignment"])) if raw.get("previousAssignment") else None
    return TASPodSetRequest(name=str(raw.get("name", "main")), count=int(raw.get("count", 1)),
                            single_pod_requests=_amounts(raw.get("requests")), topology=tr, implied=tr is None,
                            group_name=group, node_selector=dict(spec.node_selector),
                            tolerations=list(spec.tolerations), required_node_terms=list(spec.required_node_terms),
                            preferred_node_terms=list(spec.preferred_node_terms), previous_assignment=prev)


def _assignment_json(ta: o.TopologyAssignment | None) -> Any:
    if ta is None:
        return None
    return {"levels": list(ta.levels), "domains": [{"values": list(d.values), "count": d.count} for d in ta.domains]}


def _want_assignment(raw: Any) -> Any:
    if raw is None:
        return None
    ta = parse_topology_assignment(Fields(raw))
    return _assignment_json(ta)


def run(scn: Scenario, gates: dict[str, bool]) -> list[str]:
    cfg = engine_config(scn, gates)
    r = scn.run
    unknown = set(r) - RUN_KEYS
    if unknown:
        return [f"run: keys the runner cannot use: {sorted(unknown)}"]
    st = scn.state
    flavor = st.resource_flavors.get(str(r.get("flavor", "")))
    if flavor is None:
        raise InputError("names no ResourceFlavor in objects", field="run.flavor")
    topology = st.topologies.get(flavor.topology_name)
    if topology is None:
        raise InputError(f"the flavor's Topology {flavor.topology_name!r} is not in objects", field="run.flavor")
    snap = build_flavor_snapshot(flavor, topology, st.nodes.values(), st.pods.values(),
                                 scheduler_library=cfg.gate("SchedulerLibraryIntegration"))
    aggregate = cfg.gate("TASHandleOverlappingFlavors") and topology.levels[-1] == HOSTNAME
    for i, u in enumerate(r.get("tasUsage") or []):
        values = [str(v) for v in u.get("values") or []]
        count = int(u.get("count", 1))
        usage = {k: v * count for k, v in _amounts(u.get("requests")).items()}
        usage["pods"] = usage.get("pods", 0) + count
        did = values[-1] if topology.levels[-1] == HOSTNAME else domain_id(values)
        fl = str(u.get("flavor", flavor.meta.name))
        if fl == flavor.meta.name or aggregate:
            snap.add_tas_usage(did, usage)
        elif fl not in st.resource_flavors:
            raise InputError("names no ResourceFlavor in objects", field=f"run.tasUsage[{i}].flavor")
    workload = None
    if r.get("workload"):
        workload = st.workloads.get(WorkloadKey.parse(str(r["workload"])))
        if workload is None:
            raise InputError("names no Workload in objects", field="run.workload")
    requests = [_pod_set(ps, i) for i, ps in enumerate(r.get("podSets") or [])]
    got = find_topology_assignments(snap, requests, cfg.gate, workload=workload)

    diffs: list[str] = []
    exp = scn.expect
    for k in sorted(set(exp) - EXPECT_KEYS):
        diffs.append(f"expect.{k}: the tas-assign runner cannot check this key")
    want_ps = exp.get("podSets")
    if want_ps is None:
        return diffs
    for name in sorted(set(want_ps) | set(got)):
        if name not in got:
            diffs.append(f"podSets[{name}]: expected {want_ps[name]!r}, got nothing")
            continue
        if name not in want_ps:
            diffs.append(f"podSets[{name}]: not expected, got assignment "
                         f"{_assignment_json(got[name].assignment)!r} reason {got[name].failure_reason!r}")
            continue
        want = want_ps[name] or {}
        for k in sorted(set(want) - RESULT_KEYS):
            diffs.append(f"podSets[{name}].{k}: the tas-assign runner cannot check this key")
        if "topologyAssignment" in want:
            w, g = _want_assignment(want["topologyAssignment"]), _assignment_json(got[name].assignment)
            if w != g:
                diffs.append(f"podSets[{name}].topologyAssignment: expected {w!r}, got {g!r}")
        if "failureReason" in want and (want["failureReason"] or "") != got[name].failure_reason:
            diffs.append(f"podSets[{name}].failureReason: expected {want['failureReason']!r}, "
                         f"got {got[name].failure_reason!r}")
    return diffs
