"""Durations as people write them on the command line and in scenarios: ``90``, ``"90s"``,
``"15m"``, ``"2h"``, ``"1.5d"``, ``"500ms"``, and Go's compound form (``"1h30m"``, ``"2m30.5s"``,
what ``time.ParseDuration`` and kubectl take). ``go`` prints seconds back in that form.

One parser for every caller (scenario fields, --until, --since, --min-wait, --refresh, the log
window), so a form accepted in one place is accepted everywhere.
"""
from __future__ import annotations

import re
from typing import Any

from .errors import InputError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_PART = r"\d+(?:\.\d+)?(?:ms|us|µs|ns|s|m|h|d)"
_COMPOUND = re.compile(rf"^\s*((?:{_PART}){{2,}})\s*$")
_PARTS = re.compile(r"(\d+(?:\.\d+)?)(ms|us|µs|ns|s|m|h|d)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 0.001, "s": 1.0, None: 1.0, "m": 60.0, "h": 3600.0,
          "d": 86400.0}


def parse_seconds(text: str, *, unit_required: bool = False) -> float | None:
    """Seconds, or None when ``text`` is not a duration.

    ``unit_required``: a bare number is not a duration (where it could also be read as
    something else, e.g. the start of a date).
    """
    m = _DURATION.match(text)
    if m:
        if unit_required and m.group(2) is None:
            return None
        return float(m.group(1)) * _UNITS[m.group(2)]
    c = _COMPOUND.match(text)
    if not c:
        return None
    return sum(float(n) * _UNITS[u] for n, u in _PARTS.findall(c.group(1)))


def duration(value: Any, where: str) -> float:
    """Seconds from a number (already seconds) or a duration string; ``where`` names the field
    or option in the error."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    seconds = parse_seconds(str(value))
    if seconds is None:
        raise InputError(f"not a duration: {value!r} (expected e.g. 30s, 15m, 2h, 1h30m)", field=where)
    return seconds


def go(seconds: float) -> str:
    """Seconds as a short Go-style duration: the two largest units, rounded down (``1h55m``,
    ``48m12s``, ``61h50m``, ``35s``, ``0.4s``); hours are not folded into days, as in Go."""
    if seconds < 0:
        return "-" + go(-seconds)
    if seconds < 10:
        text = f"{seconds:.1f}".rstrip("0").rstrip(".")
        return f"{text}s" if text != "0" else "0s"
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h}h{m}m" if m else f"{h}h"
    if m:
        return f"{m}m{sec}s" if sec else f"{m}m"
    return f"{sec}s"
