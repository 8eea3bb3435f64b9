"""``scan()``: stream the inputs, pick candidate lines with fast byte searches, build a LogReport.

What a line contributes depends only on the line (and, for ordered state, on the lines before
it), never on where chunks happen to be cut: a run of zap JSON lines goes through
``scan_json``; anything else (console encoder, klog text, garbage) goes line by line through
``_scan_other``. That is what lets parallel.py cut a file anywhere at a newline and still give
the report a sequential scan gives.
"""
from __future__ import annotations

import io
import json
import math
import re
import struct
from bisect import bisect_left
from collections.abc import Iterator
from typing import TYPE_CHECKING, cast

from .. import heap
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
    KEY_DURATION,
    KEY_FLAVORS,
    KEY_NAME,
    KEY_NAMESPACE,
    KEY_PARENT_COHORT,
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
    LEVEL_ERROR,
    LOGGER,
    MSG,
    MSG_ACQUIRING_LEASE,
    MSG_ELECTION_LOST,
    MSG_STOPPED_LEADING,
    OVERLAPPING_TARGETS,
    REPLICA_ROLE,
    REQUEUE_GENERIC,
    STATUS_ASSUMED,
    STATUS_NOMINATED,
    STATUS_SKIPPED,
    TS,
)
from . import candidates, fastpath, ops
from .brief import CRI, DOCKER, Unwrapper, runtime_format
from .reader import (
    _BORROWING,
    _CUT,
    _PREEMPTED_TAIL,
    CHUNK,
    MAX_LINE,
    ReadStats,
    chunks,
    console_error,
    decode_console,
    decode_json,
    decode_klog,
    klog_match,
    klog_ts,
    looks_console,
    open_sources,
)
from .report import LogReport, build_report
from .signatures import (
    _HANDLERS,
    CYCLE_KEY,
    EXAMPLES,
    NEEDLES,
    SKIPPED,
    Evidence,
    cycle_duration,
    key,
    part,
    workload_key,
)
from .timeparse import parse_ts

if TYPE_CHECKING:
    from .batch import Run

_CONSOLE_MSGS = tuple(m.encode() for m in _HANDLERS)
_LEADER = (part(MSG_ACQUIRING_LEASE, " lease").encode(), part(MSG_ELECTION_LOST, "election lost").encode(),
           MSG_STOPPED_LEADING.encode())
_CONFLICT = CONFLICT.encode()


def scan(source, since: float | None = None, until: float | None = None, *,
         grace: float = 60.0, chunk_size: int = CHUNK, max_line: int = MAX_LINE,
         workers: int | None = None) -> LogReport:
    """Scan Kueue controller logs.

    ``source`` is a path, ``"-"`` (stdin), a binary stream, or an iterable of paths and/or log
    lines (bytes, or str that start with "{", contain a tab or end with a newline).
    ``since``/``until`` are seconds since the epoch; records outside are ignored (the line
    counts still cover everything read). ``grace`` is how long a preemption victim may keep its
    quota before it counts as slow. ``workers``: threads (or processes, see parallel.py) for
    regular files (None: one per CPU for files over a few chunks, 1: none); streams (.gz,
    stdin, lines) are read in this process.
    The report does not depend on ``workers`` or ``chunk_size``.
    """
    # the collector off while the evidence grows (each pass walked all of it, for nothing: it
    # lives until the report); the workers turn theirs back on (parallel.scan_file)
    with heap.paused():
        return _scan(source, since, until, grace, chunk_size, max_line, workers)


def _scan(source, since: float | None, until: float | None, grace: float, chunk_size: int, max_line: int,
          workers: int | None) -> LogReport:
    from .parallel import regular_file, scan_file

    stats = ReadStats()
    ev = Evidence(since, until)
    window = since is not None or until is not None
    files: list[dict] = []
    for name, stream in open_sources(source):
        before = ReadStats(*stats.astuple())
        fmt = None
        try:
            if regular_file(name, stream):
                head = cast(io.BufferedReader, stream).peek(4096)[:4096]   # regular_file: a BufferedReader
                fmt = runtime_format(head.split(b"\n", 1)[0])
                scan_file(name, stream, stats, ev, workers=workers, chunk_size=chunk_size,
                          max_line=max_line, fmt=fmt)
                continue
            unwrap: Unwrapper | None = None
            for buf, end in chunks(stream, stats, name, size=chunk_size, max_line=max_line):
                if unwrap is None and fmt is None:
                    fmt = runtime_format(buf[:buf.find(b"\n")]) or ""
                    unwrap = Unwrapper(fmt) if fmt else None
                if unwrap is not None:
                    # a container runtime's log: its own prefix or wrapper off every line first
                    buf = unwrap.feed(buf[:end])
                    end = len(buf)
                _scan_buffer(buf, end, stats, ev, window)
            if unwrap is not None:
                rest = unwrap.finish()
                _scan_buffer(rest, len(rest), stats, ev, window)
        finally:
            if name not in ("-", "<stream>"):
                stream.close()
            files.append(file_summary(name, fmt or None, stats.since(before)))
    return build_report(stats, ev, grace=grace, files=files)


def _scan_buffer(buf: bytes, end: int, stats: ReadStats, ev: Evidence, window: bool) -> None:
    if end:
        tape: list = []
        scan_range(buf, 0, end, stats, tape, window)
        apply(ev, tape)


