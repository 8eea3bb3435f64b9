"""Small wording helpers the steps and causes share."""
from __future__ import annotations

from datetime import timedelta


def minutes(d: timedelta) -> str:
    m = d.total_seconds() / 60
    return f"{m:.0f} min" if m >= 1 else f"{d.total_seconds():.0f} s"


def plural(n: int, word: str, many: str = "") -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"
