"""One controller log line as one short line for people: ``time level logger: message key=value…``.

Kueue's zap JSON lines run to 400-600 characters (and V(4) lines carry a kilobyte of nominated
assignment); evidence shows what a reader needs to recognise the line: when, how verbose, what
happened, and to which workload and queue. The raw line stays available (``-v``). Lines as
container runtimes store them are unwrapped first: the CRI form (``TIME STREAM F|P line``,
containerd and CRI-O) and Docker's json-file form (``{"log": "…", "stream": …, "time": …}``).
"""
from __future__ import annotations

import json
import re

from ..kueue.logvocab import CALLER, LEVEL, LOGGER, MSG, TS
from .reader import decode_console, decode_json, looks_console

_CRI = re.compile(rb"^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) [FP] ")
_CRI_LINES = re.compile(rb"(?m)^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) [FP] ")
CRI, DOCKER = "cri", "docker"


def runtime_format(first_line: bytes) -> str | None:
    """Whether a log was stored by a container runtime (judged on its first line)."""
    if _CRI.match(first_line):
        return CRI
    if first_line.startswith(b'{"log":'):
        return DOCKER
    return None


def unwrap_lines(buf: bytes, fmt: str) -> bytes:
    """Whole lines of a runtime's log (each ending in a newline) as the application wrote them.
    CRI's partial lines (``P``, a line over 16 KiB split by the runtime) stay separate lines:
    such parts do not parse and are counted as malformed."""
    if fmt == CRI:
        return _CRI_LINES.sub(b"", buf)
    return b"".join(unwrap_runtime(line) + b"\n" for line in buf.split(b"\n") if line)
# Fields that say where a line came from rather than what it says, and blobs too big to show.
_DROP = frozenset({LEVEL, TS, MSG, LOGGER, CALLER, "replica-role", "stacktrace", "nominatedAssignment",
                   "controller", "controllerGroup", "controllerKind", "reconcileID", "borrowing"})
_FIRST = ("workload", "job", "clusterQueue", "cohort", "queue", "localQueue")


def unwrap_runtime(line: bytes) -> bytes:
    """The application's line inside a container runtime's log line (or the line itself)."""
    m = _CRI.match(line)
    if m:
        return line[m.end():]
    if line.startswith(b'{"log":'):
        try:
            obj = json.loads(line)
        except ValueError:
            return line
        if isinstance(obj, dict) and isinstance(obj.get("log"), str):
            return obj["log"].rstrip("\n").encode()
    return line


def level_text(level: object) -> str:
    text = str(level)
    m = re.fullmatch(r"Level\((-?\d+)\)", text)
    if m:
        return f"V({-int(m.group(1))})"
    return text.upper() if text in ("error", "warn", "dpanic", "panic", "fatal") else text


def _value(v: object) -> str | None:
    if isinstance(v, dict):
        if set(v) <= {"name", "namespace"} and "name" in v:
            return f"{v['namespace']}/{v['name']}" if v.get("namespace") else str(v["name"])
        return None
    if isinstance(v, list) or v is None:
        return None
    text = str(v) if not isinstance(v, bool) else str(v).lower()
    if text == "":
        return None
    return json.dumps(text) if any(c in text for c in " =\"") else text


def brief(line: str | bytes, omit: tuple[str, ...] = ()) -> str:
    """The short form of one log line; a line that is not a Kueue log line comes back as it is.
    ``omit``: keys the reader already knows (the workload ``explain`` is about)."""
    raw = line.encode() if isinstance(line, str) else line
    raw = unwrap_runtime(raw.rstrip(b"\r\n"))
    obj = decode_console(raw) if looks_console(raw) else decode_json(raw)
    if obj is None:
        return raw.decode("utf-8", "replace")
    ts = str(obj.get(TS, ""))
    ts = re.sub(r"\.\d+(?=Z|[+-]\d\d:?\d\d$)", "", ts)
    head = " ".join(x for x in (ts, level_text(obj.get(LEVEL, "")),
                                f"{obj[LOGGER]}:" if obj.get(LOGGER) else "", str(obj.get(MSG, ""))) if x)
    keys = [k for k in _FIRST if k in obj] + [k for k in obj if k not in _DROP and k not in _FIRST]
    pairs = [f"{k}={v}" for k in keys if k not in omit and (v := _value(obj[k])) is not None]
    return " ".join([head, *pairs])
