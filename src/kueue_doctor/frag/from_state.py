"""Build fragmentation shapes from a ClusterState (what the doctor reads from a cluster).

The shapes come from the placement model (``engine.nodes``): a node's free resources are its
allocatable minus what its bound pods request (terminating pods still hold theirs), its GPU
devices handed out as the model does (whole-GPU pods on untouched devices, ``.../gpu-milli``
shares on the tightest device with room), a pod's shape is its ``pod_needs`` (with the flavor's
node labels and tolerations Kueue injects). Each shape keeps the model's node or needs, so free
slots of shapes read here are the model's count.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..api import objects as o
from ..api.state import ClusterState
from ..engine.nodes import (
    GPU_RESOURCES,
    NodeInfo,
    PodNeeds,
    bind_bound,
    bound_pods,
    gpu_share,
    node_info,
    pod_needs,
)
from ..kueue.constants import FINISHED
from .diagnose import Demand, ShapeFinding, diagnose
from .policies import POLICIES
from .shapes import NodeShape, PodShape
from .slots import count_slots

__all__ = ["GPU_RESOURCES", "MODEL_LABELS", "NeedsMemo", "bound_pods", "empty_node_shape", "node_model",
           "node_shape", "node_shapes", "pod_shape", "queue_demands", "queue_fragmentation", "shape_of"]

MODEL_LABELS = ("nvidia.com/gpu.product", "gpu-card-model", "alibabacloud.com/gpu-card-model",
                "cloud.google.com/gke-accelerator")
MIB = 1 << 20


def shape_of(needs: PodNeeds) -> PodShape:
    """The fragmentation shape of a pod's needs (memory rounded up to MiB)."""
    return PodShape(cpu=needs.request("cpu"), mem=-(-needs.request("memory") // MIB), gpus=needs.gpus,
                    gpu_milli=needs.gpu_milli, placement=needs.placement, needs=needs)


def pod_shape(spec: o.PodSpec, meta: o.Meta | None = None,
              flavors: Iterable[o.ResourceFlavor] = ()) -> PodShape:
    """A pod's (or pod template's) shape, on ``flavors`` once Kueue admitted it there."""
    return shape_of(pod_needs(spec, meta, flavors))


class NeedsMemo:
    """``pod_needs`` and ``pod_shape`` computed once per distinct pod content: a large cluster's
    pods and pending templates are distinct objects of a handful of shapes (100,000 Workloads of
    four), and working a shape out costs about 30 µs.

    Only the common pod is remembered (one container, no init containers, no overhead, no
    required node affinity); any other is worked out each time. It is known by its container's
    resource names and the identity of their quantities (parsing shares one Quantity per text
    and never mutates it, api/quantity.py), its node selector and tolerations, its GPU share
    annotations and the flavors it goes to. What a key names by identity is kept alive with the
    entry, so no id is reused while the memo lives. The needs and shapes handed out are shared
    between equal pods: both are frozen."""

    __slots__ = ("_needs", "_shapes")

    def __init__(self) -> None:
        self._needs: dict[tuple[object, ...], tuple[PodNeeds, tuple[object, ...]]] = {}
        self._shapes: dict[PodNeeds, PodShape] = {}

    def needs(self, spec: o.PodSpec, meta: o.Meta | None = None,
              flavors: Sequence[o.ResourceFlavor] = ()) -> PodNeeds:
        if spec.init_containers or spec.overhead or spec.required_node_terms or len(spec.containers) != 1:
            return pod_needs(spec, meta, flavors)
        c = spec.containers[0]
        req, lim = c.requests, c.limits
        key = (tuple(req), tuple(map(id, req.values())), tuple(lim), tuple(map(id, lim.values())),
               tuple(spec.node_selector.items()),
               tuple((t.key, t.operator, t.value, t.effect) for t in spec.tolerations),
               gpu_share(meta), tuple(map(id, flavors)))
        known = self._needs.get(key)
        if known is None:
            known = self._needs[key] = (pod_needs(spec, meta, flavors), (req, lim, tuple(flavors)))
        return known[0]

    def shape(self, spec: o.PodSpec, meta: o.Meta | None = None,
              flavors: Sequence[o.ResourceFlavor] = ()) -> PodShape:
        return self.shape_of(self.needs(spec, meta, flavors))

    def shape_of(self, needs: PodNeeds) -> PodShape:
        shape = self._shapes.get(needs)
        if shape is None:
            shape = self._shapes[needs] = shape_of(needs)
        return shape


def node_model(labels: dict[str, str]) -> str:
    for key in MODEL_LABELS:
        if key in labels:
            return labels[key]
    return ""


def node_shape(info: NodeInfo) -> NodeShape:
    """What is free on the model's node now (memory rounded down to MiB)."""
    return NodeShape(name=info.name, cpu_free=info.free("cpu"), mem_free=info.free("memory") // MIB,
                     gpu_free=tuple(info.gpu_free), model=node_model(info.terms.labels), terms=info.terms,
                     live=info)


def empty_node_shape(node: o.Node) -> NodeShape:
    return _unbound(node_shape(node_info(node)))


def node_shapes(state: ClusterState, memo: NeedsMemo | None = None) -> tuple[list[NodeShape], list[NodeShape],
                                                                              list[PodShape]]:
    """(free shapes now, the usable nodes empty, shapes of the pods bound to those, oldest first).

    Every node is in the first list: the placement model decides which pods it takes (a
    NotReady node none, a cordoned one only pods tolerating it). The other two, what a
    placement policy would re-place, hold only usable nodes (Ready, not cordoned) and their pods.
    """
    infos = {name: node_info(n) for name, n in sorted(state.nodes.items())}
    usable = {name for name, i in infos.items() if i.terms.usable}
    # read before any pod is bound: each usable node as empty_node_shape finds it
    empty = [_unbound(node_shape(i)) for name, i in infos.items() if name in usable]
    memo = memo if memo is not None else NeedsMemo()
    bound = bind_bound(infos, bound_pods(state), lambda p: memo.needs(p.spec, p.meta))
    now = [node_shape(i) for i in infos.values()]
    running = [memo.shape_of(needs) for p, needs in bound if p.spec.node_name in usable]
    return now, empty, running


def _unbound(shape: NodeShape) -> NodeShape:
    """The shape without the model's node it was read from (what re-placement starts from)."""
    return NodeShape(shape.name, shape.cpu_free, shape.mem_free, shape.gpu_free, shape.model, shape.terms)


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
                  slot_cache: dict | None = None, memo: NeedsMemo | None = None) -> list[Demand]:
    """Pending pods of a ClusterQueue grouped by shape, each on the flavor with most slots.

    Kueue assigns one flavor per pod set, so a shape is counted against the single flavor
    (its node labels and tolerations) that leaves the most free slots for it. ``pending``
    (the queue's pending workloads) and ``slot_cache`` (shape -> SlotCount on ``now``) spare a
    caller that asks for many queues a scan of every workload and repeated slot counts, and
    ``memo`` working out the same pod template's shape again.
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
    memo = memo if memo is not None else NeedsMemo()

    def slots_for(shape: PodShape) -> int:
        if shape not in cache:
            cache[shape] = count_slots(now, shape)
        return cache[shape].slots

    # a template's needs decide its shape on every flavor, so its choice is made once per needs;
    # the (shape, flavor) keys are then told apart by index, in the order they first appear
    chosen: dict[PodNeeds, int] = {}
    index: dict[_Key, int] = {}
    keys: list[_Key] = []
    counts: list[int] = []
    sources: list[list[str]] = []
    for w in pending:
        ns, name = w.meta.namespace, w.meta.name
        for ps in w.pod_sets:
            needs = memo.needs(ps.template)
            i = chosen.get(needs)
            if i is None:
                base = memo.shape_of(needs)
                options = []
                for fname in _flavor_options(cq, base) or [""]:
                    flavor = state.resource_flavors.get(fname)
                    shape = memo.shape(ps.template, None, [flavor] if flavor else [])
                    options.append((slots_for(shape), fname, shape))
                _slots, fname, shape = max(options, key=lambda t: t[0])
                key = _Key(shape, fname)
                i = index.get(key)
                if i is None:
                    i = index[key] = len(keys)
                    keys.append(key)
                    counts.append(0)
                    sources.append([])
                chosen[needs] = i
            counts[i] += ps.count
            sources[i].append(f"{ns}/{name}")
    return [Demand(k.shape, counts[i], ", ".join(sources[i]) + (f" (flavor {k.flavor})" if k.flavor else ""))
            for i, k in enumerate(keys)]


def queue_fragmentation(state: ClusterState, cluster_queue: str,
                        policies: Sequence[str] = tuple(POLICIES), seed: int = 0) -> list[ShapeFinding]:
    """Step 2 for one ClusterQueue: per pending shape, its free slots, the verdict (cause
    ``fragmentation`` when resources are free in total but no node has room for the shape),
    and how many slots each placement policy would have left had it placed the running pods."""
    now, empty, running = node_shapes(state)
    demands = queue_demands(state, cluster_queue, now)
    return diagnose(now, demands, running, empty, policies, seed)
