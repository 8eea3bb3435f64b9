"""The frequent lines of a run of zap JSON lines, read in batches instead of one by one.

A run's admissions, re-queues, evaluations and DRS tournaments are checked against scanner.py's
strict shapes kind by kind: the lines of a kind are joined with a separator no value can run
across and one ``findall`` matches them all in C, giving each line's fields as columns (a line
off the shape, at an error level or otherwise unusual takes the per-line path, which gives what
``json`` gives). When a batch is plain ASCII without escapes or control characters the value
class ``[^"\\\x00-\x1f]*`` means the same as ``[^"]*``, which the regex engine runs faster.
Times are parsed with numpy (scanner._ts's arithmetic), strings and workloads interned per run
with dicts, so no Python code runs per line.

What each line adds becomes an integer-coded operation (ops.py), in file order, the per-line
path's events in the same stream (OP_EVENT), which ``ops.apply_ops`` replays. The window's count
and first/last commute and are summed here. Only used without --since/--until; imported only
where a run is read in Python (the compiled extractor's threaded scan needs neither this nor
numpy, see ops.py).
"""
from __future__ import annotations

import re

import numpy as np

from ..kueue.logvocab import (
    ERROR_LEVELS,
    KEY_DRS,
    KEY_WORKLOAD,
    REQUEUE_GENERIC,
    STATUS_NOT_NOMINATED,
    STATUS_SKIPPED,
)
from .ops import (
    NO_CYCLE,
    OP_ADMIT,
    OP_ASSUMED,
    OP_DRS_ZERO,
    OP_EVENT,
    OP_NOT_NOMINATED,
    OP_ONGOING,
    OP_PREEMPTOR,
    OP_REQUEUE,
    OP_SKIP,
    OP_SKIP_TARGET,
)
from .signatures import CYCLE_KEY, SKIPPED, workload_key
from .timeparse import parse_ts

EVALUATED_HEAD = -1   # the kind of an evaluation's head, cut before its V(4) blob

_SEP = b'"\n'   # after each line of a batch: neither a value's [^"]* nor the shape crosses it
_PRINTABLE = bytes(range(0x20, 0x80))
_ERROR_BYTES = frozenset(level.encode() for level in ERROR_LEVELS)
_SKIPPED = STATUS_SKIPPED.encode()
_NOT_NOMINATED = STATUS_NOT_NOMINATED.encode()
_BLOB_FREE = b"}"    # an evaluation's tail without the V(4) blob


class _Shapes:
    def __init__(self):
        from . import scanner as s

        tail = rb"(" + re.escape(s._CUT) + rb"[^\n]*|\})"
        kinds = {
            s._ADMITTED: s._ADMITTED_LINE.pattern,
            s._REQUEUED: s._REQUEUED_LINE.pattern,
            # the evaluation's V(4) blob holds escapes: only its head is matched, the rest cut as is
            # (and a batch of lines with the blob is never clean: the strict shape reads them)
            s._EVALUATED: s._EVALUATED_HEAD.pattern + tail,
            s._DRS: s._DRS_LINE.pattern,
        }
        # In a DRS batch a share is a canonical number: zero is then the text "0", found by a plain
        # search; a line with any other share (0.0, 1e-3, ...) takes the per-line path.
        share = rb'"(?:0|' + s._NONZERO.pattern + rb')"\}'
        drs_value = rb'"(?:' + s._S + rb')"\}'
        assert kinds[s._DRS].count(drs_value) == 2, kinds[s._DRS]
        kinds[s._DRS] = kinds[s._DRS].replace(drs_value, share)
        # an evaluation with the blob is matched up to the blob's key only (scanner._scan_batched
        # cuts it there, having looked for a cycle's key in the rest)
        kinds[EVALUATED_HEAD] = s._EVALUATED_HEAD.pattern + rb"(" + re.escape(s._CUT) + rb")"
        self.strict = {k: self._batch(p) for k, p in kinds.items()}
        self.relaxed = {k: self._batch(p.replace(s._S, rb'[^"]*')) for k, p in kinds.items()}
        self.ADMITTED, self.REQUEUED, self.EVALUATED, self.DRS = s._ADMITTED, s._REQUEUED, s._EVALUATED, s._DRS
        self.zero = re.compile(s._k(KEY_WORKLOAD, b"") + rb'"(' + s._S + rb')"' + s._k(KEY_DRS) + rb'"0"\}')

    @staticmethod
    def _batch(shape: bytes) -> re.Pattern:
        # a line in the shape gives its groups; any other line its whole text in the last group
        return re.compile(rb"(?m)^(?:" + shape + rb'"\n|([^\n]*)\n)')


