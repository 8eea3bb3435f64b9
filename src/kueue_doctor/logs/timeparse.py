"""Timestamps: zap's RFC3339Nano strings, epoch floats, and the --since/--until forms."""
from __future__ import annotations

import re
import time
from datetime import UTC, datetime

from ..duration import parse_seconds
from ..errors import InputError

_SECOND_CACHE: dict[str, float] = {}


def parse_ts(value) -> float | None:
    """Seconds since the epoch for a log line's ``ts``, or None when it cannot be read.

    Log lines share the same second thousands of times, so the whole-second part is parsed
    once and cached; only the fraction is read per line.
    """
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str) or len(value) < 19:
        return None
    head = value[:19]
    base = _SECOND_CACHE.get(head)
    if base is None:
        try:
            base = _second(head)
        except ValueError:
            return None
        if len(_SECOND_CACHE) > 100_000:  # bounded memory on week-long logs
            _SECOND_CACHE.clear()
        _SECOND_CACHE[head] = base
    rest = value[19:]
    if rest.endswith("Z"):
        rest = rest[:-1]
        offset = 0.0
    else:
        # Offsets like +02:00 are rare in zap output but cost nothing to honour.
        m = re.search(r"([+-])(\d\d):?(\d\d)$", rest)
        offset = 0.0  # no zone: read as UTC, as zap writes it
        if m:
            offset = (int(m.group(2)) * 3600 + int(m.group(3)) * 60) * (1 if m.group(1) == "+" else -1)
            rest = rest[: m.start()]
    frac = 0.0
    if rest.startswith("."):
        digits = rest[1:]
        if not digits.isdigit():
            return None
        frac = int(digits) / 10 ** len(digits)
    elif rest:
        return None
    return base + frac - offset


_DIGITS = (0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18)


def _second(head: str) -> float:
    """strptime(head, "%Y-%m-%dT%H:%M:%S") as UTC seconds; the form zap writes is read with
    the datetime the parse would make (strptime itself cost as much as the rest of a line)."""
    if (head.isascii() and head[4] == head[7] == "-" and head[10] == "T" and head[13] == head[16] == ":"
            and all(head[i].isdigit() for i in _DIGITS)):
        return datetime(int(head[:4]), int(head[5:7]), int(head[8:10]), int(head[11:13]), int(head[14:16]),
                        int(head[17:19]), tzinfo=UTC).timestamp()
    return datetime.strptime(head, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC).timestamp()


def format_ts(value: float | None) -> str | None:
    if value is None:
        return None
    dt = datetime.fromtimestamp(value, UTC)
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond:06d}Z"


def parse_bound(text: str | None, *, option: str, now: float | None = None) -> float | None:
    """--since/--until: an RFC3339 time, or a duration such as 90s, 30m or 2h meaning that long before now."""
    if text is None or text == "":
        return None
    text = text.strip()
    # a bare number is not a duration here: "2026" is more likely the start of a date
    ago = parse_seconds(text, unit_required=True)
    if ago is not None:
        base = time.time() if now is None else now
        return base - ago
    value = parse_ts(text if len(text) > 10 else text + "T00:00:00Z")
    if value is None:
        raise InputError(f"{option}: cannot read {text!r}: use an RFC3339 time "
                         "(2026-08-20T10:15:00Z) or a duration before now (90s, 30m, 2h)")
    return value
