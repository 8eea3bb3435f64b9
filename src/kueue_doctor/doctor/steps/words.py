"""Small wording helpers the steps and causes share."""
from __future__ import annotations

from datetime import timedelta

from ...duration import go


def minutes(d: timedelta) -> str:
    """A wait or an age as a Go duration (``1h55m``, ``48m12s``), like kubectl prints ages."""
    return go(d.total_seconds())


def plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"
