"""Streaming: files, .gz, stdin or in-memory lines, read in large binary chunks.

Nothing here decodes JSON for every line. A chunk is cut at its last newline, lines are counted
with ``bytes.count``, and only lines that contain one of the scanner's needles are handed on.
Lines longer than ``max_line`` are dropped (and counted) so memory stays bounded whatever the input.
"""
from __future__ import annotations

import gzip
import io
import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

from ..errors import InputError
from ..kueue.logvocab import (
    ASSIGNMENT_BORROWING,
    CALLER,
    KEY_NOMINATED_ASSIGNMENT,
    KEY_PREEMPTED,
    LEVEL,
    LOGGER,
    MSG,
    TS,
)

CHUNK = 4 << 20
MAX_LINE = 4 << 20
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass
class ReadStats:
    lines: int = 0
    parsed: int = 0
    malformed: int = 0
    too_long: int = 0
    console: int = 0        # parsed lines of the console encoder's form
    klog: int = 0           # parsed klog text lines (client-go, logr/klog test output)
    unrecognized: int = 0   # lines of no form read here (not JSON, console or klog; not blank)

    def add(self, part: ReadStats) -> None:
        self.lines += part.lines
        self.parsed += part.parsed
        self.malformed += part.malformed
        self.too_long += part.too_long
        self.console += part.console
        self.klog += part.klog
        self.unrecognized += part.unrecognized

    def since(self, before: ReadStats) -> ReadStats:
        """What was counted after ``before`` (a copy taken earlier)."""
        return ReadStats(*(a - b for a, b in zip(self.astuple(), before.astuple(), strict=True)))

    def astuple(self) -> tuple[int, ...]:
        return (self.lines, self.parsed, self.malformed, self.too_long, self.console, self.klog, self.unrecognized)


def _is_line(item: str) -> bool:
    # Strings that look like log lines are lines; anything else is a path.
    return item.endswith("\n") or item.startswith("{") or "\t" in item


def open_sources(source) -> Iterator[tuple[str, io.BufferedIOBase]]:
    """Yield (name, binary stream) for a path, '-', a stream, or an iterable of paths/lines."""
    if isinstance(source, (str, os.PathLike)) and not (isinstance(source, str) and _is_line(source)):
        source = [source]
    if isinstance(source, (io.IOBase,)):
        yield "<stream>", cast(io.BufferedIOBase, source)  # any binary stream: only read() is used
        return
    pending_lines: list[bytes] = []
    for item in source:
        if isinstance(item, bytes) or (isinstance(item, str) and _is_line(item)):
            data = item.encode() if isinstance(item, str) else item
            pending_lines.append(data if data.endswith(b"\n") else data + b"\n")
            continue
        if pending_lines:
            yield "<lines>", io.BytesIO(b"".join(pending_lines))
            pending_lines = []
        yield str(item), _open_path(str(item))
    if pending_lines:
        yield "<lines>", io.BytesIO(b"".join(pending_lines))


def _open_path(path: str) -> io.BufferedIOBase:
    raw: io.BufferedIOBase
    if path == "-":
        raw = cast(io.BufferedIOBase, sys.stdin.buffer)  # a BufferedReader at run time
    else:
        try:
            raw = open(path, "rb")  # noqa: SIM115 - returned to the caller, who closes it
        except OSError as e:
            raise InputError(e.strerror or str(e), file=path) from None
    head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
    if head == _GZIP_MAGIC:
        return gzip.GzipFile(fileobj=raw, mode="rb")
    return raw


def chunks(stream, stats: ReadStats, name: str, *, size: int = CHUNK,
           max_line: int = MAX_LINE) -> Iterator[tuple[bytes, int]]:
    """Yield (buffer, end): buffer[:end] holds whole lines only, each ending in a newline."""
    carry = b""
    skipping = False  # inside a line longer than max_line: drop bytes up to its newline
    while True:
        try:
            data = stream.read(size)
        except (OSError, EOFError, gzip.BadGzipFile) as e:
            raise InputError(f"cannot read: {e}", file=name) from None
        if not data:
            break
        if skipping:
            nl = data.find(b"\n")
            if nl < 0:
                continue
            stats.lines += 1
            stats.malformed += 1
            stats.too_long += 1
            data = data[nl + 1:]
            skipping = False
        if carry:
            data = carry + data
            carry = b""
        end = data.rfind(b"\n") + 1
        if len(data) - end > max_line:
            skipping = True
        else:
            carry = data[end:]
        if end:
            yield data, end
    if skipping:
        stats.lines += 1
        stats.malformed += 1
        stats.too_long += 1
    elif carry:
        # A last line without newline is usually a truncated write: still offer it.
        yield carry + b"\n", len(carry) + 1


# --- decoding of candidate lines -------------------------------------------------------------

_DECODER = json.JSONDecoder()
_CUT = b',"' + KEY_NOMINATED_ASSIGNMENT.encode() + b'":'
_BORROWING = re.compile(b'"' + ASSIGNMENT_BORROWING.encode() + rb'":(\d+)')
_PREEMPTED_TAIL = b',"' + KEY_PREEMPTED.encode() + b'":'
# Not Kueue's: where decode_json puts the borrowing level it cut out of the assignment.
BORROWING = "borrowing"
# ts, level, [logger], [caller], msg, [fields]: a logger never looks like a caller (file.go:123),
# so a line without a logger (controller-runtime's own) keeps its caller as the caller.
_CONSOLE = re.compile(rb"^(\S+)\t(\S+)\t(?:(?!\S+:\d+\t)(\S+)\t)?(?:(\S+:\d+)\t)?([^\t{]*?)(?:\t(\{.*\}))?\r?$")
# The console encoder writes zap's capital levels: INFO, DEBUG, ERROR, LEVEL(-2) (V(2)), ...
_CONSOLE_ERROR = re.compile(rb"^\S+\t(?:ERROR|DPANIC|PANIC|FATAL|error|dpanic|panic|fatal)\t")


