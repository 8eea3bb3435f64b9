"""Re-placing pods: node replacement for unhealthy nodes (TASFailedNodeReplacement) and
elastic workload slices reusing a previous assignment (ElasticJobsViaWorkloadSlicesWithTAS).

Upstream: ``findReplacementAssignment``, ``requiredReplacementDomain``,
``findIncompleteSliceDomain``, ``mergeTopologyAssignments`` (tas_flavor_snapshot.go) and
tas_elastic_workloads.go.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ...api import objects as o
from . import messages as m
from .placement import AssumedUsage, PodSetResult, add_assumed, constraints, slice_size_or_one
from .requests import TASPodSetRequest
from .snapshot import domain_id

if TYPE_CHECKING:
    from .placement import Placer

IS_GROUP_WORKLOAD_ANNOTATION = "kueue.x-k8s.io/is-group-workload"


def owned_by_single_pod(wl: o.Workload) -> bool:
    refs = wl.meta.owner_references
    if len(refs) != 1 or wl.meta.annotations.get(IS_GROUP_WORKLOAD_ANNOTATION) == "true":
        return False
    return refs[0].get("kind") == "Pod" and refs[0].get("apiVersion") == "v1"


def stale_domain(pl: Placer, ta: o.TopologyAssignment) -> str | None:
    """The first value of the first domain naming a leaf the snapshot lacks (None: not stale)."""
    for d in ta.domains:
        if not pl.s.has_domain(domain_id(d.values)):
            return d.values[0]
    return None


def delete_domain(ta: o.TopologyAssignment, node: str) -> int:
    """Drops the unhealthy node's domain; returns how many pods it held."""
    affected = 0
    kept = []
    for d in ta.domains:
        if d.values[-1] == node:
            affected = d.count
        else:
            kept.append(d)
    ta.domains = kept
    return affected


def incomplete_slice_domain(pl: Placer, ta: o.TopologyAssignment, missing: int, size: int, key: str) -> str:
    lvl = pl.s.level_index(key)
    if lvl is None:
        return ""
    last = len(pl.s.levels) - 1
    usage: dict[str, int] = {}
    for da in ta.domains:
        d = pl.s.leaf_domain(da.values)
        if d is None:
            continue
        for _ in range(last, lvl, -1):
            assert d.parent is not None
            d = d.parent
        usage[d.id] = usage.get(d.id, 0) + da.count
    for did, count in usage.items():   # upstream iterates a Go map: the first in insertion order here
        if (count + missing) % size == 0:
            return did
    return ""


def required_replacement_domain(pl: Placer, req: TASPodSetRequest, ta: o.TopologyAssignment) -> str:
    key = pl.level_key_implied(req)
    if key is None:
        return ""
    lvl = pl.s.level_index(key)
    if lvl is None or not ta.domains:
        return ""
    size, reason = slice_size_or_one(req.topology)
    if reason:
        return ""
    cs = constraints(req.topology)
    if cs and req.count % size != 0:
        if len(cs) > 1:
            for c in reversed(cs):
                if req.count % c.size != 0:
                    return incomplete_slice_domain(pl, ta, req.count, c.size, c.topology)
        return incomplete_slice_domain(pl, ta, req.count, size, pl.slice_level_key(req.topology))
    if req.topology is None or req.topology.required is None:
        return ""
    d = pl.s.leaf_domain(ta.domains[0].values)
    if d is None or not ta.domains[0].values:
        return ""
    for _ in range(len(pl.s.levels) - 1, lvl, -1):
        assert d.parent is not None
        d = d.parent
    return d.id


def merge_assignments(pl: Placer, a: o.TopologyAssignment, b: o.TopologyAssignment) -> o.TopologyAssignment:
    """Both assignments' domains ordered by the comma-joined ID of their full level values,
    equal neighbours merged."""
    def key(da: o.TopologyDomainAssignment) -> str:
        d = pl.s.leaf_domain(da.values)
        return domain_id(d.values if d is not None else da.values)
    merged: list[o.TopologyDomainAssignment] = []
    for da in sorted(a.domains + b.domains, key=key):
        if merged and domain_id(merged[-1].values) == domain_id(da.values):
            merged[-1] = o.TopologyDomainAssignment(merged[-1].values, merged[-1].count + da.count)
        else:
            merged.append(da)
    return o.TopologyAssignment(levels=list(a.levels), domains=merged)


