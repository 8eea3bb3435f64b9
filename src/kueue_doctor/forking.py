"""Forking while a progress spinner runs.

The fast paths that use a machine's other cores fork this process (the YAML decoder's workers,
a part of the diagnosis computed aside); they refuse to while another thread runs, since the
child could inherit a lock that thread holds. A spinner on a terminal is such a thread, so on a
terminal every one of them fell back to one core. The spinner registers here how to stop and
restart its thread; ``threads_stopped`` stops it for the moment of the fork.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_PAUSABLE: list[tuple[Callable[[], None], Callable[[], None]]] = []
_depth = 0


@contextmanager
def pausable(stop: Callable[[], None], start: Callable[[], None]) -> Iterator[None]:
    """While inside, a fork may stop a thread with ``stop()`` and restart it with ``start()``."""
    entry = (stop, start)
    _PAUSABLE.append(entry)
    try:
        yield
    finally:
        _PAUSABLE.remove(entry)


@contextmanager
def threads_stopped() -> Iterator[None]:
    """The registered threads stopped inside (for a fork), restarted after in reverse order: in
    this process only, never in a child forked inside (its copy of the spinner stays stopped)."""
    global _depth
    here = os.getpid()
    stopped = []
    _depth += 1
    try:
        if _depth == 1:   # (inside another: they are stopped already, and stay so until it ends)
            for stop, start in list(_PAUSABLE):
                stop()
                stopped.append(start)
        yield
    finally:
        _depth -= 1
        if os.getpid() == here:
            for start in reversed(stopped):
                start()
