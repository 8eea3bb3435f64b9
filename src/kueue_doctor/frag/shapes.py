"""Plain node and pod shapes: the only input the fragmentation code needs.

Everything in ``kueue_doctor.frag`` works on these, so the doctor (real cluster state), the
trace replay (openb CSVs) and the exporter share one model. Amounts are integers:
CPU in milli-cores, memory in MiB, GPU in milli-GPU (1000 = one whole device).

Which node a pod may use at all is the placement model's question (``engine.nodes.admits``:
node selector, required affinity, taints, readiness, cordon): a node shape carries the node's
``NodeTerms``, a pod shape its ``Placement``. Shapes read from a cluster (``from_state``) also
carry the model's own node (``live``) and pod needs (``needs``), so their free slots are the
model's count (``slots.count_slots``); trace and replayed shapes count CPU, memory and GPUs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..api.quantity import human_amount
from ..engine.nodes import GPU_MILLI, NO_PLACEMENT, NO_TERMS, NodeInfo, NodeTerms, Placement, PodNeeds, admits

__all__ = ["GPU_MILLI", "NodeShape", "PodShape", "eligible", "parse_models", "selector_key"]


@dataclass(frozen=True)
class NodeShape:
    """What is free on a node right now.

    ``gpu_free`` holds the free milli of each GPU device (1000 = untouched), so its length is
    the node's GPU count. ``model`` is the GPU model (``gpu-card-model`` in openb,
    ``nvidia.com/gpu.product`` on real clusters); ``terms`` (labels, taints, readiness, cordon)
    decide which pods may use it. ``live`` is the placement model's node these free amounts
    were read from (shapes of a cluster now; None for traces, empty and replayed nodes).
    """
    name: str
    cpu_free: int
    mem_free: int
    gpu_free: tuple[int, ...] = ()
    model: str = ""
    terms: NodeTerms = NO_TERMS
    live: NodeInfo | None = field(default=None, compare=False, repr=False)

    @property
    def gpus(self) -> int:
        return len(self.gpu_free)

    @property
    def gpu_idle(self) -> int:
        return sum(self.gpu_free)


@dataclass(frozen=True)
class PodShape:
    """One pod's demand.

    ``gpus`` devices of ``gpu_milli`` each: a GPU-sharing pod is ``gpus=1, gpu_milli<1000``;
    a whole-GPU pod has ``gpu_milli=1000``; a CPU-only pod has ``gpus=0``. ``models`` limits
    the GPU models it may use (empty: any). ``placement`` is where it may go (node selector
    with a flavor's nodeLabels, required affinity, tolerations with the flavor's). ``needs``
    is the placement model's view of the same pod (shapes of a cluster; None otherwise).
    """
    cpu: int
    mem: int = 0
    gpus: int = 0
    gpu_milli: int = 0
    models: frozenset[str] = field(default_factory=frozenset)
    placement: Placement = NO_PLACEMENT
    needs: PodNeeds | None = None

    @property
    def gpu_total(self) -> int:
        return self.gpus * self.gpu_milli

    @property
    def wants_gpu(self) -> bool:
        return self.gpus > 0 and self.gpu_milli > 0

    @property
    def is_share(self) -> bool:
        return self.gpus == 1 and 0 < self.gpu_milli < GPU_MILLI

    def affinity_tag(self) -> str:
        """GpuClustering's tag: ``share-gpu`` or ``<k>-gpu``; CPU-only pods have none."""
        if not self.wants_gpu:
            return ""
        return "share-gpu" if self.is_share else f"{self.gpus}-gpu"

    def describe(self) -> str:
        if not self.wants_gpu:
            gpu = "no GPU"
        elif self.is_share:
            gpu = f"{self.gpu_milli}m of 1 GPU"
        else:
            gpu = f"{self.gpus} GPU"
        where = f" on {'|'.join(sorted(self.models))}" if self.models else ""
        cpu = human_amount("cpu", self.cpu)
        mem = human_amount("memory", self.mem << 20)
        return f"{gpu}{where}, {cpu} CPU, {mem} memory"


def selector_key(pod: PodShape) -> tuple:
    """What decides which nodes a pod may use at all (not whether they have room)."""
    return (pod.models if pod.wants_gpu else frozenset(), pod.placement)


def eligible(node: NodeShape, pod: PodShape) -> bool:
    """May ``pod`` run on ``node`` at all, ignoring free capacity? (Enough GPU devices of an
    allowed model, and the placement model admits it.)"""
    if pod.wants_gpu:
        if node.gpus < pod.gpus:
            return False
        if pod.models and node.model not in pod.models:
            return False
    return admits(node.terms, pod.placement, node.name)


def parse_models(spec: str) -> frozenset[str]:
    """``V100M16|V100M32`` -> the set of allowed GPU models; empty means any."""
    return frozenset(m.strip() for m in spec.split("|") if m.strip())
