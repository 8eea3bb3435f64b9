"""Build fragmentation shapes from a ClusterState (what the doctor reads from a cluster).

Nodes: allocatable minus the requests of pods bound to them (terminating pods still hold
their resources). GPUs: the device count comes from an extended resource such as
``nvidia.com/gpu``; a pod that shares a GPU says so with a ``.../gpu-milli`` annotation, as in
the Alibaba GPU-sharing scheduler the openb trace comes from. Kubernetes does not say which
device a pod got, so whole-GPU pods are put on untouched GPUs and shares on the tightest GPU
that fits, which is what a device plugin with bin-packing does.
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..api import objects as o
from ..api.state import ClusterState
from ..engine.workload import pod_requests
from ..kueue.constants import FINISHED
from .diagnose import Demand, ShapeFinding, diagnose
from .policies import POLICIES
from .shapes import GPU_MILLI, NodeShape, PodShape
from .slots import count_slots

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
MODEL_LABELS = ("nvidia.com/gpu.product", "gpu-card-model", "alibabacloud.com/gpu-card-model",
                "cloud.google.com/gke-accelerator")
MIB = 1 << 20
DONE_PHASES = ("Succeeded", "Failed")


def _annotation(meta: o.Meta, suffix: str) -> int | None:
    for k, v in meta.annotations.items():
        if k == suffix or k.endswith("/" + suffix):
            try:
                return int(v)
            except ValueError:
                return None
    return None


def _tolerations(tols: Sequence[o.Toleration]) -> tuple[str, ...]:
    out = []
    for t in tols:
        if t.effect and t.effect not in ("NoSchedule", "NoExecute"):
            continue
        out.append(t.key if t.operator == "Exists" else f"{t.key}={t.value}")
    return tuple(sorted(set(out)))


def pod_shape(spec: o.PodSpec, meta: o.Meta | None = None,
              extra_labels: dict[str, str] | None = None,
              extra_tolerations: Sequence[o.Toleration] = ()) -> PodShape:
    req = pod_requests(spec)
    gpus = sum(req.get(r, 0) for r in GPU_RESOURCES)
    milli = GPU_MILLI if gpus else 0
    share = _annotation(meta, "gpu-milli") if meta is not None else None
    if share and meta is not None:
        gpus = gpus or (_annotation(meta, "gpu-count") or 1)
        milli = min(share, GPU_MILLI)
    labels = dict(spec.node_selector)
    labels.update(extra_labels or {})
    return PodShape(cpu=req.get("cpu", 0), mem=-(-req.get("memory", 0) // MIB), gpus=gpus,
                    gpu_milli=milli, node_labels=tuple(sorted(labels.items())),
                    tolerations=_tolerations([*spec.tolerations, *extra_tolerations]))


def _node_model(node: o.Node) -> str:
    for key in MODEL_LABELS:
        if key in node.meta.labels:
            return node.meta.labels[key]
    return ""


def empty_node_shape(node: o.Node) -> NodeShape:
    alloc = node.allocatable or node.capacity
    gpus = sum(alloc[r].amount(r) for r in GPU_RESOURCES if r in alloc)
    taints = tuple(f"{t.key}={t.value}:{t.effect}" for t in node.taints
                   if t.effect in ("NoSchedule", "NoExecute"))
    return NodeShape(name=node.meta.name,
                     cpu_free=alloc["cpu"].amount("cpu") if "cpu" in alloc else 0,
                     mem_free=alloc["memory"].amount("memory") // MIB if "memory" in alloc else 0,
                     gpu_free=(GPU_MILLI,) * gpus, model=_node_model(node),
                     labels=tuple(sorted(node.meta.labels.items())), taints=taints)


def _usable(node: o.Node) -> bool:
    return not node.unschedulable and node.ready() is not False


def bound_pods(state: ClusterState) -> list[o.Pod]:
    """Pods holding node resources, oldest first (the order a re-placement replays them in)."""
    pods = [p for p in state.pods.values() if p.spec.node_name and p.phase not in DONE_PHASES]
    return sorted(pods, key=lambda p: (p.meta.creation_timestamp is None,
                                       p.meta.creation_timestamp or 0, p.meta.namespace, p.meta.name))


def _take(free: list[int], pod: PodShape) -> None:
    for _ in range(pod.gpus):
        fits = [i for i, g in enumerate(free) if g >= pod.gpu_milli]
        if not fits:
            return
        # tightest GPU for a share; an untouched one (the tightest that fits 1000) otherwise
        i = min(fits, key=lambda i: (free[i], i))
        free[i] -= pod.gpu_milli


def node_shapes(state: ClusterState) -> tuple[list[NodeShape], list[NodeShape], list[PodShape]]:
    """(free shapes now, the same nodes empty, shapes of the pods bound to them, oldest first).

    Unschedulable and not-ready nodes are left out: they offer no slot.
    """
    nodes = {name: n for name, n in sorted(state.nodes.items()) if _usable(n)}
    empty = {name: empty_node_shape(n) for name, n in nodes.items()}
    cpu = {name: s.cpu_free for name, s in empty.items()}
    mem = {name: s.mem_free for name, s in empty.items()}
    gpu = {name: list(s.gpu_free) for name, s in empty.items()}
    running = []
    for p in bound_pods(state):
        if p.spec.node_name not in nodes:
            continue
        shape = pod_shape(p.spec, p.meta)
        running.append(shape)
        cpu[p.spec.node_name] -= shape.cpu
        mem[p.spec.node_name] -= shape.mem
        if shape.wants_gpu:
            _take(gpu[p.spec.node_name], shape)
    now = [NodeShape(s.name, cpu[s.name], mem[s.name], tuple(gpu[s.name]), s.model, s.labels, s.taints)
           for s in empty.values()]
    return now, list(empty.values()), running


def _is_pending(w: o.Workload) -> bool:
    return w.active and w.status.admission is None and not w.is_true(FINISHED)


def _flavor_options(cq: o.ClusterQueue, shape: PodShape) -> list[str]:
    """Flavors of the resource group that covers the pod's GPUs (its CPU if it has none)."""
    wanted = set(GPU_RESOURCES) if shape.wants_gpu else {"cpu"}
    for group in cq.resource_groups:
        if wanted & set(group.covered_resources):
            return [f.name for f in group.flavors]
    return []


