"""What a sweep parameter may change, named the way ``kubectl explain`` names fields.

A path is either a setting of the Kueue deployment (``kueue.version``,
``kueue.featureGates.NAME``, ``kueue.fairSharing``) or ``KIND/NAME:FIELD`` into the cluster's
objects as the scenario builds them (trace-generated queues included), NAME a glob:

  ClusterQueue/*:spec.resourceGroups[*].flavors[*].resources[nvidia.com/gpu].nominalQuota
  Cohort/philly:spec.resourceGroups[*].flavors[gpu].resources[nvidia.com/gpu].lendingLimit
  ClusterQueue/vc-*:spec.preemption.reclaimWithinCohort
  LocalQueue/team-a/*:spec.fairSharing.weight

Each knob is typed: values are checked when the spec is read, so a typo fails before any
simulation starts, and it changes the typed objects directly (no YAML round trip per
configuration)."""
from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..api import objects as o
from ..api.quantity import Quantity, QuantityError, amount_to_quantity
from ..errors import InputError
from ..kueue.features import GATES
from ..kueue.releases import release_for
from ..kueue.version import LATEST
from ..sim.scenario import Scenario

QUOTA_FIELDS = {"nominalQuota": "nominal_quota", "borrowingLimit": "borrowing_limit",
                "lendingLimit": "lending_limit"}
_QUOTA = re.compile(r"spec\.resourceGroups\[\*\]\.flavors\[(?P<flavor>[^\]]+)\]"
                    r"\.resources\[(?P<resource>[^\]]+)\]\.(?P<field>nominalQuota|borrowingLimit|lendingLimit)")
CHOICES = {
    "spec.preemption.reclaimWithinCohort": ("Never", "LowerPriority", "Any"),
    "spec.preemption.withinClusterQueue": ("Never", "LowerPriority", "LowerOrNewerEqualPriority"),
    "spec.preemption.borrowWithinCohort.policy": ("Never", "LowerPriority"),
    "spec.queueingStrategy": ("StrictFIFO", "BestEffortFIFO"),
}
EXAMPLES = ("kueue.version", "kueue.featureGates.NAME", "kueue.fairSharing",
            "ClusterQueue/NAME:spec.resourceGroups[*].flavors[FLAVOR].resources[RESOURCE].nominalQuota",
            "ClusterQueue/NAME:spec.preemption.reclaimWithinCohort", "ClusterQueue/NAME:spec.fairSharing.weight",
            "Cohort/NAME:spec.fairSharing.weight", "LocalQueue/NAMESPACE/NAME:spec.fairSharing.weight")


@dataclass(frozen=True)
class Knob:
    path: str
    kind: str                 # "kueue" for deployment settings, else the object kind
    name: str = ""            # object name glob (LocalQueue: "namespace/name")
    field: str = ""
    flavor: str = "*"
    resource: str = ""
    scalable: bool = False    # a quantity: ``scale`` multiplies the base value
    numeric: bool = False
    integer: bool = False

    def check(self, value: Any, where: str) -> Any:
        """``value`` as the knob stores it in a configuration (JSON-friendly), or InputError."""
        if self.kind == "kueue":
            return _check_kueue(self.field, value, where)
        if self.scalable:
            try:
                return str(Quantity.parse(value))
            except (QuantityError, TypeError, ValueError):
                raise InputError(f"not a quantity: {value!r}", field=where) from None
        choices = CHOICES[self.field]
        if value not in choices:
            raise InputError(f"unsupported value {value!r}: expected one of {', '.join(choices)}", field=where)
        return value

    def apply(self, scn: Scenario, value: Any, scaled: bool = False) -> int:
        """Set the knob on ``scn`` (in place); the number of fields changed. ``scaled``: ``value``
        multiplies each base quantity instead of replacing it."""
        if self.kind == "kueue":
            _apply_kueue(scn, self.field, value)
            return 1
        n = 0
        for obj in self.targets(scn):
            for setter in self._setters(obj):
                setter(value, scaled)
                n += 1
        return n

    def current(self, scn: Scenario) -> Any:
        """The base scenario's value: one value, or the sorted distinct values when targets differ."""
        if self.kind == "kueue":
            rel = release_for(scn.version, scn.gates)
            if self.field == "version":
                return scn.version or rel.label
            if self.field == "fairSharing":
                return scn.fair_sharing is not None
            return rel.gates.get(self.field.removeprefix("featureGates."))
        seen: set[str] = set()
        for obj in self.targets(scn):
            if self.resource:
                seen.update(str(getattr(rq, QUOTA_FIELDS[self.field])) for rq in self._quotas([obj]))
            elif self.field == "spec.fairSharing.weight":
                seen.add(str(obj.fair_sharing_weight) if obj.fair_sharing_weight is not None else "1")
            elif self.field == "spec.queueingStrategy":
                seen.add(obj.queueing_strategy)
            elif self.field == "spec.preemption.borrowWithinCohort.policy":
                bwc = obj.preemption.borrow_within_cohort
                seen.add(bwc.policy if bwc else "Never")
            elif self.field.endswith("reclaimWithinCohort"):
                seen.add(obj.preemption.reclaim_within_cohort)
            else:
                seen.add(obj.preemption.within_cluster_queue)
        values = sorted(seen)
        return values[0] if len(values) == 1 else values

    def targets(self, scn: Scenario) -> Iterator[Any]:
        st = scn.state
        if self.kind == "ClusterQueue":
            pool: dict = st.cluster_queues
        elif self.kind == "Cohort":
            pool = st.cohorts
        else:
            pool = {f"{ns}/{name}": lq for (ns, name), lq in st.local_queues.items()}
        for name in sorted(pool):
            if fnmatch.fnmatchcase(name, self.name):
                yield pool[name]

    def _setters(self, obj: Any) -> Iterator[Callable[[Any, bool], None]]:
        if self.resource:
            for rq in self._quotas([obj]):
                yield _quota_setter(rq, QUOTA_FIELDS[self.field])
        elif self.field == "spec.fairSharing.weight":
            yield _weight_setter(obj)
        elif self.field.startswith("spec.preemption."):
            yield _preemption_setter(obj.preemption, self.field)
        elif self.field == "spec.queueingStrategy":
            def set_strategy(v: Any, _scaled: bool) -> None:
                obj.queueing_strategy = v
            yield set_strategy

    def problems(self, scn: Scenario, scaled: bool) -> str | None:
        """Why the knob cannot act on ``scn`` (matches nothing; scales a limit that is not set)."""
        if self.kind == "kueue":
            return None
        objs = list(self.targets(scn))
        if not objs:
            return f"no {self.kind} named {self.name!r} in the scenario"
        fields = [s for obj in objs for s in self._setters(obj)]
        if not fields:
            return f"{self.path} matches no field (flavor {self.flavor!r}, resource {self.resource!r})"
        if scaled and self.field in ("borrowingLimit", "lendingLimit"):
            unset = [getattr(rq, QUOTA_FIELDS[self.field]) is None for rq in self._quotas(objs)]
            if any(unset):
                return f"cannot scale {self.field}: it is not set (unlimited) on some matched queues; use values"
        return None

    def _quotas(self, objs: list[Any]) -> Iterator[o.ResourceQuota]:
        for obj in objs:
            for group in obj.resource_groups:
                for fq in group.flavors:
                    if fnmatch.fnmatchcase(fq.name, self.flavor):
                        yield from (rq for rq in fq.resources if fnmatch.fnmatchcase(rq.name, self.resource))


