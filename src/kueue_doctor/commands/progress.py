"""Progress on stderr for work that can take more than a couple of seconds: a spinner naming
the phase, or a bar where the amount of work is known. Silent when stderr is not a terminal, so
files, cron mail and CI logs get only the result."""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .output import progress_wanted


def _stopper(shown, live) -> Callable[[], None]:
    """``shown.stop`` that also waits for ``live``'s refresh thread to end (rich only tells it to):
    a fork (forking.py) checks that no other thread runs. Where rich keeps it elsewhere, the
    thread is not waited for, and the fork is not made."""
    def stop() -> None:
        thread = getattr(live, "_refresh_thread", None)
        shown.stop()
        if isinstance(thread, threading.Thread):
            thread.join()
    return stop


@contextmanager
def phase(text: str) -> Iterator[None]:
    if not progress_wanted():
        yield
        return
    from ..forking import pausable
    from ..report.text import console
    with console(stderr=True).status(text, spinner="dots") as status, \
            pausable(_stopper(status, status._live), status.start):
        yield


@contextmanager
def bar(text: str, total: float) -> Iterator[Callable[[float], None]]:
    """Yields ``advance(done)``: ``done`` is the amount finished so far, out of ``total``."""
    if not progress_wanted() or total <= 0:
        yield lambda done: None
        return
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeRemainingColumn

    from ..forking import pausable
    from ..report.text import console
    with Progress(TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeRemainingColumn(),
                  console=console(stderr=True), transient=True) as p, pausable(_stopper(p, p.live), p.start):
        task = p.add_task(text, total=total)
        yield lambda done: p.update(task, completed=min(done, total))
