"""Durations as people write them on the command line and in scenarios: ``90``, ``"90s"``,
``"15m"``, ``"2h"``, ``"1.5d"``, ``"500ms"``.

One parser for every caller (scenario fields, --until, --since, --min-wait, --refresh, the log
window), so a form accepted in one place is accepted everywhere.
"""
from __future__ import annotations

import re
from typing import Any

from .errors import InputError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_UNITS = {"ms": 0.001, "s": 1.0, None: 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_seconds(text: str, *, unit_required: bool = False) -> float | None:
    """Seconds, or None when ``text`` is not a duration.

    ``unit_required``: a bare number is not a duration (where it could also be read as
    something else, e.g. the start of a date).
    """
    m = _DURATION.match(text)
    if not m or (unit_required and m.group(2) is None):
        return None
    return float(m.group(1)) * _UNITS[m.group(2)]


def duration(value: Any, where: str) -> float:
    """Seconds from a number (already seconds) or a duration string; ``where`` names the field
    or option in the error."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    seconds = parse_seconds(str(value))
    if seconds is None:
        raise InputError(f"not a duration: {value!r} (expected e.g. 30s, 15m, 2h)", field=where)
    return seconds
