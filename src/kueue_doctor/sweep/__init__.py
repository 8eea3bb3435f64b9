"""Policy sweeps: many configurations x replicates of one scenario or trace (docs/sweeps.md)."""
from __future__ import annotations

import pickle
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..sim.scenario import Scenario, load_scenario
from .executors import Task, run_local, run_ray
from .results import ResultsDir, pareto_front, summarise
from .run import Job, configure
from .spec import Configuration, SweepSpec

EXECUTORS = ("local", "ray")


@dataclass
class SweepOutcome:
    spec: SweepSpec
    rows: list[dict[str, Any]]
    configurations: list[Configuration]
    ran: int
    skipped: int
    files: list[Path] = field(default_factory=list)
    summary: list[dict[str, Any]] = field(default_factory=list)
    front: list[int] = field(default_factory=list)
    base_values: dict[str, Any] = field(default_factory=dict)


def check_knobs(spec: SweepSpec, base: Scenario) -> None:
    """Every parameter must act on the base scenario, and every configuration must apply."""
    for i, p in enumerate(spec.parameters):
        problem = p.knob.problems(base, scaled=bool(p.scale))
        if problem:
            raise InputError(problem, file=spec.file, field=f"parameters[{i}].path")


def base_values(spec: SweepSpec, base: Scenario) -> dict[str, Any]:
    """The base scenario's own value of each parameter (1.0 for a scale), for the diffs."""
    out: dict[str, Any] = {}
    for p in spec.parameters:
        out[p.name] = 1.0 if p.scale else p.knob.current(base)
    return out


def run_sweep(spec: SweepSpec, out: str, executor: str = "local", workers: int = 1,
              address: str | None = None, restart: bool = False,
              progress: Callable[[int], None] | None = None) -> SweepOutcome:
    base = load_scenario(spec.scenario)
    check_knobs(spec, base)
    configs = spec.configurations()
    job = Job(parameters=tuple(spec.parameters), until=spec.until, jitter=tuple(sorted(spec.jitter.items())),
              focus=tuple(spec.focus), seed=spec.seed)
    blob = pickle.dumps(base)
    # every configuration must apply before any simulation starts (values were checked one by one)
    for c in configs:
        configure(pickle.loads(blob), job, c)
    results = ResultsDir(out, spec, fresh=restart)
    done = results.done()
    wanted = {(c.id, r) for c in configs for r in range(spec.replicates)}
    rows = [row for key, row in done.items() if key in wanted]
    tasks: list[Task] = [(c, r) for c in configs for r in range(spec.replicates) if (c.id, r) not in done]
    if executor == "ray":
        stream = run_ray(blob, job, tasks, workers, address)
    else:
        stream = run_local(blob, job, tasks, workers)
    index = {c.id: c.index for c in configs}
    for row in stream:
        results.append(row)
        rows.append(row)
        if progress is not None:
            progress(len(rows))
    for row in rows:   # the index in this spec (a resumed spec may have reordered its configurations)
        row["config"] = index[row["configId"]]
    files = results.write_tables(rows)
    summary = summarise(rows, spec.objectives)
    return SweepOutcome(spec, rows, configs, ran=len(tasks), skipped=len(wanted) - len(tasks), files=files,
                        summary=summary, front=pareto_front(summary, spec.objectives),
                        base_values=base_values(spec, base))
