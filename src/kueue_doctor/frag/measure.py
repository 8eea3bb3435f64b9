"""The FGD fragmentation measure (Weng et al., USENIX ATC'23), in plain Python.

Fragmentation is relative to a workload: free GPU milli on a node is a fragment *for a pod
shape* when that shape cannot use it (no room for the pod, or the GPU's leftover is smaller
than the pod's per-GPU share). Weighting each shape by how often it occurs gives the node's
expected fragmented milli ``F_j = sum_k p_k f_jk``. The vectorised copy used by the replay
lives in ``cluster.py``; this one is the readable reference and serves the doctor.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from .shapes import NodeShape, PodShape, eligible

POPULARITY = 0.95  # the simulator keeps the most common shapes covering 95 % of pods

# The seven categories the simulator reports; all but Q3 count as fragment.
CATEGORIES = ("q1_lack_both", "q2_lack_gpu", "q3_satisfied", "q4_lack_cpu",
              "xl_satisfied", "xr_lack_cpu", "no_access")


@dataclass(frozen=True)
class TypicalShape:
    shape: PodShape
    weight: float  # p_k; the weights of one distribution sum to 1
    count: int


def shape_key(p: PodShape) -> tuple:
    # Memory is deliberately absent: the measure only looks at CPU and GPU. The placement (node
    # selector, affinity, tolerations; empty in openb) comes last so it only splits shapes,
    # never reorders them.
    return (p.cpu, p.gpu_milli, p.gpus, "|".join(sorted(p.models)), p.placement.key())


def typical_shapes(pods: Iterable[PodShape], popularity: float = POPULARITY) -> list[TypicalShape]:
    """The workload's shape distribution: most common shapes first, covering ``popularity``.

    Equal counts are ordered by the shape key descending, as the simulator does, so the cut
    at the threshold is deterministic.
    """
    counts: Counter = Counter()
    first: dict[tuple, PodShape] = {}
    for p in pods:
        key = shape_key(p)
        counts[key] += 1
        first.setdefault(key, PodShape(cpu=p.cpu, gpus=p.gpus, gpu_milli=p.gpu_milli, models=p.models,
                                       placement=p.placement))
    total = sum(counts.values())
    ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)
    kept, cum = [], 0
    for key, n in ordered:
        kept.append((key, n))
        cum += n
        if cum >= popularity * total:
            break
    return [TypicalShape(first[key], n / cum, n) for key, n in kept]


def _category(node: NodeShape, cpu_free: int, gpu_free: tuple[int, ...], k: PodShape) -> str:
    if not k.wants_gpu:
        return "xl_satisfied" if cpu_free >= k.cpu else "xr_lack_cpu"
    if not eligible(node, k):
        return "no_access"
    gpu_ok = sum(1 for g in gpu_free if g >= k.gpu_milli) >= k.gpus
    cpu_ok = cpu_free >= k.cpu
    if gpu_ok and cpu_ok:
        return "q3_satisfied"
    if gpu_ok:
        return "q4_lack_cpu"
    return "q2_lack_gpu" if cpu_ok else "q1_lack_both"


def node_breakdown(node: NodeShape, typical: list[TypicalShape]) -> dict[str, float]:
    """Expected idle GPU milli of ``node`` per category (sums to the node's idle milli)."""
    out = dict.fromkeys(CATEGORIES, 0.0)
    idle = node.gpu_idle
    for t in typical:
        cat = _category(node, node.cpu_free, node.gpu_free, t.shape)
        if cat == "q3_satisfied":
            # The GPUs too small for the shape's share are fragment even when the pod fits.
            small = sum(g for g in node.gpu_free if g < t.shape.gpu_milli)
            out["q2_lack_gpu"] += t.weight * small
            out["q3_satisfied"] += t.weight * (idle - small)
        else:
            out[cat] += t.weight * idle
    return out


def node_fragmentation(node: NodeShape, typical: list[TypicalShape]) -> float:
    """``F_j``: expected fragmented GPU milli on ``node`` for the shape distribution."""
    b = node_breakdown(node, typical)
    return sum(v for k, v in b.items() if k != "q3_satisfied")


@dataclass(frozen=True)
class ClusterFragmentation:
    fragmented_milli: float
    idle_milli: int
    capacity_milli: int
    breakdown: dict[str, float]

    @property
    def ratio(self) -> float:
        """Fragmented share of idle GPU (%), the paper's "frag ratio"."""
        return 100.0 * self.fragmented_milli / self.idle_milli if self.idle_milli else 0.0

    @property
    def of_capacity(self) -> float:
        """Fragmented share of all GPU capacity (%), the paper's "frag amount"."""
        return 100.0 * self.fragmented_milli / self.capacity_milli if self.capacity_milli else 0.0


def cluster_fragmentation(nodes: Iterable[NodeShape], typical: list[TypicalShape],
                          capacity_milli: int | None = None) -> ClusterFragmentation:
    total = dict.fromkeys(CATEGORIES, 0.0)
    idle = cap = 0
    for node in nodes:
        for k, v in node_breakdown(node, typical).items():
            total[k] += v
        idle += node.gpu_idle
        cap += 1000 * node.gpus
    frag = sum(v for k, v in total.items() if k != "q3_satisfied")
    return ClusterFragmentation(frag, idle, capacity_milli or cap, total)
