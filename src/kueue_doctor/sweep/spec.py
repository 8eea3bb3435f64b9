"""A sweep spec (``kind: Sweep``, docs/sweeps.md): a base scenario, the parameters to vary and
how, replicates, the measures; and its expansion into configurations.

The expansion is a pure function of the spec: configuration ``i`` is the same wherever and
whenever it runs, and its id is a digest of its values, so a resumed sweep recognises the rows
it already has even after parameters are reordered."""
from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..api.fields import Fields
from ..api.load import decode_documents, read_text
from ..duration import duration
from ..errors import InputError
from .knobs import Knob, parse_knob

KIND = "Sweep"
MEASURES = ("p50Wait", "p90Wait", "violationSeconds", "usagePercent", "preemptions", "admissions")
CLUSTER_MEASURES = ("gpuUtilisation", "fragmentation", "fragmentedGpus", "admitted", "preempted", "finished")


@dataclass(frozen=True)
class Parameter:
    name: str
    knob: Knob
    # exactly one of: values (set as given), scale (multiply the base quantity), or a random range
    values: tuple[Any, ...] = ()
    scale: tuple[float, ...] = ()
    low: float | None = None
    high: float | None = None
    integer: bool = False

    @property
    def choices(self) -> tuple[Any, ...]:
        return self.values or self.scale

    def random_value(self, rng: np.random.Generator) -> Any:
        if self.choices:
            return self.choices[int(rng.integers(len(self.choices)))]
        assert self.low is not None
        assert self.high is not None
        if self.integer:
            return int(rng.integers(int(self.low), int(self.high) + 1))
        return round(float(rng.uniform(self.low, self.high)), 6)


@dataclass(frozen=True)
class Configuration:
    index: int
    values: dict[str, Any]   # parameter name -> value (a scale factor for ``scale`` parameters)

    @property
    def id(self) -> str:
        return config_id(self.values)


@dataclass
class SweepSpec:
    name: str
    file: str
    scenario: str                    # path of the base scenario, resolved against the spec's folder
    parameters: list[Parameter]
    replicates: int = 1
    seed: int = 0
    until: float | None = None
    jitter: dict[str, float] = field(default_factory=dict)   # runtime/arrival: relative spread
    samples: int | None = None       # None: the full grid; N: N seeded random configurations
    focus: list[str] = field(default_factory=list)           # ClusterQueues the measures cover ([]: all)
    objectives: list[str] = field(default_factory=list)      # columns of the Pareto front

    def configurations(self) -> list[Configuration]:
        if self.samples is None:
            grid = itertools.product(*(p.choices for p in self.parameters))
            return [Configuration(i, dict(zip([p.name for p in self.parameters], combo, strict=True)))
                    for i, combo in enumerate(grid)]
        rng = np.random.default_rng(self.seed)
        return [Configuration(i, {p.name: p.random_value(rng) for p in self.parameters})
                for i in range(self.samples)]


def config_id(values: dict[str, Any]) -> str:
    text = json.dumps(values, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def _parameter(f: Fields) -> Parameter:
    name = f.str("name", required=True)
    knob = parse_knob(f.str("path", required=True), f.where("path"))
    given = [k for k in ("values", "scale", "range") if f.has(k)]
    if len(given) != 1:
        raise InputError("give exactly one of values, scale or range", field=f.path)
    if f.has("values"):
        values = tuple(f.list("values"))
        if not values:
            raise InputError("must not be empty", field=f.where("values"))
        return Parameter(name, knob, values=tuple(knob.check(v, f.where(f"values[{i}]")) for i, v in enumerate(values)))
    if f.has("scale"):
        if not knob.scalable:
            raise InputError(f"{knob.path} is not a quantity: use values", field=f.where("scale"))
        factors = f.list("scale")
        for i, x in enumerate(factors):
            if isinstance(x, bool) or not isinstance(x, int | float) or x < 0:
                raise InputError("must be a number >= 0", field=f.where(f"scale[{i}]"))
        if not factors:
            raise InputError("must not be empty", field=f.where("scale"))
        return Parameter(name, knob, scale=tuple(float(x) for x in factors))
    r = f.obj("range")
    low, high = r.data.get("min"), r.data.get("max")
    for key, v in (("min", low), ("max", high)):
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise InputError("must be a number", field=r.where(key))
    assert isinstance(low, int | float)
    assert isinstance(high, int | float)
    if low > high:
        raise InputError("min is above max", field=f.where("range"))
    if not knob.numeric:
        raise InputError(f"{knob.path} takes no numeric range: use values", field=f.where("range"))
    return Parameter(name, knob, low=float(low), high=float(high), integer=r.bool("integer", knob.integer))


def parse_spec(doc: Any, file: str) -> SweepSpec:
    try:
        f = Fields(doc)
        if f.str("kind") != KIND:
            raise InputError(f"not a sweep spec: kind must be {KIND}", field="kind")
        base = Path(file).parent
        scenario = f.str("scenario", required=True)
        path = (base / scenario) if not Path(scenario).is_absolute() else Path(scenario)
        if not path.is_file():
            raise InputError(f"no such file {scenario!r} (relative to the spec)", field="scenario")
        params = [_parameter(p) for p in f.objs("parameters", required=True)]
        if not params:
            raise InputError("must name at least one parameter", field="parameters")
        names = [p.name for p in params]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InputError(f"duplicate parameter name {dup[0]!r}", field="parameters")
        samples = None
        if f.has("samples"):
            s = f.obj("samples")
            samples = s.int("random", required=True, minimum=1)
        elif any(p.low is not None for p in params):
            raise InputError("a range parameter needs samples: {random: N}", field="parameters")
        jitter = {}
        j = f.obj("jitter")
        for key in j.data:
            if key not in ("runtime", "arrival"):
                raise InputError(f"unknown key {key!r}: expected runtime or arrival", field=j.where(str(key)))
            v = j.data[key]
            if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v < 1:
                raise InputError("must be a fraction in [0, 1)", field=j.where(str(key)))
            jitter[str(key)] = float(v)
        objectives = f.strs("objectives")
        known = set(MEASURES) | set(CLUSTER_MEASURES)
        for i, o in enumerate(objectives):
            if o.lstrip("-+") not in known:
                raise InputError(f"unknown measure {o!r}: expected one of {', '.join(sorted(known))}",
                                 field=f"objectives[{i}]")
        return SweepSpec(
            name=f.str("name", Path(file).stem), file=file, scenario=str(path), parameters=params,
            replicates=f.int("replicates", 1, minimum=1), seed=f.int("seed", 0, minimum=0),
            until=duration(f.data["until"], "until") if f.has("until") else None,
            jitter=jitter, samples=samples, focus=f.strs("focus"),
            objectives=objectives or ["p90Wait", "-gpuUtilisation", "violationSeconds"])
    except InputError as e:
        raise e.located(file=file) from None


def load_spec(path: str) -> SweepSpec:
    docs = decode_documents(read_text(Path(path)), path)
    if len(docs) != 1:
        raise InputError("expected one YAML document (a kind: Sweep spec)", file=path)
    return parse_spec(docs[0], path)
