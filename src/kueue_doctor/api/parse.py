"""Decoded YAML/JSON -> object model, for kueue.x-k8s.io v1beta1/v1beta2 and core kinds.

v1beta1 field names (``spec.cohort``, ``priorityClassName``, fungibility values
``Borrow``/``Preempt`` ...) are normalised to their v1beta2 meaning.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import yaml

from ..duration import duration
from ..errors import InputError
from ..kueue.constants import CHECK_STATES, POD_PRIORITY_CLASS_SOURCE, WORKLOAD_PRIORITY_CLASS_SOURCE
from ..kueue.podsready import check_block
from . import objects as o
from . import schema
from .fastparse import (
    TAINT_EFFECTS,
    fast_node,
    fast_pod,
    fast_workload,
    node_from_record,
    node_record,
    pod_from_record,
    pod_record,
    workload_from_record,
    workload_record,
)
from .fields import Fields, _type_name

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta1", "v1beta2")

PREEMPT_WITHIN_CQ = ("Never", "LowerPriority", "LowerOrNewerEqualPriority")
PREEMPT_RECLAIM = ("Never", "LowerPriority", "Any")
FUNGIBILITY = ("MayStopSearch", "TryNextFlavor")
_V1BETA1_FUNGIBILITY = {"Borrow": "MayStopSearch", "Preempt": "MayStopSearch"}


def object_ref(raw: Any) -> str:
    """``Kind/namespace/name`` (or ``Kind/name``) of a decoded object, best effort."""
    if not isinstance(raw, dict):
        return ""
    kind = raw.get("kind") if isinstance(raw.get("kind"), str) and raw.get("kind") else "?"
    m = raw.get("metadata")
    meta = m if isinstance(m, dict) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else "<unnamed>"
    ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else ""
    return f"{kind}/{ns}/{name}" if ns else f"{kind}/{name}"


def parse_meta(f: Fields, namespaced: bool) -> o.Meta:
    m = f.obj("metadata", required=True)
    name = m.str("name")
    if not name and m.str("generateName"):
        # A manifest not yet created: the API server would add a random suffix; ours is
        # derived from the content so that loading stays deterministic.
        digest = hashlib.sha1(json.dumps(f.data, sort_keys=True, default=str).encode()).hexdigest()
        name = m.str("generateName") + digest[:5]
    if not name:
        raise InputError("required field is missing" if "name" not in m.data else "must not be empty",
                         field="metadata.name")
    ns = m.str("namespace", "default" if namespaced else "")
    return o.Meta(
        name=name,
        namespace=ns if namespaced else "",
        uid=m.str("uid"),
        labels=m.str_map("labels"),
        annotations=m.str_map("annotations"),
        creation_timestamp=m.time("creationTimestamp"),
        deletion_timestamp=m.time("deletionTimestamp"),
        deletion_grace_period_seconds=m.int("deletionGracePeriodSeconds"),
        generation=m.int("generation", 0) or 0,
        resource_version=m.str("resourceVersion") if not isinstance(m.data.get("resourceVersion"), int)
        else str(m.data["resourceVersion"]),
        owner_references=[r.data for r in m.objs("ownerReferences")],
    )


def parse_conditions(f: Fields, key: str = "conditions") -> list[o.Condition]:
    return [o.Condition(type=c.str("type", required=True), status=c.str("status", required=True),
                        reason=c.str("reason"), message=c.str("message"),
                        last_transition_time=c.time("lastTransitionTime"))
            for c in f.objs(key)]


def _requirements(f: Fields, key: str) -> list[o.SelectorRequirement]:
    return [o.SelectorRequirement(key=r.str("key", required=True),
                                  operator=r.str("operator", required=True),
                                  values=r.strs("values"))
            for r in f.objs(key)]


def parse_label_selector(f: Fields) -> o.LabelSelector:
    return o.LabelSelector(match_labels=f.str_map("matchLabels"),
                           match_expressions=_requirements(f, "matchExpressions"))


def parse_tolerations(f: Fields, key: str = "tolerations") -> list[o.Toleration]:
    return [o.Toleration(key=t.str("key"), operator=t.str("operator", "Equal"),
                         value=t.str("value"), effect=t.str("effect"))
            for t in f.objs(key)]


def parse_taints(f: Fields, key: str) -> list[o.Taint]:
    return [o.Taint(key=t.str("key", required=True), value=t.str("value"),
                    effect=t.str("effect", required=True, choices=TAINT_EFFECTS))
            for t in f.objs(key)]


# -- pods ---------------------------------------------------------------------------------

def _container(c: Fields) -> o.Container:
    res = c.obj("resources")
    return o.Container(name=c.str("name"), requests=res.resources("requests"),
                       limits=res.resources("limits"), restart_policy=c.str("restartPolicy"))


def parse_pod_spec(f: Fields) -> o.PodSpec:
    aff = f.obj("affinity").obj("nodeAffinity").obj("requiredDuringSchedulingIgnoredDuringExecution")
    terms = [o.NodeSelectorTerm(match_expressions=_requirements(t, "matchExpressions"),
                                match_fields=_requirements(t, "matchFields"))
             for t in aff.objs("nodeSelectorTerms")]
    preferred = [(p.int("weight", 0), o.NodeSelectorTerm(
        match_expressions=_requirements(p.obj("preference"), "matchExpressions"),
        match_fields=_requirements(p.obj("preference"), "matchFields")))
        for p in f.obj("affinity").obj("nodeAffinity").objs("preferredDuringSchedulingIgnoredDuringExecution")]
    return o.PodSpec(
        containers=[_container(c) for c in f.objs("containers")],
        init_containers=[_container(c) for c in f.objs("initContainers")],
        overhead=f.resources("overhead"),
        node_selector=f.str_map("nodeSelector"),
        required_node_terms=terms,
        preferred_node_terms=preferred,
        tolerations=parse_tolerations(f),
        node_name=f.str("nodeName"),
        priority_class_name=f.str("priorityClassName"),
        priority=f.int("priority"),
        termination_grace_period_seconds=f.int("terminationGracePeriodSeconds", 30, minimum=0),
        scheduling_gates=[g.str("name", required=True) for g in f.objs("schedulingGates")],
    )


# -- Kueue kinds ---------------------------------------------------------------------------

def _resource_groups(spec: Fields) -> list[o.ResourceGroup]:
    groups = []
    for g in spec.objs("resourceGroups"):
        flavors = []
        for fl in g.objs("flavors", required=True):
            res = [o.ResourceQuota(name=r.str("name", required=True),
                                   nominal_quota=r.quantity("nominalQuota", required=True),
                                   borrowing_limit=r.quantity("borrowingLimit"),
                                   lending_limit=r.quantity("lendingLimit"))
                   for r in fl.objs("resources")]
            for r in res:
                if r.nominal_quota.value < 0:
                    raise InputError("must be non-negative", field=f"{fl.path}.resources.nominalQuota")
            flavors.append(o.FlavorQuotas(name=fl.str("name", required=True), resources=res))
        groups.append(o.ResourceGroup(covered_resources=g.strs("coveredResources"), flavors=flavors))
    return groups


def _weight(spec: Fields):
    return spec.obj("fairSharing").quantity("weight")


def parse_resource_flavor(f: Fields, version: str) -> o.ResourceFlavor:
    spec = f.obj("spec")
    return o.ResourceFlavor(meta=parse_meta(f, False), node_labels=spec.str_map("nodeLabels"),
                            node_taints=parse_taints(spec, "nodeTaints"),
                            tolerations=parse_tolerations(spec), topology_name=spec.str("topologyName"))


def _fungibility_value(f: Fields, key: str, default: str, version: str) -> str:
    v = f.str(key, default) or default
    if version == "v1beta1":
        v = _V1BETA1_FUNGIBILITY.get(v, v)
    if v not in FUNGIBILITY:
        raise InputError(f"unsupported value {v!r}: expected one of {', '.join(FUNGIBILITY)}",
                         field=f.where(key))
    return v


def parse_cluster_queue(f: Fields, version: str) -> o.ClusterQueue:
    spec = f.obj("spec")
    pre = spec.obj("preemption")
    bwc = None
    if pre.has("borrowWithinCohort"):
        b = pre.obj("borrowWithinCohort")
        bwc = o.BorrowWithinCohort(policy=b.str("policy", "Never", choices=("Never", "LowerPriority")) or "Never",
                                   max_priority_threshold=b.int("maxPriorityThreshold"))
    fung = spec.obj("flavorFungibility")
    pref = fung.str("preference") or None
    if pref is not None and pref not in ("BorrowingOverPreemption", "PreemptionOverBorrowing"):
        raise InputError(f"unsupported value {pref!r}", field=fung.where("preference"))
    cohort_key = "cohortName" if version == "v1beta2" else "cohort"
    if version == "v1beta1":
        checks = spec.strs("admissionChecks")
    else:
        checks = []
    check_flavors: dict[str, list[str]] = {}
    for c in spec.obj("admissionChecksStrategy").objs("admissionChecks"):
        name = c.str("name", required=True)
        checks.append(name)
        if c.strs("onFlavors"):
            check_flavors[name] = c.strs("onFlavors")
    st = f.obj("status")
    usage = []
    for key in ("flavorsReservation", "flavorsUsage"):
        entries = []
        for fl in st.objs(key):
            for r in fl.objs("resources"):
                entries.append(o.FlavorUsage(flavor=fl.str("name", required=True),
                                             resource=r.str("name", required=True),
                                             total=r.quantity("total") or o.Quantity(0),
                                             borrowed=r.quantity("borrowed") or o.Quantity(0)))
        usage.append(entries)
    status = o.ClusterQueueStatus(
        conditions=parse_conditions(st), pending_workloads=st.int("pendingWorkloads"),
        reserving_workloads=st.int("reservingWorkloads"), admitted_workloads=st.int("admittedWorkloads"),
        flavors_reservation=usage[0], flavors_usage=usage[1],
        weighted_share=st.obj("fairSharing").int("weightedShare"))
    return o.ClusterQueue(
        meta=parse_meta(f, False),
        cohort=spec.str(cohort_key),
        queueing_strategy=spec.str("queueingStrategy", "BestEffortFIFO",
                                   choices=("BestEffortFIFO", "StrictFIFO")) or "BestEffortFIFO",
        namespace_selector=parse_label_selector(spec.obj("namespaceSelector"))
        if "namespaceSelector" in spec.data and spec.data["namespaceSelector"] is not None else None,
        resource_groups=_resource_groups(spec),
        preemption=o.Preemption(
            within_cluster_queue=pre.str("withinClusterQueue", "Never", choices=PREEMPT_WITHIN_CQ) or "Never",
            reclaim_within_cohort=pre.str("reclaimWithinCohort", "Never", choices=(*PREEMPT_RECLAIM, "")) or "Never",
            borrow_within_cohort=bwc),
        flavor_fungibility=o.FlavorFungibility(
            when_can_borrow=_fungibility_value(fung, "whenCanBorrow", "MayStopSearch", version),
            when_can_preempt=_fungibility_value(fung, "whenCanPreempt", "TryNextFlavor", version),
            preference=pref),
        fair_sharing_weight=_weight(spec),
        stop_policy=spec.str("stopPolicy", "None", choices=("None", "Hold", "HoldAndDrain")) or "None",
        admission_checks=checks, admission_check_flavors=check_flavors,
        status=status,
        admission_mode=spec.obj("admissionScope").str("admissionMode"),
        concurrent_admission_policy=_concurrent_admission_policy(spec, version),
    )


def _concurrent_admission_policy(spec: Fields, version: str) -> o.ConcurrentAdmissionPolicy | None:
    """v1beta2 only: v1beta1 has no such field (Kueue's conversion drops it from v1beta1 reads)."""
    if version != "v1beta2" or not spec.has("concurrentAdmissionPolicy"):
        return None
    mig = spec.obj("concurrentAdmissionPolicy").obj("migration")
    mode = mig.str("mode", "TryPreferredFlavors", choices=("TryPreferredFlavors", "RetainFirstAdmission"))
    last = mig.obj("constraints").str("lastAcceptableFlavorName") or None
    return o.ConcurrentAdmissionPolicy(migration_mode=mode or "TryPreferredFlavors", last_acceptable_flavor=last)


def parse_cohort(f: Fields, version: str) -> o.Cohort:
    spec = f.obj("spec")
    parent = spec.str("parentName") or spec.str("parent")
    return o.Cohort(meta=parse_meta(f, False), parent=parent, resource_groups=_resource_groups(spec),
                    fair_sharing_weight=_weight(spec),
                    weighted_share=f.obj("status").obj("fairSharing").int("weightedShare"))


def parse_local_queue(f: Fields, version: str) -> o.LocalQueue:
    spec = f.obj("spec")
    afs = None
    st = f.obj("status").obj("fairSharing")
    if isinstance(st.data.get("admissionFairSharingStatus"), dict):
        a = st.obj("admissionFairSharingStatus")
        afs = o.AdmissionFairSharingStatus(consumed_resources=a.resources("consumedResources"),
                                           last_update=a.time("lastUpdate"))
    return o.LocalQueue(meta=parse_meta(f, True), cluster_queue=spec.str("clusterQueue", required=True),
                        stop_policy=spec.str("stopPolicy", "None") or "None",
                        fair_sharing_weight=_weight(spec), afs_status=afs)


def parse_priority_class(f: Fields, version: str) -> o.WorkloadPriorityClass:
    return o.WorkloadPriorityClass(meta=parse_meta(f, False), value=f.int("value", required=True),
                                   description=f.str("description"))


# -- topology-aware scheduling -------------------------------------------------------------

TOPOLOGY_ANNOTATIONS = {
    "required": "kueue.x-k8s.io/podset-required-topology",
    "preferred": "kueue.x-k8s.io/podset-preferred-topology",
    "unconstrained": "kueue.x-k8s.io/podset-unconstrained-topology",
    "sliceTopology": "kueue.x-k8s.io/podset-slice-required-topology",
    "sliceSize": "kueue.x-k8s.io/podset-slice-size",
}


def parse_topology(f: Fields, version: str) -> o.Topology:
    levels = [lv.str("nodeLabel", required=True) for lv in f.obj("spec").objs("levels", required=True)]
    if not levels:
        raise InputError("must list at least one level", field="spec.levels")
    return o.Topology(meta=parse_meta(f, False), levels=levels)


def parse_topology_request(tr: Fields | None, annotations: dict[str, str] | None = None) -> o.TopologyRequest | None:
    """A pod set's topologyRequest (same fields in v1beta1 and v1beta2; v1beta1 lacks the
    multi-layer list); without one, the pod-template annotations Kueue's job integrations read."""
    if tr is not None and tr.data:
        return o.TopologyRequest(
            required=tr.str("required") if tr.has("required") else None,
            preferred=tr.str("preferred") if tr.has("preferred") else None,
            unconstrained=tr.bool("unconstrained") if tr.has("unconstrained") else None,
            pod_index_label=tr.str("podIndexLabel") or None,
            sub_group_index_label=tr.str("subGroupIndexLabel") or None,
            sub_group_count=tr.int("subGroupCount", minimum=0),
            pod_set_group_name=tr.str("podSetGroupName") or None,
            slice_required_topology=tr.data.get("podSetSliceRequiredTopology")
            if tr.has("podSetSliceRequiredTopology") else None,
            slice_size=tr.int("podSetSliceSize"),
            slice_constraints=[o.SliceConstraint(c.str("topology", required=True), c.int("size", 0))
                               for c in tr.objs("podsetSliceRequiredTopologyConstraints")])
    ann = annotations or {}
    if not any(v in ann for v in TOPOLOGY_ANNOTATIONS.values()):
        return None
    size = ann.get(TOPOLOGY_ANNOTATIONS["sliceSize"])
    try:
        slice_size = int(size) if size is not None else None
    except ValueError:
        raise InputError(f"must be an integer, got {size!r}",
                         field=f"metadata.annotations[{TOPOLOGY_ANNOTATIONS['sliceSize']}]") from None
    return o.TopologyRequest(
        required=ann.get(TOPOLOGY_ANNOTATIONS["required"]),
        preferred=ann.get(TOPOLOGY_ANNOTATIONS["preferred"]),
        unconstrained=(ann[TOPOLOGY_ANNOTATIONS["unconstrained"]].lower() == "true")
        if TOPOLOGY_ANNOTATIONS["unconstrained"] in ann else None,
        slice_required_topology=ann.get(TOPOLOGY_ANNOTATIONS["sliceTopology"]),
        slice_size=slice_size)


def parse_topology_assignment(f: Fields) -> o.TopologyAssignment:
    """v1beta1 ``{levels, domains[{values, count}]}`` or v1beta2 ``{levels, slices[...]}``,
    decoded to the ordered domain list (upstream utiltas.InternalSeqFrom)."""
    levels = f.strs("levels")
    domains: list[o.TopologyDomainAssignment] = []
    if f.has("domains"):
        for d in f.objs("domains"):
            domains.append(o.TopologyDomainAssignment(tuple(d.strs("values")), d.int("count", 0, minimum=0)))
        return o.TopologyAssignment(levels=levels, domains=domains)
    for sl in f.objs("slices"):
        n = sl.int("domainCount", 0, minimum=0)
        per_level = sl.objs("valuesPerLevel")
        if len(per_level) != len(levels):
            raise InputError(f"must hold one entry per level ({len(levels)}), got {len(per_level)}",
                             field="slices[].valuesPerLevel")
        pc = sl.obj("podCounts")
        counts = [pc.int("universal", 0)] * n if pc.has("universal") else \
            [int(c) for c in pc.list("individual")]
        if len(counts) != n:
            raise InputError(f"must hold domainCount ({n}) counts, got {len(counts)}", field="slices[].podCounts")
        columns: list[list[str]] = []
        for lv in per_level:
            if lv.has("universal"):
                columns.append([lv.str("universal")] * n)
            else:
                ind = lv.obj("individual")
                roots = ind.strs("roots")
                if len(roots) != n:
                    raise InputError(f"must hold domainCount ({n}) roots, got {len(roots)}",
                                     field="slices[].valuesPerLevel[].individual.roots")
                columns.append([ind.str("prefix") + r + ind.str("suffix") for r in roots])
        for i in range(n):
            domains.append(o.TopologyDomainAssignment(tuple(c[i] for c in columns), counts[i]))
    return o.TopologyAssignment(levels=levels, domains=domains)


def parse_workload(f: Fields, version: str) -> o.Workload:
    spec = f.obj("spec")
    pod_sets = []
    for ps in spec.objs("podSets", required=True):
        count = ps.int("count", 1, minimum=0)
        min_count = ps.int("minCount", minimum=0)
        tmpl = ps.obj("template", required=True)
        pod_sets.append(o.PodSet(name=ps.str("name", "main") or "main", count=count, min_count=min_count,
                                 template=parse_pod_spec(tmpl.obj("spec")),
                                 topology_request=ps.data.get("topologyRequest"),
                                 topology=parse_topology_request(ps.obj("topologyRequest"),
                                                                 tmpl.obj("metadata").str_map("annotations"))))
    if not pod_sets:
        raise InputError("must list at least one pod set", field="spec.podSets")
    if version == "v1beta1":
        pc_name, pc_source = spec.str("priorityClassName"), spec.str("priorityClassSource")
    else:
        ref = spec.obj("priorityClassRef")
        pc_name = ref.str("name")
        kind = ref.str("kind")
        pc_source = (WORKLOAD_PRIORITY_CLASS_SOURCE if kind == "WorkloadPriorityClass"
                     else POD_PRIORITY_CLASS_SOURCE if kind else "")
    st = f.obj("status")
    admission = None
    if st.has("admission"):
        a = st.obj("admission")
        admission = o.Admission(
            cluster_queue=a.str("clusterQueue", required=True),
            pod_set_assignments=[o.PodSetAssignment(name=p.str("name", required=True), flavors=p.str_map("flavors"),
                                                    resource_usage=p.resources("resourceUsage"),
                                                    count=p.int("count", minimum=0),
                                                    topology_assignment=parse_topology_assignment(
                                                        p.obj("topologyAssignment"))
                                                    if p.has("topologyAssignment") else None,
                                                    delayed_topology_request=p.str("delayedTopologyRequest"))
                                 for p in a.objs("podSetAssignments")])
    requeue = None
    if st.has("requeueState"):
        r = st.obj("requeueState")
        requeue = o.RequeueState(count=r.int("count"), requeue_at=r.time("requeueAt"))
    status = o.WorkloadStatus(
        admission=admission, conditions=parse_conditions(st),
        reclaimable_pods={r.str("name", required=True): r.int("count", 0, minimum=0)
                          for r in st.objs("reclaimablePods")},
        requeue_state=requeue, admission_checks=[c.data for c in st.objs("admissionChecks")],
        unhealthy_nodes=[n.str("name", required=True) for n in st.objs("unhealthyNodes")],
        check_states=[parse_check_state(c) for c in st.objs("admissionChecks")])
    gates: list[str] = []
    if version == "v1beta2":  # v1beta1 has neither field (Kueue's conversion drops them from v1beta1 reads)
        gates = [g.str("name", required=True) for g in spec.objs("preemptionGates")]
        status.preemption_gates = {
            g.str("name", required=True): g.str("position", "Closed", choices=("Open", "Closed")) or "Closed"
            for g in st.objs("preemptionGates")}
    return o.Workload(meta=parse_meta(f, True), queue_name=spec.str("queueName"), pod_sets=pod_sets,
                      priority=spec.int("priority"), priority_class_name=pc_name, priority_class_source=pc_source,
                      active=spec.bool("active", True),
                      maximum_execution_time_seconds=spec.int("maximumExecutionTimeSeconds"), status=status,
                      preemption_gates=gates)


def parse_check_state(c: Fields) -> o.AdmissionCheckState:
    """One status.admissionChecks[] entry (both versions spell it the same)."""
    return o.AdmissionCheckState(
        name=c.str("name", required=True),
        state=c.str("state", required=True, choices=CHECK_STATES),
        message=c.str("message"), last_transition_time=c.time("lastTransitionTime"),
        pod_set_updates=[o.PodSetUpdate(name=u.str("name", required=True), labels=u.str_map("labels"),
                                        annotations=u.str_map("annotations"),
                                        node_selector=u.str_map("nodeSelector"),
                                        tolerations=parse_tolerations(u))
                         for u in c.objs("podSetUpdates")],
        retry_count=c.int("retryCount", minimum=0),
        requeue_after_seconds=c.int("requeueAfterSeconds", minimum=0))


def parse_admission_check(f: Fields, version: str) -> o.AdmissionCheck:
    spec = f.obj("spec")
    params = None
    if spec.has("parameters"):
        p = spec.obj("parameters")
        params = {"apiGroup": p.str("apiGroup"), "kind": p.str("kind"), "name": p.str("name")}
    return o.AdmissionCheck(meta=parse_meta(f, False), controller_name=spec.str("controllerName", required=True),
                            parameters=params, retry_delay_minutes=spec.int("retryDelayMinutes", minimum=0),
                            conditions=parse_conditions(f.obj("status")))


def parse_provisioning_request_config(f: Fields, version: str) -> o.ProvisioningRequestConfig:
    spec = f.obj("spec")
    rs = spec.obj("retryStrategy")
    return o.ProvisioningRequestConfig(
        meta=parse_meta(f, False), provisioning_class_name=spec.str("provisioningClassName", required=True),
        parameters=spec.str_map("parameters"), managed_resources=spec.strs("managedResources"),
        retry_strategy=o.ProvisioningRetryStrategy(
            backoff_limit_count=rs.int("backoffLimitCount", 3, minimum=0),
            backoff_base_seconds=rs.int("backoffBaseSeconds", 60, minimum=0),
            backoff_max_seconds=rs.int("backoffMaxSeconds", 1800, minimum=0)))


def parse_provisioning_request(f: Fields, version: str) -> o.ProvisioningRequest:
    spec = f.obj("spec")
    return o.ProvisioningRequest(
        meta=parse_meta(f, True), provisioning_class_name=spec.str("provisioningClassName"),
        pod_sets=[(ps.obj("podTemplateRef").str("name"), ps.int("count", 0, minimum=0))
                  for ps in spec.objs("podSets")],
        parameters=spec.str_map("parameters"), conditions=parse_conditions(f.obj("status")))


# -- core kinds ----------------------------------------------------------------------------

def parse_namespace(f: Fields, version: str) -> o.Namespace:
    return o.Namespace(meta=parse_meta(f, False))


def parse_limit_range(f: Fields, version: str) -> o.LimitRange:
    items = [o.LimitRangeItem(type=i.str("type", required=True), max=i.resources("max"), min=i.resources("min"),
                              default=i.resources("default"), default_request=i.resources("defaultRequest"),
                              max_limit_request_ratio=i.resources("maxLimitRequestRatio"))
             for i in f.obj("spec").objs("limits")]
    return o.LimitRange(meta=parse_meta(f, True), limits=items)


def parse_node(f: Fields, version: str) -> o.Node:
    spec, st = f.obj("spec"), f.obj("status")
    return o.Node(meta=parse_meta(f, False), capacity=st.resources("capacity"),
                  allocatable=st.resources("allocatable"), taints=parse_taints(spec, "taints"),
                  unschedulable=spec.bool("unschedulable"), conditions=parse_conditions(st))


def parse_pod(f: Fields, version: str) -> o.Pod:
    st = f.obj("status")
    return o.Pod(meta=parse_meta(f, True), spec=parse_pod_spec(f.obj("spec")), phase=st.str("phase"),
                 conditions=parse_conditions(st), start_time=st.time("startTime"),
                 container_statuses=[c.data for c in st.objs("containerStatuses")])


def parse_event(f: Fields, version: str) -> o.Event:
    if version == "events.k8s.io/v1":
        inv = f.obj("regarding")
        message, source = f.str("note"), f.str("reportingController")
        count = f.obj("series").int("count", 1) or 1
        first = f.time("eventTime") or f.time("deprecatedFirstTimestamp")
        last = f.obj("series").time("lastObservedTime") or f.time("deprecatedLastTimestamp") or first
    else:
        inv = f.obj("involvedObject")
        message, source = f.str("message"), f.obj("source").str("component") or f.str("reportingComponent")
        count = f.int("count", 1) or 1
        first = f.time("firstTimestamp") or f.time("eventTime")
        last = f.time("lastTimestamp") or first
    return o.Event(meta=parse_meta(f, True), involved_kind=inv.str("kind"), involved_namespace=inv.str("namespace"),
                   involved_name=inv.str("name"), reason=f.str("reason"), message=message, type=f.str("type"),
                   count=count, first_timestamp=first, last_timestamp=last, source=source)


def parse_job(f: Fields, version: str) -> o.Job:
    spec, st = f.obj("spec"), f.obj("status")
    return o.Job(meta=parse_meta(f, True), suspend=spec.bool("suspend"), parallelism=spec.int("parallelism", 1),
                 completions=spec.int("completions"), template=parse_pod_spec(spec.obj("template").obj("spec")),
                 active=st.int("active", 0), succeeded=st.int("succeeded", 0), failed=st.int("failed", 0),
                 conditions=parse_conditions(st), start_time=st.time("startTime"),
                 active_deadline_seconds=spec.int("activeDeadlineSeconds", None, minimum=0))


def parse_deployment(f: Fields, version: str) -> o.Deployment:
    spec = f.obj("spec")
    pod = spec.obj("template").obj("spec")
    images, args = [], []
    for c in pod.objs("containers"):
        images.append(c.str("image"))
        args += [a if isinstance(a, str) else str(a) for a in c.list("args")]
        args += [a for a in c.list("command")[1:] if isinstance(a, str)]
    return o.Deployment(meta=parse_meta(f, True), replicas=spec.int("replicas", 1), images=images, args=args,
                        ready_replicas=f.obj("status").int("readyReplicas", 0))


# libyaml's loader when PyYAML was built with it, else the pure-Python one (same behaviour).
class _ConfigLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe loading, plus the OrderedDict tag some Helm charts leave in the Kueue config
    (PyYAML-dumped OrderedDicts): read as a plain mapping, nothing is executed."""


def _ordered_dict(loader, node):
    pairs = loader.construct_sequence(node.value[0], deep=True) if node.value else []
    return dict(pairs)


_ConfigLoader.add_constructor("tag:yaml.org,2002:python/object/apply:collections.OrderedDict", _ordered_dict)

CONFIG_KEYS = ("controller_manager_config.yaml", "config.yaml")


def parse_configmap(f: Fields, version: str) -> o.ConfigMap:
    return o.ConfigMap(meta=parse_meta(f, True), data=f.str_map("data"))


def parse_kueue_configuration(f: Fields, version: str, meta: o.Meta | None = None) -> o.KueueConfiguration:
    fs = f.obj("fairSharing")
    if "fairSharing" in f.data and f.data["fairSharing"] is not None:
        # v1beta1 needs enable: true; v1beta2 enables fair sharing by the block's presence.
        enabled = fs.bool("enable", False) if version.endswith("v1beta1") else fs.bool("enable", True)
    else:
        enabled = False
    strategies = fs.strs("preemptionStrategies") or ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]
    gates = {}
    for k, v in f.obj("featureGates").data.items():
        if not isinstance(v, bool):
            raise InputError(f"must be true or false, got {v!r}", field=f"featureGates.{k}")
        gates[str(k)] = v
    wfpr = f.data.get("waitForPodsReady")
    if wfpr is not None and not isinstance(wfpr, dict):
        raise InputError(f"must be an object, got {_type_name(wfpr)}", field="waitForPodsReady")
    if wfpr is not None:
        try:
            check_block(wfpr)
        except ValueError as e:
            where, _, problem = str(e).partition(": ")
            raise InputError(problem, field=where) from None
    res = f.obj("resources")
    if res.str("quotaCheckStrategy") == "IgnoreUndeclared" and res.strs("excludeResourcePrefixes"):
        # pkg/config/validation.go: Kueue refuses to start with both
        raise InputError("excludeResourcePrefixes is not allowed when quotaCheckStrategy is IgnoreUndeclared",
                         field=res.where("quotaCheckStrategy"))
    afs = None
    if isinstance(f.data.get("admissionFairSharing"), dict):
        afs = parse_admission_fair_sharing(f.obj("admissionFairSharing"))
    return o.KueueConfiguration(
        meta=meta or o.Meta(name="kueue-config"),
        fair_sharing=o.FairSharingConfig(enabled=enabled, preemption_strategies=strategies),
        feature_gates=gates, wait_for_pods_ready=wfpr,
        exclude_resource_prefixes=res.strs("excludeResourcePrefixes"),
        resource_transformations=parse_resource_transformations(res),
        quota_check_strategy=res.str("quotaCheckStrategy", "BlockUndeclared") or "BlockUndeclared",
        admission_fair_sharing=afs,
        raw=f.data, api_version=version if "/" in version else f"config.kueue.x-k8s.io/{version}")


def parse_resource_transformations(res: Fields) -> list[o.ResourceTransformation]:
    """Configuration resources.transformations, defaulted and validated as Kueue does at start
    (apis/config/v1beta2 defaults.go: strategy Retain; pkg/config validation.go
    validateResourceTransformations: Retain or Replace, one entry per input)."""
    out: list[o.ResourceTransformation] = []
    seen: set[str] = set()
    for t in res.objs("transformations"):
        name = t.str("input", required=True)
        strategy = t.str("strategy", "Retain") or "Retain"
        if strategy not in ("Retain", "Replace"):
            raise InputError(f'unsupported value "{strategy}": supported values: "Retain", "Replace"',
                             field=t.where("strategy"))
        if name in seen:
            raise InputError(f'duplicate value "{name}"', field=t.where("input"))
        seen.add(name)
        out.append(o.ResourceTransformation(input=name, strategy=strategy, outputs=t.resources("outputs"),
                                            multiply_by=t.str("multiplyBy")))
    return out


def parse_admission_fair_sharing(a: Fields) -> o.AdmissionFairSharingConfig:
    """Configuration admissionFairSharing, defaulted as Kueue does (usageSamplingInterval 5 min)."""
    half = a.data.get("usageHalfLifeTime")
    sampling = a.data.get("usageSamplingInterval")
    weights: dict[str, float] = {}
    for k, v in a.obj("resourceWeights").data.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise InputError(f"must be a number, got {_type_name(v)}", field=f"{a.where('resourceWeights')}.{k}")
        weights[str(k)] = float(v)
    interval = duration(sampling, a.where("usageSamplingInterval")) if sampling not in (None, "") else 0.0
    return o.AdmissionFairSharingConfig(
        usage_half_life_time=duration(half, a.where("usageHalfLifeTime")) if half not in (None, "") else 0.0,
        usage_sampling_interval=interval or 300.0,
        resource_weights=weights)


def configuration_from_configmap(cm: o.ConfigMap) -> o.KueueConfiguration | None:
    """The Kueue Configuration embedded in a ConfigMap, if this ConfigMap holds one."""
    for key in CONFIG_KEYS:
        text = cm.data.get(key)
        if text is None:
            continue
        try:
            doc = yaml.load(text, Loader=_ConfigLoader)
        except yaml.MarkedYAMLError as e:
            mark = e.problem_mark or e.context_mark
            where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
            raise InputError(f"{where}invalid YAML in the embedded Configuration: "
                             f"{e.problem or e.context or 'cannot parse'}", field=f"data.{key}") from None
        except yaml.YAMLError as e:
            raise InputError(f"invalid YAML in the embedded Configuration: {str(e).splitlines()[0]}",
                             field=f"data.{key}") from None
        if not isinstance(doc, dict) or doc.get("kind") != "Configuration":
            continue
        api_version = doc.get("apiVersion", "config.kueue.x-k8s.io/v1beta1")
        try:
            return parse_kueue_configuration(Fields(doc), str(api_version), cm.meta)
        except InputError as e:
            e.field = f"data.{key}: {e.field}" if e.field else f"data.{key}"
            raise
    return None


Parser = Callable[[Fields, str], Any]

# (kind) -> (accepted apiVersions, parser, namespaced)
KINDS: dict[str, tuple[tuple[str, ...], Parser]] = {
    "ResourceFlavor": (tuple(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS), parse_resource_flavor),
    "Topology": (tuple(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS), parse_topology),
    "ClusterQueue": (tuple(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS), parse_cluster_queue),
    "Cohort": ((*(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS), f"{KUEUE_GROUP}/v1alpha1"), parse_cohort),
    "LocalQueue": (tuple(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS), parse_local_queue),
    "Workload": (tuple(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS), parse_workload),
    "WorkloadPriorityClass": (tuple(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS), parse_priority_class),
    "AdmissionCheck": (tuple(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS), parse_admission_check),
    "ProvisioningRequestConfig": (tuple(f"{KUEUE_GROUP}/{v}" for v in KUEUE_VERSIONS),
                                  parse_provisioning_request_config),
    "ProvisioningRequest": (("autoscaling.x-k8s.io/v1", "autoscaling.x-k8s.io/v1beta1"), parse_provisioning_request),
    "Namespace": (("v1",), parse_namespace),
    "LimitRange": (("v1",), parse_limit_range),
    "Node": (("v1",), parse_node),
    "Pod": (("v1",), parse_pod),
    "Event": (("v1", "events.k8s.io/v1"), parse_event),
    "Job": (("batch/v1",), parse_job),
    "Deployment": (("apps/v1",), parse_deployment),
    "ConfigMap": (("v1",), parse_configmap),
    "Configuration": (("config.kueue.x-k8s.io/v1beta1", "config.kueue.x-k8s.io/v1beta2"),
                      lambda f, v: parse_kueue_configuration(f, v)),
}


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:56] + "..."


class UnknownKind(Exception):
    """Not a kind kueue-doctor reads; callers skip and count it."""


def _served(raw: dict) -> bool:
    """Read back from an API server (uid, resourceVersion and creationTimestamp are set by the
    server only): the server validated it against the same CRD schema when it was written, so
    checking it again would only cost time - most of the time on a 100,000-workload dump."""
    m = raw.get("metadata")
    return isinstance(m, dict) and bool(m.get("uid")) and bool(m.get("resourceVersion")) \
        and bool(m.get("creationTimestamp"))


def _type_field(raw: dict[str, Any], key: str, ref: str) -> str:
    """``kind`` or ``apiVersion``: a non-empty string."""
    value = raw.get(key)
    if not isinstance(value, str) or not value:
        raise InputError("required field is missing" if value is None else
                         "must not be empty" if value == "" else f"must be a string, got {value!r}",
                         obj=ref, field=key)
    return value


def parse_object(raw: Any) -> Any:
    """One decoded object -> model object. Raises InputError (bad) or UnknownKind (skip)."""
    if not isinstance(raw, dict):
        raise InputError(f"not a Kubernetes object: got {_type_name(raw)} {_short(raw)} "
                         "(expected a mapping with apiVersion and kind)")
    kind, api_version = raw.get("kind"), raw.get("apiVersion")
    if not (isinstance(kind, str) and kind and isinstance(api_version, str) and api_version):
        kind = _type_field(raw, "kind", object_ref(raw))
        api_version = _type_field(raw, "apiVersion", object_ref(raw))
    entry = KINDS.get(kind)
    if entry is None:
        raise UnknownKind(f"{api_version} {kind}")
    versions, parser = entry
    if api_version not in versions:
        group = api_version.rpartition("/")[0]
        known_groups = {v.rpartition("/")[0] for v in versions}
        if group not in known_groups:
            raise UnknownKind(f"{api_version} {kind}")
        raise InputError(f"unsupported apiVersion {api_version!r} for {kind} (expected {' or '.join(versions)})",
                         obj=object_ref(raw), field="apiVersion")
    version = api_version.rpartition("/")[2]
    try:
        if api_version.startswith(KUEUE_GROUP + "/") and not _served(raw):
            # What the API server would reject is reported as it would report it, before
            # the parser meets the same field with a less precise message.
            schema.validate(raw, kind, version)
        obj = (fast_workload(raw, version) if kind == "Workload"
               else fast_pod(raw) if kind == "Pod" else fast_node(raw) if kind == "Node" else None)
        if obj is None:
            obj = parser(Fields(raw), version if kind != "Event" else api_version)
    except InputError as e:
        raise e.located(obj=object_ref(raw)) from None
    return obj


# -- objects read in a forked worker (api/load.py stream_documents) -----------------------------
_FROM_RECORD = {"Workload": workload_from_record, "Pod": pod_from_record, "Node": node_from_record}


def object_record(raw: Any) -> tuple | None:
    """What ``parse_object`` builds of ``raw``, as plain data that marshal carries (``from_record``
    builds the object of it), where the fast path reads it and no schema check comes first: a
    Workload read back from an API server, a Pod, a Node; None for anything else."""
    if type(raw) is not dict:
        return None
    kind, api_version = raw.get("kind"), raw.get("apiVersion")
    if kind not in _FROM_RECORD or type(api_version) is not str or api_version not in KINDS[kind][0]:
        return None
    if kind == "Pod":
        record = pod_record(raw)
    elif kind == "Node":
        record = node_record(raw)
    elif _served(raw):   # (else parse_object validates it against the schema first)
        record = workload_record(raw, api_version.rpartition("/")[2])
    else:
        return None
    return None if record is None else (kind, record)


def from_record(record: tuple) -> Any:
    """The object an ``object_record`` describes, as ``parse_object`` builds it."""
    return _FROM_RECORD[record[0]](record[1])


def records_of(items: list[Any]) -> list[Any]:
    """The items of a decoded List, each as its ``object_record`` where it has one, else as decoded
    (a decoded item is never a tuple)."""
    return [object_record(raw) or raw for raw in items]
