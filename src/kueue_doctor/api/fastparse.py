"""A fast path for the kinds that come by the thousand: Workloads, Pods and Nodes.

It reads the common, well-formed shape straight from the decoded dict. Anything outside that
shape (a field of an unexpected type, node affinity, init containers, ...) makes it give up
(``None``) and the careful parser in parse.py runs instead, which is also what words every
error. For the inputs it accepts it builds exactly what the careful parser builds
(tests/api/test_fastparse.py compares both on every Workload in the repository).
"""
from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, overload

from ..kueue.constants import POD_PRIORITY_CLASS_SOURCE, WORKLOAD_PRIORITY_CLASS_SOURCE
from . import objects as o
from .fields import to_time
from .quantity import Quantity, QuantityError, _parse_cached

# pod-spec fields whose reading is involved enough to leave to the careful parser
_POD_DEFER = ("initContainers", "overhead", "affinity")
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


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


@lru_cache(maxsize=16384)
def _parsed_time(v: str):
    # a large cluster repeats its timestamps (a controller's burst of admissions, every condition
    # of one reconcile); a datetime is immutable, so one serves them all. Errors are not cached.
    return to_time(v, "")


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


def _or_none(read: Callable[..., tuple]) -> Callable[..., tuple | None]:
    """``read``, None where it gives up: the careful parser is then to read the object (and word
    its error, an InputError from to_time included)."""
    @wraps(read)
    def record(raw: dict, *args: Any) -> tuple | None:
        try:
            return read(raw, *args)
        except (_GiveUp, ValueError, TypeError, AttributeError):
            return None
        except Exception as e:
            if type(e).__name__ == "InputError":
                return None
            raise
    return record


# -- records: the typed objects as plain tuples ------------------------------------------------
# Reading is done in two steps: ``*_record`` checks the decoded dict and takes what the typed
# object holds as plain data (tuples, lists, dicts, strings, numbers: what marshal carries, with
# a quantity or a time still as its text, checked already), and ``*_from_record`` builds the
# typed object. A forked worker that decoded a part of a large List can so do the first step
# too and send the records back marshalled (a tenth of pickling the typed objects), leaving this
# process only the building (api/load.py stream_documents). The two steps always run together
# otherwise: there is one fast path, whichever process takes its first step.


# The keys of the shape a generated object takes (a Workload a Job integration made, as kubectl
# prints it): a mapping with no other key is read without asking it for the fields it lacks,
# with what a missing field reads as (some forty lookups of absent keys per Workload).
_PLAIN_META = frozenset(("name", "namespace", "uid", "resourceVersion", "creationTimestamp"))
_PLAIN_POD_SPEC = frozenset(("containers",))
_PLAIN_POD_SET = frozenset(("name", "count", "template"))
_PLAIN_SPEC = frozenset(("podSets", "priority", "queueName"))
_PLAIN_STATUS = frozenset(("admission", "conditions"))


def _meta_record(raw: dict) -> tuple:
    m = raw.get("metadata")
    if type(m) is not dict:   # (no metadata: no name, which the careful parser words)
        raise _GiveUp
    name = m.get("name")
    if type(name) is not str or not name:
        raise _GiveUp
    rv = m.get("resourceVersion")
    if _PLAIN_META.issuperset(m):
        created = m.get("creationTimestamp")
        return (name, _meta_str(m, "namespace", "default"), _meta_str(m, "uid"), {}, {},
                None if created is None else _time_text(created), None, None, 0,
                "" if rv is None else str(rv) if type(rv) is int else _str(rv), [])
    refs = m.get("ownerReferences")
    if refs is None:
        refs = []
    elif type(refs) is not list or any(type(r) is not dict for r in refs):
        raise _GiveUp
    labels, annotations = m.get("labels"), m.get("annotations")
    created, deleted = m.get("creationTimestamp"), m.get("deletionTimestamp")
    grace = m.get("deletionGracePeriodSeconds")
    generation = m.get("generation")
    return (name, _meta_str(m, "namespace", "default"), _meta_str(m, "uid"),
            {} if labels is None else _str_map(labels), {} if annotations is None else _str_map(annotations),
            None if created is None else _time_text(created), None if deleted is None else _time_text(deleted),
            None if grace is None else _int(grace),
            0 if generation is None else (_int(generation, 0) or 0),
            "" if rv is None else str(rv) if type(rv) is int else _str(rv),
            refs)


