"""The topology tree of one TAS ResourceFlavor and each leaf's capacity.

Upstream: ``tas_topology_tree.go`` (domains per level from node labels), ``tas_nodes_cache.go``
(which nodes count), ``tas_non_tas_pod_cache.go`` (usage of pods TAS does not manage) and
``TASFlavorSnapshot`` (tas_flavor_snapshot.go).

A node belongs to the flavor when it is Ready and schedulable (unless SchedulerLibraryIntegration
keeps it), carries every flavor node label and a value for every topology level. A leaf's free
capacity is its allocatable minus the requests of the non-TAS pods bound to it (each also one
``pods``); TAS usage of admitted workloads is kept apart (``tas_usage``), so a simulation that
assumes every TAS workload gone can ignore it.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ...api import objects as o
from ...kueue.version import Version
from ..workload import pod_requests
from .requests import PODS, Resources, add, sub

HOSTNAME = "kubernetes.io/hostname"
SEPARATOR = ","


def domain_id(values: Iterable[str]) -> str:
    return SEPARATOR.join(values)


def belongs_to(did: str, target: str) -> bool:
    return not target or did == target or did.startswith(target + SEPARATOR)


class Domain:
    """A topology domain with the placement algorithm's scratch state (upstream domain +
    domainState). ``leaf`` is set on the lowest level."""

    __slots__ = (
        "affinity",
        "children",
        "id",
        "leader_count",
        "leaf",
        "parent",
        "pod_count",
        "pod_count_wl",
        "slice_count",
        "slice_count_wl",
        "values",
    )

    def __init__(self, did: str, values: tuple[str, ...]) -> None:
        self.id = did
        self.values = values
        self.parent: Domain | None = None
        self.children: list[Domain] = []
        self.leaf: Leaf | None = None
        self.reset()

    def reset(self) -> None:
        self.pod_count = 0
        self.slice_count = 0
        self.pod_count_wl = 0      # pods that fit once the leader is placed
        self.slice_count_wl = 0
        self.leader_count = 0
        self.affinity = 0          # preferred node affinity score (sum over the subtree)

    def clone(self, parent: Domain | None = None) -> Domain:
        """A copy of the subtree with its state (balanced placement works on copies)."""
        c = Domain(self.id, self.values)
        c.parent, c.leaf = parent, self.leaf
        for a in ("pod_count", "slice_count", "pod_count_wl", "slice_count_wl", "leader_count", "affinity"):
            setattr(c, a, getattr(self, a))
        c.children = [ch.clone(c) for ch in self.children]
        return c

    def __repr__(self) -> str:
        return f"Domain({self.id!r}, pods={self.pod_count}, slices={self.slice_count})"


@dataclass
class Leaf:
    """A lowest-level domain: one node (hostname topologies) or every node with these values."""
    domain: Domain
    node: o.Node | None
    capacity: Resources = field(default_factory=dict)      # allocatable, summed over its nodes
    free: Resources = field(default_factory=dict)          # capacity minus non-TAS usage
    tas_usage: Resources = field(default_factory=dict)     # admitted TAS workloads

    def remaining(self, simulate_empty: bool = False) -> Resources:
        out = dict(self.free)
        if not simulate_empty:
            sub(out, self.tas_usage)
        return out


def node_usable(node: o.Node, scheduler_library: bool = False) -> bool:
    """Kept by the TAS nodes cache: Ready and not unschedulable (all, with SchedulerLibraryIntegration)."""
    return scheduler_library or (node.ready() is True and not node.unschedulable)


def flavor_nodes(nodes: Iterable[o.Node], node_labels: Mapping[str, str], levels: list[str],
                 scheduler_library: bool = False) -> list[o.Node]:
    return [n for n in nodes if node_usable(n, scheduler_library)
            and all(n.meta.labels.get(k) == v for k, v in node_labels.items())
            and all(lv in n.meta.labels for lv in levels)]


TAS_POD_ANNOTATIONS = ("kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology",
                       "kueue.x-k8s.io/podset-slice-required-topology",
                       "kueue.x-k8s.io/podset-slice-required-topology-constraints",
                       "kueue.x-k8s.io/podset-unconstrained-topology")


# kueue.TASLabel, which Kueue put on every pod of a TAS pod set until v0.14
TAS_LABEL = "kueue.x-k8s.io/tas"
# How a release tells the pods TAS manages from the others whose usage it counts per node:
# v0.13 by the label alone (pkg/cache/tas_flavor.go snapshot: a `kueue.x-k8s.io/tas DoesNotExist`
# pod selector); v0.14 - v0.16 by the request annotations or the label (pkg/util/tas IsTAS, "remove
# after 0.16"); from v0.17 by the annotations alone.
MARKS_LABEL, MARKS_EITHER, MARKS_ANNOTATIONS = "label", "either", "annotations"


def tas_pod_marks(version: Version) -> str:
    if version < Version(0, 14, 0):
        return MARKS_LABEL
    return MARKS_EITHER if version < Version(0, 17, 0) else MARKS_ANNOTATIONS


def is_tas_pod(pod: o.Pod, marks: str = MARKS_ANNOTATIONS) -> bool:
    """Managed by TAS (utiltas.IsTAS): its usage is the admitted workload's, not non-TAS usage."""
    labelled = marks != MARKS_ANNOTATIONS and TAS_LABEL in pod.meta.labels
    return labelled or (marks != MARKS_LABEL and any(a in pod.meta.annotations for a in TAS_POD_ANNOTATIONS))