def file_summary(name: str, fmt: str | None, st: ReadStats) -> dict:
    """What one input held: its line counts and the forms they were in. ``recognized`` is 0
    when no line of it was a Kueue controller log line of any form read here."""
    json_lines = st.parsed - st.console - st.klog
    forms = {k: v for k, v in (("json", json_lines), ("console", st.console), ("klog", st.klog)) if v}
    return {"file": name, "runtime": {CRI: "cri", DOCKER: "docker"}.get(fmt or ""),
            "lines": st.lines, "recognized": st.parsed, "unrecognized": st.unrecognized,
            "malformed": st.malformed, "forms": forms}


# --- the tape ----------------------------------------------------------------------------------
# Scanning turns lines into events: small tuples with the fields already cut out, timestamps
# parsed and JSON decoded. Everything order-dependent happens in apply(), in file order, with
# the Evidence handlers; so worker processes can scan ranges of a file while one process
# applies their tapes, and the report is the one a single pass gives.

_FEED, _DUR, _LEADER_TEXT, _EV_ADMIT, _EV_REQUEUE, _EV_EVAL, _EV_ONGOING, _KLOG_FEED, _EV_DRS, _SEEN, _OPS = range(11)


def apply(ev: Evidence, tape: list) -> None:
    seen = ev.seen
    for e in tape:
        kind = e[0]
        if kind == _OPS:
            ops.apply_ops(ev, e[1], _apply_one)
        elif kind == _EV_ADMIT:
            _, ts, cq, ns, name, conflict = e
            if seen(ts):
                wl = _workload(ns, name)
                ev.admitted(ev.resolve_cq(cq, wl), wl, ts)
                ev.conflicts += conflict
        elif kind == _DUR:
            ev.durations(e[1])
        elif kind == _SEEN:
            ev.seen_all(e[1])
        elif kind == _EV_DRS:
            _, ts, shares, raw, conflict = e
            if seen(ts):
                for wl_text, share in shares:
                    wl = workload_key(wl_text)
                    ev.drs_value(ev.workload_cq.get(wl, "") if wl is not None else "", share, ts, raw)
                ev.conflicts += conflict
        elif kind == _EV_REQUEUE:
            _, ts, cq, ns, name, reason, conflict = e
            if seen(ts):
                wl = _workload(ns, name)
                ev.requeued(ev.resolve_cq(cq, wl), wl, ts, reason)
                ev.conflicts += conflict
        elif kind == _EV_EVAL:
            _, ts, cq, ns, name, status, reason, borrowing, preempted, cycle, raw, conflict = e
            if seen(ts):
                wl = _workload(ns, name)
                ev.evaluated(ev.resolve_cq(cq, wl), wl, ts, status, reason, borrowing, preempted, cycle, raw)
                ev.conflicts += conflict
        elif kind == _EV_ONGOING:
            _, ts, target_ns, target, preemptor_ns, preemptor, cycle, raw, conflict = e
            if seen(ts):
                ev.ongoing(_workload(target_ns, target), _workload(preemptor_ns, preemptor), ts, cycle, raw)
                ev.conflicts += conflict
        elif kind == _FEED:
            ev.feed(e[1], e[2])
        elif kind == _KLOG_FEED:
            # klog writes no year: the log's own lines before this one say which (in file order)
            _, obj, stamp, raw = e
            ev.feed({**obj, TS: klog_ts(stamp, ev.last)}, raw)
        else:
            ev.leader_text(e[1], None)


def thin_examples(tape: list) -> None:
    """Drop, in a range's tape, the raw lines of preemption events that can never become an
    example: the Evidence keeps the first EXAMPLES lines of a bucket in file order (the overlap
    skips; each target's victim lines), so only the first EXAMPLES of a bucket in one range can
    be among the whole file's first. The raw line becomes None (it would fail loudly if read);
    the tape then ships a fraction of the bytes from a worker. Not with a window, where the
    first lines inside it may come later."""
    skips = 0
    victims: dict = {}

    def thin(e):
        nonlocal skips
        kind = e[0]
        if kind == _EV_EVAL:
            if e[10] and e[5] == STATUS_SKIPPED and OVERLAPPING_TARGETS in e[6]:   # Evidence.evaluated
                skips += 1
                if skips > EXAMPLES:
                    return (*e[:10], None, e[11])
        elif kind == _EV_ONGOING and e[2] and e[3]:   # Evidence.ongoing of a target
            target = (e[2], e[3])
            seen = victims[target] = victims.get(target, 0) + 1
            if seen > EXAMPLES:
                return (*e[:7], None, e[8])
        return e

    for i, e in enumerate(tape):
        if e[0] == _OPS:
            extras = e[1][7]
            for j, x in enumerate(extras):
                if type(x) is tuple:
                    extras[j] = thin(x)
        else:
            tape[i] = thin(e)


def _apply_one(ev: Evidence, e: tuple) -> None:
    apply(ev, [e])


