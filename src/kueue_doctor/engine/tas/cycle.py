"""TAS inside the scheduling cycle: the per-cycle flavor snapshots, the flavor checks upstream's
flavor assigner makes for TAS, and the TAS usage of admitted workloads.

Upstream: pkg/scheduler/flavorassigner/tas_flavorassigner.go (WorkloadsTopologyRequests,
checkPodSetAndFlavorMatchForTAS, isTASImplied/isTASRequested, onlyTASFlavor),
pkg/cache/scheduler/clusterqueue_snapshot.go (TASFlavors, IsTASOnly, FindTopologyAssignmentsForWorkload)
and the TAS usage a workload adds to the cache (workload.TASUsage).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ...api import objects as o
from ..assignment import Assignment
from ..workload import pod_requests
from .requests import PODS, GateFn, Resources
from .snapshot import HOSTNAME, MARKS_ANNOTATIONS, TASFlavorSnapshot, build_flavor_snapshot, domain_id

# (flavor, leaf domain id, usage)
TASUsage = list[tuple[str, str, Resources]]


@dataclass
class TASInputs:
    """What the TAS snapshots are built from: the cluster's Topologies, Nodes and Pods."""
    topologies: dict[str, o.Topology] = field(default_factory=dict)
    nodes: list[o.Node] = field(default_factory=list)
    pods: list[o.Pod] = field(default_factory=list)
    marks: str = MARKS_ANNOTATIONS      # how the release tells TAS pods from others (snapshot.tas_pod_marks)


@dataclass
class CycleAssignment(Assignment):
    """A flavor assignment with the topology assignments TAS gave its pod sets."""
    topology: dict[str, o.TopologyAssignment] = field(default_factory=dict)
    tas_flavor: dict[str, str] = field(default_factory=dict)      # pod set -> its TAS flavor
    single_pod: dict[str, Resources] = field(default_factory=dict)


def topology_of(a: Assignment | None) -> dict[str, o.TopologyAssignment]:
    return a.topology if isinstance(a, CycleAssignment) else {}


def is_tas_flavor(flavor: o.ResourceFlavor | None, topologies: Mapping[str, o.Topology]) -> bool:
    return flavor is not None and bool(flavor.topology_name) and flavor.topology_name in topologies


def explicitly_requests_tas(ps: o.PodSet) -> bool:
    """workload.IsExplicitlyRequestingTAS."""
    tr = ps.topology
    return tr is not None and (tr.required is not None or tr.preferred is not None or bool(tr.unconstrained)
                               or bool(tr.constraints()))


def tas_only(flavor_names: Iterable[str], flavors: Mapping[str, o.ResourceFlavor],
             topologies: Mapping[str, o.Topology]) -> bool:
    """ClusterQueueSnapshot.IsTASOnly: every flavor of the ClusterQueue is a TAS flavor."""
    names = list(flavor_names)
    return bool(names) and all(is_tas_flavor(flavors.get(f), topologies) for f in names)


def tas_requested(ps: o.PodSet, cq_tas_only: bool) -> bool:
    return explicitly_requests_tas(ps) or cq_tas_only


def has_level(snap: TASFlavorSnapshot, tr: o.TopologyRequest | None) -> bool:
    """TASFlavorSnapshot.HasLevel: the requested level (required or preferred) exists."""
    if tr is None:
        return True
    key = tr.required if tr.required is not None else tr.preferred
    return key is None or key in snap.levels


def flavor_match_problem(ps: o.PodSet, fname: str, flavor: o.ResourceFlavor, covered: Iterable[str],
                         cq_tas_only: bool, snaps: Mapping[str, TASFlavorSnapshot]) -> str:
    """checkPodSetAndFlavorMatchForTAS ("" when the pod set may use the flavor)."""
    if tas_requested(ps, cq_tas_only):
        if not explicitly_requests_tas(ps) and cq_tas_only:
            return ""
        if not flavor.topology_name:
            cov = set(covered)
            if not any(r in cov for r in pod_requests(ps.template)):
                return ""
            return f'Flavor "{fname}" does not support TopologyAwareScheduling'
        s = snaps.get(fname)
        if s is None:
            return f'Flavor "{fname}" information missing in TAS cache'
        if not has_level(s, ps.topology):
            return f'Flavor "{fname}" does not contain the requested level'
        return ""
    if flavor.topology_name:
        return f'Flavor "{fname}" supports only TopologyAwareScheduling'
    return ""