def _quota_setter(rq: o.ResourceQuota, attr: str) -> Callable[[Any, bool], None]:
    def set_quota(value: Any, scaled: bool) -> None:
        if scaled:
            base = getattr(rq, attr)
            amount = round(base.amount(rq.name) * float(value))
            setattr(rq, attr, amount_to_quantity(rq.name, amount))
        else:
            setattr(rq, attr, Quantity.parse(value))
    return set_quota


def _weight_setter(obj: Any) -> Callable[[Any, bool], None]:
    def set_weight(value: Any, scaled: bool) -> None:
        if scaled:
            base = obj.fair_sharing_weight.value if obj.fair_sharing_weight is not None else 1
            obj.fair_sharing_weight = Quantity.parse(round(float(base) * float(value), 6))
        else:
            obj.fair_sharing_weight = Quantity.parse(value)
    return set_weight


def _preemption_setter(pre: o.Preemption, field: str) -> Callable[[Any, bool], None]:
    def set_policy(value: Any, _scaled: bool) -> None:
        if field.endswith("reclaimWithinCohort"):
            pre.reclaim_within_cohort = value
        elif field.endswith("withinClusterQueue"):
            pre.within_cluster_queue = value
        else:
            pre.borrow_within_cohort = o.BorrowWithinCohort(policy=value)
    return set_policy


def _check_kueue(field: str, value: Any, where: str) -> Any:
    if field == "version":
        try:
            rel = release_for(str(value))
        except InputError as e:
            raise InputError(e.problem, field=where) from None
        if rel.version > LATEST:
            raise InputError(f"{rel.label} is newer than the latest release modelled, {LATEST.label}", field=where)
        return str(value)
    if field == "fairSharing":
        if isinstance(value, bool) or value is None:
            return bool(value)
        if isinstance(value, dict):
            return value
        raise InputError("must be true, false or a fairSharing object (preemptionStrategies)", field=where)
    if not isinstance(value, bool):
        raise InputError("a feature gate takes true or false", field=where)
    return value


def _apply_kueue(scn: Scenario, field: str, value: Any) -> None:
    if field == "version":
        scn.version = value
    elif field == "fairSharing":
        scn.fair_sharing = (value if isinstance(value, dict) else {}) if value else None
    else:
        scn.gates[field.removeprefix("featureGates.")] = bool(value)


def parse_knob(path: str, where: str) -> Knob:
    if path in ("kueue.version", "kueue.fairSharing"):
        return Knob(path, "kueue", field=path.removeprefix("kueue."))
    if path.startswith("kueue.featureGates."):
        gate = path.removeprefix("kueue.featureGates.")
        if gate not in GATES:
            raise InputError(f"unknown feature gate {gate!r}", field=where)
        return Knob(path, "kueue", field=f"featureGates.{gate}")
    target, sep, field = path.partition(":")
    kind, _, name = target.partition("/")
    if not sep or kind not in ("ClusterQueue", "Cohort", "LocalQueue") or not name:
        raise InputError(f"unsupported path {path!r}: expected one of {'; '.join(EXAMPLES)}", field=where)
    if kind == "LocalQueue":
        if name.count("/") != 1:
            raise InputError("a LocalQueue is named NAMESPACE/NAME", field=where)
        if field != "spec.fairSharing.weight":
            raise InputError(f"unsupported LocalQueue field {field!r}: expected spec.fairSharing.weight", field=where)
    m = _QUOTA.fullmatch(field)
    if m is not None and kind != "LocalQueue":
        return Knob(path, kind, name, m["field"], m["flavor"], m["resource"], scalable=True, numeric=True)
    if field == "spec.fairSharing.weight":
        return Knob(path, kind, name, field, scalable=True, numeric=True)
    if kind == "ClusterQueue" and field in CHOICES:
        return Knob(path, kind, name, field)
    raise InputError(f"unsupported field {field!r} for {kind}: expected one of {'; '.join(EXAMPLES)}", field=where)