_SHAPES: _Shapes | None = None


def _shapes() -> _Shapes:
    global _SHAPES
    if _SHAPES is None:
        _SHAPES = _Shapes()
    return _SHAPES


def match(lines: list, kind: int) -> list:
    """Per line of ``lines`` (bytes of one kind), its groups; the last group is the whole line
    when it is off the shape, else empty."""
    sh = _shapes()
    joined = _SEP.join(lines) + _SEP
    relaxed = sh.relaxed.get(kind)
    if (relaxed is not None and joined.isascii() and b"\\" not in joined
            and len(joined.translate(None, _PRINTABLE)) == len(lines)):
        rx = relaxed
    else:
        rx = sh.strict[kind]
    found = rx.findall(joined)
    if len(found) != len(lines):   # cannot happen (see _SEP); if it did, every line on its own
        return [(b"",) * (rx.groups - 1) + (line,) for line in lines]
    return found


_POWERS = 10.0 ** np.arange(10)
_DIGIT_WEIGHTS = np.array([10 ** k for k in range(9)], np.int64)


def times(col) -> np.ndarray:
    """scanner._ts of every text of ``col`` (bytes), with its arithmetic; NaN where it gives None."""
    from .scanner import _ts

    n = len(col)
    arr = np.array(col, dtype="S31")
    u8 = arr.view(np.uint8).reshape(n, 31)
    length = np.fromiter(map(len, col), np.int64, n)
    rows = np.arange(n)
    digits = u8[:, 20:29].astype(np.int64) - 48
    m = length - 21                           # the fraction's digits
    col_idx = np.arange(9)
    inside = col_idx[None, :] < m[:, None]
    ok = ((length > 21) & (length < 31) & (u8[:, 19] == 0x2E) & (u8[rows, np.clip(length - 1, 0, 30)] == 0x5A)
          & np.where(inside, (digits >= 0) & (digits <= 9), True).all(axis=1))
    frac = np.where(inside, digits * _DIGIT_WEIGHTS[np.clip(m[:, None] - 1 - col_idx[None, :], 0, 8)], 0).sum(axis=1)
    # the whole second changes rarely from one line to the next: parsed once a run of it
    run = np.ones(n, bool)
    run[1:] = (u8[1:, :19] != u8[:-1, :19]).any(axis=1)
    starts = np.flatnonzero(run)
    heads = arr[starts].astype("S19").tolist()
    bases = np.array([_base(h) for h in heads], float)[np.cumsum(run) - 1] if n else np.zeros(0)
    out = bases + frac / _POWERS[np.clip(m, 0, 9)]
    for i in np.flatnonzero(~ok | np.isnan(bases)).tolist():
        t = _ts(col[i])
        out[i] = np.nan if t is None else t
    return out


def _base(head: bytes) -> float:
    t = parse_ts(head.decode() + "Z") if len(head) == 19 else None
    return np.nan if t is None else t


