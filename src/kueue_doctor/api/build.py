"""Constructors for objects made in code (simulator, benchmarks, tests), with Kueue's defaults."""
from __future__ import annotations

from datetime import datetime

from ..kueue import constants as kc
from . import objects as o
from .quantity import Quantity

Q = str | int | Quantity


def q(v: Q) -> Quantity:
    return Quantity.parse(v)


def cluster_queue(name: str, quotas: dict[str, dict[str, Q | tuple]], cohort: str = "",
                  within: str = "Never", reclaim: str = "Never", borrow_within: str | None = None,
                  strategy: str = "BestEffortFIFO", weight: Q | None = None,
                  when_can_borrow: str = "MayStopSearch", when_can_preempt: str = "TryNextFlavor") -> o.ClusterQueue:
    """``quotas``: flavor -> resource -> nominal, or (nominal, borrowingLimit, lendingLimit).

    All flavors go in one resource group covering every resource named."""
    resources: list[str] = []
    flavors = []
    for flavor, res in quotas.items():
        rqs = []
        for r, v in res.items():
            nominal, bl, ll = (*v, None, None)[:3] if isinstance(v, tuple) else (v, None, None)
            rqs.append(o.ResourceQuota(r, q(nominal), q(bl) if bl is not None else None,
                                       q(ll) if ll is not None else None))
            if r not in resources:
                resources.append(r)
        flavors.append(o.FlavorQuotas(flavor, rqs))
    return o.ClusterQueue(
        meta=o.Meta(name=name), cohort=cohort, queueing_strategy=strategy,
        namespace_selector=o.LabelSelector(),
        resource_groups=[o.ResourceGroup(resources, flavors)] if flavors else [],
        preemption=o.Preemption(within, reclaim,
                                o.BorrowWithinCohort(borrow_within) if borrow_within else None),
        flavor_fungibility=o.FlavorFungibility(when_can_borrow, when_can_preempt),
        fair_sharing_weight=q(weight) if weight is not None else None)


def cohort(name: str, parent: str = "", quotas: dict[str, dict[str, Q]] | None = None,
           weight: Q | None = None) -> o.Cohort:
    groups = []
    if quotas:
        resources = sorted({r for res in quotas.values() for r in res})
        groups = [o.ResourceGroup(resources, [o.FlavorQuotas(f, [o.ResourceQuota(r, q(v)) for r, v in res.items()])
                                              for f, res in quotas.items()])]
    return o.Cohort(meta=o.Meta(name=name), parent=parent, resource_groups=groups,
                    fair_sharing_weight=q(weight) if weight is not None else None)


def local_queue(namespace: str, name: str, cluster_queue: str) -> o.LocalQueue:
    return o.LocalQueue(meta=o.Meta(name=name, namespace=namespace), cluster_queue=cluster_queue)


def flavor(name: str, labels: dict[str, str] | None = None) -> o.ResourceFlavor:
    return o.ResourceFlavor(meta=o.Meta(name=name), node_labels=dict(labels or {}))


def pod_spec(requests: dict[str, Q], grace: int = 30) -> o.PodSpec:
    return o.PodSpec(containers=[o.Container("c", {r: q(v) for r, v in requests.items()})],
                     termination_grace_period_seconds=grace)


def workload(namespace: str, name: str, queue: str, requests: dict[str, Q], count: int = 1,
             priority: int = 0, created: datetime | None = None, uid: str = "",
             min_count: int | None = None, labels: dict[str, str] | None = None,
             admitted_to: str | None = None, flavors: dict[str, str] | None = None,
             admitted_at: datetime | None = None, grace: int = 30) -> o.Workload:
    spec = pod_spec(requests, grace)
    wl = o.Workload(meta=o.Meta(name=name, namespace=namespace, uid=uid or f"{namespace}/{name}",
                                creation_timestamp=created, labels=dict(labels or {})),
                    queue_name=queue, priority=priority,
                    pod_sets=[o.PodSet("main", count, spec, min_count)])
    if admitted_to:
        usage = {r: Quantity(q(v).value * count, q(v).format) for r, v in requests.items()}
        wl.status.admission = o.Admission(admitted_to, [o.PodSetAssignment("main", dict(flavors or {}), usage, count)])
        wl.status.conditions = [o.Condition(kc.QUOTA_RESERVED, "True", kc.QUOTA_RESERVED_REASON, "", admitted_at),
                                o.Condition(kc.ADMITTED, "True", kc.ADMITTED_REASON, "", admitted_at)]
    return wl
