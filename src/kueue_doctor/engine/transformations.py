"""The Configuration's ``resources`` rules that turn a pod's requests into what Kueue accounts:
``excludeResourcePrefixes`` (dropped) and ``transformations`` (an input resource counted as
outputs, per unit of input, and kept (Retain) or not (Replace)).

Upstream: pkg/workload/workload.go ``totalRequestsFromPodSets`` applies
``dropExcludedResources`` then ``applyResourceTransformations`` to the pod spec's requests; the
result is the Workload's requests for flavor assignment and quota, in the queue manager and the
cache alike (cmd/kueue/main.go passes both options to both). Topology-aware placement does not use
it: ``podSetTopologyRequest`` (pkg/scheduler/flavorassigner/tas_flavorassigner.go) takes the pod
spec's own requests, which is what a node must hold.

Per release (``TransformBehaviour.for_release``):
- transformations since v0.9 behind ConfigurableResourceTransformations (on from v0.10, locked on
  in v0.14 - v0.15, gone in v0.16): only a v0.13 Configuration can switch them off.
- ``multiplyBy`` since v0.16 (#7599).
- #12953 (v0.19; v0.17.7, v0.18.3): outputs are input x factor in decimals. Before, the factor
  was multiplied by the input rounded up to whole units (``Quantity.Value``: 500m cpu counts as 1),
  and ``multiplyBy`` scaled the input by its own rounded-up value.
- #13986 (v0.20; v0.18.5, v0.19.1): what transformations generate is summed apart from the
  requests, negative totals count 0, and a retained input is not scaled by ``multiplyBy``. Before,
  one map held both, so an output named like a request was overwritten or added to depending on
  Go's map order (this model walks the requests by name), and Retain kept the scaled input.
- #8865 (v0.17; v0.15.4, v0.16.1): TAS places pods by the pod spec's requests; before, by the
  transformed ones (``TotalRequests[i].SinglePodRequests()``).

Amounts are the engine's integers (millicores for cpu, units otherwise), so an input is exact
unless it is a sub-unit quantity of a resource other than cpu (already rounded up by the engine).
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from ..api import objects as o
from ..api.quantity import Quantity
from ..kueue.releases import Fix
from ..kueue.version import Version

Requests = dict[str, int]

MULTIPLY_BY_FIRST = Version(0, 16)
EXACT_ARITHMETIC_FIX = Fix(12953, Version(0, 19), (Version(0, 17, 7), Version(0, 18, 3)))
GENERATED_APART_FIX = Fix(13986, Version(0, 20), (Version(0, 18, 5), Version(0, 19, 1)))
TAS_POD_SPEC_REQUESTS_FIX = Fix(8865, Version(0, 17), (Version(0, 15, 4), Version(0, 16, 1)))
GATE = "ConfigurableResourceTransformations"


@dataclass(frozen=True, slots=True)
class TransformBehaviour:
    """What a release's transformations do (module docstring, 'Per release')."""
    multiply_by: bool = True
    exact: bool = True
    generated_apart: bool = True
    tas_pod_spec_requests: bool = True

    @classmethod
    def for_release(cls, version: Version) -> TransformBehaviour:
        return cls(multiply_by=version >= MULTIPLY_BY_FIRST, exact=EXACT_ARITHMETIC_FIX.carried_by(version),
                   generated_apart=GENERATED_APART_FIX.carried_by(version),
                   tas_pod_spec_requests=TAS_POD_SPEC_REQUESTS_FIX.carried_by(version))


def _value(resource: str, amount: int) -> Fraction:
    return Fraction(amount, 1000) if resource == "cpu" else Fraction(amount)


def _amount(resource: str, value: Fraction) -> int:
    return Quantity(value).amount(resource)


@dataclass(frozen=True)
class ResourceRules:
    """The Configuration's resources rules as the engine applies them to a pod's requests."""
    excluded_prefixes: tuple[str, ...] = ()
    transformations: Mapping[str, o.ResourceTransformation] = field(default_factory=dict)
    behaviour: TransformBehaviour = field(default_factory=TransformBehaviour)

    @classmethod
    def of(cls, excluded_prefixes: Iterable[str] = (), transformations: Iterable[o.ResourceTransformation] = (),
           behaviour: TransformBehaviour | None = None) -> ResourceRules:
        # keyed by input, as InfoOptions keeps them (validation allows one entry per input)
        return cls(tuple(excluded_prefixes), {t.input: t for t in transformations},
                   behaviour or TransformBehaviour())

    @property
    def active(self) -> bool:
        return bool(self.excluded_prefixes or self.transformations)

    def accounted(self, requests: Requests) -> Requests:
        """A pod's requests as Kueue accounts them (flavor assignment, quota)."""
        reqs = requests
        if self.excluded_prefixes:
            reqs = {r: v for r, v in reqs.items() if not r.startswith(self.excluded_prefixes)}
        if self.transformations and any(r in self.transformations for r in reqs):
            reqs = self._generated_apart(reqs) if self.behaviour.generated_apart else self._one_map(reqs)
        return reqs

    def _multiplier(self, t: o.ResourceTransformation, reqs: Requests) -> Fraction | None:
        if not (self.behaviour.multiply_by and t.multiply_by and t.multiply_by in reqs):
            return None
        m = _value(t.multiply_by, reqs[t.multiply_by])
        return m if self.behaviour.exact else Fraction(math.ceil(m))

    def _outputs(self, t: o.ResourceTransformation, base: Fraction) -> dict[str, Fraction]:
        if not self.behaviour.exact:
            base = Fraction(math.ceil(base))
        return {name: base * factor.value for name, factor in t.outputs.items()}

    def _generated_apart(self, reqs: Requests) -> Requests:
        # applyResourceTransformations since #13986
        retained: Requests = {}
        generated: dict[str, Fraction] = {}
        for name, amount in reqs.items():
            t = self.transformations.get(name)
            if t is None:
                retained[name] = amount
                continue
            base = _value(name, amount)
            m = self._multiplier(t, reqs)
            for out, v in self._outputs(t, base if m is None else base * m).items():
                generated[out] = generated.get(out, Fraction(0)) + v
            if t.strategy == "Retain":
                retained[name] = amount
        for out, v in generated.items():
            retained[out] = retained.get(out, 0) + _amount(out, max(v, Fraction(0)))
        return retained

    def _one_map(self, reqs: Requests) -> Requests:
        # applyResourceTransformations before #13986: one output map for requests and outputs
        output: dict[str, Fraction] = {}
        for name in sorted(reqs):
            t = self.transformations.get(name)
            value = _value(name, reqs[name])
            if t is None:
                output[name] = value
                continue
            m = self._multiplier(t, reqs)
            if m is not None:
                value *= m
            for out, v in self._outputs(t, value).items():
                output[out] = v + output.get(out, Fraction(0))
            if t.strategy == "Retain":
                output[name] = value
        return {name: _amount(name, v) for name, v in output.items()}