def find_replacement(pl: Placer, req: TASPodSetRequest, existing: o.TopologyAssignment, wl: o.Workload,
                     assumed: AssumedUsage) -> tuple[o.TopologyAssignment | None, o.TopologyAssignment | None, str]:
    """(the corrected assignment, the replacement part, failure reason)."""
    node = wl.status.unhealthy_nodes[0]
    req = replace(req, count=delete_domain(existing, node))
    stale = stale_domain(pl, existing)
    if stale is not None:
        return None, None, m.stale_domain(stale)
    target = required_replacement_domain(pl, req, existing)
    size, reason = slice_size_or_one(req.topology)
    if reason:
        return None, None, reason
    attempt = req
    cs = constraints(req.topology)
    if cs and target and req.count % size != 0:
        eff_size, eff_topology = 1, None
        for c in reversed(cs):
            if req.count % c.size == 0:
                eff_size, eff_topology = c.size, c.topology
                break
        base = req.topology or o.TopologyRequest()
        attempt = replace(req, topology=replace(base, slice_constraints=[], slice_required_topology=eff_topology,
                                                slice_size=eff_size))
    found, reason = pl.find_topology_assignment(attempt, None, assumed, False, target)
    if reason:
        return None, None, reason
    part = found.get(req.name)
    if part is None or not part.domains:
        return None, None, m.no_replacement(node)
    return merge_assignments(pl, part, existing), part, ""


def count_pods(ta: o.TopologyAssignment | None) -> int:
    return sum(d.count for d in ta.domains) if ta is not None else 0


def truncate(ta: o.TopologyAssignment, count: int) -> o.TopologyAssignment:
    out = o.TopologyAssignment(levels=list(ta.levels))
    if count <= 0:
        return out
    left = count
    for d in ta.domains:
        if left <= 0:
            break
        if d.count <= left:
            out.domains.append(d)
            left -= d.count
        else:
            out.domains.append(o.TopologyDomainAssignment(d.values, left))
            left = 0
    return out


def handle_elastic(pl: Placer, workers: TASPodSetRequest, leader: TASPodSetRequest | None,
                   assumed: AssumedUsage, simulate_empty: bool) -> dict[str, PodSetResult] | None:
    """None when there is no usable previous assignment (a fresh placement follows)."""
    prev = workers.previous_assignment
    if prev is None or stale_domain(pl, prev) is not None:
        return None
    if leader is not None and leader.previous_assignment is not None \
            and stale_domain(pl, leader.previous_assignment) is not None:
        return None
    previous = count_pods(prev)
    if workers.count > previous:
        return scale_up(pl, workers, leader, prev, previous, assumed, simulate_empty)
    kept = truncate(prev, workers.count) if workers.count < previous else prev
    return finalize(workers, kept, leader, assumed)


def scale_up(pl: Placer, workers: TASPodSetRequest, leader: TASPodSetRequest | None, prev: o.TopologyAssignment,
             previous: int, assumed: AssumedUsage, simulate_empty: bool) -> dict[str, PodSetResult]:
    delta = replace(workers, count=workers.count - previous, previous_assignment=None)
    add_assumed(assumed, prev, workers)
    placement_leader = leader
    leader_prev = None
    if leader is not None and leader.previous_assignment is not None:
        leader_prev = leader.previous_assignment
        add_assumed(assumed, leader_prev, leader)
        placement_leader = None
    found, reason = pl.find_topology_assignment(delta, placement_leader, assumed, simulate_empty)
    if reason:
        return {workers.name: PodSetResult(None, reason)}
    part = found[workers.name]
    out = {workers.name: PodSetResult(merge_assignments(pl, part, prev))}
    if leader is not None:
        if leader_prev is not None:
            out[leader.name] = PodSetResult(leader_prev)
        else:
            out[leader.name] = PodSetResult(found.get(leader.name))
            add_assumed(assumed, found.get(leader.name), leader)
    add_assumed(assumed, part, workers)
    return out


def finalize(workers: TASPodSetRequest, kept: o.TopologyAssignment, leader: TASPodSetRequest | None,
             assumed: AssumedUsage) -> dict[str, PodSetResult]:
    out = {workers.name: PodSetResult(kept)}
    add_assumed(assumed, kept, workers)
    if leader is not None:
        out[leader.name] = PodSetResult(leader.previous_assignment)
        add_assumed(assumed, leader.previous_assignment, leader)
    return out