def decode_json(line: bytes) -> dict | None:
    """Decode one zap JSON line; the large V(4) assignment blob is skipped, not parsed."""
    cut = line.find(_CUT)
    extra = {}
    if cut > 0:
        # Only two facts in the blob matter here; parsing 1-2 KB per line would dominate.
        m = _BORROWING.search(line, cut)
        if m:
            extra[BORROWING] = int(m.group(1))
        tail = line.rfind(_PREEMPTED_TAIL)
        if tail > cut:
            try:  # noqa: SIM105 - per log line: try/except is cheaper than contextlib.suppress
                extra[KEY_PREEMPTED] = json.loads(line[tail + len(_PREEMPTED_TAIL):].rstrip()[:-1])
            except ValueError:
                pass
        line = line[:cut] + b"}"
    try:
        obj = _DECODER.decode(line.decode())
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict):
        return None
    obj.update(extra)
    return obj


def decode_console(line: bytes) -> dict | None:
    """The console encoder's form: ts, level, logger, caller, msg, then a JSON object of fields."""
    m = _CONSOLE.match(line)
    if not m:
        return None
    ts, level, logger, caller, msg, fields = m.groups()
    obj: dict = {}
    if fields:
        try:
            obj = json.loads(fields)
        except ValueError:
            return None
        if not isinstance(obj, dict):
            return None
    obj.update({TS: ts.decode(), LEVEL: normal_level(level.decode()), MSG: msg.decode(errors="replace").strip()})
    if logger:
        obj[LOGGER] = logger.decode()
    if caller:
        obj[CALLER] = caller.decode()
    return obj


def looks_console(line: bytes) -> bool:
    return b"\t" in line and line[:1].isdigit()


def console_error(line: bytes) -> bool:
    """A console line at error level (or worse), whatever its message."""
    return _CONSOLE_ERROR.match(line) is not None


def normal_level(level: str) -> str:
    """A level as the JSON encoder writes it: the console encoder's ``ERROR``, ``INFO``,
    ``DEBUG``, ``LEVEL(-2)`` read as ``error``, ``info``, ``debug``, ``Level(-2)``."""
    if level[:6].lower() == "level(":
        return "Level(" + level[6:]
    return level.lower()


# klog text: client-go's lines interleaved with the JSON, and the logr/klog text form (klog's
# own output, ktesting in Go tests, which may prefix "file.go:NN: "), structured or not:
#   I1201 12:00:00.000000       1 scheduler.go:123] "Workload re-queued" workload="ns/name" requeueReason=""
_KLOG = re.compile(rb"^(?:[\w.-]+\.go:\d+: )?([IWEF])(\d\d)(\d\d) (\d\d):(\d\d):(\d\d)(\.\d+)?"
                   rb"(?:\s+\d+)?(?: [^\]\s]+)?\] (.*)$")
_KLOG_PAIR = re.compile(r'\s*([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|\S*)')
_KLOG_LEVELS = {b"I": "info", b"W": "warn", b"E": "error", b"F": "fatal"}


def klog_match(line: bytes) -> re.Match | None:
    return _KLOG.match(line)


def _klog_value(text: str):
    if text.startswith('"'):
        try:
            return json.loads(text)
        except ValueError:
            return text.strip('"')
    if text in ("true", "false"):
        return text == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def decode_klog(m: re.Match) -> tuple[dict, tuple]:
    """A klog line as the record the JSON encoder would have written (msg, level and its
    key="value" pairs; klog prints an object reference as "ns/name"), and its time stamp
    without a year, for ``klog_ts``."""
    sev, month, day, hh, mm, ss, frac, rest = m.groups()
    text = rest.decode(errors="replace")
    obj: dict = {LEVEL: _KLOG_LEVELS[sev]}
    pairs = ""
    end = _quoted_end(text) if text.startswith('"') else 0
    if end:
        obj[MSG] = _klog_value(text[:end])
        pairs = text[end:]
    else:
        # unstructured (client-go's own lines): all of it is the message
        obj[MSG] = text.strip()
    for k in _KLOG_PAIR.finditer(pairs):
        obj.setdefault(k.group(1), _klog_value(k.group(2)))
    return obj, (int(month), int(day), int(hh), int(mm), int(ss), (frac or b"").decode())


def _quoted_end(text: str) -> int:
    i = 1
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        i += 1
    return 0


def klog_ts(stamp: tuple, ref: float | None = None) -> str | None:
    """RFC3339 text of a klog time stamp, which has no year: the year of ``ref`` (the log's
    latest time read so far; a line more than half a year away from it is in the year next to
    it), else the current year (the one before when that would put the line in the future)."""
    month, day, hh, mm, ss, frac = stamp
    if ref is not None:
        base = datetime.fromtimestamp(ref, UTC)
        year, limit = base.year, timedelta(days=183)
    else:
        base = datetime.now(UTC)
        year, limit = base.year, None
    try:
        t = datetime(year, month, day, hh, mm, ss, tzinfo=UTC)
        if limit is not None and t - base > limit:
            t = t.replace(year=year - 1)
        elif limit is not None and base - t > limit:
            t = t.replace(year=year + 1)
        elif limit is None and t > base + timedelta(days=1):
            t = t.replace(year=year - 1)
    except ValueError:   # 29 February in a year without it, or no such date
        return None
    return t.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"


def source_label(source) -> str:
    if isinstance(source, (str, Path)):
        return str(source)
    return "<input>"