def scan_range(buf: bytes, a: int, b: int, stats: ReadStats, tape: list, window: bool,
               origin: int | None = None) -> None:
    """buf[a:b] holds whole lines, each ending in a newline; events go to ``tape``. ``origin``:
    where ``buf`` starts in the file being read, for the tape to name the raw lines of DRS
    tournaments by their place in the file (``origin`` + their place in ``buf``) instead of
    carrying copies of them, which Evidence.line_at reads back for the few that become examples."""
    if b <= a:
        return
    fast = fastpath.module() if BATCH and not window else None
    if fast is not None:
        scan_range_compiled(fast, buf, a, b, stats, tape, origin)
        return
    if not isinstance(buf, bytes):   # a mapped range (parallel.py): the pure path uses bytes' methods
        buf, a, b = buf[a:b], 0, b - a
    hits = candidates.find(buf, a, b)
    odd = hits.odd
    if not odd:
        _scan_clean(buf, a, b, stats, tape, window, hits.msgs, hits.errors)
        return
    # The lines that are not "{...}" (console, klog, garbage, truncation) one by one, the runs
    # of JSON lines between them on the fast path, each with its share of the hits.
    msgs, errors = hits.msgs, hits.errors
    for start, end, json_run in _runs(buf, odd, a, b):
        if json_run:
            _scan_clean(buf, start, end, stats, tape, window, _within(msgs, start, end), _within(errors, start, end))
        else:
            _scan_lines(buf, start, end, stats, tape, window)


def _runs(buf: bytes, odd: list[int], a: int, b: int) -> Iterator[tuple[int, int, bool]]:
    """buf[a:b] cut, in order, into runs of JSON lines (True) and runs of the ``odd`` lines
    (False), each (start, end) ending at a newline."""
    find = buf.find
    pos, i = a, 0
    while i < len(odd):
        start = odd[i]
        end = find(b"\n", start, b) + 1
        i += 1
        while i < len(odd) and odd[i] == end:
            end = find(b"\n", end, b) + 1
            i += 1
        if start > pos:
            yield pos, start, True
        yield start, end, False
        pos = end
    if pos < b:
        yield pos, b, True


def scan_range_compiled(fast, buf: bytes, a: int, b: int, stats: ReadStats, tape: list,
                        origin: int | None = None, max_line: int | None = None) -> bool:
    """scan_range with the compiled extractor (fastpath.py): the same runs, odd lines and order
    as _runs cuts, each run of JSON lines found by the extension's walk as it reads it, so the
    range is walked once. False where a line is longer than ``max_line`` (a mapped range, see
    parallel._scan_mapped, which then reads it otherwise): ``stats`` and ``tape`` are partial."""
    pos = a
    while pos < b:
        # (with an origin, the extension gives the raw lines as their places in the file)
        got, stop, longest = fast.scan(buf, pos, b, True, KEYED, -1 if origin is None else origin)
        if max_line is not None and longest > max_line:
            return False
        if stop > pos:
            _scan_clean_compiled(buf, pos, stop, stats, tape, got)
        pos = end = stop
        while end < b:   # the odd lines from there (a few, if any), as _runs gathers them
            le = buf.find(b"\n", end, b)
            le = b if le < 0 else le
            if le > end and buf[end] == 0x7B and buf[le - 1] == 0x7D:
                break
            if max_line is not None and le - end > max_line:
                return False
            end = le + 1
        if end > pos:
            _scan_lines(buf, pos, end, stats, tape, False)
            pos = end
        elif pos < b:   # cannot be (the walk stops only at an odd line); never loop on it
            raise RuntimeError(f"the compiled walk stopped at {pos} before a line that is not odd")
    return True


def _scan_clean_compiled(buf: bytes, a: int, b: int, stats: ReadStats, tape: list, got: tuple | None) -> None:
    """_scan_clean of a run without a window: the extension read the frequent lines into
    operations (``got``, of its walk) and gave back every other candidate line, read here as
    _scan_batched does."""
    if got is None:   # an error line in the run: all its candidate lines take the general path
        if not isinstance(buf, bytes):   # mapped (parallel.py): the general path uses bytes' methods
            buf, a, b = buf[a:b], 0, b - a
        hits = candidates.find(buf, a, b)
        _scan_clean(buf, a, b, stats, tape, False, hits.msgs, hits.errors)
        return
    lines, code, place, _sub, ts, cq, wl, aux, texts, keys, extras, n, lo, hi, rest, dur_place, dur, conflicts = got
    stats.lines += lines
    stats.parsed += lines
    placed: list = []
    durations = memoryview(dur).cast("d").tolist()
    if rest:   # read as _scan_batched reads the lines it does not batch, every one an event
        cycles = (memoryview(dur_place).cast("q").tolist(), durations)
        durations = _rest_events(buf, [(ls, None, ls, le, kind) for ls, le, kind in rest], stats, False, conflicts,
                                 cycles, placed, None)
    entry = _compiled_ops(code, place, ts, cq, wl, aux, texts, keys, extras, n, lo, hi, placed)
    if entry is not None:
        tape.append((_OPS, entry))
    if durations:
        tape.append((_DUR, durations))


def _within(hits: list, a: int, b: int) -> list:
    """The hits (sorted, each a position or a tuple starting with one) in [a, b)."""
    return hits[bisect_left(hits, (a,) if hits and isinstance(hits[0], tuple) else a):
                bisect_left(hits, (b,) if hits and isinstance(hits[0], tuple) else b)]