def _meta_from_record(r: tuple) -> o.Meta:
    created, deleted = r[5], r[6]
    return o.Meta(r[0], r[1], r[2], r[3], r[4], None if created is None else _parsed_time(created),
                  None if deleted is None else _parsed_time(deleted), r[7], r[8], r[9], r[10])


def _time_text(v: Any) -> str:
    """A time's text, once it is known to read (its datetime is made from it again, cached)."""
    if type(v) is not str:
        raise _GiveUp
    _parsed_time(v)
    return v


def _resources_record(v: Any) -> dict[str, Any]:
    """``_resources`` as texts (and integers) known to parse."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise _GiveUp
    out: dict[str, Any] = {}
    for k, x in v.items():
        if x is None:
            continue
        try:
            if type(x) is str:
                _parse_cached(x)
                out[k if type(k) is str else str(k)] = x
                continue
            if isinstance(x, bool) or not isinstance(x, (str, int)):
                raise _GiveUp
            Quantity.parse(x)
            out[str(k)] = x
        except QuantityError:
            raise _GiveUp from None
    return out


def _resources_from_record(r: dict[str, Any]) -> dict[str, Quantity]:
    return {k: _parse_cached(x) if type(x) is str else Quantity.parse(x) for k, x in r.items()}


def _container_record(c: Any) -> tuple:
    if type(c) is not dict:
        raise _GiveUp
    res = c.get("resources")
    if res is None:
        requests: dict[str, Any] = {}
        limits: dict[str, Any] = {}
    elif type(res) is not dict:
        raise _GiveUp
    else:
        r, lim = res.get("requests"), res.get("limits")
        requests = {} if r is None else _resources_record(r)
        limits = {} if lim is None else _resources_record(lim)
    return (_meta_str(c, "name"), requests, limits, _meta_str(c, "restartPolicy"))


def _pod_spec_record(spec: dict) -> tuple:
    if _PLAIN_POD_SPEC.issuperset(spec):
        return ([_container_record(c) for c in _list(spec.get("containers"))], {}, [], "", "", None, 30, [])
    if spec.get("initContainers") or spec.get("overhead") or spec.get("affinity"):   # _POD_DEFER
        raise _GiveUp
    containers = [_container_record(c) for c in _list(spec.get("containers"))]
    tolerations = []
    for t in _list(spec.get("tolerations")) if "tolerations" in spec else ():
        if not isinstance(t, dict):
            raise _GiveUp
        tolerations.append((_str(t.get("key")), _str(t.get("operator"), "Equal"), _str(t.get("value")),
                            _str(t.get("effect"))))
    gates = []
    for g in _list(spec.get("schedulingGates")) if "schedulingGates" in spec else ():
        if not isinstance(g, dict) or not isinstance(g.get("name"), str):
            raise _GiveUp
        gates.append(g["name"])
    return (containers, _str_map(spec.get("nodeSelector")), tolerations, _str(spec.get("nodeName")),
            _str(spec.get("priorityClassName")), _int(spec.get("priority")),
            _int(spec.get("terminationGracePeriodSeconds"), 30, 0), gates)


def _pod_spec_from_record(r: tuple) -> o.PodSpec:
    # positional, every field given: keywords and default factories cost twice as much, on
    # 100,000 templates (tests/api/test_fastparse.py sets every field, so an order that is not
    # the dataclass's fails there)
    return o.PodSpec([o.Container(c[0], _resources_from_record(c[1]), _resources_from_record(c[2]), c[3])
                      for c in r[0]],
                     [], {}, r[1], [], [o.Toleration(*t) for t in r[2]], [], r[3], r[4], r[5], r[6], r[7])


def _conditions_record(v: Any) -> list[tuple]:
    out = []
    for c in _list(v):
        if type(c) is not dict:
            raise _GiveUp
        ctype, status, t = c.get("type"), c.get("status"), c.get("lastTransitionTime")
        if type(ctype) is not str or type(status) is not str:
            raise _GiveUp
        out.append((ctype, status, _meta_str(c, "reason"), _meta_str(c, "message"),
                    None if t is None else _time_text(t)))
    return out


def _conditions_from_record(r: list[tuple]) -> list[o.Condition]:
    return [o.Condition(c[0], c[1], c[2], c[3], None if c[4] is None else _parsed_time(c[4])) for c in r]


def _pod_record(raw: dict) -> tuple:
    st = _dict(raw.get("status"))
    statuses = _list(st.get("containerStatuses"))
    if not all(isinstance(c, dict) for c in statuses):
        raise _GiveUp
    start = st.get("startTime")
    return (_meta_record(raw), _pod_spec_record(_dict(raw.get("spec"))), _str(st.get("phase")),
            _conditions_record(st.get("conditions")), None if start is None else _time_text(start),
            list(statuses))


pod_record = _or_none(_pod_record)


def pod_from_record(r: tuple) -> o.Pod:
    return o.Pod(_meta_from_record(r[0]), _pod_spec_from_record(r[1]), r[2], _conditions_from_record(r[3]),
                 None if r[4] is None else _parsed_time(r[4]), r[5])


def fast_pod(raw: dict) -> o.Pod | None:
    r = pod_record(raw)
    return None if r is None else pod_from_record(r)


def _node_record(raw: dict) -> tuple:
    """What parse.parse_node builds, as plain data (a Node's metadata carries many labels and
    annotations, which the careful parser reads field by field)."""
    spec, st = _dict(raw.get("spec")), _dict(raw.get("status"))
    taints = []
    for t in _list(spec.get("taints")):
        if type(t) is not dict:
            raise _GiveUp
        key, effect = t.get("key"), t.get("effect")
        if type(key) is not str or type(effect) is not str or effect not in TAINT_EFFECTS:
            raise _GiveUp
        taints.append((key, _str(t.get("value")), effect))
    unschedulable = spec.get("unschedulable")
    if unschedulable is None:
        unschedulable = False
    elif type(unschedulable) is not bool:
        raise _GiveUp
    meta = _meta_record(raw)
    return ((meta[0], "", *meta[2:]), _resources_record(st.get("capacity")),
            _resources_record(st.get("allocatable")), taints, unschedulable,
            _conditions_record(st.get("conditions")))


node_record = _or_none(_node_record)


def node_from_record(r: tuple) -> o.Node:
    return o.Node(_meta_from_record(r[0]), _resources_from_record(r[1]), _resources_from_record(r[2]),
                  [o.Taint(*t) for t in r[3]], r[4], _conditions_from_record(r[5]))


def fast_node(raw: dict) -> o.Node | None:
    r = node_record(raw)
    return None if r is None else node_from_record(r)


def fast_workload(raw: dict, version: str) -> o.Workload | None:
    r = workload_record(raw, version)
    return None if r is None else workload_from_record(r)


def _workload_record(raw: dict, version: str) -> tuple:
    spec = _dict(raw.get("spec"))
    pod_sets: list[tuple] = []
    for ps in _list(spec.get("podSets")):
        if not isinstance(ps, dict):
            raise _GiveUp
        tmpl = ps.get("template")
        if _PLAIN_POD_SET.issuperset(ps) and type(tmpl) is dict and "metadata" not in tmpl:
            pod_sets.append((_str(ps.get("name"), "main") or "main", _int(ps.get("count"), 1, 0),
                             _pod_spec_record(_dict(tmpl.get("spec"))), None, None))
            continue
        annotations = _dict(_dict(tmpl.get("metadata")).get("annotations")) if isinstance(tmpl, dict) else {}
        if not isinstance(tmpl, dict) or ps.get("topologyRequest") or \
                (annotations and any(k.startswith("kueue.x-k8s.io/podset-") for k in annotations)):
            raise _GiveUp  # topology requests (and the annotations that may carry one): parse.py
        pod_sets.append((_str(ps.get("name"), "main") or "main", _int(ps.get("count"), 1, 0),
                         _pod_spec_record(_dict(tmpl.get("spec"))), _int(ps.get("minCount"), None, 0),
                         ps.get("topologyRequest")))
    if not pod_sets:
        raise _GiveUp
    st = _dict(raw.get("status"))
    if _PLAIN_SPEC.issuperset(spec) and _PLAIN_STATUS.issuperset(st):
        return (_meta_record(raw), _str(spec.get("queueName")), pod_sets, _int(spec.get("priority")), "", "",
                True, None, _admission_record(st), _conditions_record(st.get("conditions")))
    if version == "v1beta1":
        pc_name, pc_source = _str(spec.get("priorityClassName")), _str(spec.get("priorityClassSource"))
    else:
        ref = _dict(spec.get("priorityClassRef"))
        pc_name, kind = _str(ref.get("name")), _str(ref.get("kind"))
        pc_source = (WORKLOAD_PRIORITY_CLASS_SOURCE if kind == "WorkloadPriorityClass"
                     else POD_PRIORITY_CLASS_SOURCE if kind else "")
    if st.get("requeueState") is not None or st.get("reclaimablePods") or st.get("unhealthyNodes"):
        raise _GiveUp
    if spec.get("preemptionGates") or st.get("preemptionGates"):
        raise _GiveUp  # rare: the careful parser reads them (v1beta2 only)
    admission = _admission_record(st)
    if _list(st.get("admissionChecks")):
        raise _GiveUp   # parse.py reads admission check states (typed, with their times)
    active = spec.get("active", True)
    if active is None:
        active = True
    if not isinstance(active, bool):
        raise _GiveUp
    return (_meta_record(raw), _str(spec.get("queueName")), pod_sets, _int(spec.get("priority")), pc_name, pc_source,
            active, _int(spec.get("maximumExecutionTimeSeconds")), admission, _conditions_record(st.get("conditions")))


def _admission_record(st: dict) -> tuple | None:
    if st.get("admission") is None:
        return None
    a = _dict(st["admission"])
    cq = a.get("clusterQueue")
    if not isinstance(cq, str):
        raise _GiveUp
    psas = []
    for p in _list(a.get("podSetAssignments")):
        if not isinstance(p, dict) or not isinstance(p.get("name"), str) or "topologyAssignment" in p \
                or "delayedTopologyRequest" in p:
            raise _GiveUp
        psas.append((p["name"], _str_map(p.get("flavors")), _resources_record(p.get("resourceUsage")),
                     _int(p.get("count"), None, 0)))
    return (cq, psas)


# what ``fast_workload`` builds, as plain data (``workload_from_record`` builds it)
workload_record = _or_none(_workload_record)


def workload_from_record(r: tuple) -> o.Workload:
    a = r[8]   # (positional, every field given: see _pod_spec_from_record)
    admission = None if a is None else o.Admission(a[0], [
        o.PodSetAssignment(p[0], p[1], _resources_from_record(p[2]), p[3], None, "") for p in a[1]])
    return o.Workload(_meta_from_record(r[0]), r[1],
                      [o.PodSet(p[0], p[1], _pod_spec_from_record(p[2]), p[3], p[4], None) for p in r[2]],
                      r[3], r[4], r[5], r[6], r[7],
                      o.WorkloadStatus(admission, _conditions_from_record(r[9]), {}, None, [], [], {}, []), [])
