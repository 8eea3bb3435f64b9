"""Which node can take which pod, and how many more: the one placement model.

The doctor (step 2, ``explain``), the exporter's ``free_slots`` gauge, the simulator's nodes and
the fragmentation shapes of a cluster (``frag.from_state``) all ask these functions, so a slot
means the same thing whether the cluster was gathered or simulated.

Upstream (kube-scheduler filter plugins, Kubernetes v1.33):

- ``NodeResourcesFit`` (``pkg/scheduler/framework/plugins/noderesources/fit.go``, fitsRequest):
  every resource the pod requests must fit in allocatable minus what the node's pods request;
  a zero request is not checked; the pod count is checked against allocatable ``pods`` when the
  node declares it.
- ``NodeAffinity`` (``component-helpers/scheduling/corev1/nodeaffinity``): the pod's
  ``nodeSelector`` AND its required node affinity; node selector terms are ORed, the
  expressions (and ``matchFields`` on ``metadata.name``) of one term ANDed; a term with neither
  matches no node. Operators: In, NotIn, Exists, DoesNotExist, Gt, Lt
  (``eligibility.requirement_matches``).
- ``TaintToleration``: a NoSchedule or NoExecute taint the pod does not tolerate keeps it off
  (``eligibility.untolerated_taint``); PreferNoSchedule only scores.
- ``NodeUnschedulable``: a cordoned node takes only pods that tolerate
  ``node.kubernetes.io/unschedulable:NoSchedule``.

Kueue (``pkg/podset/podset.go``, Merge, applied when a workload is admitted on a flavor): the
flavor's ``nodeLabels`` join the pod's node selector (a key the pod already sets to another value
is a conflict Kueue refuses, so such a pod matches no node) and its ``tolerations`` join the pod's.

Decisions of this model, where Kubernetes leaves room:

- **Bound pods.** A pod holds what it requests on its node from the moment ``spec.nodeName`` is
  set until it is gone: Pending-but-bound and Running pods, and *terminating* pods too
  (``deletionTimestamp`` set, still in the API, even past their grace period: the kubelet has not
  released them; a zombie pod holds its GPUs forever). Only Succeeded and Failed pods are done.
  Requests are ``engine.workload.pod_requests`` (limits for missing requests, sidecars, overhead),
  the rule Kueue counts quota with.
- **Readiness.** A node whose ``Ready`` condition is False or Unknown takes no pod, whatever it
  tolerates (it could not start one). A node with no ``Ready`` condition at all (hand-written or
  stripped snapshots) is taken to be Ready; ``doctor/capacity`` reports such nodes apart.
- **GPU devices.** ``nvidia.com/gpu`` and ``amd.com/gpu`` are devices as well as counts. A pod
  annotated ``<prefix>/gpu-milli: N`` (the Alibaba GPU-sharing scheduler of the openb trace) is
  a *share*: N/1000 of ``<prefix>/gpu-count`` GPUs (default 1) in place of whole devices. A
  node's devices start at 1000 milli free each; whole-GPU pods take untouched devices, shares the
  tightest device with room (what a bin-packing device plugin does; Kubernetes does not say which
  device a pod got). A whole-GPU pod needs both the resource count (per vendor) and untouched
  devices; a share needs only a device with room.

Amounts are the engine's integers (``Quantity.amount``): millicores for cpu, bytes for memory,
units for everything else; GPU shares in milli-GPU (1000 = one device).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..api import objects as o
from ..api.state import ClusterState
from .eligibility import requirement_matches, tolerates, untolerated_taint
from .workload import amounts, pod_requests

GPU_RESOURCES = ("nvidia.com/gpu", "amd.com/gpu")
GPU_MILLI = 1000
GPU_SHARE_ANNOTATION = "gpu-milli"   # any prefix: alibabacloud.com/gpu-milli, ...
GPU_COUNT_ANNOTATION = "gpu-count"
TAINT_EFFECTS = ("NoSchedule", "NoExecute")
DONE_PHASES = ("Succeeded", "Failed")
UNSCHEDULABLE_TAINT = o.Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
NODE_NAME_FIELD = "metadata.name"
UNBOUNDED = 1 << 62   # slots of a pod that asks for nothing on a node that does not count pods

_GPU = frozenset(GPU_RESOURCES)

LabelPairs = tuple[tuple[str, str], ...]
Amounts = tuple[tuple[str, int], ...]


def _requirement_key(r: o.SelectorRequirement) -> tuple[str, str, tuple[str, ...]]:
    return (r.key, r.operator, tuple(r.values))


def _toleration_key(t: o.Toleration) -> tuple[str, str, str, str]:
    return (t.key, t.operator, t.value, t.effect)


@dataclass(frozen=True, slots=True, eq=False)
class NodeTerms:
    """What decides whether a node takes a pod at all, before any resource is counted.

    ``taints`` holds only NoSchedule and NoExecute taints. Equal terms compare and hash equal
    (frag groups nodes by them).
    """
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[o.Taint, ...] = ()
    ready: bool | None = True         # the Ready condition; None: the node has none
    unschedulable: bool = False       # cordoned (spec.unschedulable)

    @property
    def usable(self) -> bool:
        """Ready (or not known otherwise) and not cordoned: the node takes pods in general."""
        return self.ready is not False and not self.unschedulable

    def key(self) -> tuple[object, ...]:
        return (tuple(sorted(self.labels.items())), tuple((t.key, t.value, t.effect) for t in self.taints),
                self.ready, self.unschedulable)

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, NodeTerms) and self.key() == other.key())

    def __hash__(self) -> int:
        return hash(self.key())


@dataclass(frozen=True, slots=True, eq=False)
class Placement:
    """Where a pod may go: node selector, required node affinity terms, tolerations.

    ``node_selector`` is sorted and may hold one key twice (a conflict: no node matches).
    Equal placements compare and hash equal.
    """
    node_selector: LabelPairs = ()
    required_terms: tuple[o.NodeSelectorTerm, ...] = ()
    tolerations: tuple[o.Toleration, ...] = ()
    _key: tuple[object, ...] = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # placements key caches (frag's slot and shape caches), so the key is computed once
        terms = tuple((tuple(_requirement_key(e) for e in t.match_expressions),
                       tuple(_requirement_key(f) for f in t.match_fields)) for t in self.required_terms)
        key = (self.node_selector, terms, tuple(_toleration_key(t) for t in self.tolerations))
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    @property
    def empty(self) -> bool:
        return not (self.node_selector or self.required_terms or self.tolerations)

    @property
    def uses_node_name(self) -> bool:
        """Whether a term matches on the node's name (``matchFields``), not only its labels."""
        return any(t.match_fields for t in self.required_terms)

    def key(self) -> tuple[object, ...]:
        return self._key

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Placement) and self._key == other._key)

    def __hash__(self) -> int:
        return self._hash


