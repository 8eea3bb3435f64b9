"""What the evaluation decides, per workload and per queue. Numbers stay engine integers."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum

from ..engine.quota import FR
from ..engine.workload import WorkloadInfo
from ..keys import WorkloadKey

DEFAULT_MIN_WAIT = timedelta(minutes=5)


class Fit(StrEnum):
    FITS = "fits"                              # alone, in the nominal quota the queue leaves unused
    NEEDS_MORE_THAN_UNUSED_NOMINAL = "needs-more-than-unused-nominal"   # only by borrowing or preempting
    NO_ELIGIBLE_FLAVOR = "no-eligible-flavor"  # node selector/affinity, taints, allowed flavors
    RESOURCE_NOT_COVERED = "resource-not-covered"   # a requested resource is in no resource group
    QUEUE_AT_NOMINAL = "queue-at-nominal"      # the queue already uses all of its nominal quota
    SIBLING_ADMITTED = "sibling-admitted"      # a ConcurrentAdmission variant whose parent already runs


@dataclass(frozen=True, slots=True)
class FitVerdict:
    fit: Fit
    # flavor per resource the work would take inside the unused nominal quota (when it fits)
    placed: Mapping[FR, int] = field(default_factory=dict)
    # why flavors were ruled out, in Kueue's words ("flavor b200 doesn't match node affinity")
    excluded: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class QueueGuarantee:
    cluster_queue: str
    nominal: Mapping[FR, int]
    reserved: Mapping[FR, int]
    pending_fits: Mapping[FR, int]      # quota that pending work, taken in queue order, would get
    fitting: tuple[WorkloadKey, ...]    # pending workloads that alone fit the unused nominal quota
    violating: tuple[WorkloadKey, ...]  # ... that waited past the threshold
    not_running: tuple[WorkloadKey, ...]  # admitted, not running, waited past the threshold
    since: datetime | None           # when the earliest of those crossed the threshold
    # per pending workload evaluated (workloads of a saturated queue are absent)
    verdicts: Mapping[WorkloadKey, FitVerdict]

    @property
    def violated(self) -> bool:
        return bool(self.violating or self.not_running)

    def violated_resources(self, admitted: Mapping[WorkloadKey, WorkloadInfo]) -> list[FR]:
        """The (flavor, resource) pairs the violation is on: those pending work that fits would
        take, else those the admitted-but-not-running work holds (``admitted``: the queue's
        admitted workloads, as ClusterQueueSnapshot.workloads holds them)."""
        frs = {fr for fr, v in self.pending_fits.items() if v}
        if not frs:
            frs = {fr for k in self.not_running if k in admitted for fr in admitted[k].usage}
        return sorted(frs)
