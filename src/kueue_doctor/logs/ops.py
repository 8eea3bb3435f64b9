"""A run's operations: their codes, the workloads they name, and their replay into the Evidence.

A run of zap JSON lines becomes integer-coded operations in file order (batch.py reads them in
Python, the compiled extractor in C): a tape entry ``(code, ts, cq, wl, aux, texts, keys, extras,
n, lo, hi)``, the five columns as numpy arrays or as the extension's bytes, ``texts`` and
``keys`` the run's string and workload tables the columns index, ``extras`` the raw lines and
per-line events, and what the run saw (its count of lines in the window, first and last time).
``apply_ops`` replays a tape with the Evidence's own rules. Nothing here imports numpy unless
the replay runs in Python (no extension) or a worker ships its tape: a threaded scan by the
extension needs none of it, and its import was a tenth of that scan's wall time.
"""
from __future__ import annotations

from typing import NamedTuple

from ..keys import WorkloadKey
from ..kueue.logvocab import REQUEUE_PREEMPTION_NO_CANDIDATES
from .signatures import EXAMPLES, HEADS_CAP, TIMES_CAP, Evidence

(OP_ADMIT, OP_REQUEUE, OP_NOT_NOMINATED, OP_DRS_ZERO, OP_EVENT, OP_ASSUMED, OP_ONGOING, OP_PREEMPTOR, OP_SKIP,
 OP_SKIP_TARGET) = range(10)
# A victim's line ("Preemption ongoing", "... already issued") is an OP_PREEMPTOR (its preemptor's
# workload) and an OP_ONGOING (its target's; its cycle in the cq column, this mark for none;
# its raw line in extras), at one place in that order: Evidence.ongoing of the pair.
NO_CYCLE = -(2 ** 31)
CYCLE_LIMIT = 2 ** 31   # a cycle is an operation's where NO_CYCLE < cycle < CYCLE_LIMIT
# An evaluation skipped for overlapping preemption targets is an OP_SKIP (the head's workload and
# ClusterQueue, its raw line in extras) and an OP_SKIP_TARGET a target after it (the target's
# workload, the line's cycle in the cq column): Evidence.evaluated of the line.


# (namespace, name) -> WorkloadKey, kept across runs: each run's table names mostly the same
# workloads, and making a NamedTuple costs several times a dict lookup (bounded like _SECONDS)
_KEYS: dict[tuple[str, str], WorkloadKey] = {}
KEYS_BOUND = 1_000_000   # past this many, _KEYS starts again empty


def workload_of(ns: str, name: str) -> WorkloadKey:
    """The key of (ns, name), one object per workload (see _KEYS)."""
    wl = _KEYS.get((ns, name))
    if wl is None:
        if len(_KEYS) > KEYS_BOUND:
            _KEYS.clear()
        wl = _KEYS[(ns, name)] = WorkloadKey(ns, name)
    return wl


def _workload_keys(pairs: list, fast=None) -> list:
    """The key of each (namespace, name) of a run's workload table (None where it names none),
    through _KEYS; ``fast``: the extension, whose workload_keys is this loop in C (a GB of a
    busy log names ~150k workloads, each a NamedTuple made through Python code here)."""
    if fast is not None:
        return fast.workload_keys(pairs, _KEYS, WorkloadKey, KEYS_BOUND)
    get = _KEYS.get
    out: list = []
    append = out.append
    for pair in pairs:
        wl = get(pair)
        if wl is None and pair[0]:
            wl = workload_of(*pair)
        append(wl)
    return out


class SharedKeys(NamedTuple):
    """A worker's run's workload table as the workloads it names for the first time (``new``):
    the run's workload column indexes the worker's whole table (see share_keys)."""
    worker: int
    new: list


def _column(col, dtype):
    """A column as a numpy array: the extension gives bytes, batch.Run arrays."""
    import numpy as np

    return np.frombuffer(col, dtype) if isinstance(col, bytes) else np.asarray(col, dtype)


def share_keys(ops: tuple, table: dict, worker: int) -> tuple:
    """``ops`` with its workload table replaced by the workloads ``table`` (this worker's, over
    the runs it scanned before, in order) does not hold yet, and its workload column by their
    places in ``table``. A worker's runs reach the main process in the order it scanned them (a
    pool hands out ranges in order, and they are applied in order), so each workload crosses
    once per worker instead of once per run, and the main process looks none of them up again."""
    import numpy as np

    keys = ops[6]
    ids = np.empty(len(keys), np.int32)
    new: list = []
    for j, pair in enumerate(keys):
        k = table.get(pair)
        if k is None:
            k = table[pair] = len(table)
            new.append(pair)
        ids[j] = k
    # (with no workload in the run, the column holds only the zeros of operations without one)
    wl = ids[_column(ops[3], np.int32)] if len(keys) else ops[3]
    return (*ops[:3], wl, *ops[4:6], SharedKeys(worker, new), *ops[7:])


