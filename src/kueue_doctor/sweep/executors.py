"""Where the runs go: this process, local worker processes, or Ray tasks.

Each executor yields rows in completion order; the caller journals and sorts them, so the
table is the same whatever ran it. The base scenario is serialised once: a worker process gets
it at start-up, Ray keeps it in its object store and hands every task the same reference."""
from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from ..errors import InputError
from .run import Job, run_one
from .spec import Configuration

Task = tuple[Configuration, int]   # (configuration, replicate)

_BASE: bytes = b""
_JOB: Job | None = None


def _init(base: bytes, job: Job) -> None:
    global _BASE, _JOB
    _BASE, _JOB = base, job


def _run_in_worker(config: Configuration, replicate: int) -> dict[str, Any]:
    assert _JOB is not None
    return run_one(_BASE, _JOB, config, replicate)


def run_inline(base: bytes, job: Job, tasks: list[Task]) -> Iterator[dict[str, Any]]:
    for config, rep in tasks:
        yield run_one(base, job, config, rep)


def run_local(base: bytes, job: Job, tasks: list[Task], workers: int) -> Iterator[dict[str, Any]]:
    if workers <= 1 or len(tasks) <= 1:
        yield from run_inline(base, job, tasks)
        return
    with ProcessPoolExecutor(max_workers=workers, initializer=_init, initargs=(base, job)) as pool:
        pending: set[Future] = set()
        queue = list(reversed(tasks))
        # keep at most 2 per worker in flight, so a stopped sweep has journalled nearly all it ran
        while queue or pending:
            while queue and len(pending) < 2 * workers:
                config, rep = queue.pop()
                pending.add(pool.submit(_run_in_worker, config, rep))
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                yield f.result()


def run_ray(base: bytes, job: Job, tasks: list[Task], workers: int, address: str | None) -> Iterator[dict[str, Any]]:
    try:
        import ray
    except ImportError:
        raise InputError("--executor ray needs Ray: pip install 'kueue-doctor[ray]'") from None
    started = False
    if not ray.is_initialized():
        kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": False}
        if address:
            kwargs["address"] = address
        else:
            kwargs["num_cpus"] = workers or os.cpu_count() or 1
        ray.init(**kwargs)
        started = True
    try:
        remote = ray.remote(run_one)
        base_ref, job_ref = ray.put(base), ray.put(job)
        refs = [remote.remote(base_ref, job_ref, config, rep) for config, rep in tasks]
        while refs:
            done, refs = ray.wait(refs, num_returns=1)
            for r in done:
                yield ray.get(r)
    finally:
        if started:
            ray.shutdown()
