"""A fast path for the kinds that come by the hundred thousand: Workloads and Pods.

It reads the common, well-formed shape straight from the decoded dict. Anything outside that
shape (a field of an unexpected type, node affinity, init containers, ...) makes it give up
(``None``) and the careful parser in parse.py runs instead, which is also what words every
error. For the inputs it accepts it builds exactly what the careful parser builds
(tests/api/test_fastparse.py compares both on every Workload in the repository).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, overload

from ..kueue.constants import POD_PRIORITY_CLASS_SOURCE, WORKLOAD_PRIORITY_CLASS_SOURCE
from . import objects as o
from .fields import to_time
from .quantity import Quantity, QuantityError, _parse_cached

# pod-spec fields whose reading is involved enough to leave to the careful parser
_POD_DEFER = ("initContainers", "overhead", "affinity")


class _GiveUp(Exception):
    pass


def _str(v: Any, default: str = "") -> str:
    if v is None:
        return default
    if not isinstance(v, str):
        raise _GiveUp
    return v


@overload
def _int(v: Any, default: int, minimum: int | None = ...) -> int: ...
@overload
def _int(v: Any, default: None = ..., minimum: int | None = ...) -> int | None: ...


def _int(v: Any, default: int | None = None, minimum: int | None = None) -> int | None:
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, int):
        raise _GiveUp
    if minimum is not None and v < minimum:
        raise _GiveUp
    return v


def _str_map(v: Any) -> dict[str, str]:
    if v is None:
        return {}
    if type(v) is not dict:
        raise _GiveUp
    for k, x in v.items():   # a loop, not all(genexpr): about 350,000 maps on a large cluster
        if type(k) is not str or type(x) is not str:
            raise _GiveUp
    return dict(v)


def _resources(v: Any) -> dict[str, Quantity]:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise _GiveUp
    out = {}
    for k, x in v.items():
        if x is None:
            continue
        try:
            if type(x) is str:   # what kubectl writes: straight to the shared cache of parsed strings
                out[k if type(k) is str else str(k)] = _parse_cached(x)
                continue
            if isinstance(x, bool) or not isinstance(x, (str, int)):
                raise _GiveUp
            out[str(k)] = Quantity.parse(x)
        except QuantityError:
            raise _GiveUp from None
    return out


@lru_cache(maxsize=16384)
def _parsed_time(v: str):
    # a large cluster repeats its timestamps (a controller's burst of admissions, every condition
    # of one reconcile); a datetime is immutable, so one serves them all. Errors are not cached.
    return to_time(v, "")


def _time(v: Any):
    if v is None:
        return None
    if type(v) is not str:
        raise _GiveUp
    return _parsed_time(v)


def _meta_str(m: dict, key: str, default: str = "") -> str:
    v = m.get(key)
    if v is None:
        return default
    if type(v) is not str:
        raise _GiveUp
    return v


def _dict(v: Any) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise _GiveUp
    return v


def _list(v: Any) -> list:
    if v is None:
        return []
    if not isinstance(v, list):
        raise _GiveUp
    return v


def _meta(raw: dict) -> o.Meta:
    m = raw.get("metadata")
    if type(m) is not dict:   # (no metadata: no name, which the careful parser words)
        raise _GiveUp
    name = m.get("name")
    if type(name) is not str or not name:
        raise _GiveUp
    rv = m.get("resourceVersion")
    refs = m.get("ownerReferences")
    if refs is None:
        refs = []
    elif type(refs) is not list or any(type(r) is not dict for r in refs):
        raise _GiveUp
    labels, annotations = m.get("labels"), m.get("annotations")
    created, deleted = m.get("creationTimestamp"), m.get("deletionTimestamp")
    grace = m.get("deletionGracePeriodSeconds")
    generation = m.get("generation")
    return o.Meta(name, _meta_str(m, "namespace", "default"), _meta_str(m, "uid"),
                  {} if labels is None else _str_map(labels), {} if annotations is None else _str_map(annotations),
                  None if created is None else _time(created), None if deleted is None else _time(deleted),
                  None if grace is None else _int(grace),
                  0 if generation is None else (_int(generation, 0) or 0),
                  "" if rv is None else str(rv) if type(rv) is int else _str(rv),
                  refs)


def _container(c: Any) -> o.Container:
    if type(c) is not dict:
        raise _GiveUp
    res = c.get("resources")
    if res is None:
        requests: dict[str, Quantity] = {}
        limits: dict[str, Quantity] = {}
    elif type(res) is not dict:
        raise _GiveUp
    else:
        r, lim = res.get("requests"), res.get("limits")
        requests = {} if r is None else _resources(r)
        limits = {} if lim is None else _resources(lim)
    return o.Container(_meta_str(c, "name"), requests, limits, _meta_str(c, "restartPolicy"))


def _pod_spec(spec: dict) -> o.PodSpec:
    if spec.get("initContainers") or spec.get("overhead") or spec.get("affinity"):   # _POD_DEFER
        raise _GiveUp
    containers = [_container(c) for c in _list(spec.get("containers"))]
    tolerations = []
    for t in _list(spec.get("tolerations")) if "tolerations" in spec else ():
        if not isinstance(t, dict):
            raise _GiveUp
        tolerations.append(o.Toleration(key=_str(t.get("key")), operator=_str(t.get("operator"), "Equal"),
                                        value=_str(t.get("value")), effect=_str(t.get("effect"))))
    gates = []
    for g in _list(spec.get("schedulingGates")) if "schedulingGates" in spec else ():
        if not isinstance(g, dict) or not isinstance(g.get("name"), str):
            raise _GiveUp
        gates.append(g["name"])
    return o.PodSpec(containers=containers, node_selector=_str_map(spec.get("nodeSelector")),
                     tolerations=tolerations, node_name=_str(spec.get("nodeName")),
                     priority_class_name=_str(spec.get("priorityClassName")), priority=_int(spec.get("priority")),
                     termination_grace_period_seconds=_int(spec.get("terminationGracePeriodSeconds"), 30, 0),
                     scheduling_gates=gates)


def fast_pod(raw: dict) -> o.Pod | None:
    try:
        st = _dict(raw.get("status"))
        statuses = _list(st.get("containerStatuses"))
        if not all(isinstance(c, dict) for c in statuses):
            raise _GiveUp
        return o.Pod(meta=_meta(raw), spec=_pod_spec(_dict(raw.get("spec"))), phase=_str(st.get("phase")),
                     conditions=_conditions(st.get("conditions")), start_time=_time(st.get("startTime")),
                     container_statuses=list(statuses))
    except (_GiveUp, ValueError, TypeError, AttributeError):
        return None
    except Exception as e:
        if type(e).__name__ == "InputError":
            return None
        raise


def _conditions(v: Any) -> list[o.Condition]:
    out = []
    for c in _list(v):
        if type(c) is not dict:
            raise _GiveUp
        ctype, status, t = c.get("type"), c.get("status"), c.get("lastTransitionTime")
        if type(ctype) is not str or type(status) is not str:
            raise _GiveUp
        out.append(o.Condition(ctype, status, _meta_str(c, "reason"), _meta_str(c, "message"),
                               None if t is None else _time(t)))
    return out


def fast_workload(raw: dict, version: str) -> o.Workload | None:
    try:
        return _workload(raw, version)
    except (_GiveUp, ValueError, TypeError, AttributeError):
        return None
    except Exception as e:  # an InputError from to_time: let the careful parser word it
        if type(e).__name__ == "InputError":
            return None
        raise


def _workload(raw: dict, version: str) -> o.Workload:
    spec = _dict(raw.get("spec"))
    pod_sets = []
    for ps in _list(spec.get("podSets")):
        if not isinstance(ps, dict):
            raise _GiveUp
        tmpl = ps.get("template")
        annotations = _dict(_dict(tmpl.get("metadata")).get("annotations")) if isinstance(tmpl, dict) else {}
        if not isinstance(tmpl, dict) or ps.get("topologyRequest") or \
                (annotations and any(k.startswith("kueue.x-k8s.io/podset-") for k in annotations)):
            raise _GiveUp  # topology requests (and the annotations that may carry one): parse.py
        pod_sets.append(o.PodSet(name=_str(ps.get("name"), "main") or "main", count=_int(ps.get("count"), 1, 0),
                                 min_count=_int(ps.get("minCount"), None, 0),
                                 template=_pod_spec(_dict(tmpl.get("spec"))),
                                 topology_request=ps.get("topologyRequest")))
    if not pod_sets:
        raise _GiveUp
    if version == "v1beta1":
        pc_name, pc_source = _str(spec.get("priorityClassName")), _str(spec.get("priorityClassSource"))
    else:
        ref = _dict(spec.get("priorityClassRef"))
        pc_name, kind = _str(ref.get("name")), _str(ref.get("kind"))
        pc_source = (WORKLOAD_PRIORITY_CLASS_SOURCE if kind == "WorkloadPriorityClass"
                     else POD_PRIORITY_CLASS_SOURCE if kind else "")
    st = _dict(raw.get("status"))
    if st.get("requeueState") is not None or st.get("reclaimablePods") or st.get("unhealthyNodes"):
        raise _GiveUp
    if spec.get("preemptionGates") or st.get("preemptionGates"):
        raise _GiveUp  # rare: the careful parser reads them (v1beta2 only)
    admission = None
    if st.get("admission") is not None:
        a = _dict(st["admission"])
        cq = a.get("clusterQueue")
        if not isinstance(cq, str):
            raise _GiveUp
        psas = []
        for p in _list(a.get("podSetAssignments")):
            if not isinstance(p, dict) or not isinstance(p.get("name"), str) or "topologyAssignment" in p \
                    or "delayedTopologyRequest" in p:
                raise _GiveUp
            psas.append(o.PodSetAssignment(name=p["name"], flavors=_str_map(p.get("flavors")),
                                           resource_usage=_resources(p.get("resourceUsage")),
                                           count=_int(p.get("count"), None, 0)))
        admission = o.Admission(cluster_queue=cq, pod_set_assignments=psas)
    checks = _list(st.get("admissionChecks"))
    if checks:
        raise _GiveUp   # parse.py reads admission check states (typed, with their times)
    active = spec.get("active", True)
    if active is None:
        active = True
    if not isinstance(active, bool):
        raise _GiveUp
    status = o.WorkloadStatus(admission=admission, conditions=_conditions(st.get("conditions")),
                              admission_checks=list(checks))
    return o.Workload(meta=_meta(raw), queue_name=_str(spec.get("queueName")), pod_sets=pod_sets,
                      priority=_int(spec.get("priority")), priority_class_name=pc_name, priority_class_source=pc_source,
                      active=active, maximum_execution_time_seconds=_int(spec.get("maximumExecutionTimeSeconds")),
                      status=status)