def _count_lines(buf: bytes, a: int, b: int) -> int:
    # numpy's vectorised compare counts newlines about twice as fast as bytes.count
    import numpy as np

    return int(np.count_nonzero(np.frombuffer(buf, np.uint8, b - a, a) == 0x0A))


def _scan_clean(buf: bytes, a: int, b: int, stats: ReadStats, tape: list, window: bool, msgs: list,
                errors: list) -> None:
    n = _count_lines(buf, a, b)
    stats.lines += n
    stats.parsed += n
    scan_json(buf, a, b, stats, tape, window, msgs, errors)


def _scan_lines(buf: bytes, a: int, b: int, stats: ReadStats, tape: list, window: bool) -> None:
    """Line by line, for console-encoder lines, klog, garbage or truncation."""
    for line in buf[a:b - 1].split(b"\n"):
        # lines pasted from CI output or a terminal often come indented
        line = line.rstrip(b"\r").lstrip(b" \t")
        if line.startswith(b"{") and line.endswith(b"}"):
            stats.lines += 1
            stats.parsed += 1
            scan_json(line + b"\n", 0, len(line) + 1, stats, tape, window)
        else:
            _scan_other(line, stats, tape)


def _scan_other(line: bytes, stats: ReadStats, tape: list) -> None:
    stats.lines += 1
    if looks_console(line):
        if (not any(m in line for m in _CONSOLE_MSGS) and not any(nd in line for nd in NEEDLES)
                and not console_error(line)):
            stats.parsed += 1
            stats.console += 1
            return
        obj = decode_console(line)
        if obj is None:
            stats.malformed += 1
        else:
            stats.parsed += 1
            stats.console += 1
            tape.append((_FEED, obj, line))
        return
    k = klog_match(line)
    if k is not None:
        stats.parsed += 1
        stats.klog += 1
        if line[:1] == b"E" or any(w in line for w in _LEADER) or any(m in line for m in _CONSOLE_MSGS):
            obj, stamp = decode_klog(k)
            if obj[MSG] in _HANDLERS or obj[LEVEL] == LEVEL_ERROR:
                tape.append((_KLOG_FEED, obj, stamp, line))
            else:
                tape.append((_LEADER_TEXT, obj[MSG]))
        return
    stats.malformed += 1
    if line.strip():
        stats.unrecognized += 1


# --- zap JSON lines ----------------------------------------------------------------------------

# candidates.find gives each candidate line's leftmost message with a kind; the frequent ones
# have a kind of their own, which tells the loop which extractor to try.
_ADMITTED, _REQUEUED, _EVALUATED, _ONGOING, _ALREADY, _CYCLE, _DRS = (
    candidates.ADMITTED, candidates.REQUEUED, candidates.EVALUATED, candidates.ONGOING, candidates.ALREADY,
    candidates.CYCLE, candidates.DRS)
_FREQUENT = {kind: msg.encode() + b'"' for kind, msg in candidates.FREQUENT.items()}
_FAST_KINDS = frozenset((_ADMITTED, _REQUEUED, _EVALUATED, _ONGOING, _ALREADY, _DRS))


def _k(name: str, before: bytes = b",") -> bytes:
    """A key and the separator before it, as a regex; keys are plain words, nothing to escape."""
    assert re.fullmatch(r"[A-Za-z-]+", name), name
    return before + key(name)


# Strict shapes of the frequent lines as Kueue writes them. A line that matches is valid JSON
# without duplicate keys and its string values have no escapes, so the cut-out bytes are exactly
# what json.loads would give; anything else (other versions, odd values) takes decode_json.
# _HEAD is '{"level":"…","ts":"…","logger":"…","caller":"…","msg":"', _REF '{"name":"…","namespace":"…"}'.
_S = rb'[^"\\\x00-\x1f]*'
_N = rb'-?(?:0|[1-9][0-9]*)'
_HEAD = (_k(LEVEL, rb'\{') + rb'"(' + _S + rb')"' + _k(TS) + rb'"(' + _S + rb')"' + _k(LOGGER) + rb'"' + _S
         + rb'"' + _k(CALLER) + rb'"' + _S + rb'"' + _k(MSG) + rb'"')
_TAG = rb'(?:' + _k(REPLICA_ROLE) + rb'"' + _S + rb'")?(?:' + _k(KEY_SCHEDULING_CYCLE) + rb'(' + _N + rb'))?'
_NAME = _k(KEY_NAME, rb'\{')
_REF = _NAME + rb'"(' + _S + rb')"' + _k(KEY_NAMESPACE) + rb'"(' + _S + rb')"\}'
_WLCQ = _k(KEY_WORKLOAD) + _REF + _k(KEY_CLUSTER_QUEUE) + _NAME + rb'"(' + _S + rb')"\}'
_MAP = rb'\{(?:"' + _S + rb'":"' + _S + rb'"(?:,"' + _S + rb'":"' + _S + rb'")*)?\}'
_ASSIGN = (_NAME + rb'"' + _S + rb'"' + _k(KEY_FLAVORS) + _MAP + _k(KEY_RESOURCE_USAGE) + _MAP + _k(KEY_COUNT) + _N
           + rb'\}')
_COHORT = (rb'(?:' + _k(KEY_PARENT_COHORT) + _NAME + rb'"' + _S + rb'"\})?(?:' + _k(KEY_ROOT_COHORT) + _NAME + rb'"'
           + _S + rb'"\})?')
