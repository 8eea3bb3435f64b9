"""Nodes and pods: where released workloads run, how long their pods take to go away.

Which node can take a pod is the placement model's answer (``engine.nodes.fits``: readiness,
node selector — the assigned flavors' node labels —, taints, every requested resource, GPU
devices), the one the doctor and the exporter use on a gathered cluster. Among the nodes that
fit, placement scores like kube-scheduler's NodeResourcesFit: LeastAllocated (default) spreads,
MostAllocated packs.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..api.quantity import Quantity
from ..engine.nodes import NodeInfo, NodeTerms, Placement, PodNeeds, fits, needs_of
from ..keys import WorkloadKey
from .scenario import NodeSpec

PENDING, RUNNING, TERMINATING, GONE = "Pending", "Running", "Terminating", "Gone"
# kubelet's default maxPods: every real node reports allocatable ``pods``, and TAS counts one per pod
MAX_PODS = 110


def with_pods(allocatable: dict) -> dict:
    """A node's allocatable as the API reports it: ``pods`` included (kubelet's default unless given)."""
    return allocatable if "pods" in allocatable else {**allocatable, "pods": MAX_PODS}


@dataclass
class SimPod:
    workload: WorkloadKey
    index: int
    requests: dict[str, int]
    node: SimNode | None = None
    phase: str = PENDING
    deleted_at: float | None = None
    grace: float = 30.0
    zombie: bool = False           # never finishes terminating (kubelet down, killed mid image pull)
    needs: PodNeeds | None = None   # as placed (set when bound)
    devices: tuple[int, ...] = ()      # the GPU devices it holds on its node
    domain: dict[str, str] | None = None   # a TAS pod's topology domain (the ungater's nodeSelector)

    @property
    def name(self) -> str:
        return f"{self.workload.name}-{self.index}"


class SimNode:
    """A scenario node: the placement model's node (``info``) with the simulator's handles.

    ``labels`` are the scenario's; the model's node also carries the labels every kubelet sets
    (hostname, os), as the snapshot writes them.
    """
    __slots__ = ("info", "labels")

    def __init__(self, name: str, labels: dict[str, str], allocatable: dict[str, int]):
        self.labels = dict(labels)
        full = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", **labels}
        self.info = NodeInfo(name, allocatable, NodeTerms(labels=full))

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def allocatable(self) -> dict[str, int]:
        return self.info.allocatable

    @property
    def ready(self) -> bool:
        return self.info.terms.ready is not False

    @ready.setter
    def ready(self, value: bool) -> None:
        self.info.terms = replace(self.info.terms, ready=value)

    def bind(self, pod: SimPod, needs: PodNeeds) -> None:
        pod.needs = needs
        pod.devices = self.info.bind(needs)
        pod.node = self

    def unbind(self, pod: SimPod) -> None:
        if pod.needs is not None:
            self.info.unbind(pod.needs, pod.devices)
        pod.needs, pod.devices = None, ()

    def __repr__(self) -> str:
        return f"SimNode({self.name})"


def amounts(requests: dict) -> dict[str, int]:
    return {r: Quantity.parse(v).amount(r) for r, v in requests.items()}


class NodePool:
    def __init__(self, specs: list[NodeSpec], policy: str = "LeastAllocated"):
        self.nodes = [SimNode(s.name, dict(s.labels), amounts(s.allocatable)) for s in specs]
        self.infos = [n.info for n in self.nodes]   # what engine.nodes.count_slots counts on
        self.by_name = {n.name: n for n in self.nodes}
        self.policy = policy
        self._needs: dict[tuple, PodNeeds] = {}

    def __bool__(self) -> bool:
        return bool(self.nodes)

    def needs(self, requests: dict[str, int], labels: dict[str, str]) -> PodNeeds:
        """A simulated pod's needs: its requests, the assigned flavors' node labels as its
        node selector (what the snapshot writes as the pod's ``nodeSelector``)."""
        key = (tuple(sorted(requests.items())), tuple(sorted(labels.items())))
        needs = self._needs.get(key)
        if needs is None:
            needs = self._needs[key] = needs_of(requests, Placement(node_selector=key[1]))
        return needs

    def _score(self, node: NodeInfo, requests: dict[str, int]) -> float:
        alloc, used = node.allocatable, node.requested
        fractions = [(used.get(r, 0) + v) / alloc[r] for r, v in requests.items() if v and alloc.get(r)]
        share = sum(fractions) / len(fractions) if fractions else 0.0
        return share if self.policy == "MostAllocated" else -share

    def _best(self, cands: list[SimNode], needs: PodNeeds, requests: dict[str, int]) -> SimNode | None:
        best, best_score = None, 0.0
        for node in cands:
            info = node.info
            if not fits(info, needs):
                continue
            s = self._score(info, requests)
            if best is None or s > best_score:
                best, best_score = node, s
        return best

    def place_group(self, pods: list[SimPod], labels: dict[str, str]) -> bool:
        """Bind every pod of a gang or none (all-or-nothing, like a gang scheduler)."""
        chosen: list[tuple[SimPod, SimNode]] = []
        for pod in pods:
            needs = self.needs(pod.requests, labels)
            best = self._best(self.nodes, needs, pod.requests)
            if best is None:
                for p, n in chosen:
                    n.unbind(p)
                    p.node = None
                return False
            best.bind(pod, needs)
            chosen.append((pod, best))
        for pod, _ in chosen:
            pod.phase = RUNNING
        return True

    def place_pinned(self, pods: list[SimPod], labels: dict[str, str],
                     domains: list[tuple[list[SimNode], int, dict[str, str]]]) -> bool:
        """Bind a TAS workload's pods to the domains of its topology assignment (candidate nodes,
        pod count, selector), each pod as soon as its domain has room: the TAS ungater gives each pod
        its domain's nodeSelector and kube-scheduler binds them one by one, so a pod that finds its
        node still taken (by a pod TAS does not manage) waits there while the others run. True when
        every pod is bound."""
        where = [(cands, sel) for cands, n, sel in domains for _ in range(n)]
        done = True
        for i, pod in enumerate(pods):
            if pod.node is not None:
                continue
            cands, pod.domain = where[i] if i < len(where) else (self.nodes, None)
            needs = self.needs(pod.requests, labels)
            best = self._best(cands, needs, pod.requests)
            if best is None:
                done = False
                continue
            best.bind(pod, needs)
        if done:
            for pod in pods:
                pod.phase = RUNNING
        return done
