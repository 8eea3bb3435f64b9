"""Changes to a cluster state, made twice: on the object model (for the engine to run on) and
as the JSON merge patch a user applies with ``kubectl patch --type merge`` (for the same
change on the cluster). A merge patch replaces lists wholesale, so a ClusterQueue's or a
Cohort's ``resourceGroups`` is always written in full."""
from __future__ import annotations

import contextlib
import copy
import dataclasses
from typing import Any

from ..api import objects as o
from ..api.pods import index_pods
from ..api.quantity import Quantity, amount_to_quantity
from ..api.state import ClusterState
from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue.version import Version, parse_version

KUEUE_GROUP = "kueue.x-k8s.io"
# v0.15 serves (and kubectl prefers) kueue.x-k8s.io/v1beta2; before it v1beta1, Cohorts v1alpha1
V1BETA2_SINCE = Version(0, 15, 0)
QUOTA_FIELDS = {"nominalQuota": "nominal_quota", "borrowingLimit": "borrowing_limit",
                "lendingLimit": "lending_limit"}


def api_versions(state: ClusterState) -> dict[str, str]:
    """Kind -> the apiVersion the cluster's Kueue serves it in (v1beta2 when the release is unknown)."""
    dep = state.kueue_deployment()
    text = dep.kueue_version() if dep is not None else None
    v1beta2 = True
    if text:
        with contextlib.suppress(InputError):   # a dev build's tag: the newest API
            v1beta2 = parse_version(text) >= V1BETA2_SINCE
    kueue = f"{KUEUE_GROUP}/v1beta2" if v1beta2 else f"{KUEUE_GROUP}/v1beta1"
    return {"ClusterQueue": kueue, "LocalQueue": kueue, "Workload": kueue,
            "Cohort": kueue if v1beta2 else f"{KUEUE_GROUP}/v1alpha1"}


def patch(api: dict[str, str], kind: str, name: str, namespace: str, merge: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api[kind], "kind": kind, "name": name, "namespace": namespace, "mergePatch": merge}


# -- quota ---------------------------------------------------------------------------------
def quota_of(groups: list[o.ResourceGroup], flavor: str, resource: str) -> o.ResourceQuota | None:
    for g in groups:
        for f in g.flavors:
            if f.name == flavor:
                for r in f.resources:
                    if r.name == resource:
                        return r
    return None


def with_quotas(groups: list[o.ResourceGroup], flavor: str, field: str,
                amounts: dict[str, int]) -> list[o.ResourceGroup]:
    """A copy of ``groups`` with ``field`` (nominalQuota, borrowingLimit, lendingLimit) of
    ``flavor`` set to ``amounts`` (resource -> Kueue amount: millicores, bytes, units)."""
    out = copy.deepcopy(groups)
    attr = QUOTA_FIELDS[field]
    for resource, amount in amounts.items():
        rq = quota_of(out, flavor, resource)
        if rq is None:
            raise KeyError(f"{flavor}/{resource}")
        setattr(rq, attr, amount_to_quantity(resource, amount))
    return out


def without_flavors(groups: list[o.ResourceGroup], missing: set[str]) -> list[o.ResourceGroup]:
    out = []
    for g in groups:
        kept = [f for f in g.flavors if f.name not in missing]
        if kept:
            out.append(o.ResourceGroup(list(g.covered_resources), copy.deepcopy(kept)))
    return out


def _q(q: Quantity) -> str:
    return str(q)


def resource_groups_json(groups: list[o.ResourceGroup]) -> list[dict[str, Any]]:
    """``spec.resourceGroups`` as the API writes it (quantities canonical, as kubectl prints them)."""
    out = []
    for g in groups:
        flavors = []
        for f in g.flavors:
            res = []
            for r in f.resources:
                d: dict[str, Any] = {"name": r.name, "nominalQuota": _q(r.nominal_quota)}
                if r.borrowing_limit is not None:
                    d["borrowingLimit"] = _q(r.borrowing_limit)
                if r.lending_limit is not None:
                    d["lendingLimit"] = _q(r.lending_limit)
                res.append(d)
            flavors.append({"name": f.name, "resources": res})
        out.append({"coveredResources": list(g.covered_resources), "flavors": flavors})
    return out


def with_cluster_queue(state: ClusterState, cq: o.ClusterQueue) -> ClusterState:
    return dataclasses.replace(state, cluster_queues={**state.cluster_queues, cq.meta.name: cq})


def with_cohort(state: ClusterState, cohort: o.Cohort) -> ClusterState:
    return dataclasses.replace(state, cohorts={**state.cohorts, cohort.meta.name: cohort})


def with_local_queue(state: ClusterState, lq: o.LocalQueue) -> ClusterState:
    return dataclasses.replace(state, local_queues={**state.local_queues, (lq.meta.namespace, lq.meta.name): lq})


def with_workloads(state: ClusterState, changed: dict[WorkloadKey, o.Workload]) -> ClusterState:
    return dataclasses.replace(state, workloads={**state.workloads, **changed})


def deactivated(state: ClusterState, keys: list[WorkloadKey],
                owned: dict[WorkloadKey, list[o.Pod]] | None = None) -> ClusterState:
    """``spec.active: false`` on each: Kueue's workload controller evicts a deactivated workload
    that holds quota (upstream pkg/controller/core/workload_controller.go ``Reconcile``, eviction
    reason ``Deactivated``) and its quota is released; the engine's snapshot leaves inactive
    workloads out (engine/snapshot.py ``build_snapshot``). Its pods go too: ``settled``."""
    changed = with_workloads(state, {k: dataclasses.replace(state.workloads[k], active=False) for k in keys})
    return settled(changed, owned)


def settled(state: ClusterState, owned: dict[WorkloadKey, list[o.Pod]] | None = None) -> ClusterState:
    """The state once deactivations take effect: the pods of a deactivated workload gone (its Job
    is suspended, its pods deleted), as its quota is released. That is what frees a TAS domain's
    nodes of a workload TAS does not place, and what a snapshot taken after a ``finish`` patch
    has settled shows. ``owned``: ``api.pods.index_pods`` of the state's pods, when the caller
    keeps it (a search changes workloads, never which pods belong to which)."""
    inactive = [k for k, w in state.workloads.items() if not w.active]
    if not state.pods or not inactive:
        return state
    if owned is None:
        owned = index_pods(state)[0]
    gone = {(pod.meta.namespace, pod.meta.name) for k in inactive for pod in owned.get(k, [])}
    if not gone:
        return state
    return dataclasses.replace(state, pods={pk: pod for pk, pod in state.pods.items() if pk not in gone})