def leaf_id(levels: list[str], values: Iterable[str]) -> str:
    vals = list(values)
    return vals[-1] if levels and levels[-1] == HOSTNAME else domain_id(vals)


def assignment_usage(flavor: str, ta: o.TopologyAssignment, single_pod: Mapping[str, int]) -> TASUsage:
    """The usage of a topology assignment: each domain's count x the pod's requests plus its pods."""
    out: TASUsage = []
    for d in ta.domains:
        use = {r: v * d.count for r, v in single_pod.items()}
        use[PODS] = use.get(PODS, 0) + d.count
        out.append((flavor, leaf_id(ta.levels, d.values), use))
    return out


def admitted_usage(wl: o.Workload, flavors: Mapping[str, o.ResourceFlavor],
                   topologies: Mapping[str, o.Topology]) -> TASUsage:
    """The TAS usage of a workload admitted before the engine saw it (its status.admission)."""
    adm = wl.status.admission
    if adm is None:
        return []
    specs = {ps.name: ps for ps in wl.pod_sets}
    out: TASUsage = []
    for psa in adm.pod_set_assignments:
        if psa.topology_assignment is None or psa.name not in specs:
            continue
        tas_fl = [f for f in dict.fromkeys(psa.flavors.values()) if is_tas_flavor(flavors.get(f), topologies)]
        if len(tas_fl) != 1:
            continue
        out += assignment_usage(tas_fl[0], psa.topology_assignment, pod_requests(specs[psa.name].template))
    return out


class CycleTAS:
    """The TAS flavor snapshots of one scheduling cycle, with the usage of admitted workloads
    (and of workloads this cycle admits or reserves for)."""

    def __init__(self, inputs: TASInputs, flavors: Mapping[str, o.ResourceFlavor], gate: GateFn,
                 admitted: Iterable[TASUsage]) -> None:
        self.inputs = inputs
        self.gate = gate
        self.snaps: dict[str, TASFlavorSnapshot] = {}
        for name in sorted(flavors):
            fl = flavors[name]
            if not is_tas_flavor(fl, inputs.topologies):
                continue
            self.snaps[name] = build_flavor_snapshot(fl, inputs.topologies[fl.topology_name], inputs.nodes,
                                                     inputs.pods,
                                                     scheduler_library=gate("SchedulerLibraryIntegration"),
                                                     marks=inputs.marks)
        for usage in admitted:
            self.add(usage)

    def _targets(self, flavor: str, did: str) -> list[TASFlavorSnapshot]:
        own = self.snaps.get(flavor)
        out = [own] if own is not None else []
        if own is not None and own.lowest_is_node and self.gate("TASHandleOverlappingFlavors"):
            out += [s for n, s in self.snaps.items() if n != flavor and s.lowest_is_node and s.has_domain(did)]
        return out

    def add(self, usage: TASUsage, sign: int = 1) -> None:
        for flavor, did, use in usage:
            for s in self._targets(flavor, did):
                s.add_tas_usage(did, {r: sign * v for r, v in use.items()})

    def remove(self, usage: TASUsage) -> None:
        self.add(usage, -1)

    def fits(self, usage: TASUsage) -> bool:
        """Every leaf the usage names still has room for it (cq.Fits' TAS part)."""
        need: dict[tuple[str, str], Resources] = {}
        for flavor, did, use in usage:
            cur = need.setdefault((flavor, did), {})
            for r, v in use.items():
                cur[r] = cur.get(r, 0) + v
        for (flavor, did), use in need.items():
            s = self.snaps.get(flavor)
            if s is None or did not in s.leaves:
                return False
            rem = s.leaves[did].remaining()
            if any(v > 0 and rem.get(r, 0) < v for r, v in use.items()):
                return False
        return True
