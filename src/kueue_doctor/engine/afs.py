"""Admission fair sharing (AFS): LocalQueue usage, its decay, and the entry penalty.

Within a ClusterQueue whose ``admissionScope.admissionMode`` is UsageBasedAdmissionFairSharing,
Kueue (with the AdmissionFairSharing gate on and ``admissionFairSharing`` in its Configuration)
orders the pending workloads by their LocalQueue's usage, lower first, before priority:

    usage(lq) = sum over resources r of resourceWeights[r] * (consumed[r] + penalty[r]) / lq.weight

- ``consumed`` is an exponentially decayed average of the LocalQueue's admitted usage, sampled
  every ``usageSamplingInterval``: ``consumed = old * (1 - a) + admitted * a`` with
  ``a = 1 - 0.5 ** (elapsed / usageHalfLifeTime)``; a half-life of 0 resets it to nothing.
  Kueue persists it in LocalQueue ``status.fairSharing.admissionFairSharingStatus``.
- ``penalty``: when the scheduler assumes a workload it charges the LocalQueue
  ``requests * a(usageSamplingInterval, usageHalfLifeTime)`` at once, so the next head of the
  same ClusterQueue sees the admission before the next sample does (one workload per LocalQueue
  when quota is short). The penalty is folded into ``consumed`` when the workload turns Admitted.

Everything here is pure: time comes in as an argument. Upstream:
pkg/util/admissionfairsharing/admission_fair_sharing.go, pkg/cache/queue/afs/ (the usage ledger,
entry penalties), pkg/cache/queue/cluster_queue.go (queueOrderingFunc),
pkg/controller/core/localqueue_controller.go (sampling), workload_controller.go (settlement),
pkg/scheduler/scheduler.go (shouldApplyEntryPenalty). Reference: kueue-semantics.md §6.1.

Per release (``AfsBehaviour.for_release``):
- v0.12: the gate exists (Alpha, off); heads ordered by the LocalQueue status; no entry penalty.
- v0.13 (#5933): the entry penalty.
- v0.15: the gate is Beta, on by default; usage kept in a ledger seeded from the status (#7780);
  before it a LocalQueue without status counts as 0, penalty and all.
- v0.18.5 / v0.19.1 / v0.20 (#13481, #13621): a weight <= 0 gives +Inf (before, 0 usage / 0 weight
  was NaN and sorted such a LocalQueue first); amounts kept to 1e-9 instead of truncated to milli.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction

from ..api import objects as o
from ..api.quantity import Quantity
from ..keys import WorkloadKey
from ..kueue.releases import Fix
from ..kueue.version import Version

USAGE_BASED = "UsageBasedAdmissionFairSharing"

# Resource amounts here are floats in the resource's own unit (cpu in cores, memory in bytes),
# as Kueue's AsApproximateFloat64 reads them.
Amounts = dict[str, float]
LqKey = tuple[str, str]   # (namespace, name)

ENTRY_PENALTY_FIRST = Version(0, 13)     # "Add entrance penalty for admitted Workloads" (#5933)
LEDGER_FIRST = Version(0, 15)            # "Implement cache for AFS consumed resources" (#7780)
# "[AFS] Support preemption based on historical LQ's usage" (#5632): preemption candidates of
# LocalQueues with higher usage go first (scheduler/preemption/common/ordering.go CandidatesOrdering)
PREEMPTION_ORDER_FIRST = Version(0, 13)
# "Guard against non-positive LocalQueue fair-sharing weight" (#13481) and "Preserve sub-milli
# resource contributions in AdmissionFairSharing usage" (#13621): the same releases carry both.
ZERO_WEIGHT_FIX = Fix(13481, Version(0, 20), (Version(0, 18, 5), Version(0, 19, 1)))
SUB_MILLI_FIX = Fix(13621, Version(0, 20), (Version(0, 18, 5), Version(0, 19, 1)))


@dataclass(frozen=True, slots=True)
class AfsConfig:
    """Configuration ``admissionFairSharing``, in seconds."""
    usage_half_life_time: float = 0.0
    usage_sampling_interval: float = 300.0
    resource_weights: Mapping[str, float] = field(default_factory=dict)

    @classmethod
    def from_api(cls, c: o.AdmissionFairSharingConfig) -> AfsConfig:
        return cls(c.usage_half_life_time, c.usage_sampling_interval, dict(c.resource_weights))


@dataclass(frozen=True, slots=True)
class AfsBehaviour:
    """What a release's AFS does beyond the gate (module docstring, 'Per release')."""
    entry_penalty: bool = True
    ledger: bool = True          # False: a LocalQueue without AFS status has usage 0
    zero_weight_inf: bool = True  # False: 0 usage over weight 0 is NaN (sorts first)
    nano: bool = True             # False: every scaled amount truncated to milli units
    preemption_order: bool = True  # False: LocalQueue usage does not order preemption candidates

    @classmethod
    def for_release(cls, version: Version) -> AfsBehaviour:
        return cls(entry_penalty=version >= ENTRY_PENALTY_FIRST, ledger=version >= LEDGER_FIRST,
                   preemption_order=version >= PREEMPTION_ORDER_FIRST,
                   zero_weight_inf=ZERO_WEIGHT_FIX.carried_by(version), nano=SUB_MILLI_FIX.carried_by(version))


