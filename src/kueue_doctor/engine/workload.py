"""What the engine knows of a workload: requests, usage, priority, ordering timestamps.

Upstream: pkg/workload/workload.go (Info, totalRequestsFromPodSets,
totalRequestsFromAdmission, GetQueueOrderTimestamp), pkg/util/priority.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ..api import objects as o
from ..keys import WorkloadKey
from ..kueue.constants import (
    ALLOWED_FLAVORS_ANNOTATION,
    CONCURRENT_ADMISSION_PARENT_LABEL,
    GROUP,
    PRIORITY_BOOST_ANNOTATION,
)
from .assignment import Assignment
from .transformations import ResourceRules

if TYPE_CHECKING:
    from .config import EngineConfig

FR = tuple[str, str]  # (flavor, resource)
Requests = dict[str, int]
# CandidatesOrdering less its "same ClusterQueue" term: (not evicted, priority, -reserved at, uid)
CandKey = tuple[bool, int, float, str]

EPOCH = datetime(1, 1, 1, tzinfo=UTC)


def amounts(resources: o.ResourceList) -> Requests:
    return {name: q.amount(name) for name, q in resources.items()}


def _add(into: Requests, more: Requests) -> None:
    for k, v in more.items():
        into[k] = into.get(k, 0) + v


def _max_into(into: Requests, other: Requests) -> None:
    for k, v in other.items():
        if v > into.get(k, 0):
            into[k] = v


def container_requests(c: o.Container) -> Requests:
    # Kubernetes defaults a missing request to the limit; Kueue does the same.
    req = amounts(c.limits)
    req.update(amounts(c.requests))
    return req


def pod_requests(spec: o.PodSpec) -> Requests:
    """Per-pod requests as Kubernetes computes them (sidecar-aware), plus overhead."""
    if not spec.init_containers and not spec.overhead and len(spec.containers) == 1:
        # the common pod (one container, nothing else): the same sums without the general
        # bookkeeping, asked once per pod set of every Workload of a large cluster
        c = spec.containers[0]
        one = {name: q.amount(name) for name, q in c.limits.items()} if c.limits else {}
        for name, q in c.requests.items():
            one[name] = q.amount(name)
        return {k: v if v > 0 else 0 for k, v in one.items()}
    return sidecar_aware_requests(spec)


def sidecar_aware_requests(spec: o.PodSpec) -> Requests:
    """``pod_requests`` for any pod: sidecars, init containers, overhead."""
    total: Requests = {}
    for c in spec.containers:
        _add(total, container_requests(c))
    restartable: Requests = {}
    init_max: Requests = {}
    for c in spec.init_containers:
        req = container_requests(c)
        if c.restart_policy == "Always":
            _add(total, req)
            _add(restartable, req)
            current = dict(restartable)
        else:
            current = dict(restartable)
            _add(current, req)
        _max_into(init_max, current)
    _max_into(total, init_max)
    _add(total, amounts(spec.overhead))
    return {k: max(0, v) for k, v in total.items()}


@dataclass(slots=True)
class PodSetRequests:
    name: str
    count: int
    per_pod: Requests
    min_count: int | None = None
    flavors: dict[str, str] = field(default_factory=dict)   # set for admitted workloads

    def total(self) -> Requests:
        return {r: v * self.count for r, v in self.per_pod.items()}

    def scaled_to(self, count: int) -> PodSetRequests:
        return PodSetRequests(self.name, count, dict(self.per_pod), self.min_count, dict(self.flavors))


class WorkloadInfo:
    """A workload as the scheduler sees it. ``usage`` is what it holds when admitted."""

    __slots__ = (
        "_evicted",
        "_order_ts",
        "_reserved_at",
        "cand_key",
        "cluster_queue",
        "creation",
        "eviction_reason",
        "key",
        "last_assignment",
        "name",
        "namespace",
        "obj",
        "pod_sets",
        "preempted_reason",
        "priority",
        "queue_name",
        "uid",
        "usage",
    )

    def __init__(self, obj: o.Workload, reclaimable: bool = True, requeuing_timestamp: str = "Eviction", *,
                 key: WorkloadKey | None = None, rules: ResourceRules | None = None, boost: bool = False):
        """``rules``: the Configuration's excluded resources and transformations, applied to the
        pod sets' requests (EngineConfig.resource_rules).

        ``boost``: the PriorityBoost gate; ``priority`` is then the effective priority, spec.priority
        plus the workload's priority-boost annotation, which every ordering and preemption rule reads.

        ``key``: the workload's key where the caller holds it (``ClusterState.workloads``), so
        that one key object names a workload everywhere: a key is a tuple subclass, which the
        cyclic collector tracks for as long as it lives, and a second one per workload made
        building a large model a third slower under the default collector thresholds."""
        self.obj = obj
        self.namespace = obj.meta.namespace
        self.name = obj.meta.name
        self.key = key if key is not None else WorkloadKey(self.namespace, self.name)
        self.uid = obj.meta.uid
        self.priority = obj.priority if obj.priority is not None else 0
        if boost:
            self.priority += priority_boost(obj)
        self.creation = obj.meta.creation_timestamp or EPOCH
        self.queue_name = obj.queue_name
        self.pod_sets = self._pending_requests(obj, reclaimable, rules)
        adm = obj.status.admission if obj.is_true("QuotaReserved") else None
        self.cluster_queue = adm.cluster_queue if adm else ""
        self.usage: dict[FR, int] = self._admitted_usage(obj, adm, reclaimable) if adm else {}
        qr = obj.condition("QuotaReserved")
        self._evicted = obj.is_true("Evicted")
        self._reserved_at = qr.last_transition_time if qr and qr.status == "True" else None
        self._refresh_key()
        self._order_ts = self._queue_order_timestamp(obj, requeuing_timestamp)
        self.last_assignment: Assignment | None = None
        self.preempted_reason = ""
        self.eviction_reason = ""

    # CandidatesOrdering without the "same ClusterQueue" term, kept precomputed because
    # preemption sorts thousands of candidates per cycle: evicted first, lower priority,
    # most recently reserved (never reserved counts as now, i.e. most recent), UID.
    def _refresh_key(self) -> None:
        ts = self._reserved_at.timestamp() if self._reserved_at is not None else float("inf")
        self.cand_key: CandKey = (not self._evicted, self.priority, -ts, self.uid)

    @property
    def evicted(self) -> bool:
        return self._evicted

    @evicted.setter
    def evicted(self, v: bool) -> None:
        self._evicted = v
        self._refresh_key()

    @property
    def quota_reserved_at(self) -> datetime | None:
        return self._reserved_at

    @quota_reserved_at.setter
    def quota_reserved_at(self, v: datetime | None) -> None:
        self._reserved_at = v
        self._refresh_key()

    @staticmethod
    def _pending_requests(obj: o.Workload, reclaimable: bool, rules: ResourceRules | None) -> list[PodSetRequests]:
        out = []
        for ps in obj.pod_sets:
            count = ps.count
            if reclaimable:
                count = max(0, count - obj.status.reclaimable_pods.get(ps.name, 0))
            per_pod = pod_requests(ps.template)
            if rules is not None and rules.active:
                per_pod = rules.accounted(per_pod)
            out.append(PodSetRequests(ps.name, count, per_pod, ps.min_count))
        return out

    @staticmethod
    def _admitted_usage(obj: o.Workload, adm: o.Admission, reclaimable: bool) -> dict[FR, int]:
        usage: dict[FR, int] = {}
        spec_counts = {ps.name: ps.count for ps in obj.pod_sets}
        for psa in adm.pod_set_assignments:
            count = psa.count if psa.count is not None else spec_counts.get(psa.name, 0)
            new_count = count
            if reclaimable:
                new_count = max(0, count - obj.status.reclaimable_pods.get(psa.name, 0))
            for res, q in psa.resource_usage.items():
                flavor = psa.flavors.get(res)
                if flavor is None:
                    continue
                v = q.amount(res)
                if new_count != count and count:
                    v = v // count * new_count
                usage[(flavor, res)] = usage.get((flavor, res), 0) + v
        return usage

    @staticmethod
    def _queue_order_timestamp(obj: o.Workload, strategy: str) -> datetime:
        ev = obj.condition("Evicted")
        if ev is not None and ev.status == "True" and ev.last_transition_time is not None:
            if strategy == "Eviction" and ev.reason == "PodsReadyTimeout":
                return ev.last_transition_time
            if ev.reason == "AdmissionCheck":
                return ev.last_transition_time
        return obj.meta.creation_timestamp or EPOCH

    def queue_order_timestamp(self) -> datetime:
        return self._order_ts

    def refresh_order(self, requeuing_timestamp: str) -> None:
        """Re-read the queue-order timestamp after the object's Evicted condition changed (a
        PodsReadyTimeout or AdmissionCheck eviction orders the workload by its eviction time)."""
        self._order_ts = self._queue_order_timestamp(self.obj, requeuing_timestamp)

    def total_requests(self) -> Requests:
        out: Requests = {}
        for ps in self.pod_sets:
            _add(out, ps.total())
        return out

    def __repr__(self) -> str:
        return f"WorkloadInfo({self.key})"


# -- concurrent admission (variants) and preemption gates ---------------------------------------
# Upstream: pkg/workload/concurrentadmission/concurrentadmission.go, workload.HasClosedPreemptionGate.

_PARENT_API_VERSION = f"{GROUP}/v1beta2"   # kueue.SchemeGroupVersion: owner references keep it


def parent_ref(wl: o.Workload) -> tuple[str, str]:
    """(name, uid) of the parent Workload that owns a variant; ("", "") for any other workload."""
    for ref in wl.meta.owner_references:
        if isinstance(ref, dict) and ref.get("kind") == "Workload" and ref.get("apiVersion") == _PARENT_API_VERSION:
            return str(ref.get("name") or ""), str(ref.get("uid") or "")
    return "", ""


def is_variant(wl: o.Workload) -> bool:
    """A variant: a Workload owned by a (parent) Workload, pursuing one flavor."""
    return parent_ref(wl)[0] != ""


def is_parent(wl: o.Workload) -> bool:
    return wl.meta.labels.get(CONCURRENT_ADMISSION_PARENT_LABEL) == "true"


def variant_flavor(wl: o.Workload) -> str:
    """The flavor a variant pursues: the first one its allowed-flavors annotation names ("" if none)."""
    allowed = wl.meta.annotations.get(ALLOWED_FLAVORS_ANNOTATION, "")
    if not allowed.strip():
        return ""
    return allowed.split(",")[0].strip()


def is_admitted(wi: WorkloadInfo) -> bool:
    """workload.IsAdmitted: Admitted=True. A workload this engine reserved quota for (it holds
    quota, and its object never recorded a reservation) counts as admitted here; where admission
    checks stand between the two (a ConcurrentAdmission sibling), the scheduler asks
    ``admissionchecks.admitted_on_reservation`` instead."""
    if wi.obj.is_true("Admitted"):
        return True
    return bool(wi.cluster_queue) and not wi.obj.is_true("QuotaReserved")


def closed_preemption_gates(wl: o.Workload) -> list[str]:
    """spec.preemptionGates not opened in status (a gate only in spec is closed, so a workload
    can be created gated atomically)."""
    return [g for g in wl.preemption_gates if wl.status.preemption_gates.get(g, "Closed") == "Closed"]


def info_of(obj: o.Workload, config: EngineConfig, key: WorkloadKey | None = None) -> WorkloadInfo:
    """The engine's view of ``obj`` under ``config`` (its gates and resource rules)."""
    return WorkloadInfo(obj, config.gate("ReclaimablePods"), config.requeuing_timestamp, key=key,
                        rules=config.resource_rules, boost=config.gate("PriorityBoost"))


_DECIMAL = re.compile(r"[+-]?[0-9]+")


def priority_boost(obj: o.Workload) -> int:
    """The priority-boost annotation as an int32; 0 when absent or not a number (Kueue's webhook
    refuses such a value, and EffectivePriority falls back to the base priority)."""
    raw = obj.meta.annotations.get(PRIORITY_BOOST_ANNOTATION, "")
    if not _DECIMAL.fullmatch(raw):   # strconv.ParseInt(s, 10, 32): no spaces, no underscores
        return 0
    v = int(raw)
    return v if -(1 << 31) <= v < (1 << 31) else 0