NO_PLACEMENT = Placement()
NO_TERMS = NodeTerms()


@dataclass(frozen=True, slots=True)
class PodNeeds:
    """One pod's placement needs: its requests, its GPU devices, where it may go.

    ``requests`` are the pod's requests (GPU resources included, sorted by name). ``gpus``
    devices of ``gpu_milli`` each: a whole-GPU pod has ``gpu_milli == 1000``, a share less.
    """
    requests: Amounts = ()
    gpus: int = 0
    gpu_milli: int = 0
    placement: Placement = NO_PLACEMENT
    # the requests NodeResourcesFit checks: non-zero ones, a share's GPU resources left to the devices
    checked: Amounts = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        share = 0 < self.gpu_milli < GPU_MILLI
        object.__setattr__(self, "checked", tuple((r, v) for r, v in self.requests
                                                  if v > 0 and not (share and r in _GPU)))

    @property
    def wants_gpu(self) -> bool:
        return self.gpus > 0 and self.gpu_milli > 0

    @property
    def is_share(self) -> bool:
        return self.wants_gpu and self.gpu_milli < GPU_MILLI

    def request(self, resource: str) -> int:
        for r, v in self.requests:
            if r == resource:
                return v
        return 0


class NodeInfo:
    """A node's capacity view: allocatable, what its bound pods request, its GPU devices, its terms.

    Mutable through :meth:`bind` and :meth:`unbind` (the simulator moves pods on and off);
    everything else here only reads it.
    """
    __slots__ = ("allocatable", "gpu_free", "name", "pods", "requested", "terms")

    def __init__(self, name: str, allocatable: Mapping[str, int], terms: NodeTerms = NO_TERMS) -> None:
        self.name = name
        self.allocatable: dict[str, int] = dict(allocatable)
        self.terms = terms
        self.requested: dict[str, int] = {}
        # free milli of each GPU device; the device count is the node's GPU resources
        self.gpu_free: list[int] = [GPU_MILLI] * sum(max(self.allocatable.get(r, 0), 0) for r in GPU_RESOURCES)
        self.pods = 0

    def free(self, resource: str) -> int:
        return self.allocatable.get(resource, 0) - self.requested.get(resource, 0)

    def bind(self, pod: PodNeeds) -> tuple[int, ...]:
        """Count ``pod`` on this node; returns the GPU devices it took (for :meth:`unbind`).

        Whole-GPU pods take untouched devices, lowest index first; a share takes the tightest
        device with room; a pod's devices are distinct. An over-committed node (more bound
        than it holds) keeps what is left: devices that cannot be found are not taken.
        """
        for r, v in pod.requests:
            self.requested[r] = self.requested.get(r, 0) + v
        self.pods += 1
        taken: list[int] = []
        if pod.wants_gpu:
            free = self.gpu_free
            for _ in range(pod.gpus):
                best = -1
                for i, g in enumerate(free):
                    if g >= pod.gpu_milli and i not in taken and (best < 0 or g < free[best]):
                        best = i
                if best < 0:
                    break
                free[best] -= pod.gpu_milli
                taken.append(best)
        return tuple(taken)

    def unbind(self, pod: PodNeeds, devices: Sequence[int]) -> None:
        for r, v in pod.requests:
            self.requested[r] = self.requested.get(r, 0) - v
        self.pods -= 1
        for i in devices:
            self.gpu_free[i] += pod.gpu_milli

    def __repr__(self) -> str:
        return f"NodeInfo({self.name})"


