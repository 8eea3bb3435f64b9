"""Topology-aware scheduling facts: for a head, what the engine's TAS placement says of each of
its TAS pod sets (computed outside a scheduling cycle on the snapshots a cycle would build:
``Scheduler.cycle_tas``), the free capacity per domain at the level it asks for, and who
occupies the domains closest to fitting it; per TAS flavor, the largest free domain per level.
Built once by ``gather``; the topology-fragmentation cause, step 2, ``explain`` and the exporter
read them."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..api import objects as o
from ..api.state import ClusterState
from ..engine.assignment import Assignment
from ..engine.model import AdmissionModel
from ..engine.scheduler import Scheduler
from ..engine.tas import TASPodSetRequest, find_topology_assignments
from ..engine.tas.cycle import CycleAssignment, CycleTAS, explicitly_requests_tas, is_tas_flavor, tas_only
from ..engine.tas.free import DomainFree, free_at_level, largest_free, main_resource
from ..engine.tas.snapshot import TASFlavorSnapshot, non_tas_usage
from ..engine.workload import WorkloadInfo, pod_requests
from ..kueue import constants as kc

CANDIDATES = 3          # domains whose occupants a finding names
TOP_DOMAINS = 10        # domains explain and JSON list per pod set

TOPOLOGY_COLLECT = "`kubectl get topologies.kueue.x-k8s.io -o yaml` (and the ResourceFlavors)"
NODES_COLLECT = "`kubectl get nodes -o yaml` and `kubectl get pods -A -o yaml`"


@dataclass(frozen=True, slots=True)
class Occupant:
    """What uses a domain: an admitted TAS workload (by its topologyAssignment) or a pod TAS
    does not manage (bound to one of the domain's nodes)."""
    kind: str                    # "workload" or "pod"
    name: str                    # ns/name
    cluster_queue: str           # the workload's ("" for a pod)
    usage: dict[str, int]        # in this domain
    pods: int


@dataclass(frozen=True, slots=True)
class CandidateDomain:
    free: DomainFree
    occupants: tuple[Occupant, ...]


@dataclass(frozen=True, slots=True)
class LevelFree:
    """The largest free domain at one level of one TAS flavor (by its main resource)."""
    flavor: str
    topology: str
    level: str
    domain: str
    resource: str
    free: int
    domains: int


@dataclass(frozen=True, slots=True)
class PodSetTopology:
    pod_set: str
    flavor: str
    topology: str
    level: str                   # the required (or preferred) level; the lowest for unconstrained
    mode: str                    # required / preferred / unconstrained / implied
    count: int
    single_pod: dict[str, int]
    resource: str                # the resource the finding counts (GPUs before cpu)
    failure: str                 # the engine's placement failure on the current usage ("" when it fits)
    fits_empty: bool             # would fit with every TAS workload gone
    assignment: o.TopologyAssignment | None
    domains: tuple[DomainFree, ...]      # at ``level``, most pods of this shape first (TOP_DOMAINS kept)
    domain_count: int
    candidates: tuple[CandidateDomain, ...]
    largest: tuple[LevelFree, ...]       # per level of the flavor

    @property
    def needs(self) -> int:
        return self.single_pod.get(self.resource, 0) * self.count


@dataclass(frozen=True, slots=True)
class HeadTopology:
    """The TAS reading of one head (None in HeadFacts for a head that asks for no topology)."""
    pod_sets: tuple[PodSetTopology, ...] = ()
    missing: tuple[str, ...] = ()        # what to collect when TAS could not be evaluated
    kueue_reason: str = ""               # Kueue's own QuotaReserved=False reason and message, when read
    kueue_message: str = ""

    @property
    def failing(self) -> list[PodSetTopology]:
        return [p for p in self.pod_sets if p.failure]

    @property
    def kueue_says_topology(self) -> bool:
        return self.kueue_reason == kc.TOPOLOGY_PLACEMENT_FAILED or "topology" in self.kueue_message


@dataclass
class TASView:
    """The cluster's TAS flavors (largest free domain per level); empty without Topologies."""
    largest: list[LevelFree] = field(default_factory=list)
    missing: tuple[str, ...] = ()


@contextmanager
def cycle_tas(scheduler: Scheduler) -> Iterator[CycleTAS | None]:
    """The TAS snapshots a cycle would build now, installed on the scheduler for the duration
    (outside a cycle the scheduler has none, and the flavor assigner ignores topology)."""
    prev = scheduler.tas
    scheduler.tas = scheduler.cycle_tas()
    try:
        yield scheduler.tas
    finally:
        scheduler.tas = prev


def requests_topology(w: o.Workload, state: ClusterState, flavor_names: list[str]) -> bool:
    """The workload asks for a topology, or every flavor of its queue has one (TAS-only)."""
    if any(explicitly_requests_tas(ps) for ps in w.pod_sets):
        return True
    fls = [state.resource_flavors.get(f) for f in flavor_names]
    return bool(fls) and all(f is not None and f.topology_name for f in fls)


def kueue_message(w: o.Workload) -> tuple[str, str]:
    qr = w.condition("QuotaReserved")
    if qr is None or qr.status != "False":
        return "", ""
    return qr.reason or "", qr.message or ""


def missing_data(state: ClusterState, flavor_names: list[str]) -> tuple[str, ...]:
    out = []
    wanted = {state.resource_flavors[f].topology_name for f in flavor_names
              if f in state.resource_flavors and state.resource_flavors[f].topology_name}
    if not state.topologies or any(t not in state.topologies for t in wanted):
        out.append(TOPOLOGY_COLLECT)
    if not state.nodes:
        out.append(NODES_COLLECT)
    return tuple(out)


def head_topology(model: AdmissionModel, wi: WorkloadInfo, flavor_names: list[str], tas: CycleTAS | None,
                  assignment: Assignment) -> HeadTopology | None:
    """The TAS reading of ``wi`` as its queue's head, from the assignment the engine just made
    with ``tas`` installed."""
    state = model.state
    w = wi.obj
    if not requests_topology(w, state, flavor_names):
        return None
    reason, message = kueue_message(w)
    missing = missing_data(state, flavor_names)
    if missing:
        return HeadTopology((), missing, reason, message)
    if tas is None:
        return None   # the release runs without TopologyAwareScheduling: Kueue ignores the request
    cq_tas_only = tas_only(flavor_names, state.resource_flavors, state.topologies)
    by_flavor: dict[str, list[TASPodSetRequest]] = {}
    counts = {psa.name: psa.count for psa in assignment.pod_sets}
    tas_flavor = assignment.tas_flavor if isinstance(assignment, CycleAssignment) else {}
    for ps in w.pod_sets:
        fl = tas_flavor.get(ps.name) or placed_tas_flavor(assignment, ps.name, state, tas)
        if fl is None or fl not in tas.snaps or not (explicitly_requests_tas(ps) or cq_tas_only):
            continue
        by_flavor.setdefault(fl, []).append(TASPodSetRequest.of_pod_set(ps, counts.get(ps.name, ps.count),
                                                                        dict(pod_requests(ps.template))))
    out = []
    gate = model.scheduler.config.gate
    for fl, reqs in sorted(by_flavor.items()):
        snap = tas.snaps[fl]
        now = find_topology_assignments(snap, reqs, gate, workload=w)
        empty = find_topology_assignments(snap, reqs, gate, workload=w, simulate_empty=True)
        for r in reqs:
            got = now.get(r.name)
            failure = got.failure_reason if got is not None else ""
            assigned = got.assignment if got is not None else None
            fits_empty = (e := empty.get(r.name)) is not None and not e.failure_reason
            out.append(pod_set_topology(model, snap, fl, r, failure, assigned, fits_empty))
    return HeadTopology(tuple(out), (), reason, message)


def placed_tas_flavor(a: Assignment, pod_set: str, state: ClusterState, tas: CycleTAS) -> str | None:
    for ps in a.pod_sets:
        if ps.name == pod_set:
            for f in ps.flavors.values():
                if f.name in tas.snaps and is_tas_flavor(state.resource_flavors.get(f.name), state.topologies):
                    return f.name
    return None


def level_of(r: TASPodSetRequest, snap: TASFlavorSnapshot) -> tuple[str, str]:
    tr = r.topology
    if tr is not None and tr.required is not None:
        return tr.required, "required"
    if tr is not None and tr.preferred is not None:
        return tr.preferred, "preferred"
    return snap.levels[-1], "unconstrained" if tr is not None and tr.unconstrained else "implied"


def pod_set_topology(model: AdmissionModel, snap: TASFlavorSnapshot, flavor: str, r: TASPodSetRequest,
                     failure: str, assigned: o.TopologyAssignment | None, fits_empty: bool) -> PodSetTopology:
    level, mode = level_of(r, snap)
    idx = snap.level_index(level)
    single = dict(r.single_pod_requests)
    resource = main_resource(single)
    doms = free_at_level(snap, idx, single) if idx is not None else []
    candidates = tuple(CandidateDomain(d, occupants(model, snap, flavor, d)) for d in doms[:CANDIDATES])
    return PodSetTopology(r.name, flavor, snap.topology_name, level, mode, r.count, single, resource, failure,
                          fits_empty, assigned, tuple(doms[:TOP_DOMAINS]), len(doms), candidates,
                          tuple(flavor_largest(flavor, snap, resource)))


def flavor_largest(flavor: str, snap: TASFlavorSnapshot, resource: str) -> list[LevelFree]:
    out = []
    for i, (level, best) in enumerate(largest_free(snap, resource)):
        if best is not None:
            out.append(LevelFree(flavor, snap.topology_name, level, best.id, resource, best.free.get(resource, 0),
                                 len(snap.per_level[i])))
    return out


def occupants(model: AdmissionModel, snap: TASFlavorSnapshot, flavor: str, d: DomainFree) -> tuple[Occupant, ...]:
    leaves = set(d.leaves)
    esnap = model.snapshot
    out: list[Occupant] = []
    for key, usage in sorted(esnap.tas_usage.items(), key=lambda kv: str(kv[0])):
        if key not in esnap.workload_cq:
            continue
        use: dict[str, int] = {}
        for fl, did, u in usage:
            if fl == flavor and did in leaves:
                for res, v in u.items():
                    use[res] = use.get(res, 0) + v
        if use:
            out.append(Occupant("workload", str(key), esnap.workload_cq[key], use, use.pop("pods", 0)))
    for (ns, name), pod in sorted(model.state.pods.items()):
        u2 = non_tas_usage(pod, model.config.tas_pod_marks)
        if u2 is None or snap.node_to_leaf.get(pod.spec.node_name) not in leaves:
            continue
        pods = u2.pop("pods", 0)
        out.append(Occupant("pod", f"{ns}/{name}", "", u2, pods))
    return tuple(out)


def tas_view(model: AdmissionModel) -> TASView:
    """Per TAS flavor and level, the largest free domain (what the exporter serves)."""
    state = model.state
    if not state.topologies:
        wanted = any(f.topology_name for f in state.resource_flavors.values())
        return TASView([], (TOPOLOGY_COLLECT,) if wanted else ())
    with cycle_tas(model.scheduler) as tas:
        if tas is None:
            return TASView()
        out: list[LevelFree] = []
        for fl, snap in sorted(tas.snaps.items()):
            out += flavor_largest(fl, snap, flavor_resource(snap))
    return TASView(out, () if state.nodes else (NODES_COLLECT,))


def flavor_resource(snap: TASFlavorSnapshot) -> str:
    """The resource a flavor's domains are measured in: its nodes' extended resource, else cpu."""
    cap: dict[str, int] = {}
    for lf in snap.leaves.values():
        for r, v in lf.capacity.items():
            cap[r] = cap.get(r, 0) + v
    return main_resource({r: v for r, v in cap.items() if r != "pods"})