# -- arithmetic (admission_fair_sharing.go) ----------------------------------------------------------
def alpha(elapsed: float, half_life: float) -> float:
    """calculateAlphaRate: the weight of the newest sample after ``elapsed`` seconds."""
    if half_life == 0:
        return 0.0
    return 1.0 - math.pow(0.5, elapsed / half_life)


def scale(amounts: Mapping[str, float], f: float, nano: bool = True) -> Amounts:
    """resource.MulByFloat: rounded down to 1e-9 (v0.20), or truncated to milli units before."""
    if nano:
        return {r: math.floor(v * f * 1e9 + 1e-6) / 1e9 for r, v in amounts.items()}
    return {r: math.trunc(round(v * 1000, 6) * f) / 1000 for r, v in amounts.items()}


def merge(a: Mapping[str, float], b: Mapping[str, float]) -> Amounts:
    """MergeResourceListKeepSum."""
    out = dict(a)
    for r, v in b.items():
        out[r] = out.get(r, 0.0) + v
    return out


def entry_penalty(requests: Mapping[str, float], cfg: AfsConfig, nano: bool = True) -> Amounts:
    """CalculateEntryPenalty: what assuming a workload costs its LocalQueue at once."""
    return scale(requests, alpha(cfg.usage_sampling_interval, cfg.usage_half_life_time), nano)


def decayed(old: Mapping[str, float], admitted: Mapping[str, float], elapsed: float, half_life: float,
            nano: bool = True) -> Amounts:
    """CalculateDecayedConsumed: ``old * (1 - a) + admitted * a``."""
    a = alpha(elapsed, half_life)
    return merge(scale(old, 1 - a, nano), scale(admitted, a, nano))


def usage(consumed: Mapping[str, float], penalty: Mapping[str, float], lq_weight: float,
          resource_weights: Mapping[str, float], zero_weight_inf: bool = True) -> float:
    """CalculateUsage: weighted consumed + penalty over the LocalQueue's weight."""
    total = merge(consumed, penalty)
    u = 0.0
    for r in sorted(total):
        u += resource_weights.get(r, 1.0) * total[r]
    if lq_weight <= 0:
        if zero_weight_inf:
            return math.inf
        return math.nan if u == 0 else math.copysign(math.inf, u)
    return u / lq_weight


def order_key(u: float) -> tuple[int, float]:
    """A sortable stand-in for Go's cmp.Compare on usage: NaN below every number."""
    return (0, 0.0) if math.isnan(u) else (1, u)


def amounts_of(resources: Mapping[str, o.Quantity]) -> Amounts:
    return {r: float(q.value) for r, q in resources.items()}


def amounts_of_usage(usage_by_fr: Mapping[tuple[str, str], int]) -> Amounts:
    """The engine's integer usage per (flavor, resource) as amounts per resource (FlattenFlavors)."""
    out: Amounts = {}
    for (_, r), v in usage_by_fr.items():
        out[r] = out.get(r, 0.0) + (v / 1000 if r == "cpu" else float(v))
    return out


def weight_of(lq: o.LocalQueue | None) -> float:
    """LQWeightAsFloat64: spec.fairSharing.weight, 1 when unset or the LocalQueue is unknown."""
    if lq is None or lq.fair_sharing_weight is None:
        return 1.0
    return float(lq.fair_sharing_weight.value)


# -- the ledger (pkg/cache/queue/afs) -----------------------------------------------------------------
@dataclass
class LedgerEntry:
    consumed: Amounts = field(default_factory=dict)
    penalties: dict[WorkloadKey, Amounts] = field(default_factory=dict)
    last_update: datetime | None = None
    status_accounted: bool = False   # the LocalQueue's persisted status has been folded in

    def penalty(self) -> Amounts:
        out: Amounts = {}
        for p in self.penalties.values():
            out = merge(out, p)
        return {r: v for r, v in out.items() if v != 0}