def non_tas_usage(pod: o.Pod, marks: str = MARKS_ANNOTATIONS) -> Resources | None:
    """What a pod TAS does not manage uses on its node: its requests plus one ``pods``
    (None when it is not bound, has finished, or is a TAS pod)."""
    if not pod.spec.node_name or pod.phase in ("Succeeded", "Failed") or is_tas_pod(pod, marks):
        return None
    use = dict(pod_requests(pod.spec))
    use[PODS] = use.get(PODS, 0) + 1
    return use


class TASFlavorSnapshot:
    """Domains per level and leaf capacities of one TAS flavor (upstream TASFlavorSnapshot)."""

    def __init__(self, topology_name: str, levels: list[str], nodes: Iterable[o.Node],
                 tolerations: Iterable[o.Toleration] = ()) -> None:
        if not levels:
            raise ValueError("a topology has at least one level")
        self.topology_name = topology_name
        self.levels = list(levels)
        self.lowest_is_node = self.levels[-1] == HOSTNAME
        self.tolerations = list(tolerations)
        self.leaves: dict[str, Leaf] = {}
        self.per_level: list[dict[str, Domain]] = [{} for _ in self.levels]
        self.roots: dict[str, Domain] = {}
        self.node_to_leaf: dict[str, str] = {}
        for node in nodes:
            self._add_node(node)
        self.domains: list[Domain] = [d for lv in self.per_level for d in lv.values()]

    # -- building ---------------------------------------------------------------------------
    def _add_node(self, node: o.Node) -> None:
        labels = node.meta.labels
        values = tuple(labels.get(k, "") for k in self.levels)
        did = labels.get(HOSTNAME, "") if self.lowest_is_node else domain_id(values)
        leaf = self.leaves.get(did)
        if leaf is None:
            dom = Domain(did, values)
            leaf = Leaf(dom, node if self.lowest_is_node else None)
            dom.leaf = leaf
            self.leaves[did] = leaf
            self.per_level[-1][did] = dom
            self._link(dom)
        amounts = {r: q.amount(r) for r, q in node.allocatable.items()}
        add(leaf.capacity, amounts)
        add(leaf.free, amounts)
        self.node_to_leaf[node.meta.name] = did

    def _link(self, dom: Domain) -> None:
        while len(dom.values) > 1:
            pvalues = dom.values[:-1]
            pid = domain_id(pvalues)
            parent = self.per_level[len(pvalues) - 1].get(pid)
            created = parent is None
            if parent is None:
                parent = Domain(pid, pvalues)
                self.per_level[len(pvalues) - 1][pid] = parent
            dom.parent = parent
            parent.children.append(dom)
            if not created:
                return
            dom = parent
        self.roots[dom.id] = dom

    # -- usage ------------------------------------------------------------------------------
    def add_non_tas_usage(self, node_name: str, usage: Mapping[str, int]) -> None:
        did = self.node_to_leaf.get(node_name)
        if did is not None:
            sub(self.leaves[did].free, usage)

    def add_tas_usage(self, did: str, usage: Mapping[str, int]) -> None:
        """Usage of admitted TAS workloads in a leaf (ignored for a leaf the flavor lacks, as
        upstream does for workloads whose node is gone or not ready)."""
        leaf = self.leaves.get(did)
        if leaf is not None:
            add(leaf.tas_usage, usage)

    def has_domain(self, did: str) -> bool:
        return did in self.leaves

    def reset_state(self) -> None:
        for d in self.domains:
            d.reset()

    def free_capacity_per_domain(self) -> dict[str, Resources]:
        """Free capacity per leaf after TAS usage (what a new pod set could take)."""
        return {did: leaf.remaining() for did, leaf in sorted(self.leaves.items())}

    def level_index(self, key: str) -> int | None:
        try:
            return self.levels.index(key)
        except ValueError:
            return None

    def leaf_domain(self, values: tuple[str, ...]) -> Domain | None:
        """The lowest-level domain an assignment's values name."""
        return self.per_level[-1].get(domain_id(values))


def build_flavor_snapshot(flavor: o.ResourceFlavor, topology: o.Topology, nodes: Iterable[o.Node],
                          pods: Iterable[o.Pod] = (), scheduler_library: bool = False,
                          marks: str = MARKS_ANNOTATIONS) -> TASFlavorSnapshot:
    """The snapshot of ``flavor`` from the cluster's Nodes and the Pods TAS does not manage."""
    snap = TASFlavorSnapshot(topology.meta.name, topology.levels,
                             flavor_nodes(nodes, flavor.node_labels, topology.levels, scheduler_library),
                             flavor.tolerations)
    for pod in pods:
        use = non_tas_usage(pod, marks)
        if use is not None:
            snap.add_non_tas_usage(pod.spec.node_name, use)
    return snap
