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
_CONSOLE = re.compile(rb"^(\S+)\t(\S+)\t(?:(\S+)\t)?(?:(\S+:\d+)\t)?([^\t{]*?)(?:\t(\{.*\}))?\r?$")


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
    obj.update({TS: ts.decode(), LEVEL: level.decode(), MSG: msg.decode(errors="replace").strip()})
    if logger:
        obj[LOGGER] = logger.decode()
    if caller:
        obj[CALLER] = caller.decode()
    return obj


def looks_console(line: bytes) -> bool:
    return b"\t" in line and line[:1].isdigit()


def source_label(source) -> str:
    if isinstance(source, (str, Path)):
        return str(source)
    return "<input>"