@dataclass(frozen=True)
class _Key:
    shape: PodShape
    flavor: str


def queue_demands(state: ClusterState, cluster_queue: str,
                  now: list[NodeShape] | None = None,
                  pending: Sequence[o.Workload] | None = None,
                  slot_cache: dict | None = None) -> list[Demand]:
    """Pending pods of a ClusterQueue grouped by shape, each on the flavor with most slots.

    Kueue assigns one flavor per pod set, so a shape is counted against the single flavor
    (its node labels and tolerations) that leaves the most free slots for it. ``pending``
    (the queue's pending workloads) and ``slot_cache`` (shape -> SlotCount on ``now``) spare a
    caller that asks for many queues a scan of every workload and repeated slot counts.
    """
    cq = state.cluster_queues.get(cluster_queue)
    if cq is None:
        return []
    if now is None:
        now = node_shapes(state)[0]
    if pending is None:
        lq_to_cq = {key: lq.cluster_queue for key, lq in state.local_queues.items()}
        pending = [w for (ns, _), w in sorted(state.workloads.items())
                   if lq_to_cq.get((ns, w.queue_name)) == cluster_queue and _is_pending(w)]
    cache = slot_cache if slot_cache is not None else {}

    def slots_for(shape: PodShape) -> int:
        if shape not in cache:
            cache[shape] = count_slots(now, shape)
        return cache[shape].slots

    counts: dict[_Key, int] = defaultdict(int)
    sources: dict[_Key, list[str]] = defaultdict(list)
    for w in pending:
        ns, name = w.meta.namespace, w.meta.name
        for ps in w.pod_sets:
            base = pod_shape(ps.template)
            options = []
            for fname in _flavor_options(cq, base) or [""]:
                flavor = state.resource_flavors.get(fname)
                shape = pod_shape(ps.template, None, flavor.node_labels if flavor else {},
                                  flavor.tolerations if flavor else ())
                options.append((slots_for(shape), fname, shape))
            _slots, fname, shape = max(options, key=lambda t: t[0])
            key = _Key(shape, fname)
            counts[key] += ps.count
            sources[key].append(f"{ns}/{name}")
    return [Demand(k.shape, n, ", ".join(sources[k]) + (f" (flavor {k.flavor})" if k.flavor else ""))
            for k, n in counts.items()]


def queue_fragmentation(state: ClusterState, cluster_queue: str,
                        policies: Sequence[str] = tuple(POLICIES), seed: int = 0) -> list[ShapeFinding]:
    """Step 2 for one ClusterQueue: per pending shape, its free slots, the verdict (cause
    ``fragmentation`` when resources are free in total but no node has room for the shape),
    and how many slots each placement policy would have left had it placed the running pods."""
    now, empty, running = node_shapes(state)
    demands = queue_demands(state, cluster_queue, now)
    return diagnose(now, demands, running, empty, policies, seed)
