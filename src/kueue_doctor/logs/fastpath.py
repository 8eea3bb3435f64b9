"""The compiled extractor (``_fastscan.c``), when it was built: one pass over a run of zap JSON
lines finds each line's first message and reads the frequent lines' strict shapes into batch.py's
operations, so no Python code runs per line; every other candidate line comes back as a span for
scanner.py's per-line path. Without a C compiler at install time the module is absent and the
scanner takes its pure path (candidates.py and batch.py), which stays the reference the tests
compare with.

The C code spells no message, key or value: ``configure`` hands it the literals built here from
kueue/logvocab.py (the same words scanner.py's regexes are built from) and the scanner's own
time functions for the rare lines it does not read itself.
"""
from __future__ import annotations

import importlib
from typing import Any

from ..keys import WorkloadKey
from ..kueue.logvocab import (
    ASSIGNMENT_BORROWING,
    CALLER,
    CONFLICT,
    ERROR_LEVELS,
    KEY_ADDED,
    KEY_ASSIGNMENTS,
    KEY_CLUSTER_QUEUE,
    KEY_COUNT,
    KEY_DRS,
    KEY_DRS_VALUES,
    KEY_FLAVORS,
    KEY_NAME,
    KEY_NAMESPACE,
    KEY_PARENT_COHORT,
    KEY_PREEMPTED,
    KEY_PREEMPTING_WORKLOAD,
    KEY_QUEUE,
    KEY_REASON,
    KEY_REQUEUE_REASON,
    KEY_RESOURCE_USAGE,
    KEY_ROOT_COHORT,
    KEY_SCHEDULING_CYCLE,
    KEY_STATUS,
    KEY_TARGET_WORKLOAD,
    KEY_WORKLOAD,
    LEVEL,
    LOGGER,
    MSG,
    OVERLAPPING_TARGETS,
    REPLICA_ROLE,
    REQUEUE_GENERIC,
    REQUEUE_PREEMPTION_NO_CANDIDATES,
    STATUS_ASSUMED,
    STATUS_NOMINATED,
    STATUS_SKIPPED,
    TS,
)
from . import candidates, ops
from .reader import _CUT
from .signatures import _DURATION_KEY, CYCLE_KEY, EXAMPLES, HEADS_CAP, TIMES_CAP, Victim, key

_fastscan: Any
try:  # built by setup.py where a C compiler is (optional=True); else the pure path
    _fastscan = importlib.import_module("._fastscan", __package__)
except ImportError:  # pragma: no cover - depends on the install
    _fastscan = None

ENABLED = _fastscan is not None   # the tests turn it off to compare with the pure path
_CONFIGURED = False


def _open(name: str) -> bytes:
    """',"name":"': a key whose string value follows (its closing quote ends the value)."""
    return b"," + key(name) + b'"'


