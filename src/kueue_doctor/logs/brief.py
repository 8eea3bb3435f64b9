"""One controller log line as one short line for people: ``time level logger: message key=value…``.

Kueue's zap JSON lines run to 400-600 characters (and V(4) lines carry a kilobyte of nominated
assignment); evidence shows what a reader needs to recognise the line: when, how verbose, what
happened, and to which workload and queue. The raw line stays available (``-v``). Lines as
container runtimes store them are unwrapped first: the CRI form (``TIME STREAM F|P line``,
containerd and CRI-O) and Docker's json-file form (``{"log": "…", "stream": …, "time": …}``), a
line split by the runtime joined again; console lines pasted with indentation and klog text
lines read too.
"""
from __future__ import annotations

import json
import re

from ..kueue.logvocab import CALLER, LEVEL, LOGGER, MSG, TS
from .reader import decode_console, decode_json, decode_klog, klog_match, klog_ts, looks_console

_CRI = re.compile(rb"^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) ([FP]) ")
_CRI_LINES = re.compile(rb"(?m)^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) [FP] ")
_CRI_PARTIAL = re.compile(rb"(?m)^\d{4}-\d\d-\d\dT\S+ (?:stdout|stderr) P ")
CRI, DOCKER = "cri", "docker"


def runtime_format(first_line: bytes) -> str | None:
    """Whether a log was stored by a container runtime (judged on its first line)."""
    if _CRI.match(first_line):
        return CRI
    if first_line.startswith(b'{"log":'):
        return DOCKER
    return None


def _docker_log(line: bytes) -> str | None:
    if not line.startswith(b'{"log":'):
        return None
    try:
        obj = json.loads(line)
    except ValueError:
        return None
    if isinstance(obj, dict) and isinstance(obj.get("log"), str):
        return obj["log"]
    return None


def complete_line(line: bytes, fmt: str) -> bool:
    """Whether a runtime's line ends the application's line: not a CRI partial (``P``) part,
    not a Docker entry whose ``log`` lacks its newline. A file may be cut after such a line."""
    if fmt == CRI:
        m = _CRI.match(line)
        return m is None or m.group(1) == b"F"
    log = _docker_log(line)
    return log is None or log.endswith("\n")


class Unwrapper:
    """A container runtime's log, fed as buffers of whole lines, back to the lines the
    application wrote. Runtimes split a line over 16 KiB: CRI (containerd, CRI-O) into ``P``
    parts ended by an ``F`` part, Docker's json-file into entries whose ``log`` has no newline
    until the last. The parts are joined into one line, across buffers (``carry``); ``finish``
    gives a run that never got its last part, as one (truncated) line."""

    def __init__(self, fmt: str):
        self.fmt = fmt
        self.carry: list[bytes] = []

    def feed(self, buf: bytes) -> bytes:
        if self.fmt == CRI:
            # " P " (a C-level find) rules a partial part out in almost every buffer before the regex
            if not self.carry and (b" P " not in buf or _CRI_PARTIAL.search(buf) is None):
                return _CRI_LINES.sub(b"", buf)   # the usual case: every line whole (F)
            return self._cri(buf)
        return self._docker(buf)

    def finish(self) -> bytes:
        if not self.carry:
            return b""
        line, self.carry = b"".join(self.carry), []
        return line + b"\n"

    def _cri(self, buf: bytes) -> bytes:
        out = []
        for line in buf.split(b"\n")[:-1]:
            m = _CRI.match(line)
            if m is None:   # not a runtime line: ends any run in progress, kept as it is
                out.append(self.finish())
                out.append(line + b"\n")
            elif m.group(1) == b"P":
                self.carry.append(line[m.end():])
            else:
                self.carry.append(line[m.end():])
                out.append(self.finish())
        return b"".join(out)

    def _docker(self, buf: bytes) -> bytes:
        out = []
        for line in buf.split(b"\n"):
            if not line:
                continue
            log = _docker_log(line)
            if log is None:
                out.append(self.finish())
                out.append(line + b"\n")
            elif log.endswith("\n"):
                self.carry.append(log[:-1].encode())
                out.append(self.finish())
            else:
                self.carry.append(log.encode())
        return b"".join(out)


def unwrap_lines(buf: bytes, fmt: str) -> bytes:
    """Whole lines of a runtime's log (each ending in a newline) as the application wrote them;
    partial parts are joined with the parts that follow in ``buf`` (see Unwrapper)."""
    u = Unwrapper(fmt)
    return u.feed(buf) + u.finish()


# Fields that say where a line came from rather than what it says, and blobs too big to show.
_DROP = frozenset({LEVEL, TS, MSG, LOGGER, CALLER, "replica-role", "stacktrace", "nominatedAssignment",
                   "controller", "controllerGroup", "controllerKind", "reconcileID", "borrowing"})
_FIRST = ("workload", "job", "clusterQueue", "cohort", "queue", "localQueue")


def unwrap_runtime(line: bytes) -> bytes:
    """The application's line inside a container runtime's log line (or the line itself)."""
    m = _CRI.match(line)
    if m:
        return line[m.end():]
    log = _docker_log(line)
    return line if log is None else log.rstrip("\n").encode()


def level_text(level: object) -> str:
    text = str(level)
    m = re.fullmatch(r"(?i:level)\((-?\d+)\)", text)
    if m:
        return f"V({-int(m.group(1))})"
    low = text.lower()
    if low in ("error", "warn", "dpanic", "panic", "fatal"):
        return low.upper()
    return low if low in ("info", "debug") else text


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
    raw = unwrap_runtime(raw.rstrip(b"\r\n")).lstrip(b" \t")
    k = None if raw[:1] == b"{" else klog_match(raw)
    obj: dict | None
    if k is not None:
        obj, stamp = decode_klog(k)
        obj[TS] = klog_ts(stamp)
    else:
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
