"""Where the exporter's state comes from: a folder, a live cluster, a running simulation.

Each source answers ``current()`` with the View to publish, the wall time it was last known
to be current, and how many refreshes failed; ``readiness()`` says whether it has a state to
serve and whether its last refresh worked (``/readyz``). Folder and live sources refresh in a
background thread and keep the last good state, so a scrape never waits for the disk or the
API server; the simulation source computes its View from the simulator at scrape time.
"""
from __future__ import annotations

import functools
import os
import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from .view import View

if TYPE_CHECKING:
    from .from_sim import Written


class Source:
    def __init__(self, min_wait: timedelta, refresh: float):
        self.min_wait = min_wait
        self.refresh = refresh
        self.errors = 0
        self.last_refresh: float | None = None
        # the one-line reason the most recent refresh failed; None once one succeeds again
        self.last_error: str | None = None
        self._view: View | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def current(self) -> tuple[View | None, float | None, int]:
        return self._view, self.last_refresh, self.errors

    def loaded(self) -> bool:
        """Whether a first state was read (a live source has none until its first fetch works)."""
        return self._view is not None

    def readiness(self) -> tuple[bool, str]:
        """(ready, one-line reason): ready once a state was loaded and while the last refresh worked."""
        error = self.last_error
        if not self.loaded():
            return False, "no state loaded yet" + (f": last attempt failed: {error}" if error else "")
        if error:
            return False, f"last refresh failed: {error}"
        return True, "ok"

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name=type(self).__name__, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _loop(self) -> None:
        while not self._stop.wait(self.refresh):
            self.tick()

    def tick(self) -> None:
        raise NotImplementedError

    def _ok(self) -> None:
        self.last_refresh = time.time()
        self.last_error = None

    def _failed(self, e: Exception) -> None:
        self.errors += 1
        # one line, never a traceback: the exporter keeps serving the last good state
        msg = " ".join(str(e).split()) or type(e).__name__
        self.last_error = msg[:300]
        print(f"kueue-doctor serve: refresh failed: {msg}", file=sys.stderr, flush=True)


def folder_signature(root: Path) -> tuple:
    """Names, sizes and mtimes of every file: changes when `kueue-doctor collect` rewrites it."""
    out = []
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for f in sorted(files):
            try:
                st = os.stat(os.path.join(dirpath, f))
            except OSError:
                continue
            out.append((dirpath, f, st.st_size, st.st_mtime_ns))
    return tuple(out)


class FolderSource(Source):
    """A snapshot folder, reloaded when its files change. The first load happens before the
    server starts, so a bad folder is a one-line error, not an empty exporter."""

    def __init__(self, folder: str, min_wait: timedelta, refresh: float):
        super().__init__(min_wait, refresh)
        self.root = Path(folder)
        self._sig: tuple = ()
        self.load()

    def load(self) -> None:
        from ..sources.snapshot import load_folder
        from .from_snapshot import view_from_snapshot
        sig = folder_signature(self.root)
        self._view = view_from_snapshot(load_folder(str(self.root)), self.min_wait)
        self._sig = sig
        self._ok()

    def tick(self) -> None:
        try:
            if not self.root.is_dir():
                raise InputError("snapshot folder is gone", file=str(self.root))
            if folder_signature(self.root) != self._sig:
                self.load()
            else:
                self._ok()
        except Exception as e:  # a half-written folder: keep serving the last good one
            self._failed(e)


class LiveSource(Source):
    """A live cluster read through ``sources.live`` every ``refresh`` seconds."""

    def __init__(self, kubeconfig: str | None, context: str | None, min_wait: timedelta, refresh: float,
                 fetch: Callable | None = None, in_cluster: bool = False):
        super().__init__(min_wait, refresh)
        if fetch is None:
            if kubeconfig and not Path(kubeconfig).is_file():
                raise InputError("no such kubeconfig file", file=kubeconfig)
            from ..sources.kubeconfig import resolve
            from ..sources.live import snapshot_from_cluster
            resolve(kubeconfig, context, in_cluster)   # nothing to read: one line now, not a failing refresh loop
            fetch = functools.partial(snapshot_from_cluster, in_cluster=in_cluster)
        self.fetch = fetch
        self.kubeconfig, self.context = kubeconfig, context

    def _loop(self) -> None:
        # refresh at once, then every interval; scrapes meanwhile see only the staleness gauges
        self.tick()
        super()._loop()

    def tick(self) -> None:
        from .from_snapshot import view_from_snapshot
        try:
            snap = self.fetch(self.kubeconfig, self.context)
            self._view = view_from_snapshot(snap, self.min_wait)
            self._ok()
        except Exception as e:
            self._failed(e)


class SimSource(Source):
    """A simulation advancing at ``speed`` simulated seconds per wall second.

    The simulator is advanced in small steps (``Simulator.advance``); a lock keeps a scrape from
    reading the model halfway through an event.
    """

    STEP = 0.1   # wall seconds between advances: smooth enough for a 1 s scrape interval

    def __init__(self, scenario: str, min_wait: timedelta, refresh: float, speed: float):
        super().__init__(min_wait, refresh)
        from ..sim.scenario import load_scenario
        from ..sim.simulator import Simulator
        self.sim = Simulator(load_scenario(scenario))
        self.speed = speed
        self.lock = threading.Lock()
        self.end = self.sim.settings.duration
        self._written: Written | None = None     # the last refresh's written folder, read
        self._causes_at: float | None = None
        self.sim.start(sample=False)   # no sampling: the exporter is the sampler here
        self.started = time.monotonic()
        self.last_refresh = time.time()

    def loaded(self) -> bool:
        return True   # the scenario was loaded above; every scrape computes its View from the simulator

    def _loop(self) -> None:
        while not self._stop.wait(self.STEP):
            self.tick()

    def advance(self, until: float) -> None:
        if self.end is not None:
            until = min(until, self.end)
        with self.lock:
            self.sim.advance(until)

    def tick(self) -> None:
        from .from_sim import sim_written
        try:
            self.advance((time.monotonic() - self.started) * self.speed)
            self.last_refresh = time.time()
        except Exception as e:
            self._failed(e)
            self._stop.set()   # a broken simulation does not heal; serve its last state
            return
        wall = time.monotonic()
        # the doctor's full recipe reads a written folder: once per refresh interval, here rather
        # than in a scrape, so scrapes stay fast
        if self._causes_at is None or wall - self._causes_at >= self.refresh:
            self._causes_at = wall
            try:
                self._written = sim_written(self.sim, self.lock, self.min_wait)
            except Exception as e:
                self._failed(e)
            else:
                # only a cause run that works clears a failed one: the advances in between do not
                self.last_error = None

    def current(self) -> tuple[View | None, float | None, int]:
        from .from_sim import view_from_sim
        with self.lock:
            view = view_from_sim(self.sim, self.min_wait, self._written)
        return view, self.last_refresh, self.errors