class Run:
    """A run's operations as columns, each with its place (index of the span, then item)."""

    def __init__(self):
        self.place: list = []     # numpy arrays
        self.sub: list = []
        self.code: list = []
        self.ts: list = []
        self.cq: list = []
        self.wl: list = []
        self.aux: list = []
        self.strings: dict = {}   # bytes -> id in the string table
        self.texts: list = []
        self.workloads: dict = {}
        self.keys: list = []
        self.extras: list = []    # OP_EVENT events, OP_DRS_ZERO raw lines
        self.none_ts: list = []   # places of ops whose time is None
        self.n = 0
        self.lo = np.inf
        self.hi = -np.inf

    def ids(self, col, table: dict, values: list, make) -> np.ndarray:
        for b in dict.fromkeys(col):
            if b not in table:
                table[b] = len(values)
                values.append(make(b))
        return np.fromiter(map(table.__getitem__, col), np.int32, len(col))

    def text_ids(self, col) -> np.ndarray:
        return self.ids(col, self.strings, self.texts, bytes.decode)

    def workload_ids(self, pairs) -> np.ndarray:
        """The workload table's ids of (namespace, name) pairs of str, as the per-line path's
        events hold them (the table is keyed by bytes, as the batches cut them)."""
        return self.ids([(a.encode(), b.encode()) for a, b in pairs], self.workloads, self.keys, _workload)

    def seen(self, ts: np.ndarray) -> None:
        self.n += len(ts)
        known = ts[~np.isnan(ts)]
        if len(known):
            self.lo = min(self.lo, float(known.min()))
            self.hi = max(self.hi, float(known.max()))

    def add(self, place, code, ts, cq=None, wl=None, aux=None, sub=None) -> None:
        n = len(place)
        if not n:
            return
        zeros = np.zeros(n, np.int32)
        self.place.append(np.asarray(place, np.int64))
        self.sub.append(zeros if sub is None else np.asarray(sub, np.int32))
        self.code.append(np.full(n, code, np.int8))
        self.ts.append(ts)
        self.cq.append(zeros if cq is None else cq)
        self.wl.append(zeros if wl is None else wl)
        self.aux.append(zeros if aux is None else aux)

    def events(self, placed: list) -> None:
        """(place, event) of the per-line path."""
        if placed:
            first = len(self.extras)
            self.extras.extend(e for _, e in placed)
            self.add([p for p, _ in placed], OP_EVENT, np.full(len(placed), np.nan),
                     aux=np.arange(first, first + len(placed), dtype=np.int32))

    def assumed(self, found: list) -> None:
        """(place, ts, cq, namespace, name, borrowing > 0) of evaluations with status "assumed"
        (the per-line path read them): what Evidence.evaluated does with one is an operation."""
        if found:
            places, ts, cqs, ns, names, positive = zip(*found, strict=True)
            ts_a = np.array([np.nan if t is None else t for t in ts], np.float64)
            self.seen(ts_a)
            self.add(places, OP_ASSUMED, ts_a, self.text_ids([c.encode() for c in cqs]),
                     self.workload_ids(zip(ns, names, strict=True)), np.array(positive, np.int32))

    def ongoing(self, found: list) -> None:
        """(place, ts, target namespace, target, preemptor namespace, preemptor, cycle, raw line)
        of victims' lines the per-line path read, as operations (see OP_ONGOING)."""
        if found:
            places, ts, tns, tnames, pns, pnames, cycles, raws = zip(*found, strict=True)
            ts_a = np.array([np.nan if t is None else t for t in ts], np.float64)
            self.seen(ts_a)
            first = len(self.extras)
            self.extras.extend(raws)
            n = len(found)
            self.add(places, OP_PREEMPTOR, ts_a, wl=self.workload_ids(zip(pns, pnames, strict=True)),
                     sub=np.zeros(n, np.int32))
            self.add(places, OP_ONGOING, ts_a, np.array([NO_CYCLE if c is None else c for c in cycles], np.int32),
                     self.workload_ids(zip(tns, tnames, strict=True)), np.arange(first, first + n, dtype=np.int32),
                     sub=np.ones(n, np.int32))

    def skips(self, found: list) -> None:
        """(place, ts, cq, namespace, name, targets as (namespace, name), cycle, raw line) of overlap
        skips the per-line path read, as operations (see OP_SKIP)."""
        if not found:
            return
        places, ts, cqs, ns, names, targets, cycles, raws = zip(*found, strict=True)
        ts_a = np.array([np.nan if t is None else t for t in ts], np.float64)
        self.seen(ts_a)
        first = len(self.extras)
        self.extras.extend(raws)
        n = len(found)
        self.add(places, OP_SKIP, ts_a, self.text_ids([c.encode() for c in cqs]),
                 self.workload_ids(zip(ns, names, strict=True)), np.arange(first, first + n, dtype=np.int32),
                 sub=np.zeros(n, np.int32))
        at = [i for i, ts_ in enumerate(targets) for _ in ts_]
        if at:
            sub = [j + 1 for ts_ in targets for j in range(len(ts_))]
            cycle = [NO_CYCLE if cycles[i] is None else cycles[i] for i in at]
            wl = self.workload_ids(t for ts_ in targets for t in ts_)
            self.add([places[i] for i in at], OP_SKIP_TARGET, ts_a[at], np.array(cycle, np.int32), wl,
                     np.zeros(len(at), np.int32), sub=np.array(sub, np.int32))

    def tape(self) -> tuple | None:
        """The run's operations in file order (see ops.py)."""
        if not self.place and not self.n:
            return None
        if self.place:
            place, sub = np.concatenate(self.place), np.concatenate(self.sub)
            order = np.lexsort((sub, place))
            code, ts = np.concatenate(self.code)[order], np.concatenate(self.ts)[order]
            cq, wl, aux = (np.concatenate(c)[order] for c in (self.cq, self.wl, self.aux))
        else:
            code = ts = cq = wl = aux = np.zeros(0, np.int8)
        lo = None if self.lo == np.inf else self.lo
        hi = None if self.hi == -np.inf else self.hi
        return (code.tobytes(), ts, cq, wl, aux, self.texts, self.keys, self.extras, self.n, lo, hi)