# -- building the model ---------------------------------------------------------------------

def placement_of(spec: o.PodSpec, flavors: Iterable[o.ResourceFlavor] = ()) -> Placement:
    """The pod's placement once Kueue admitted it on ``flavors`` (their node labels and
    tolerations injected, as ``podset.Merge`` does)."""
    selector = set(spec.node_selector.items())
    tolerations = list(spec.tolerations)
    for f in flavors:
        selector.update(f.node_labels.items())
        tolerations += f.tolerations
    return Placement(tuple(sorted(selector)), tuple(spec.required_node_terms), tuple(tolerations))


def _annotation(meta: o.Meta, suffix: str) -> int | None:
    for k, v in meta.annotations.items():
        if k == suffix or k.endswith("/" + suffix):
            try:
                return int(v)
            except ValueError:
                return None
    return None


def gpu_share(meta: o.Meta | None) -> tuple[int, int] | None:
    """(devices, milli per device) of a GPU-sharing pod's annotations; None for other pods.
    ``devices`` is 0 when the annotations do not say (the pod's GPU requests decide)."""
    if meta is None:
        return None
    milli = _annotation(meta, GPU_SHARE_ANNOTATION)
    if not milli or milli <= 0:
        return None
    return (_annotation(meta, GPU_COUNT_ANNOTATION) or 0, min(milli, GPU_MILLI))


def needs_of(requests: Mapping[str, int], placement: Placement = NO_PLACEMENT,
             share: tuple[int, int] | None = None) -> PodNeeds:
    """A pod's needs from its per-pod requests (and a GPU share, see :func:`gpu_share`)."""
    gpus = sum(requests.get(r, 0) for r in GPU_RESOURCES)
    milli = GPU_MILLI if gpus else 0
    if share is not None:
        gpus = gpus or share[0] or 1
        milli = share[1]
    return PodNeeds(tuple(sorted(requests.items())), gpus, milli, placement)


def pod_needs(spec: o.PodSpec, meta: o.Meta | None = None,
              flavors: Iterable[o.ResourceFlavor] = ()) -> PodNeeds:
    """A pod's (or a pod template's) needs, on ``flavors`` once Kueue admitted it there."""
    return needs_of(pod_requests(spec), placement_of(spec, flavors), gpu_share(meta))


def node_terms(node: o.Node) -> NodeTerms:
    return NodeTerms(labels=dict(node.meta.labels),
                     taints=tuple(t for t in node.taints if t.effect in TAINT_EFFECTS),
                     ready=node.ready(), unschedulable=node.unschedulable)


def node_info(node: o.Node) -> NodeInfo:
    """The node with nothing bound (allocatable; capacity when a node reports no allocatable)."""
    return NodeInfo(node.meta.name, amounts(node.allocatable or node.capacity), node_terms(node))


def bound_pods(state: ClusterState) -> list[o.Pod]:
    """Pods holding node resources (terminating ones included), oldest first: the order their
    GPU devices are handed out in."""
    pods = [p for p in state.pods.values() if p.spec.node_name and p.phase not in DONE_PHASES]
    return sorted(pods, key=lambda p: (p.meta.creation_timestamp is None,
                                       p.meta.creation_timestamp or 0, p.meta.namespace, p.meta.name))


def bind_bound(nodes: Mapping[str, NodeInfo], pods: Iterable[o.Pod],
               needs_of_pod: Callable[[o.Pod], PodNeeds] | None = None) -> list[tuple[o.Pod, PodNeeds]]:
    """Bind each pod to the node its ``spec.nodeName`` names; the pods bound, with their needs
    (``pod_needs``, or ``needs_of_pod`` where the caller remembers them). Pods on nodes not in
    ``nodes`` are left out."""
    out = []
    for p in pods:
        node = nodes.get(p.spec.node_name)
        if node is None:
            continue
        needs = needs_of_pod(p) if needs_of_pod is not None else pod_needs(p.spec, p.meta)
        node.bind(needs)
        out.append((p, needs))
    return out