_ADMITTED_LINE = re.compile(_HEAD + _FREQUENT[_ADMITTED] + _TAG + _WLCQ + _COHORT
                            + _k(KEY_ASSIGNMENTS) + rb'\[(?:' + _ASSIGN + rb'(?:,' + _ASSIGN + rb')*)?\]\}')
_REQUEUED_LINE = re.compile(_HEAD + _FREQUENT[_REQUEUED] + _TAG + _WLCQ
                            + _k(KEY_QUEUE) + _NAME + rb'"' + _S + rb'"(?:' + _k(KEY_NAMESPACE) + rb'"' + _S + rb'")?\}'
                            + _k(KEY_REQUEUE_REASON) + rb'"(' + _S + rb')"' + _k(KEY_ADDED) + rb'(?:true|false)'
                            + _k(KEY_STATUS) + rb'"(' + _S + rb')"\}')
# The scheduler's per-workload keys (the preemptor's workload, ClusterQueue and cohorts) may come
# before the targets; the evidence does not use them, so they are matched, not captured.
_PER_WORKLOAD = (rb'(?:' + _k(KEY_WORKLOAD) + _NAME + rb'"' + _S + rb'"' + _k(KEY_NAMESPACE) + rb'"' + _S + rb'"\}'
                 + _k(KEY_CLUSTER_QUEUE) + _NAME + rb'"' + _S + rb'"\}' + _COHORT + rb')?')
_ONGOING_LINE = re.compile(_HEAD + rb'(?:' + _FREQUENT[_ONGOING] + b"|" + _FREQUENT[_ALREADY] + rb')' + _TAG
                           + _PER_WORKLOAD + _k(KEY_TARGET_WORKLOAD) + _REF + _k(KEY_PREEMPTING_WORKLOAD) + _REF
                           + rb'\}')
# decode_json reads an evaluation only up to its V(4) nominatedAssignment, so only that head
# needs the strict shape; the extras after it are cut out exactly as decode_json does.
_EVALUATED_HEAD = re.compile(_HEAD + _FREQUENT[_EVALUATED] + _TAG + _WLCQ
                             + _k(KEY_STATUS) + rb'"(' + _S + rb')"' + _k(KEY_REASON) + rb'"(' + _S + rb')"')
# The tournament's V(4) line: only the shares that may be zero matter (and the time, for the
# window and first/last). Keys that json.loads would let a later duplicate override are refused.
_FIELD = (rb',"(?!(?:' + b"|".join(k.encode() for k in (LEVEL, TS, MSG, KEY_DRS_VALUES)) + rb')")[A-Za-z-]+":(?:"'
          + _S + rb'"|' + _NAME + rb'"' + _S + rb'"(?:' + _k(KEY_NAMESPACE) + rb'"' + _S + rb'")?\})')


def _drs_item(group: bytes) -> bytes:
    """One of drsValues' {parentCohort, workload, drs}; ``group`` b"(" captures the workload and
    the share, b"(?:" does not."""
    return (_k(KEY_PARENT_COHORT, rb'\{') + rb'"' + _S + rb'"' + _k(KEY_WORKLOAD) + rb'"' + group + _S + rb')"'
            + _k(KEY_DRS) + rb'"' + group + _S + rb')"\}')


_DRS_LINE = re.compile(_HEAD + _FREQUENT[_DRS] + _TAG + rb'(?:' + _FIELD + rb')*' + _k(KEY_DRS_VALUES)
                       + rb'\[((?:' + _drs_item(b"(?:") + rb'(?:,' + _drs_item(b"(?:") + rb')*)?)\]\}')
_DRS_ITEMS = re.compile(_drs_item(b"("))
# A share written like this is not zero whatever float() makes of it; any other may be.
_NONZERO = re.compile(rb"[1-9][0-9]*(?:\.[0-9]+)?")
_STATUS = key(KEY_STATUS) + b'"'
_ASSUMED = STATUS_ASSUMED.encode() + b'"'
_NOMINATED = STATUS_NOMINATED.encode() + b'"'
_LEVEL_BORROWING = b'"' + ASSIGNMENT_BORROWING.encode() + b'":'
_SKIPPED = STATUS_SKIPPED.encode()
_STATUS_LEN, _BORROWING_LEN, _CUT_LEN = len(_STATUS), len(_LEVEL_BORROWING), len(_CUT)


def _workload(ns: str, name: str) -> WorkloadKey | None:
    """signatures.workload_key of a reference the fast path cut out (it has no escapes). The tape
    carries the two strings and ``apply`` makes the key: a key is a class instance, which costs
    several times a string to pickle from a worker and to unpickle; made once per workload."""
    return ops.workload_of(ns, name) if ns and name else None


def _keep_evaluated(buf: bytes, m: int, le: int) -> bool:
    # Most evaluations are plain admissions without borrowing or nominations waiting for
    # preemptions: neither changes the evidence, so they are dropped before any decoding.
    p = buf.find(_STATUS, m, le)
    if p < 0:
        return True
    p += _STATUS_LEN
    if not buf.startswith(_ASSUMED, p):
        return not buf.startswith(_NOMINATED, p)
    p = buf.find(_LEVEL_BORROWING, p, le)
    return p >= 0 and buf[p + _BORROWING_LEN:p + _BORROWING_LEN + 1] != b"0"


