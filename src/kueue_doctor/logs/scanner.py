"""``scan()``: stream the inputs, pick candidate lines with fast byte searches, build a LogReport."""
from __future__ import annotations

import re

from .reader import (CHUNK, MAX_LINE, ReadStats, chunks, decode_console, decode_json, iter_lines,
                     looks_console, open_sources)
from .report import LogReport, build_report
from .signatures import MESSAGES, NEEDLES, Evidence, _HANDLERS

_CONSOLE_MSGS = tuple(m.encode() for m in _HANDLERS)
_KLOG = re.compile(rb"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ [^\]]+\] (.*)$")
_LEADER = (b" lease", b"election lost", b"stopped leading")


def scan(source, since: float | None = None, until: float | None = None, *,
         grace: float = 60.0, chunk_size: int = CHUNK, max_line: int = MAX_LINE) -> LogReport:
    """Scan Kueue controller logs.

    ``source`` is a path, ``"-"`` (stdin), a binary stream, or an iterable of paths and/or log
    lines (bytes, or str that start with "{", contain a tab or end with a newline).
    ``since``/``until`` are seconds since the epoch; records outside are ignored (the line
    counts still cover everything read). ``grace`` is how long a preemption victim may keep its
    quota before it counts as slow.
    """
    stats = ReadStats()
    ev = Evidence(since, until)
    for name, stream in open_sources(source):
        try:
            for buf, end in chunks(stream, stats, name, size=chunk_size, max_line=max_line):
                _scan_chunk(buf, end, stats, ev)
        finally:
            if name not in ("-", "<stream>"):
                stream.close()
    return build_report(stats, ev, grace=grace)


def _scan_chunk(buf: bytes, end: int, stats: ReadStats, ev: Evidence) -> None:
    n = buf.count(b"\n", 0, end)
    stats.lines += n
    if buf.find(b"\t", 0, end) >= 0 or not _all_json_shaped(buf, end, n):
        _scan_slow(buf, end, stats, ev)
        return
    stats.parsed += n
    starts = []
    # One walk over the "msg" keys: a C-level startswith against every message of interest
    # costs less than one bytes.find pass per message.
    find, startswith = buf.find, buf.startswith
    p = find(_MSG_KEY, 0, end)
    while p >= 0:
        m = p + _MSG_LEN
        if startswith(MESSAGES, m):
            ls = buf.rfind(b"\n", 0, p) + 1
            le = find(b"\n", m, end)
            keep = _KEEP.get(buf[m:m + 12])
            if keep is None or keep(buf, m, le):
                starts.append((ls, le))
            p = find(_MSG_KEY, le, end)
        else:
            p = find(_MSG_KEY, m, end)
    p = find(_ERROR, 0, end)
    while p >= 0:
        le = find(b"\n", p, end)
        starts.append((p, le))
        p = find(_ERROR, le, end)
    starts = sorted(set(starts))
    for ls, le in starts:
        line = buf[ls:le]
        if ev.cycle_line(line):
            continue
        obj = decode_json(line)
        if obj is None:
            stats.parsed -= 1
            stats.malformed += 1
        else:
            ev.feed(obj, line)


def _evaluated(buf: bytes, m: int, le: int) -> bool:
    # Most evaluations are plain admissions without borrowing; look before decoding.
    p = buf.find(b'"status":"', m, le)
    if p < 0:
        return True
    if not buf.startswith(b'assumed"', p + 10):
        return not buf.startswith(b'nominated"', p + 10)
    p = buf.find(b'"Borrowing":', p, le)
    return p >= 0 and buf[p + 12:p + 13] != b"0"


_MSG_KEY = b'"msg":"'
_MSG_LEN = len(_MSG_KEY)
_ERROR = b'{"level":"error'
_KEEP = {b"Workload eva": _evaluated}


def _all_json_shaped(buf: bytes, end: int, n: int) -> bool:
    # Every line is "{...}" exactly when each newline but the last sits between "}" and "{".
    # Two C-level counts decide it for the whole chunk; only chunks with odd lines go slow.
    if buf[:1] != b"{" or buf[end - 2:end - 1] != b"}":
        return False
    return buf.count(b"}\n{", 0, end) == n - 1


def _scan_slow(buf: bytes, end: int, stats: ReadStats, ev: Evidence) -> None:
    """Line by line, for chunks with console-encoder lines, garbage or truncation."""
    for line in iter_lines(buf, end):
        line = line.rstrip(b"\r")
        if line.startswith(b"{") and line.endswith(b"}"):
            if not any(nd in line for nd in NEEDLES):
                stats.parsed += 1
                continue
            obj = decode_json(line)
        elif looks_console(line):
            if not any(m in line for m in _CONSOLE_MSGS) and not any(nd in line for nd in NEEDLES):
                stats.parsed += 1
                continue
            obj = decode_console(line)
        else:
            stats.malformed += 1
            k = _KLOG.match(line)
            if k and any(w in line for w in _LEADER):
                ev.leader_text(k.group(1).decode(errors="replace"), None)
            continue
        if obj is None:
            stats.malformed += 1
        else:
            stats.parsed += 1
            ev.feed(obj, line)
