"""A piece of the diagnosis computed on the other core, by a forked copy of this process.

The doctor's work after loading runs in one process while the machine's other cores idle. A
part that depends only on what is already built (the facts) can be computed by a forked child,
which sees the same objects at no copying cost, and sends back its result, pickled. Whatever
goes wrong there (no fork here, another thread running, the child failing) the part is computed
here instead, so the result, and any error it raises, is the one computing it here would give.
"""
from __future__ import annotations

import gc
import os
import pickle
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return 1


class Background(Generic[T]):
    """``fn()`` started in a forked child; ``result()`` waits for it (or computes it here)."""

    def __init__(self, fn: Callable[[], T]):
        self._fn = fn
        self._pid = 0
        self._read = -1
        # forking a process that runs other threads may copy a lock some thread holds
        if not hasattr(os, "fork") or _cores() < 2 or threading.active_count() > 1:
            return
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:   # a process limit: compute it here
            os.close(read)
            os.close(write)
            return
        if pid == 0:   # the child: compute, send, and leave without running any exit handler
            os.close(read)
            gc.disable()   # short-lived: a collection would only copy the parent's pages
            try:
                data = pickle.dumps((True, fn()), protocol=pickle.HIGHEST_PROTOCOL)
            except BaseException:
                data = pickle.dumps((False, None))
            with os.fdopen(write, "wb") as out:
                out.write(data)
            os._exit(0)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> T:
        if not self._pid:
            return self._fn()
        chunks = []
        with os.fdopen(self._read, "rb") as src:
            while chunk := src.read(1 << 20):
                chunks.append(chunk)
        os.waitpid(self._pid, 0)
        self._pid = 0
        try:
            ok, value = pickle.loads(b"".join(chunks))
        except Exception:  # the child died before it sent anything
            ok, value = False, None
        return value if ok else self._fn()