def scan_json(buf: bytes, a: int, b: int, stats: ReadStats, tape: list, window: bool,
              msgs: list | None = None, errors: list | None = None) -> None:
    """buf[a:b]: whole lines, each "{...}" and a newline; stats.lines/parsed already counted.
    ``msgs``/``errors``: the range's hits (candidates.find), found here when not given."""
    if msgs is None or errors is None:
        hits = candidates.find(buf, a, b)
        msgs, errors = hits.msgs, hits.errors
    spans = []
    find, rfind = buf.find, buf.rfind
    le = -1
    for s, kind in msgs:
        if s < le:   # a line's message is its first
            continue
        le = find(b"\n", s, b)
        if kind == _EVALUATED and not _keep_evaluated(buf, s + 6, le):
            continue
        spans.append((rfind(b"\n", a, s) + 1 or a, le, kind))
    if errors:
        # Error lines count whatever their message; rare, so they and the lines around them
        # take the general path, in file order (one per line: the first error prefix in it).
        errs = []
        last = -1
        for p in errors:
            if p >= last:
                last = find(b"\n", p, b)
                errs.append((p, last, 0))
        lines = sorted({(ls, le) for ls, le, _ in spans + errs})
        spans = [(ls, le, 0) for ls, le in lines]
    ascii_ = buf.isascii()
    conflicts = find(_CONFLICT, a, b) >= 0
    if BATCH and not window:
        _scan_batched(buf, spans, stats, tape, ascii_, conflicts)
        return
    append = tape.append
    # Commutative events are gathered, not appended one by one: the durations of cycles (summed
    # in file order, so a batch closes before any record that may hold a cycle's duration) and
    # the times of DRS lines with no share that can be zero (only first/last/in-window counts).
    durations: list = []
    times: list = []
    for ls, le, kind in spans:
        line = buf[ls:le]
        if kind in _FAST_KINDS and (ascii_ or line.isascii()):
            e = _fast(line, kind, window)
            if e is not None:
                conflict = conflicts and _CONFLICT in line
                if kind == _DRS and not e[2] and not conflict:
                    times.append(e[1])
                else:
                    append(e + (conflict,))  # noqa: RUF005 - per line: faster than (*e, x)
                continue
        durations = _general(line, stats, durations, append, window)
    if durations:
        append((_DUR, durations))
    if times:
        append((_SEEN, times))


def _general(line: bytes, stats: ReadStats, durations: list, emit, window: bool) -> list:
    """A candidate line off the fast shapes: a cycle's duration (gathered in ``durations``, which
    is returned, a new list once emitted) or a decoded record."""
    d = None if window else cycle_duration(line)
    if d is not None:
        durations.append(d)
        return durations
    obj = decode_json(line)
    if obj is None:
        stats.parsed -= 1
        stats.malformed += 1
    else:
        if durations and obj.get(KEY_DURATION) is not None:
            # summed in file order: the batch closes before any record that may hold a duration
            emit((_DUR, durations))
            durations = []
        emit((_FEED, obj, line))
    return durations


_BATCHED = frozenset((_ADMITTED, _REQUEUED, _EVALUATED, _DRS))
BATCH = True   # False: every line on its own, as with a window (the tests compare both)
# The compiled pass's workload tables as keys.WorkloadKey (kept by the extension across runs)
# rather than (namespace, name) tuples; off in a worker process (parallel.py), whose tapes are
# pickled: a tuple pickles in C, a NamedTuple through Python code.
KEYED = True


def _scan_batched(buf: bytes, spans: list, stats: ReadStats, tape: list, ascii_: bool, conflicts: bool) -> None:
    """scan_json's loop without a window: the frequent lines in batches (batch.py), every other
    line as scan_json reads it, all in one stream of operations in file order."""
    batches: dict[int, tuple[list, list]] = {k: ([], []) for k in _BATCHED}
    # evaluations with their V(4) blob: a batch of their heads, cut before it
    with_blob: tuple[list, list] = ([], [])
    heads: list = []
    rest: list = []
    for i, (ls, le, kind) in enumerate(spans):
        places_lines = batches.get(kind)
        if places_lines is not None:
            line = buf[ls:le]
            if (ascii_ or line.isascii()) and not (conflicts and _CONFLICT in line):
                if kind == _EVALUATED:
                    cut = line.find(_CUT)
                    if cut >= 0:
                        if line.find(CYCLE_KEY, cut) >= 0:
                            rest.append((i, line))   # cycle_duration would read it as a cycle line
                            continue
                        places_lines = with_blob
                        heads.append(line[:cut + _CUT_LEN])
                places_lines[0].append(i)
                places_lines[1].append(line)
                continue
        rest.append((i, None))
    from . import batch

    run = batch.Run()
    for kind, (places, lines) in batches.items():
        if places:
            rest.extend(batch.read(run, kind, places, lines))
    if heads:
        rest.extend(batch.read(run, batch.EVALUATED_HEAD, with_blob[0], with_blob[1], heads))
    rest.sort(key=lambda pl: pl[0])
    _place_rest(buf, [(i, line, *spans[i]) for i, line in rest], run, stats, tape, ascii_, conflicts)