@dataclass
class UsageLedger:
    """Per-LocalQueue consumed usage and pending entry penalties (AfsUsageLedger).

    ``version`` grows on every change, so a queue ordered by usage knows when to re-sort.
    """
    config: AfsConfig
    behaviour: AfsBehaviour = field(default_factory=AfsBehaviour)
    entries: dict[LqKey, LedgerEntry] = field(default_factory=dict)
    weights: dict[LqKey, float] = field(default_factory=dict)
    version: int = 0

    @classmethod
    def from_local_queues(cls, lqs: Mapping[LqKey, o.LocalQueue], config: AfsConfig,
                          behaviour: AfsBehaviour | None = None) -> UsageLedger:
        """Seeded from what Kueue persisted: a LocalQueue without AFS status has no entry."""
        led = cls(config, behaviour or AfsBehaviour())
        for key, lq in lqs.items():
            led.weights[key] = weight_of(lq)
            if lq.afs_status is not None:
                led.entries[key] = LedgerEntry(amounts_of(lq.afs_status.consumed_resources),
                                               last_update=lq.afs_status.last_update, status_accounted=True)
        return led

    def _changed(self) -> None:
        self.version += 1

    def usage(self, key: LqKey) -> float:
        e = self.entries.get(key)
        if e is None and not self.behaviour.ledger:
            return 0.0   # before v0.15 an uninitialised LocalQueue status read as 0
        consumed = e.consumed if e else {}
        penalty = e.penalty() if e else {}
        return usage(consumed, penalty, self.weights.get(key, 1.0), self.config.resource_weights,
                     self.behaviour.zero_weight_inf)

    def push_penalty(self, key: LqKey, wl: WorkloadKey, requests: Mapping[str, float], now: datetime) -> Amounts:
        """PushPenalty: replaces this workload's earlier record (a re-assume never stacks)."""
        if not self.behaviour.entry_penalty:
            return {}
        p = entry_penalty(requests, self.config, self.behaviour.nano)
        e = self.entries.get(key)
        if e is None:
            if not self.behaviour.ledger:
                return {}   # no status, no ledger to record it in: usage stays 0 (v0.13, v0.14)
            e = self.entries[key] = LedgerEntry(last_update=now)
        e.penalties[wl] = p
        self._changed()
        return p

    def sub_penalty(self, key: LqKey, wl: WorkloadKey) -> Amounts:
        """SubPenalty: the workload will never settle (deleted, moved, finished unadmitted)."""
        e = self.entries.get(key)
        if e is None or wl not in e.penalties:
            return {}
        self._changed()
        return e.penalties.pop(wl)

    def settle(self, key: LqKey, wl: WorkloadKey, admitted: Mapping[str, float], now: datetime) -> None:
        """updateAfsConsumedUsage: the workload turned Admitted; decay to now, fold its penalty."""
        e = self.entries.get(key)
        if e is None:
            e = self.entries[key] = LedgerEntry(last_update=now)
        last = e.last_update or now
        elapsed = max(0.0, (now - last).total_seconds())
        consumed = decayed(e.consumed, admitted, elapsed, self.config.usage_half_life_time, self.behaviour.nano)
        e.consumed = merge(consumed, e.penalties.pop(wl, {}))
        e.last_update = max(last, now)
        self._changed()

    def due(self, key: LqKey, now: datetime) -> bool:
        """The LocalQueue reconciler's sampling rule: an interval has passed, or a penalty waits."""
        e = self.entries.get(key)
        if e is None or e.last_update is None:
            return True
        if e.penalty():
            return True
        return (now - e.last_update).total_seconds() >= self.config.usage_sampling_interval

    def sample(self, key: LqKey, admitted: Mapping[str, float], now: datetime) -> LedgerEntry:
        """reconcileConsumedUsage: decay toward the LocalQueue's admitted usage (a new LocalQueue's
        entry starts empty at ``now``; half-life 0 resets it)."""
        e = self.entries.get(key)
        if e is None:
            e = self.entries[key] = LedgerEntry(last_update=now, status_accounted=True)
            self._changed()
            return e
        if self.config.usage_half_life_time == 0:
            e.consumed = {}
        else:
            last = e.last_update or now
            elapsed = max(0.0, (now - last).total_seconds())
            e.consumed = decayed(e.consumed, admitted, elapsed, self.config.usage_half_life_time,
                                 self.behaviour.nano)
        e.last_update = now if e.last_update is None or e.last_update <= now else e.last_update
        e.status_accounted = True
        self._changed()
        return e

    def status(self, key: LqKey) -> o.AdmissionFairSharingStatus | None:
        """The LocalQueue status Kueue would have written (consumed only; penalties are in memory)."""
        e = self.entries.get(key)
        if e is None:
            return None
        return o.AdmissionFairSharingStatus(
            consumed_resources={r: Quantity(Fraction(v).limit_denominator(10**9))
                                for r, v in sorted(e.consumed.items())},
            last_update=e.last_update)
