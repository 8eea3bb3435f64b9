"""Which ResourceFlavors a workload's pod sets can use at all, before any quota is counted.

Upstream: pkg/scheduler/flavorassigner/flavorassigner.go (checkFlavorForPodSets: untolerated
taints, flavor node labels against the pod's required node affinity), pkg/util/... (the
workload-allowed-resource-flavors annotation of ConcurrentAdmission). The flavor assigner and
the guarantee (``kueue_doctor.guarantee``) both decide eligibility here, so a flavor the
assigner refuses is never counted as room the workload could use.
"""
from __future__ import annotations

from collections.abc import Iterable

from ..api import objects as o
from ..kueue.constants import ALLOWED_FLAVORS_ANNOTATION
from .config import EngineConfig
from .workload import WorkloadInfo


def tolerates(t: o.Toleration, taint: o.Taint) -> bool:
    if t.effect and t.effect != taint.effect:
        return False
    if t.operator == "Exists":
        return not t.key or t.key == taint.key
    return t.key == taint.key and t.value == taint.value


def untolerated_taint(taints: list[o.Taint], tolerations: list[o.Toleration]) -> o.Taint | None:
    for taint in taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def requirement_matches(req: o.SelectorRequirement, labels: dict[str, str]) -> bool:
    has = req.key in labels
    v = labels.get(req.key)
    if req.operator == "In":
        return has and v in req.values
    if req.operator == "NotIn":
        return not has or v not in req.values
    if req.operator == "Exists":
        return has
    if req.operator == "DoesNotExist":
        return not has
    if req.operator in ("Gt", "Lt") and has and req.values:
        try:
            a, b = int(labels[req.key]), int(req.values[0])
        except ValueError:
            return False
        return a > b if req.operator == "Gt" else a < b
    return False


def matches_flavor_labels(spec: o.PodSpec, labels: dict[str, str]) -> bool:
    """The pod's required node affinity, restricted to the flavor's own label keys."""
    keys = set(labels)
    for k, v in spec.node_selector.items():
        if k in keys and labels.get(k) != v:
            return False
    terms: list[list[o.SelectorRequirement]] = []
    for term in spec.required_node_terms:
        exprs = [e for e in term.match_expressions if e.key in keys]
        if not exprs:
            terms = []  # an emptied term matches every node, and terms are ORed
            break
        terms.append(exprs)
    if terms:
        return any(all(requirement_matches(e, labels) for e in exprs) for exprs in terms)
    return True


def label_selector_matches(sel: o.LabelSelector | None, labels: dict[str, str]) -> bool:
    if sel is None:
        return False
    if any(labels.get(k) != v for k, v in sel.match_labels.items()):
        return False
    return all(requirement_matches(e, labels) for e in sel.match_expressions)


def flavor_problem(fname: str, flavor: o.ResourceFlavor | None, specs: Iterable[o.PodSpec]) -> str:
    """Why pods of these templates cannot use the flavor ("" when they can), in Kueue's words."""
    if flavor is None:
        return f"flavor {fname} not found"
    for spec in specs:
        taint = untolerated_taint(flavor.node_taints, spec.tolerations + flavor.tolerations)
        if taint is not None:
            return f"untolerated taint {{{taint.key} {taint.value} {taint.effect} <nil>}} in flavor {fname}"
        if not matches_flavor_labels(spec, flavor.node_labels):
            return f"flavor {fname} doesn't match node affinity"
    return ""


def allowed_flavors(wi: WorkloadInfo, config: EngineConfig) -> set[str] | None:
    """The flavors the workload's allowed-flavors annotation permits (None: no restriction)."""
    allowed = wi.obj.meta.annotations.get(ALLOWED_FLAVORS_ANNOTATION)
    if not config.gate("ConcurrentAdmission") or allowed is None:
        return None
    return {f.strip() for f in allowed.split(",") if f.strip()}


def ignores_undeclared(config: EngineConfig) -> bool:
    """QuotaCheckStrategy IgnoreUndeclared: resources no resource group covers are not checked."""
    return config.gate("QuotaCheckStrategy") and config.quota_check_strategy == "IgnoreUndeclared"
