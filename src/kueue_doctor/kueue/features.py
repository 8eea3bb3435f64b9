"""Kueue's feature gates and their default in each release: one versioned table, after upstream's
``pkg/features/kube_features.go`` (``defaultVersionedFeatureGates``).

Only the gates that change a decision this project models are listed. Versions and defaults
are the ones upstream's table states at the reference commit (kueue-semantics.md §0). That
table is edited in place on main, so for a few patch releases the shipped tags disagree with
it: v0.18.5+ and v0.19.1+ carry FlavorFungibilityPreserveScanProgress (on), and v0.18.5+ and
v0.19.x carry UnadmittedWorkloadsObservability switched off. The model follows the table.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from .version import LATEST, Version


class Stage(StrEnum):
    ALPHA = "Alpha"
    BETA = "Beta"
    GA = "GA"
    DEPRECATED = "Deprecated"


@dataclass(frozen=True, slots=True)
class Spec:
    """From release ``since`` on (until the next spec), the gate defaults to ``default``."""

    since: Version
    default: bool
    stage: Stage


@dataclass(frozen=True, slots=True)
class Gate:
    name: str
    specs: tuple[Spec, ...]          # oldest first
    # How a release without the gate behaves. False when the gate brought the feature; True when
    # a long-standing behaviour was put behind a gate later (ReclaimablePods in v0.15).
    before: bool = False

    @property
    def introduced(self) -> Version:
        return self.specs[0].since

    def spec(self, version: Version) -> Spec | None:
        """The spec in force in ``version``; None when the release has no such gate."""
        found = None
        for s in self.specs:
            if s.since <= version:
                found = s
        return found

    def default(self, version: Version) -> bool:
        s = self.spec(version)
        return self.before if s is None else s.default


def _gate(name: str, *specs: tuple[int, bool, Stage], before: bool = False) -> Gate:
    """Specs as (minor, default, stage): every Kueue release so far is 0.x."""
    return Gate(name, tuple(Spec(Version(0, minor), on, stage) for minor, on, stage in specs), before)


A, B = Stage.ALPHA, Stage.BETA

GATES: Mapping[str, Gate] = {g.name: g for g in (
    _gate("PartialAdmission", (4, False, A), (5, True, B)),
    _gate("FlavorFungibility", (5, True, B)),
    _gate("PrioritySortingWithinCohort", (6, True, B), before=True),
    _gate("TopologyAwareScheduling", (9, False, A), (14, True, B)),
    _gate("ElasticJobsViaWorkloadSlices", (13, False, A), (18, True, B)),
    _gate("ReclaimablePods", (15, True, B), before=True),
    _gate("FairSharingPreemptWithinNominal", (17, True, B)),
    _gate("FairSharingPrioritizeNonBorrowing", (17, True, B)),
    _gate("SchedulingEquivalenceHashing", (17, False, B), (18, True, B)),
    _gate("PriorityBoost", (17, False, A)),
    _gate("FastQuotaReleaseInPodIntegration", (17, False, A)),
    _gate("ConcurrentAdmission", (18, False, A)),
    _gate("QuotaCheckStrategy", (18, False, A), (19, True, B)),
    _gate("UnadmittedWorkloadsObservability", (19, True, B)),
    _gate("PrioritizePreemptorWorkloads", (20, False, A)),
    _gate("FlavorFungibilityPreserveScanProgress", (20, True, B)),
    _gate("RecomputeAssignmentUponPreemptionTargetsOverlap", (20, True, B)),
)}


def defaults(version: Version = LATEST) -> dict[str, bool]:
    """Every listed gate as ``version`` runs it when nothing is set."""
    return {name: g.default(version) for name, g in GATES.items()}


def effective(version: Version, overrides: Mapping[str, bool] | None = None) -> dict[str, bool]:
    """The gates ``version`` runs with ``overrides`` (``--feature-gates``, the Configuration) set.

    An override of a listed gate the release does not have yet is dropped: the release behaves
    as before the gate (upstream refuses to start with an unknown gate; we model the release
    instead of failing). Gates not listed here are passed through untouched.
    """
    gates = defaults(version)
    for name, on in (overrides or {}).items():
        g = GATES.get(name)
        if g is None or g.spec(version) is not None:
            gates[name] = on
    return gates
