"""One configuration x replicate: set the knobs on a fresh copy of the base scenario, perturb
it with the replicate's seed, simulate, measure. Everything the result depends on comes in as
arguments, so a local process and a Ray worker give the same row."""
from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Any

from ..sim.perturb import perturb, replicate_seed
from ..sim.scenario import Scenario
from ..sim.simulator import Simulator
from .fragmentation import FragmentationProbe
from .measures import measure
from .spec import Configuration, Parameter


@dataclass(frozen=True)
class Job:
    """What a worker needs besides the base scenario (which travels once per worker)."""
    parameters: tuple[Parameter, ...]
    until: float | None
    jitter: tuple[tuple[str, float], ...]
    focus: tuple[str, ...]
    seed: int


def configure(base: Scenario, job: Job, config: Configuration) -> Scenario:
    scn = base
    for p in job.parameters:
        p.knob.apply(scn, config.values[p.name], scaled=bool(p.scale))
    return scn


def run_one(base_bytes: bytes, job: Job, config: Configuration, replicate: int) -> dict[str, Any]:
    scn: Scenario = pickle.loads(base_bytes)   # a private copy: the simulator changes its scenario
    configure(scn, job, config)
    seed = replicate_seed(job.seed, replicate)
    perturb(scn, dict(job.jitter), seed)
    sim = Simulator(scn)
    probe = sim.progress = FragmentationProbe(sim)
    sim.run(job.until)
    row: dict[str, Any] = {"config": config.index, "configId": config.id, "replicate": replicate, "seed": seed}
    row.update({f"param.{k}": v for k, v in config.values.items()})
    row.update(measure(sim, list(job.focus), probe.measures()))
    return row