def _is_assumed(e: tuple, place: int, assumed: list) -> bool:
    """Whether the event ``e`` is an evaluation with status "assumed" (and a number for its
    borrowing): then it becomes an operation of the run (batch.Run.assumed), added to ``assumed``."""
    if e[0] != _EV_EVAL or e[5] != STATUS_ASSUMED or type(e[7]) not in (int, float):
        return False
    assumed.append((place, e[1], e[2], e[3], e[4], e[7] > 0))
    return True


def _is_ongoing(e: tuple, place: int, ongoing: list) -> bool:
    """Whether the event ``e`` is a victim's line ("Preemption ongoing", "... already issued")
    with a cycle the operations' column holds: then it becomes operations of the run
    (batch.Run.ongoing), added to ``ongoing``."""
    if e[0] != _EV_ONGOING or not (e[6] is None or ops.NO_CYCLE < e[6] < ops.CYCLE_LIMIT):
        return False
    ongoing.append((place, *e[1:8]))
    return True


def _is_skip(e: tuple, place: int, skips: list) -> bool:
    """Whether the event ``e`` is an evaluation skipped for overlapping preemption targets, with
    a cycle the operations' column holds and targets named in ASCII (the workload table's bytes):
    then it becomes operations of the run (batch.Run.skips), added to ``skips``. Its targets are
    Evidence.evaluated's: the workloads a list of references names, ("", "") for others."""
    if e[0] != _EV_EVAL or e[5] != STATUS_SKIPPED or OVERLAPPING_TARGETS not in e[6] or not (
            e[9] is None or ops.NO_CYCLE < e[9] < ops.CYCLE_LIMIT):
        return False
    preempted = e[8] or []
    keys = [workload_key(t) for t in preempted] if isinstance(preempted, list) else []
    if not all(k is None or (k.namespace.isascii() and k.name.isascii()) for k in keys):
        return False
    skips.append((place, e[1], e[2], e[3], e[4], [("", "") if k is None else k for k in keys], e[9], e[10]))
    return True


def _place_rest(buf: bytes, rest: list, run: Run, stats: ReadStats, tape: list, ascii_: bool,
                conflicts: bool) -> None:
    """The candidate lines a batch did not take, (place, line or None, start, end, kind) in file
    order, read one by one as scan_json reads them; then the run's operations and durations.
    A line is None where no batch looked at it, else it is off its batch's shape."""
    placed: list = []
    found: tuple[list, list, list] = ([], [], [])
    durations = _rest_events(buf, rest, stats, ascii_, conflicts, None, placed, found)
    run.events(placed)
    run.assumed(found[0])
    run.ongoing(found[1])
    run.skips(found[2])
    ops = run.tape()
    if ops is not None:
        tape.append((_OPS, ops))
    if durations:
        tape.append((_DUR, durations))


def _rest_events(buf: bytes, rest: list, stats: ReadStats, ascii_: bool, conflicts: bool, cycles: tuple | None,
                 placed: list, found: tuple[list, list, list] | None) -> list:
    """_place_rest's reading of the lines: their events, (place, event) in file order, added to
    ``placed``, except those ``found`` takes as operations (batch.Run's assumed, ongoing and
    skips: _is_assumed, _is_ongoing, _is_skip); None: every one an event. ``cycles``: the
    (places, durations) of the cycles' lines the extension read, each joining the durations at
    its place (their sum depends on their order). Returns the durations, in file order."""
    durations: list = []
    at, ds = cycles if cycles is not None else ([], [])
    cut = 0
    for i, line, ls, le, kind in rest:
        if cut < len(at) and at[cut] < i:
            end = bisect_left(at, i, cut)
            durations.extend(ds[cut:end])
            cut = end
        if line is None:
            line = buf[ls:le]
            if kind in _FAST_KINDS and (ascii_ or line.isascii()):
                e = _fast(line, kind, False)
                if e is not None:
                    conflict = conflicts and _CONFLICT in line
                    if kind == _DRS and not e[2] and not conflict:
                        placed.append((i, (_SEEN, [e[1]])))
                    elif conflict or not _as_ops(e, i, found):
                        placed.append((i, e + (conflict,)))  # noqa: RUF005 - as scan_json builds it
                    continue
        elif kind in _FAST_KINDS:
            # off its batch's shape, at an error level, or an evaluation other than "not nominated"
            e = _fast(line, kind, False)
            if e is not None:
                if not _as_ops(e, i, found):
                    placed.append((i, e + (False,)))  # noqa: RUF005 - as scan_json builds it
                continue
        durations = _general(line, stats, durations, lambda e, i=i: placed.append((i, e)), False)
    durations.extend(ds[cut:])
    return durations


def _as_ops(e: tuple, place: int, found: tuple[list, list, list] | None) -> bool:
    return found is not None and (_is_assumed(e, place, found[0]) or _is_ongoing(e, place, found[1])
                                  or _is_skip(e, place, found[2]))


_EVENT_CODE = bytes([ops.OP_EVENT])
_NO_TIME = struct.pack("=d", math.nan)
_ZERO_ID = bytes(4)


