"""What the exporter publishes about one cluster state, as plain numbers keyed by names.

A ``View`` is built from a snapshot (``from_snapshot``) or a running simulation
(``from_sim``) and rendered by the collector; it holds names and quantities only, never
messages or other object content, so nothing a tenant wrote can leak into labels.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ..api import objects as o
from ..doctor.findings import Cause
from ..engine.nodes import GPU_RESOURCES, NodeInfo, PodNeeds, count_slots, pod_needs
from ..engine.snapshot import ClusterQueueSnapshot, QuotaSnapshot
from ..engine.workload import WorkloadInfo
from ..guarantee import QueueGuarantee
from .upstream import UpstreamRows

# a pending shape the cluster has never seen is worth a series; thousands are not
MAX_SHAPES = 64

CQKey = tuple[str, str, str]   # (cluster_queue or cohort, flavor, resource)


@dataclass
class View:
    now: datetime
    cluster_queues: list[str] = field(default_factory=list)
    violation: dict[CQKey, int] = field(default_factory=dict)
    pending_fits: dict[CQKey, int] = field(default_factory=dict)
    pending: dict[CQKey, int] = field(default_factory=dict)
    cq_info: dict[str, tuple[str, str]] = field(default_factory=dict)        # cq -> (parent, root)
    cohort_info: dict[str, tuple[str, str]] = field(default_factory=dict)    # cohort -> (parent, root)
    cohort_usage: dict[CQKey, int] = field(default_factory=dict)
    cohort_nominal: dict[CQKey, int] = field(default_factory=dict)
    free_slots: dict[tuple[str, str], int] = field(default_factory=dict)   # (flavor, shape) -> nodes
    stuck_targets: dict[str, int] = field(default_factory=dict)            # per cluster_queue
    past_grace: dict[str, int] = field(default_factory=dict)
    not_released: dict[str, int] = field(default_factory=dict)
    # cause id -> the ClusterQueues it is named for ("" for a cluster-wide cause);
    # None: this source cannot run the doctor's cause analysis
    causes: dict[str, tuple[str, ...]] | None = None
    kueue_version: str = ""            # the Kueue release the served cluster runs, "" if unknown
    upstream: UpstreamRows | None = None   # upstream Kueue's own quantities (metrics/upstream.py)
    # (flavor, topology, level, resource) -> free amount of the level's largest free domain (TAS)
    topology_free: dict[tuple[str, str, str, str], int] = field(default_factory=dict)


def cause_queues(causes: Iterable[Cause]) -> dict[str, tuple[str, ...]]:
    """The ``cluster_queue`` label values of each named cause: the ClusterQueues the doctor lists
    for it, and "" when it is cluster-wide (controller, nodes) or names no queue."""
    out: dict[str, tuple[str, ...]] = {}
    for c in causes:
        queues = set(c.cluster_queues)
        if c.cluster_wide or not queues:
            queues.add("")
        out[str(c.id)] = tuple(sorted(queues | set(out.get(str(c.id), ()))))
    return out


def base_value(resource: str, amount: int) -> float:
    """Engine amounts are millicores for cpu; Prometheus wants base units (cores, bytes)."""
    return amount / 1000 if resource == "cpu" else float(amount)


def all_queues(esnap: QuotaSnapshot) -> dict[str, ClusterQueueSnapshot]:
    return {**esnap.cluster_queues, **esnap.inactive}


def guarantee_rows(view: View, cqs: dict[str, ClusterQueueSnapshot], guarantees: dict[str, QueueGuarantee]) -> None:
    """Per (queue, flavor, resource): violated or not, and the pending quota nominal would give.

    The violated resources are the ones step 1 of the doctor reports: those pending work
    that fits needs, or, for admitted-but-not-running work, the resources it holds.
    """
    for name, cq in sorted(cqs.items()):
        g = guarantees.get(name)
        if g is None:
            continue
        frs = set(g.violated_resources(cq.workloads)) if g.violated else set()
        for fr in sorted(set(cq.node.quotas) | frs):
            key = (name, fr[0], fr[1])
            view.violation[key] = int(fr in frs)
            view.pending_fits[key] = g.pending_fits.get(fr, 0)


def pending_rows(view: View, cqs: dict[str, ClusterQueueSnapshot],
                 pending: Iterable[tuple[str, WorkloadInfo]]) -> None:
    """Pending requests per queue and resource, under the first flavor of the covering group:
    pending work has no flavor yet, and the first flavor is where Kueue tries it first."""
    for name, cq in cqs.items():
        for g in cq.groups:
            for r in g.covered:
                if g.flavors:
                    view.pending.setdefault((name, g.flavors[0], r), 0)
    for name, wi in pending:
        queue = cqs.get(name)
        if queue is None:
            continue
        for r, v in wi.total_requests().items():
            group = queue.group_for(r)
            key = (name, group.flavors[0] if group is not None and group.flavors else "", r)
            view.pending[key] = view.pending.get(key, 0) + v


def tree_rows(view: View, esnap: QuotaSnapshot) -> None:
    """Cohort hierarchy (upstream #7539) and the cohort's shared pool: its subtree quota and
    what is reserved against it. Both follow Kueue's resource nodes, so quota a ClusterQueue
    keeps back with lendingLimit (and its usage of it) is in neither and the ratio is the pool's
    utilization."""
    for name, node in sorted(esnap.cohorts.items()):
        view.cohort_info[name] = (node.parent.name if node.parent else "", node.root().name)
        for fr in sorted(set(node.subtree) | set(node.usage)):
            view.cohort_nominal[(name, fr[0], fr[1])] = node.subtree.get(fr, 0)
            view.cohort_usage[(name, fr[0], fr[1])] = node.usage.get(fr, 0)
    for name, cq in sorted(all_queues(esnap).items()):
        parent = cq.obj.cohort or ""
        root = esnap.cohorts[parent].root().name if parent in esnap.cohorts else parent
        view.cq_info[name] = (parent, root)


def shape_label(gpus: int, gpu_milli: int, cpu_milli: int, mem_mib: int) -> str:
    """"8gpu", "1gpu-16cpu", "500mgpu-4cpu-32Gi": a pod shape in a few characters."""
    parts = []
    if gpus and gpu_milli:
        parts.append(f"{gpus}gpu" if gpu_milli >= 1000 else f"{gpu_milli}mgpu")
    if cpu_milli:
        parts.append(f"{cpu_milli // 1000}cpu" if cpu_milli % 1000 == 0 else f"{cpu_milli}mcpu")
    if mem_mib:
        parts.append(f"{mem_mib // 1024}Gi" if mem_mib % 1024 == 0 else f"{mem_mib}Mi")
    return "-".join(parts) or "empty"


MIB = 1 << 20


def needs_label(needs: PodNeeds) -> str:
    """The ``shape`` label of a pod's needs (memory rounded up to MiB)."""
    return shape_label(needs.gpus, needs.gpu_milli, needs.request("cpu"), -(-needs.request("memory") // MIB))


def free_slot_rows(view: View, cqs: dict[str, ClusterQueueSnapshot], pending: Iterable[tuple[str, WorkloadInfo]],
                   flavors: dict[str, o.ResourceFlavor], nodes: Iterable[NodeInfo]) -> None:
    """``free_slots``: per flavor and pending pod shape, the nodes that could take one more such
    pod now (``engine.nodes.count_slots``, with the flavor's node labels and tolerations as Kueue
    would inject them). A snapshot and a simulation both come here, so the same cluster gives
    the same figures."""
    shapes: dict[tuple[str, str], PodNeeds] = {}
    for name, wi in pending:
        cq = cqs[name]
        for ps in wi.obj.pod_sets:
            base = pod_needs(ps.template)
            label = needs_label(base)
            for fname in covering_flavors(cq, base.wants_gpu):
                if (fname, label) in shapes:
                    continue
                if len(shapes) >= MAX_SHAPES:
                    break
                flavor = flavors.get(fname)
                shapes[(fname, label)] = pod_needs(ps.template, None, [flavor] if flavor else [])
    infos = list(nodes)
    for key, needs in shapes.items():
        view.free_slots[key] = count_slots(infos, needs)[1]


def covering_flavors(cq: ClusterQueueSnapshot, wants_gpu: bool) -> list[str]:
    """Flavors a pod may land on: those of the group covering its GPUs (its CPU if it has none)."""
    wanted = set(GPU_RESOURCES) if wants_gpu else {"cpu"}
    for g in cq.groups:
        if wanted & set(g.covered):
            return list(g.flavors)
    return []
