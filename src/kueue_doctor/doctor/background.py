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
import tempfile
import threading
from collections.abc import Callable
from typing import BinaryIO, Generic, TypeVar

from ..forking import threads_stopped

T = TypeVar("T")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return 1


def _scratch() -> BinaryIO:
    """Where the child leaves its result: a file in memory where the system has them."""
    if hasattr(os, "memfd_create"):
        return os.fdopen(os.memfd_create("kueue-doctor-background"), "w+b")
    return tempfile.TemporaryFile()   # pragma: no cover - not Linux


class Background(Generic[T]):
    """``fn()`` started in a forked child; ``result()`` waits for it (or computes it here).

    The child leaves its result in a file and exits, rather than waiting on a pipe until the
    parent reads: while a child lives, each page of the heap the parent writes to (a reference
    count changing is enough) is copied, so a child that outlives its work slows the parent."""

    def __init__(self, fn: Callable[[], T]):
        self._fn = fn
        self._pid = 0
        self._out: BinaryIO | None = None
        with threads_stopped():   # a spinner's thread (forking.py)
            # forking a process that runs other threads may copy a lock some thread holds
            if not hasattr(os, "fork") or _cores() < 2 or threading.active_count() > 1:
                return
            out = _scratch()
            try:
                pid = os.fork()
            except OSError:   # a process limit: compute it here
                out.close()
                return
        if pid == 0:   # the child: compute, leave the result, and exit without running any exit handler
            gc.disable()   # short-lived: a collection would only copy the parent's pages
            try:
                try:
                    data = pickle.dumps((True, fn()), protocol=pickle.HIGHEST_PROTOCOL)
                except BaseException:
                    data = pickle.dumps((False, None))
                out.write(data)
                out.flush()
            finally:
                os._exit(0)
        self._pid, self._out = pid, out

    def result(self) -> T:
        if not self._pid or self._out is None:
            return self._fn()
        os.waitpid(self._pid, 0)
        self._pid = 0
        with self._out as src:
            src.seek(0)
            data = src.read()
        try:
            ok, value = pickle.loads(data)
        except Exception:  # the child died before it left anything
            ok, value = False, None
        return value if ok else self._fn()