def _compiled_ops(code: bytes, place: bytes, ts: bytes, cq: bytes, wl: bytes, aux: bytes, texts: list, keys: list,
                  extras: list, n: int, lo: float, hi: float, placed: list) -> tuple | None:
    """The tape entry of the extension's run, its columns in file order as bytes, with the events
    of the lines it left to Python (``placed``: (place, event), in file order) among its
    operations as OP_EVENTs, at their places: what batch.Run.tape makes of them (with no time,
    workload or queue), but without numpy (ops.py). None where the run holds nothing."""
    if not (code or n or placed):
        return None
    if placed:
        at = memoryview(place).cast("q")
        columns = ((code, 1), (ts, 8), (cq, 4), (wl, 4), (aux, 4))
        pieces: list[list[bytes]] = [[] for _ in columns]
        cut = 0
        for p, e in placed:
            j = bisect_left(at, p, cut)
            for out, (col, width) in zip(pieces, columns, strict=True):
                out.append(col[cut * width:j * width])
            for out, value in zip(pieces, (_EVENT_CODE, _NO_TIME, _ZERO_ID, _ZERO_ID,
                                           struct.pack("=i", len(extras))), strict=True):
                out.append(value)
            extras.append(e)
            cut = j
        for out, (col, width) in zip(pieces, columns, strict=True):
            out.append(col[cut * width:])
        code, ts, cq, wl, aux = (b"".join(out) for out in pieces)
    return (code, ts, cq, wl, aux, texts, keys, extras, n, None if lo == math.inf else lo,
            None if hi == -math.inf else hi)


_SECONDS: dict[bytes, float | None] = {}
_POWERS = tuple(10 ** n for n in range(10))


def _ts(text: bytes) -> float | None:
    # parse_ts for zap's "2026-08-20T10:15:02.123456789Z", with the same arithmetic; other
    # forms go to parse_ts itself.
    head = text[:19]
    base = _SECONDS.get(head)
    if base is None:
        base = parse_ts(head.decode() + "Z")
        if base is None:
            return parse_ts(text.decode())
        if len(_SECONDS) > 100_000:
            _SECONDS.clear()
        _SECONDS[head] = base
    if 21 < len(text) < 31 and text[19] == 0x2E and text[-1] == 0x5A:
        digits = text[20:-1]
        if digits.isdigit():
            return base + int(digits) / _POWERS[len(digits)] - 0.0
    return parse_ts(text.decode())


def _fast(line: bytes, kind: int, window: bool) -> tuple | None:
    """An event from fields cut out of a frequent line's bytes; None: take decode_json."""
    if kind == _EVALUATED:
        m = _EVALUATED_HEAD.match(line)
        if m is None:
            return None
        cut = m.end()
        if line.startswith(_CUT, cut):
            extra = line[cut:]
        elif cut == len(line) - 1:
            extra = b""
        else:
            return None
        if not window and CYCLE_KEY in extra:
            return None  # cycle_duration would read it as a cycle line
    elif kind == _DRS:
        m = _DRS_LINE.fullmatch(line)
        if m is None or m.group(1).decode().lower() in ERROR_LEVELS:
            return None
        nonzero = _NONZERO.fullmatch
        shares = [(w.decode(), d.decode()) for w, d in _DRS_ITEMS.findall(m.group(4))
                  if nonzero(d) is None]
        return (_EV_DRS, _ts(m.group(2)), shares, line if shares else b"")
    elif kind == _ADMITTED:
        m = _ADMITTED_LINE.fullmatch(line)
    elif kind == _REQUEUED:
        m = _REQUEUED_LINE.fullmatch(line)
    else:
        m = _ONGOING_LINE.fullmatch(line)
    if m is None:
        return None
    g = m.groups()
    if g[0].decode() in ERROR_LEVELS:
        return None
    ts = _ts(g[1])
    if kind == _ADMITTED:
        return (_EV_ADMIT, ts, g[5].decode(), g[4].decode(), g[3].decode())
    if kind == _REQUEUED:
        # a head skipped in its cycle is re-queued FailedAfterNomination with status "skipped":
        # it waits on another head's preemption, it is not a head that cannot fit
        reason = SKIPPED if g[7] == _SKIPPED else (g[6].decode() or REQUEUE_GENERIC)
        return (_EV_REQUEUE, ts, g[5].decode(), g[4].decode(), g[3].decode(), reason)
    cycle = None if g[2] is None else int(g[2])
    if kind == _EVALUATED:
        status = g[6].decode()
        borrowing, preempted = 0, None
        if extra:
            b = _BORROWING.search(extra)
            if b:
                borrowing = int(b.group(1))
            # Only an overlap skip reads the targets (and only it keeps the line as an example).
            if status == STATUS_SKIPPED:
                tail = extra.rfind(_PREEMPTED_TAIL)
                if tail > 0:
                    try:  # noqa: SIM105 - per log line: try/except is cheaper than contextlib.suppress
                        preempted = json.loads(extra[tail + len(_PREEMPTED_TAIL):].rstrip()[:-1])
                    except ValueError:
                        pass
        return (_EV_EVAL, ts, g[5].decode(), g[4].decode(), g[3].decode(), status, g[7].decode(), borrowing,
                preempted, cycle, line if status == STATUS_SKIPPED else b"")
    return (_EV_ONGOING, ts, g[4].decode(), g[3].decode(), g[6].decode(), g[5].decode(), cycle, line)
