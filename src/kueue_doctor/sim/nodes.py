"""Nodes and pods: where released workloads run, how long their pods take to go away.

Placement filters nodes by readiness, the assigned flavors' node labels and free resources,
then scores like kube-scheduler's NodeResourcesFit: LeastAllocated (default) spreads,
MostAllocated packs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..api.quantity import Quantity
from ..keys import WorkloadKey
from .scenario import NodeSpec

PENDING, RUNNING, TERMINATING, GONE = "Pending", "Running", "Terminating", "Gone"


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

    @property
    def name(self) -> str:
        return f"{self.workload.name}-{self.index}"


@dataclass
class SimNode:
    name: str
    labels: dict[str, str]
    allocatable: dict[str, int]
    used: dict[str, int] = field(default_factory=dict)
    ready: bool = True
    pods: set = field(default_factory=set)

    def free(self, res: str) -> int:
        return self.allocatable.get(res, 0) - self.used.get(res, 0)

    def fits(self, req: dict[str, int]) -> bool:
        return all(self.free(r) >= v for r, v in req.items() if v)

    def bind(self, pod: SimPod) -> None:
        for r, v in pod.requests.items():
            self.used[r] = self.used.get(r, 0) + v
        self.pods.add(id(pod))
        pod.node = self

    def unbind(self, pod: SimPod) -> None:
        for r, v in pod.requests.items():
            self.used[r] = self.used.get(r, 0) - v
        self.pods.discard(id(pod))


def amounts(requests: dict) -> dict[str, int]:
    return {r: Quantity.parse(v).amount(r) for r, v in requests.items()}


class NodePool:
    def __init__(self, specs: list[NodeSpec], policy: str = "LeastAllocated"):
        self.nodes = [SimNode(s.name, dict(s.labels), amounts(s.allocatable)) for s in specs]
        self.by_name = {n.name: n for n in self.nodes}
        self.policy = policy

    def __bool__(self) -> bool:
        return bool(self.nodes)

    def _score(self, node: SimNode, req: dict[str, int]) -> float:
        fractions = [(node.used.get(r, 0) + v) / node.allocatable[r]
                     for r, v in req.items() if v and node.allocatable.get(r)]
        used = sum(fractions) / len(fractions) if fractions else 0.0
        return used if self.policy == "MostAllocated" else -used

    def place_group(self, pods: list[SimPod], labels: dict[str, str]) -> bool:
        """Bind every pod of a gang or none (all-or-nothing, like a gang scheduler)."""
        chosen: list[tuple[SimPod, SimNode]] = []
        for pod in pods:
            best: SimNode | None = None
            best_score = 0.0  # read only once best is set
            for node in self.nodes:
                if not node.ready or any(node.labels.get(k) != v for k, v in labels.items()):
                    continue
                if not node.fits(pod.requests):
                    continue
                s = self._score(node, pod.requests)
                if best is None or s > best_score:
                    best, best_score = node, s
            if best is None:
                for p, n in chosen:
                    n.unbind(p)
                    p.node = None
                return False
            best.bind(pod)
            chosen.append((pod, best))
        for pod, _ in chosen:
            pod.phase = RUNNING
        return True

    def free_slots(self, req: dict[str, int], labels: dict[str, str]) -> int:
        return sum(1 for n in self.nodes if n.ready and n.fits(req)
                   and all(n.labels.get(k) == v for k, v in labels.items()))
