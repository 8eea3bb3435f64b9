"""The virtual clock and its one event heap (SimPy-style, minimal)."""
from __future__ import annotations

import heapq
import itertools
from typing import Any


class EventQueue:
    def __init__(self) -> None:
        self._heap: list = []
        self._seq = itertools.count()
        self.now = 0.0

    def at(self, t: float, kind: str, payload: Any = None) -> None:
        # the sequence number keeps same-time events in the order they were scheduled
        heapq.heappush(self._heap, (t, next(self._seq), kind, payload))

    def after(self, dt: float, kind: str, payload: Any = None) -> None:
        self.at(self.now + dt, kind, payload)

    def pop(self) -> tuple[float, str, Any] | None:
        if not self._heap:
            return None
        t, _, kind, payload = heapq.heappop(self._heap)
        self.now = max(self.now, t)
        return t, kind, payload

    def peek_time(self) -> float | None:
        return self._heap[0][0] if self._heap else None

    def __len__(self) -> int:
        return len(self._heap)
