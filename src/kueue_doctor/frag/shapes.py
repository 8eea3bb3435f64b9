"""Plain node and pod shapes: the only input the fragmentation code needs.

Everything in ``kueue_doctor.frag`` works on these, so the doctor (real cluster state), the
trace replay (openb CSVs) and the exporter share one model. Amounts are integers:
CPU in milli-cores, memory in MiB, GPU in milli-GPU (1000 = one whole device).
"""
from __future__ import annotations

from dataclasses import dataclass, field

GPU_MILLI = 1000


@dataclass(frozen=True)
class NodeShape:
    """What is free on a node right now.

    ``gpu_free`` holds the free milli of each GPU device (1000 = untouched), so its length is
    the node's GPU count. ``model`` is the GPU model (``gpu-card-model`` in openb,
    ``nvidia.com/gpu.product`` on real clusters); ``labels`` and ``taints`` let a pod shape
    carry a flavor's node labels and tolerations.
    """
    name: str
    cpu_free: int
    mem_free: int
    gpu_free: tuple[int, ...] = ()
    model: str = ""
    labels: tuple[tuple[str, str], ...] = ()
    taints: tuple[str, ...] = ()  # "key=value:Effect" for NoSchedule / NoExecute taints

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
    the GPU models it may use (empty: any). ``node_labels`` are labels a node must carry
    (a ResourceFlavor's nodeLabels or a nodeSelector); ``tolerations`` are the taint keys
    (``key`` or ``key=value``) it tolerates.
    """
    cpu: int
    mem: int = 0
    gpus: int = 0
    gpu_milli: int = 0
    models: frozenset[str] = field(default_factory=frozenset)
    node_labels: tuple[tuple[str, str], ...] = ()
    tolerations: tuple[str, ...] = ()

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
        return f"{gpu}{where}, {self.cpu}m CPU, {self.mem}Mi"


def selector_key(pod: PodShape) -> tuple:
    """What decides which nodes a pod may use at all (not whether they have room)."""
    return (pod.models if pod.wants_gpu else frozenset(), pod.node_labels, pod.tolerations)


def eligible(node: NodeShape, pod: PodShape) -> bool:
    """May ``pod`` run on ``node`` at all, ignoring free capacity?"""
    if pod.wants_gpu:
        if node.gpus < pod.gpus:
            return False
        if pod.models and node.model not in pod.models:
            return False
    if pod.node_labels:
        labels = dict(node.labels)
        if any(labels.get(k) != v for k, v in pod.node_labels):
            return False
    if "" in pod.tolerations:  # an empty key with operator Exists tolerates every taint
        return True
    for taint in node.taints:
        key_value = taint.rsplit(":", 1)[0]
        key = key_value.split("=", 1)[0]
        if key not in pod.tolerations and key_value not in pod.tolerations:
            return False
    return True


def parse_models(spec: str) -> frozenset[str]:
    """``V100M16|V100M32`` -> the set of allowed GPU models; empty means any."""
    return frozenset(m.strip() for m in spec.split("|") if m.strip())
