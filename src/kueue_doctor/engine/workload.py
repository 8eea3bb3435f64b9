"""What the engine knows of a workload: requests, usage, priority, ordering timestamps.

Upstream: pkg/workload/workload.go (Info, totalRequestsFromPodSets,
totalRequestsFromAdmission, GetQueueOrderTimestamp), pkg/util/priority.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
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


def accounted_requests(spec: o.PodSpec, rules: ResourceRules | None) -> Requests:
    """A pod's requests as Kueue accounts them under ``rules`` (excluded, transformed)."""
    per_pod = pod_requests(spec)
    if rules is not None and rules.active:
        per_pod = rules.accounted(per_pod)
    return per_pod


class RequestsMemo:
    """``accounted_requests`` under one set of rules, computed once per distinct common pod
    template (one container, no init containers, no overhead) and handed out as a fresh dict.

    A template is known by its container's resource names and the identity of its quantities:
    parsing shares one Quantity per quantity text and never mutates it (api/quantity.py), so
    the 100,000 Workloads of a large cluster name a handful of them, while their templates are
    distinct objects. The memo keeps what its keys name alive, so an id is never reused for
    another quantity while the memo lives."""

    __slots__ = ("_known", "rules")

    def __init__(self, rules: ResourceRules | None):
        self.rules = rules
        self._known: dict[tuple[object, ...], tuple[Requests, object, object]] = {}

    def per_pod(self, spec: o.PodSpec) -> Requests:
        if spec.init_containers or spec.overhead or len(spec.containers) != 1:
            return accounted_requests(spec, self.rules)
        c = spec.containers[0]
        req, lim = c.requests, c.limits
        # without limits (the common template) a flat key: names (str) then identities (int);
        # with them, a key of four tuples (so never equal to a flat one)
        key = (*req, *map(id, req.values())) if not lim else \
            (tuple(req), tuple(map(id, req.values())), tuple(lim), tuple(map(id, lim.values())))
        known = self._known.get(key)
        if known is None:
            known = self._known[key] = (accounted_requests(spec, self.rules), req, lim)
        return dict(known[0])


_NO_CONDITIONS: dict[str, o.Condition] = {}   # (read only) a pending workload's, most of a large cluster


def _order_timestamp(obj: o.Workload, ev: o.Condition | None, strategy: str) -> datetime:
    """GetQueueOrderTimestamp (pkg/workload/workload.go): a PodsReadyTimeout eviction (under the
    Eviction requeuing timestamp) or an AdmissionCheck eviction orders by the eviction's time;
    ``ev`` is the workload's Evicted condition."""
    if ev is not None and ev.status == "True" and ev.last_transition_time is not None:
        if strategy == "Eviction" and ev.reason == "PodsReadyTimeout":
            return ev.last_transition_time
        if ev.reason == "AdmissionCheck":
            return ev.last_transition_time
    return obj.meta.creation_timestamp or EPOCH


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
                 key: WorkloadKey | None = None, rules: ResourceRules | None = None, boost: bool = False,
                 memo: RequestsMemo | None = None):
        """``rules``: the Configuration's excluded resources and transformations, applied to the
        pod sets' requests (EngineConfig.resource_rules).

        ``boost``: the PriorityBoost gate; ``priority`` is then the effective priority, spec.priority
        plus the workload's priority-boost annotation, which every ordering and preemption rule reads.

        ``key``: the workload's key where the caller holds it (``ClusterState.workloads``), so
        that one key object names a workload everywhere: a key is a tuple subclass, which the
        cyclic collector tracks for as long as it lives, and a second one per workload made
        building a large model a third slower under the default collector thresholds.

        ``memo``: per-pod requests already computed for ``rules`` (a ``RequestsMemo`` made with
        the same rules), shared by the workloads of one model build."""
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
        self.pod_sets = self._pending_requests(obj, reclaimable, rules, memo)
        # the two conditions read here, found in one pass: this runs once per Workload
        conds = o.conditions_by_type(obj.status.conditions) if obj.status.conditions else _NO_CONDITIONS
        qr, ev = conds.get("QuotaReserved"), conds.get("Evicted")
        reserved = qr is not None and qr.status == "True"
        adm = obj.status.admission if reserved else None
        self.cluster_queue = adm.cluster_queue if adm else ""
        self.usage: dict[FR, int] = self._admitted_usage(obj, adm, reclaimable) if adm else {}
        self._evicted = ev is not None and ev.status == "True"
        self._reserved_at = qr.last_transition_time if qr is not None and reserved else None
        self._refresh_key()
        self._order_ts = _order_timestamp(obj, ev, requeuing_timestamp)
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
    def _pending_requests(obj: o.Workload, reclaimable: bool, rules: ResourceRules | None,
                          memo: RequestsMemo | None = None) -> list[PodSetRequests]:
        out = []
        for ps in obj.pod_sets:
            count = ps.count
            if reclaimable:
                count = max(0, count - obj.status.reclaimable_pods.get(ps.name, 0))
            if memo is not None:
                per_pod = memo.per_pod(ps.template)
            else:
                per_pod = accounted_requests(ps.template, rules)
            out.append(PodSetRequests(ps.name, count, per_pod, ps.min_count, {}))
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

    def queue_order_timestamp(self) -> datetime:
        return self._order_ts

    def refresh_order(self, requeuing_timestamp: str) -> None:
        """Re-read the queue-order timestamp after the object's Evicted condition changed (a
        PodsReadyTimeout or AdmissionCheck eviction orders the workload by its eviction time)."""
        self._order_ts = _order_timestamp(self.obj, self.obj.condition("Evicted"), requeuing_timestamp)

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


def infos_of(workloads: Mapping[WorkloadKey, o.Workload], config: EngineConfig) -> dict[WorkloadKey, WorkloadInfo]:
    """``info_of`` for each workload of a cluster: the gates read once, the per-pod requests of
    identical pod templates computed once."""
    reclaimable, boost = config.gate("ReclaimablePods"), config.gate("PriorityBoost")
    requeuing, rules = config.requeuing_timestamp, config.resource_rules
    memo = RequestsMemo(rules)
    return {key: WorkloadInfo(w, reclaimable, requeuing, key=key, rules=rules, boost=boost, memo=memo)
            for key, w in workloads.items()}


_DECIMAL = re.compile(r"[+-]?[0-9]+")


def priority_boost(obj: o.Workload) -> int:
    """The priority-boost annotation as an int32; 0 when absent or not a number (Kueue's webhook
    refuses such a value, and EffectivePriority falls back to the base priority)."""
    raw = obj.meta.annotations.get(PRIORITY_BOOST_ANNOTATION, "")
    if not _DECIMAL.fullmatch(raw):   # strconv.ParseInt(s, 10, 32): no spaces, no underscores
        return 0
    v = int(raw)
    return v if -(1 << 31) <= v < (1 << 31) else 0