def node_infos(state: ClusterState) -> list[NodeInfo]:
    """Every node of the state, by name, with the pods bound to it counted."""
    nodes = {name: node_info(n) for name, n in sorted(state.nodes.items())}
    bind_bound(nodes, bound_pods(state))
    return list(nodes.values())


# -- the questions ----------------------------------------------------------------------------

def _term_matches(term: o.NodeSelectorTerm, labels: dict[str, str], node_name: str) -> bool:
    if not term.match_expressions and not term.match_fields:
        return False
    if not all(requirement_matches(e, labels) for e in term.match_expressions):
        return False
    return all(requirement_matches(f, {NODE_NAME_FIELD: node_name}) for f in term.match_fields)


def admits(terms: NodeTerms, placement: Placement, node_name: str = "") -> bool:
    """May a pod with ``placement`` go to a node with ``terms`` (named ``node_name``) at all?"""
    if terms.ready is False:
        return False
    if terms.unschedulable and not any(tolerates(t, UNSCHEDULABLE_TAINT) for t in placement.tolerations):
        return False
    labels = terms.labels
    for k, v in placement.node_selector:
        if labels.get(k) != v:
            return False
    if placement.required_terms and not any(_term_matches(t, labels, node_name)
                                            for t in placement.required_terms):
        return False
    return not terms.taints or untolerated_taint(list(terms.taints), list(placement.tolerations)) is None


def gpu_slots(gpu_free: Sequence[int], gpus: int, milli: int) -> int:
    """How many pods of ``gpus`` distinct devices with ``milli`` free each the devices hold."""
    if milli >= GPU_MILLI:   # whole GPUs: untouched devices (none holds more than 1000 free)
        return gpu_free.count(GPU_MILLI) // gpus
    # Each device hosts free//milli such pods' shares; k pods fit iff sum_g min(units_g, k) >=
    # k * gpus. The left side grows slower than the right, so bisect.
    units = [g // milli for g in gpu_free]
    lo, hi = 0, sum(units) // gpus
    while lo < hi:
        k = (lo + hi + 1) // 2
        if sum(min(u, k) for u in units) >= k * gpus:
            lo = k
        else:
            hi = k - 1
    return lo


def fits(node: NodeInfo, pod: PodNeeds) -> bool:
    """Can ``node`` take one more ``pod`` now? (``slots_on(node, pod) > 0``, without counting.)"""
    if not admits(node.terms, pod.placement, node.name):
        return False
    alloc, req = node.allocatable, node.requested
    for r, v in pod.checked:
        if alloc.get(r, 0) - req.get(r, 0) < v:
            return False
    cap = alloc.get("pods")
    if cap is not None and node.pods >= cap:
        return False
    if pod.gpus and pod.gpu_milli:
        m = pod.gpu_milli
        if m >= GPU_MILLI:   # untouched devices (no device holds more than 1000 free)
            return node.gpu_free.count(GPU_MILLI) >= pod.gpus
        return sum(1 for g in node.gpu_free if g >= m) >= pod.gpus
    return True


def room(node: NodeInfo, pod: PodNeeds) -> int:
    """How many more pods like ``pod`` the node's free resources hold, whether or not the node
    admits the pod (:func:`admits`)."""
    k = UNBOUNDED
    alloc, req = node.allocatable, node.requested
    for r, v in pod.checked:
        free = alloc.get(r, 0) - req.get(r, 0)
        if free < v:
            return 0
        k = min(k, free // v)
    cap = alloc.get("pods")
    if cap is not None:
        k = min(k, max(cap - node.pods, 0))
    if pod.gpus and pod.gpu_milli and k:
        k = min(k, gpu_slots(node.gpu_free, pod.gpus, pod.gpu_milli))
    return k


def slots_on(node: NodeInfo, pod: PodNeeds) -> int:
    """How many more pods like ``pod`` fit on ``node`` now."""
    return room(node, pod) if admits(node.terms, pod.placement, node.name) else 0


def count_slots(nodes: Iterable[NodeInfo], pod: PodNeeds) -> tuple[int, int]:
    """(pods like ``pod`` the nodes can take in all, nodes that can take at least one)."""
    slots = with_slot = 0
    for node in nodes:
        k = slots_on(node, pod)
        slots += k
        with_slot += k > 0
    return slots, with_slot
