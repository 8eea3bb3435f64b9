"""Topology-aware scheduling in the simulator: what the engine's TAS snapshots are built from, and
where a TAS workload's pods go.

The engine builds one TAS snapshot per TAS flavor and cycle from the cluster's Nodes, the Pods TAS
does not manage and the topology assignments of admitted workloads (``engine/tas/cycle.py``).
The simulator keeps the first two as API objects that follow the simulation: a Node per scenario
node (Ready as the node is), and a bound Pod per running pod of a workload that is not TAS-managed
(upstream ``tas_non_tas_pod_cache.go`` counts exactly those). The third is the engine's own
(``QuotaSnapshot.tas_usage``, kept while the workload holds quota).

A TAS workload's pods are bound to the domains of its topology assignment: the named nodes when the
lowest level is ``kubernetes.io/hostname``, else any node of the domain (what the TAS ungater's
nodeSelector leaves kube-scheduler), ``count`` pods per domain.
"""
from __future__ import annotations

from ..api import objects as o
from ..api.quantity import Quantity, format_amount
from ..api.state import ClusterState
from ..engine.tas.cycle import TASInputs
from ..engine.tas.snapshot import HOSTNAME, TAS_LABEL, TAS_POD_ANNOTATIONS
from ..kueue.releases import Fix
from ..kueue.version import Version
from .nodes import NodePool, SimNode, SimPod, with_pods
from .scenario import NodeSpec, WorkloadSpec

# Kueue's job integrations read the topology request from these pod-template annotations
# (upstream apis/kueue/v1beta2/topology_types.go); the Workload's pod set carries it as topologyRequest.
REQUEST_ANNOTATIONS = {"required": TAS_POD_ANNOTATIONS[0], "preferred": TAS_POD_ANNOTATIONS[1],
                       "podSetSliceRequiredTopology": TAS_POD_ANNOTATIONS[2],
                       "unconstrained": TAS_POD_ANNOTATIONS[4],
                       "podSetSliceSize": "kueue.x-k8s.io/podset-slice-size"}
# set by Kueue on the pods of a TAS workload (kueue.TASLabel) before v0.14, which stopped setting it
# and marks the pods of an implied TAS pod set with the unconstrained annotation instead (CHANGELOG-0.14)
TAS_LABEL_UNTIL = Version(0, 14, 0)


# "Requeue inadmissible TAS workloads after non-TAS pod finishes" (kubernetes-sigs/kueue#8709): the
# non-TAS pod usage controller collects the nodes freed by finished non-TAS pods and every 10 s
# retries the parked workloads of the ClusterQueues using a TAS flavor of those nodes
# (pkg/controller/tas/non_tas_usage_controller.go drainPendingNodes). Before it nothing but a
# quota change in the workload's cohort tree retried a workload that only non-TAS pods kept out.
NON_TAS_REQUEUE_FIX = Fix(8709, Version(0, 20), (Version(0, 18, 5), Version(0, 19, 1)))
NON_TAS_REQUEUE_INTERVAL = 10.0


def pod_marks(spec: WorkloadSpec, admitted_by_tas: bool,
              version: Version) -> tuple[dict[str, str], dict[str, str]]:
    """(labels, annotations) Kueue gives the pods of ``spec``: its topology request's annotations
    (from the Job's pod template); once TAS placed it, the TAS label (before v0.14), or for an
    implied request the unconstrained annotation (v0.14+) that tells TAS pods from others."""
    ann = request_annotations(spec)
    labels = {}
    if admitted_by_tas and version < TAS_LABEL_UNTIL:
        labels[TAS_LABEL] = "true"
    elif admitted_by_tas and not ann:
        ann[REQUEST_ANNOTATIONS["unconstrained"]] = "true"
    return labels, ann


def request_annotations(spec: WorkloadSpec) -> dict[str, str]:
    """The pod-template annotations that carry ``spec``'s topology request."""
    if not spec.topology:
        return {}
    out = {}
    for k, v in spec.topology.items():
        out[REQUEST_ANNOTATIONS[k]] = str(v).lower() if isinstance(v, bool) else str(v)
    return out


def _ready(ready: bool) -> o.Condition:
    return o.Condition("Ready", "True" if ready else "Unknown", "KubeletReady" if ready else "NodeStatusUnknown", "")