def _workload(pair: tuple) -> tuple[str, str]:
    # (namespace, name) as plain strings: a NamedTuple pickles through Python code, a tuple does not
    ns, name = pair
    return (ns.decode(), name.decode()) if ns and name else ("", "")


def _workload_text(text: bytes) -> tuple[str, str]:
    wl = workload_key(text.decode())
    return ("", "") if wl is None else (wl.namespace, wl.name)


def read(run: Run, kind: int, places: list, lines: list, heads: list | None = None) -> list:
    """Add the operations of ``lines`` (of ``kind``, at ``places``) to ``run``; return the places
    (and lines) that take the per-line path. ``heads``: for EVALUATED_HEAD, the lines cut before
    the blob, which are matched."""
    sh = _shapes()
    found = match(lines if heads is None else heads, kind)
    if kind == EVALUATED_HEAD:
        kind = sh.EVALUATED
    cols: list = list(zip(*found, strict=True))
    n = len(found)
    special = np.zeros(n, bool)
    if any(cols[-1]):
        special |= np.fromiter(map(bool, cols[-1]), bool, n)
    levels = cols[0]
    if kind == sh.DRS:
        if any(level.decode().lower() in ERROR_LEVELS for level in set(levels)):
            bad = {lv for lv in set(levels) if lv.decode().lower() in ERROR_LEVELS}
            special |= np.fromiter((lv in bad for lv in levels), bool, n)
    elif not _ERROR_BYTES.isdisjoint(levels):
        special |= np.fromiter((lv in _ERROR_BYTES for lv in levels), bool, n)
    if kind == sh.EVALUATED:
        status, extra = cols[6], cols[8]
        if set(status) != {_NOT_NOMINATED}:
            special |= np.fromiter((s != _NOT_NOMINATED for s in status), bool, n)
        if set(extra) != {_BLOB_FREE}:
            special |= np.fromiter((x != _BLOB_FREE and CYCLE_KEY in x for x in extra), bool, n)
    keep = np.flatnonzero(~special)
    out = [(places[i], lines[i]) for i in np.flatnonzero(special).tolist()]
    if not len(keep):
        return out
    if len(keep) < n:
        pick = keep.tolist()
        cols = [[c[i] for i in pick] for c in cols]
    place = np.asarray(places, np.int64)[keep]
    ts = times(cols[1])
    if kind == sh.DRS:
        run.seen(ts)
        _drs_zero(run, sh, place, ts, cols[3], [lines[i] for i in keep.tolist()] if len(keep) < n else lines)
        return out
    run.seen(ts)
    cq = run.text_ids(cols[5])
    wl = run.ids(list(zip(cols[4], cols[3], strict=True)), run.workloads, run.keys, _workload)
    if kind == sh.REQUEUED:
        reasons = [SKIPPED.encode() if s == _SKIPPED else (r or REQUEUE_GENERIC.encode())
                   for s, r in zip(cols[7], cols[6], strict=True)]
        run.add(place, OP_REQUEUE, ts, cq, wl, run.text_ids(reasons))
    elif kind == sh.ADMITTED:
        run.add(place, OP_ADMIT, ts, cq, wl)
    else:
        run.add(place, OP_NOT_NOMINATED, ts, cq, wl, run.text_ids(cols[7]))
    return out


def _drs_zero(run: Run, sh: _Shapes, place: np.ndarray, ts: np.ndarray, items: list, lines: list) -> None:
    """The zero shares of DRS lines (each share is "0" or a canonical non-zero number, see
    _Shapes): one OP_DRS_ZERO each, in the line's order."""
    joined = b"\n".join(items)
    found = [(m.start(), m.group(1)) for m in sh.zero.finditer(joined)]
    if not found:
        return
    starts = np.zeros(len(items), np.int64)
    np.cumsum(np.fromiter(map(len, items), np.int64, len(items))[:-1] + 1, out=starts[1:])
    at = np.searchsorted(starts, np.fromiter((p for p, _ in found), np.int64, len(found)), side="right") - 1
    first_of_line = np.ones(len(at), bool)
    first_of_line[1:] = at[1:] != at[:-1]
    sub = np.arange(len(at)) - np.maximum.accumulate(np.where(first_of_line, np.arange(len(at)), 0))
    keys = run.ids([w for _, w in found], run.workloads, run.keys, _workload_text)
    # the raw line of each, for the first examples (one entry per line)
    first = len(run.extras)
    uniq, inverse = np.unique(at, return_inverse=True)
    run.extras.extend(lines[i] for i in uniq.tolist())
    run.add(place[at], OP_DRS_ZERO, ts[at], wl=keys, aux=(first + inverse).astype(np.int32), sub=sub)
