"""Seeded perturbation of a scenario's workloads: the randomness behind replicates
(``simulate --seed --jitter``, sweeps). The simulator itself draws no random numbers."""
from __future__ import annotations

import numpy as np

from ..errors import InputError
from .scenario import Scenario

KEYS = ("runtime", "arrival")


def replicate_seed(seed: int, replicate: int) -> int:
    """The seed of replicate ``replicate``: common random numbers, so replicate r draws the same
    whatever else differs (a sweep's configurations, a forecast's command line)."""
    return seed * 1_000_003 + replicate


def perturb(scn: Scenario, jitter: dict[str, float], seed: int) -> None:
    if not jitter or not scn.workloads:
        return
    rng = np.random.default_rng(seed)
    n = len(scn.workloads)
    runtime = rng.uniform(-1.0, 1.0, n) * jitter.get("runtime", 0.0)
    arrival = rng.uniform(-1.0, 1.0, n) * jitter.get("arrival", 0.0)
    ats = sorted(w.at for w in scn.workloads)
    gap = (ats[-1] - ats[0]) / max(1, n - 1)
    for w, dr, da in zip(scn.workloads, runtime, arrival, strict=True):
        w.runtime = max(1.0, round(w.runtime * (1.0 + float(dr)), 3))
        w.at = max(0.0, round(w.at + float(da) * gap, 3))


def parse_jitter(text: str, where: str = "--jitter") -> dict[str, float]:
    """``runtime=0.1,arrival=0.05``: relative spread of runtimes; arrival shifts as a fraction of
    the mean gap between arrivals."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or key not in KEYS:
            raise InputError(f"{part!r}: expected runtime=F or arrival=F", field=where)
        try:
            f = float(value)
        except ValueError:
            raise InputError(f"{part!r}: {value!r} is not a number", field=where) from None
        if not 0 <= f < 1:
            raise InputError(f"{part!r}: must be in [0, 1)", field=where)
        out[key] = f
    return out