class SimTAS:
    """The TAS inputs of a simulation (``inputs`` is the engine snapshot's ``tas_inputs``)."""

    def __init__(self, topologies: dict[str, o.Topology], specs: list[NodeSpec], pool: NodePool):
        self.pool = pool
        self.nodes: dict[str, o.Node] = {}
        for s, n in zip(specs, pool.nodes, strict=True):
            alloc = {r: Quantity.parse(str(v)) for r, v in with_pods(s.allocatable).items()}
            self.nodes[n.name] = o.Node(o.Meta(n.name, labels=dict(n.info.terms.labels)), allocatable=alloc,
                                        conditions=[_ready(True)])
        self.inputs = TASInputs(dict(topologies), list(self.nodes.values()), [])
        self._pods: dict[int, o.Pod] = {}
        self._stale = False
        self.freed: set[str] = set()      # nodes non-TAS pods left since the last requeue

    # -- what the engine reads ------------------------------------------------------------------
    def refresh(self) -> None:
        """Before a cycle: the bound non-TAS pods as the engine's inputs."""
        if self._stale:
            self.inputs.pods = list(self._pods.values())
            self._stale = False

    def node_ready(self, name: str, ready: bool) -> None:
        node = self.nodes.get(name)
        if node is not None:
            node.conditions = [_ready(ready)]

    def bound(self, pods: list[SimPod]) -> None:
        """Pods of a workload TAS does not manage were bound: they take their node's capacity."""
        for p in pods:
            if p.node is None:
                continue
            self._pods[id(p)] = o.Pod(o.Meta(p.name, str(p.workload.namespace)),
                                      o.PodSpec(containers=[o.Container("main", {
                                          r: Quantity.parse(format_amount(r, v)) for r, v in p.requests.items()})],
                                          node_name=p.node.name),
                                      phase="Running")
            self._stale = True

    def unbound(self, p: SimPod) -> bool:
        """A pod went away; True when it was a bound non-TAS pod (its node has room again)."""
        gone = self._pods.pop(id(p), None)
        if gone is None:
            return False
        self._stale = True
        self.freed.add(gone.spec.node_name)
        return True

    def drain_freed(self, state: ClusterState) -> list[str]:
        """The ClusterQueues using a TAS flavor of the nodes freed since the last drain (upstream
        NodeMatchesFlavor: the flavor's node labels and a value for every level of its topology)."""
        nodes, self.freed = [self.nodes[n] for n in sorted(self.freed) if n in self.nodes], set()
        flavors = []
        for name, rf in state.resource_flavors.items():
            topo = self.inputs.topologies.get(rf.topology_name) if rf.topology_name else None
            if topo is not None and any(all(n.meta.labels.get(k) == v for k, v in rf.node_labels.items())
                                        and all(lv in n.meta.labels for lv in topo.levels) for n in nodes):
                flavors.append(name)
        return sorted(cq for cq, obj in state.cluster_queues.items()
                      if any(f.name in flavors for g in obj.resource_groups for f in g.flavors))

    # -- where a TAS workload's pods go -------------------------------------------------------------
    def domains(self, ta: o.TopologyAssignment) -> list[tuple[list[SimNode], int, dict[str, str]]]:
        """Each domain of ``ta``: its candidate nodes, its pod count and the nodeSelector the TAS
        ungater gives its pods."""
        out = []
        for d in ta.domains:
            selector = dict(zip(ta.levels, d.values, strict=True))
            if ta.levels and ta.levels[-1] == HOSTNAME:
                node = self.pool.by_name.get(d.values[-1])
                cands = [node] if node is not None else []
            else:
                cands = [n for n in self.pool.nodes
                         if all(n.info.terms.labels.get(k) == v for k, v in selector.items())]
            out.append((cands, d.count, selector))
        return out


# -- the snapshot's encoding of a topology assignment -----------------------------------------------
def _individual(values: list[str]) -> dict:
    """One level's values as common prefix + roots + common suffix, the prefix cut so the two do
    not overlap (upstream fillSingleCompactSliceValues; a root may be empty)."""
    def common(vals: list[str]) -> str:
        lo, hi = min(vals), max(vals)
        n = 0
        while n < len(lo) and lo[n] == hi[n]:
            n += 1
        return lo[:n]
    prefix, suffix = common(values), common([v[::-1] for v in values])[::-1]
    shortest = min(len(v) for v in values)
    if len(prefix) + len(suffix) > shortest:
        prefix = prefix[:shortest - len(suffix)]
    out: dict = {"roots": [v[len(prefix):len(v) - len(suffix)] for v in values]}
    if prefix:
        out["prefix"] = prefix
    if suffix:
        out["suffix"] = suffix
    return out


def encode_assignment(ta: o.TopologyAssignment, api_version: str) -> dict:
    """``topologyAssignment`` as the API version stores it: v1beta1 ``levels`` + ``domains[{values,
    count}]``; v1beta2 ``levels`` + ``slices`` (one slice here: per level one ``universal`` value
    or ``individual`` prefix/roots/suffix, and the pod counts, ``universal`` when all equal).
    ``api.parse.parse_topology_assignment`` decodes both to the same domain list. The v1beta2 form
    is upstream's single-slice encoding (utiltas.V1Beta2From without the
    TASAssignmentsEncodingByHostnamePrefix gate)."""
    if not api_version.endswith("/v1beta2"):
        return {"levels": list(ta.levels),
                "domains": [{"count": d.count, "values": list(d.values)} for d in ta.domains]}
    if not ta.domains:
        return {"levels": list(ta.levels), "slices": []}
    per_level = []
    for i in range(len(ta.levels)):
        column = [d.values[i] for d in ta.domains]
        per_level.append({"universal": column[0]} if len(set(column)) == 1 else {"individual": _individual(column)})
    counts = [d.count for d in ta.domains]
    pod_counts = {"universal": counts[0]} if len(set(counts)) == 1 else {"individual": counts}
    return {"levels": list(ta.levels), "slices": [{"domainCount": len(ta.domains), "podCounts": pod_counts,
                                                   "valuesPerLevel": per_level}]}
