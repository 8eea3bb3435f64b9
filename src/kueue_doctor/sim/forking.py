"""What a fork of a simulator copies and what it shares with its original (``Simulator.fork``).

A fork is a deep copy, except for what no run writes: the cluster's objects other than the
Workloads (ClusterQueues, LocalQueues, flavors, namespaces, Jobs, nodes, pods as read), and of each
Workload its metadata and pod sets (the engine's per-pod-set requests too). Those are handed to
``copy.deepcopy`` through its memo as already copied, so 100,000 pod templates and their parsed
quantities are not copied per replicate. The per-workload objects a run does write (the
Workload's status and ``active``, the engine's WorkloadInfo, the simulator's SimWorkload and its
spec's runtime) are copied one level deep here, every attribute that is not immutable going
through ``deepcopy`` with the same memo, so references between them (a queue entry and the
snapshot both holding one WorkloadInfo, an event holding a SimWorkload) stay one object in the fork.

What is shared is asserted by tests/sim/test_stepping.py: a fork run to the end leaves the
original's later run byte-identical to an unforked one.
"""
from __future__ import annotations

import copy
import dataclasses
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from ..api import objects as o
from ..api.state import ClusterState
from ..engine.workload import WorkloadInfo
from ..keys import WorkloadKey

# values deepcopy would rebuild although nothing can change them (datetime has no __deepcopy__)
_IMMUTABLE = (type(None), bool, int, float, str, datetime, timedelta, Fraction, WorkloadKey)
_IMMUTABLE_TYPES = frozenset(_IMMUTABLE)
# what a run never writes on a Workload / a WorkloadInfo (the rest is copied)
_WORKLOAD_SHARED = frozenset({"meta", "pod_sets"})
_INFO_SHARED = frozenset({"pod_sets"})
_WORKLOAD_FIELDS = tuple(f.name for f in dataclasses.fields(o.Workload))
_STATUS_FIELDS = tuple(f.name for f in dataclasses.fields(o.WorkloadStatus))


def fork_memo(sim: Any) -> dict[int, Any]:
    """A deepcopy memo for ``sim``: the shared objects map to themselves, the per-workload ones
    to their copies."""
    memo: dict[int, Any] = {}
    state: ClusterState = sim.scn.state
    for f in dataclasses.fields(state):
        if f.name == "workloads":
            continue
        value = getattr(state, f.name)
        for obj in value.values() if isinstance(value, dict) else value if isinstance(value, list) else ():
            memo[id(obj)] = obj
    for w in state.workloads.values():
        workload_copy(w, memo)
    for spec in sim.scn.workloads:
        memo[id(spec)] = copy.copy(spec)    # draw_runtimes writes a fork's runtimes on its specs
    for q in sim.model.queues.queues.values():
        for entry in q._entries.values():    # (order key, seq, WorkloadInfo): the key is a tuple of values
            if _frozen(entry[0]):
                memo[id(entry[0])] = entry[0]
    for wi in sim.model.infos.values():
        _copy_attrs(wi, _INFO_SHARED, memo, {"obj": workload_copy(wi.obj, memo)})
    for sw in sim.workloads.values():
        _copy_attrs(sw, frozenset(), memo, {"obj": workload_copy(sw.obj, memo)})
    return memo


def workload_copy(w: o.Workload, memo: dict[int, Any]) -> o.Workload:
    """``w``'s copy in ``memo`` (made if not there): its own status, its metadata and pod sets shared."""
    c = memo.get(id(w))
    if c is None:
        status = object.__new__(o.WorkloadStatus)
        for name in _STATUS_FIELDS:
            v = getattr(w.status, name)
            # lists and dicts are replaced or added to, their items never changed
            setattr(status, name, v.copy() if isinstance(v, list | dict) else v)
        c = object.__new__(o.Workload)
        for name in _WORKLOAD_FIELDS:
            v = getattr(w, name)
            if name == "status":
                v = status
            elif name not in _WORKLOAD_SHARED and not isinstance(v, _IMMUTABLE):
                v = copy.deepcopy(v, memo)
            setattr(c, name, v)
        memo[id(w)] = c
    return c


def _frozen(v: Any) -> bool:
    """Nothing in ``v`` can change (exact types: a subclass may add mutable state)."""
    return type(v) in _IMMUTABLE_TYPES or (type(v) is tuple and all(_frozen(x) for x in v))


def _copy_attrs(obj: Any, shared: frozenset[str], memo: dict[int, Any], given: dict[str, Any]) -> Any:
    """``obj`` copied one level: ``given`` attributes set, ``shared`` and immutable ones kept,
    the rest deep-copied through ``memo``."""
    if id(obj) in memo:
        return memo[id(obj)]
    c = object.__new__(type(obj))
    memo[id(obj)] = c
    slots = isinstance(obj, WorkloadInfo)
    for name in obj.__slots__ if slots else list(vars(obj)):
        v = getattr(obj, name)
        if name in given:
            v = given[name]
        elif name not in shared and not _frozen(v):
            v = copy.deepcopy(v, memo)
        if slots:
            setattr(c, name, v)
        else:
            c.__dict__[name] = v
    return c