def _config() -> dict:
    from .scanner import _FREQUENT, _ts

    name_open = b"{" + key(KEY_NAME) + b'"'
    return {
        "msgkey": key(MSG) + b'"',
        "messages": tuple((kind, pattern) for kind, pattern in candidates._MESSAGES),
        "error_prefix": candidates.ERROR_PREFIX,
        "conflict": CONFLICT.encode(),
        "cut": _CUT,
        "cycle_key": CYCLE_KEY,
        "status_key": key(KEY_STATUS) + b'"',
        "assumed": STATUS_ASSUMED.encode() + b'"',
        "nominated": STATUS_NOMINATED.encode() + b'"',
        "borrowing": b'"' + ASSIGNMENT_BORROWING.encode() + b'":',
        "level": b"{" + key(LEVEL) + b'"',
        "ts": _open(TS),
        "logger": _open(LOGGER),
        "caller": _open(CALLER),
        "msg": _open(MSG),
        "role": _open(REPLICA_ROLE),
        "cycle": b"," + key(KEY_SCHEDULING_CYCLE),
        "wl": b"," + key(KEY_WORKLOAD) + name_open,
        "ns_open": _open(KEY_NAMESPACE),
        "cq": b"," + key(KEY_CLUSTER_QUEUE) + name_open,
        "parent": b"," + key(KEY_PARENT_COHORT) + name_open,
        "root": b"," + key(KEY_ROOT_COHORT) + name_open,
        "assignments": b"," + key(KEY_ASSIGNMENTS) + b"[",
        "name_open": name_open,
        "flavors": b"," + key(KEY_FLAVORS),
        "usage": b"," + key(KEY_RESOURCE_USAGE),
        "count": b"," + key(KEY_COUNT),
        "queue": b"," + key(KEY_QUEUE) + name_open,
        "requeue_reason": _open(KEY_REQUEUE_REASON),
        "added": b"," + key(KEY_ADDED),
        "status": _open(KEY_STATUS),
        "reason": _open(KEY_REASON),
        "drs_values": b"," + key(KEY_DRS_VALUES) + b"[",
        "item": b"{" + key(KEY_PARENT_COHORT) + b'"',
        "item_wl": _open(KEY_WORKLOAD),
        "item_drs": _open(KEY_DRS),
        "m_admitted": _FREQUENT[candidates.ADMITTED],
        "m_requeued": _FREQUENT[candidates.REQUEUED],
        "m_evaluated": _FREQUENT[candidates.EVALUATED],
        "m_drs": _FREQUENT[candidates.DRS],
        "m_ongoing": _FREQUENT[candidates.ONGOING],
        "m_already": _FREQUENT[candidates.ALREADY],
        "target": b"," + key(KEY_TARGET_WORKLOAD) + name_open,
        "preemptor": b"," + key(KEY_PREEMPTING_WORKLOAD) + name_open,
        "overlap": OVERLAPPING_TARGETS.encode(),
        "preempted": b"," + key(KEY_PREEMPTED),   # reader._PREEMPTED_TAIL
        "skipped": STATUS_SKIPPED.encode(),
        "generic": REQUEUE_GENERIC.encode(),
        "true": b"true",
        "false": b"false",
        "error_levels": tuple(level.lower().encode() for level in ERROR_LEVELS),
        # scanner._FIELD: keys json.loads would let a later duplicate override
        "excluded": tuple(k.encode() for k in (LEVEL, TS, MSG, KEY_DRS_VALUES)),
        "k_admitted": candidates.ADMITTED, "k_requeued": candidates.REQUEUED,
        "k_evaluated": candidates.EVALUATED, "k_drs": candidates.DRS, "k_cycle": candidates.CYCLE,
        "k_ongoing": candidates.ONGOING, "k_already": candidates.ALREADY,
        "duration_key": _DURATION_KEY,
        "op_admit": ops.OP_ADMIT, "op_requeue": ops.OP_REQUEUE,
        "op_not_nominated": ops.OP_NOT_NOMINATED, "op_drs_zero": ops.OP_DRS_ZERO,
        # the replay (ops.apply_ops): the Evidence's caps and labels
        "no_candidates_reason": REQUEUE_PREEMPTION_NO_CANDIDATES,
        "timeline_requeued": "requeued", "timeline_admitted": "admitted",
        "heads_cap": HEADS_CAP, "times_cap": TIMES_CAP, "examples": EXAMPLES, "op_event": ops.OP_EVENT,
        "op_assumed": ops.OP_ASSUMED,
        "op_ongoing": ops.OP_ONGOING, "op_preemptor": ops.OP_PREEMPTOR, "no_cycle": ops.NO_CYCLE,
        "victim_type": Victim, "op_skip": ops.OP_SKIP, "op_skip_target": ops.OP_SKIP_TARGET,
        "ts_fallback": _ts,
        "workload_type": WorkloadKey, "keys_bound": ops.KEYS_BOUND,
    }


def module() -> Any:
    """The configured extension, or None (not built, or turned off)."""
    global _CONFIGURED
    if not ENABLED or _fastscan is None:
        return None
    if not _CONFIGURED:
        _fastscan.configure(_config())
        _CONFIGURED = True
    return _fastscan