def apply_ops(ev: Evidence, ops: tuple, apply_event) -> None:
    """Replay a run's operations in file order (the window is not set: ``seen`` commutes).

    Evidence.requeued, .admitted and .resolve_cq inlined: this loop is the one part of a
    parallel scan that runs in a single process (the tests compare it with the per-line path).
    """
    code_b, ts_c, cq_c, wl_c, aux_c, texts, keys, extras, n, lo, hi = ops
    if n:
        ev.in_window += n
        if lo is not None and (ev.first is None or lo < ev.first):
            ev.first = lo
        if hi is not None and (ev.last is None or hi > ev.last):
            ev.last = hi
    from . import fastpath
    fast = fastpath.module()
    if type(keys) is SharedKeys:
        table = ev.worker_keys.setdefault(keys.worker, [])
        table += _workload_keys(keys.new, fast)
        keys = table
    else:
        keys = _workload_keys(keys, fast)
    if fast is not None:   # the same loop in C (the tests compare both)
        fast.replay(ev, code_b, ts_c, cq_c, wl_c, aux_c, texts, keys, extras, apply_event)
        return
    import numpy as np

    ts_a = _column(ts_c, np.float64)
    known = ~np.isnan(ts_a)
    # Evidence._minute of every time, None where there is none
    minutes = np.where(known, np.floor_divide(np.where(known, ts_a, 0.0), 60.0) * 60, 0).astype(np.int64)
    tss = ts_a.tolist()
    mins = minutes.tolist()
    for i in np.flatnonzero(~known & (np.frombuffer(code_b, np.int8) != OP_EVENT)).tolist():
        tss[i] = None
        mins[i] = None
    wcq = ev.workload_cq
    queues = ev.queues
    borrowing = ev.borrowing
    drs_zero = ev.drs_zero
    example = ev._example
    retries = ev._retries
    made: dict = {}   # text id -> its QueueStats, this run
    preemptor = None   # an OP_PREEMPTOR's workload, for the OP_ONGOING after it
    skipper = skip_cq = None   # an OP_SKIP's workload and ClusterQueue, for its OP_SKIP_TARGETs
    cols = (_column(c, np.int32).tolist() for c in (cq_c, wl_c, aux_c))
    for code, ts, m, c, w, x in zip(code_b, tss, mins, *cols, strict=True):
        if code == OP_EVENT:
            apply_event(ev, extras[x])
            continue
        wl = keys[w]
        if code == OP_PREEMPTOR:
            preemptor = wl
            continue
        if code == OP_SKIP:   # Evidence.evaluated of an overlap skip, its targets the ops after it
            skipper, skip_cq = wl, ev.resolve_cq(texts[c], wl)
            ev._queue(skip_cq, ts).skipped_overlap += 1
            ev._example(ev.skipped, extras[x])
            continue
        if code == OP_SKIP_TARGET:
            if wl is not None:
                v = ev._victim(wl, ts)
                v.skipper_cqs.add(skip_cq)
                if skipper is not None:
                    v.preemptors.add(skipper)
                v.lines += 1
                ev._cycle(v, None if c == NO_CYCLE else c)
            continue
        if code == OP_ONGOING:
            ev.ongoing(wl, preemptor, ts, None if c == NO_CYCLE else c, extras[x])
            preemptor = None
            continue
        if code == OP_ASSUMED:   # Evidence.evaluated of an assumed workload: resolve_cq, borrowing
            cq = texts[c]
            if wl is not None:
                if cq:
                    wcq[wl] = cq
                else:
                    cq = wcq.get(wl, "")
            if x and cq and cq not in borrowing:
                borrowing[cq] = ts
            continue
        if code == OP_DRS_ZERO:
            cq = wcq.get(wl, "") if wl is not None else ""
            if cq:   # Evidence.drs_value of a zero share
                seen = drs_zero.get(cq)
                if seen is None:
                    seen = drs_zero[cq] = [0, ts, ts, []]
                seen[0] += 1
                seen[2] = ts
                if len(seen[3]) < EXAMPLES:
                    example(seen[3], extras[x])
            continue
        if code == OP_NOT_NOMINATED:   # Evidence.evaluated of a head not nominated
            reason = texts[x]
            if not reason:
                if wl is not None and texts[c]:
                    wcq[wl] = texts[c]   # resolve_cq's side effect, even without a queue to touch
                continue
        cq = texts[c]
        if wl is not None:   # Evidence.resolve_cq
            if cq:
                wcq[wl] = cq
                q = made.get(c)
                if q is None:
                    q = made[c] = queues[cq]
            else:
                cq = wcq.get(wl, "")
                q = queues[cq]
        else:
            q = made.get(c)
            if q is None:
                q = made[c] = queues[cq]
        if ts is not None:   # Evidence._queue
            if q.first is None:
                q.first = ts
            q.last = ts
        if code == OP_REQUEUE:   # Evidence.requeued
            reason = texts[x]
            q.requeue[reason] += 1
            if m is not None:
                q.timeline[m]["requeued"] += 1
            if wl is None:
                continue
            if reason == REQUEUE_PREEMPTION_NO_CANDIDATES:
                r = retries(wl, cq, ts)
                if r is not None:
                    r.requeues += 1
            head = q.heads.get(wl)
            if head is None:
                head = q.new_head(wl, ts, HEADS_CAP)
            head.attempts += 1
            head.requeue = reason
            head.last = ts
        elif code == OP_ADMIT:   # Evidence.admitted
            if ts is not None and len(q.admit_times) < TIMES_CAP:
                q.admit_times.append(ts)
            q.admitted += 1
            if m is not None:
                q.timeline[m]["admitted"] += 1
            if wl is not None:
                q.heads.pop(wl, None)
        elif wl is not None:   # a head not nominated: its reason
            head = q.heads.get(wl)
            if head is not None:
                head.reason = reason
