"""Kueue's feature gates and their default in each release: one versioned table, per shipped tag.

Only the gates that change a decision this project models are listed. Upstream keeps the gates in
``pkg/features/kube_features.go`` (``defaultVersionedFeatureGates``, entries keyed by a minor
version "0.x") and edits that table in place on main and on the release branches, so main's table
is not what the tags shipped: a patch release can gain a gate (a backport), lose it again in the
next minor line's first tags, or ship another default than main now states for its minor.

So the specs here are what each tag's own file gives, not main's table. Kueue adds the table to
component-base's default feature gate and never sets an emulation version, so it is evaluated at
the Kubernetes binary version (1.33 .. 1.36): every "0.x" entry applies and a tag runs the newest
entry of its own file. (For the listed gates no tag's file has an entry past the tag's minor, so
"the newest entry <= the tag's minor" gives the same answer.) Derived on 2026-12-01 by reading
that file at every release tag v0.12.0 .. v0.19.2 (there is no v0.20 release tag yet; v0.20.0-devel
only marks the start of the line) and at main (ff69552e, 2026-08-22) in a mirror of
kubernetes-sigs/kueue. The unreleased v0.20 line (``LATEST``) is main's table.
tests/kueue/test_releases.py pins the tags where main's table and the tags disagree.

A spec may start at a patch release, and one whose ``stage`` is None says the gate is missing from
that release on: a backport to v0.18.5 is listed as 0.18.5, then 0.19.0 (what v0.19.0 shipped),
then 0.19.1 (where the next line picked it up), so "the newest spec whose ``since`` <= the release"
stays right on every line.
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
    """From release ``since`` on (until the next spec), the gate defaults to ``default``.

    ``stage`` None: from ``since`` on the release has no such gate (``default`` is unused).
    """

    since: Version
    default: bool
    stage: Stage | None

    @property
    def present(self) -> bool:
        return self.stage is not None


@dataclass(frozen=True, slots=True)
class Gate:
    name: str
    specs: tuple[Spec, ...]          # by ``since``, lowest first; the first one present
    # How a release without the gate behaves. False when the gate brought the feature; True when
    # a long-standing behaviour was put behind a gate later (ReclaimablePods in v0.15).
    before: bool = False

    def __post_init__(self) -> None:
        since = [s.since for s in self.specs]
        if not since or not self.specs[0].present or since != sorted(set(since)):
            raise ValueError(f"{self.name}: specs must be ordered by release, the first one present")

    @property
    def introduced(self) -> Version:
        """The first release with the gate (on any line)."""
        return self.specs[0].since

    def spec(self, version: Version) -> Spec | None:
        """The spec in force in ``version``; None when the release has no such gate."""
        found = None
        for s in self.specs:
            if s.since <= version:
                found = s
        return found if found is not None and found.present else None

    def default(self, version: Version) -> bool:
        s = self.spec(version)
        return self.before if s is None else s.default


def _gate(name: str, *specs: tuple[Version, bool, Stage | None], before: bool = False) -> Gate:
    return Gate(name, tuple(Spec(since, on, stage) for since, on, stage in specs), before)


def V(minor: int, patch: int = 0) -> Version:
    """Every Kueue release so far is 0.x."""
    return Version(0, minor, patch)


A, B, D = Stage.ALPHA, Stage.BETA, Stage.DEPRECATED
GONE = (False, None)   # (default, stage) of a release line's first tags that lack a backported gate

GATES: Mapping[str, Gate] = {g.name: g for g in (
    _gate("PartialAdmission", (V(4), False, A), (V(5), True, B)),
    _gate("FlavorFungibility", (V(5), True, B)),
    _gate("PrioritySortingWithinCohort", (V(6), True, B), before=True),
    _gate("TopologyAwareScheduling", (V(9), False, A), (V(14), True, B)),
    # same entries at every tag v0.12.0 .. v0.19.2 and at main
    _gate("AdmissionFairSharing", (V(12), False, A), (V(15), True, B)),
    _gate("ElasticJobsViaWorkloadSlices", (V(13), False, A), (V(18), True, B)),
    # Topology-aware scheduling (engine/tas). TASProfileMixed: v0.10 alpha, marked deprecated
    # (off) in v0.11 - v0.14, beta and on from v0.15.
    _gate("TASProfileMixed", (V(10), False, A), (V(11), False, D), (V(15), True, B)),
    _gate("TASFailedNodeReplacement", (V(12), False, A), (V(14), True, B)),
    _gate("TASFailedNodeReplacementFailFast", (V(13), False, A), (V(14), True, B)),
    _gate("TASReplaceNodeOnPodTermination", (V(13), False, A), (V(14), True, B)),
    _gate("TASBalancedPlacement", (V(15), False, A)),
    _gate("TASReplaceNodeOnNodeTaints", (V(15, 5), False, A), (V(16), *GONE), (V(16, 2), False, A),
          (V(17), True, B)),
    _gate("TASHandleOverlappingFlavors", (V(16, 9), False, A), (V(17), *GONE), (V(17, 4), False, A),
          (V(18), True, B)),
    _gate("TASMultiLayerTopology", (V(17), False, A), (V(19), True, B)),
    _gate("ElasticJobsViaWorkloadSlicesWithTAS", (V(17), False, A)),
    _gate("TASRecomputeAssignmentWithinSchedulingCycle", (V(17, 6), True, B), (V(18), *GONE),
          (V(18, 2), True, B)),
    _gate("SkipReassignmentForPodOwnedWorkloads", (V(17, 8), False, A), (V(18), *GONE), (V(18, 4), False, A),
          (V(19), True, B)),
    _gate("TASCacheNodeMatchResults", (V(17, 8), True, B), (V(18), *GONE), (V(18, 4), True, B)),
    _gate("TASCachingRemainingResources", (V(17, 8), True, B), (V(18), *GONE), (V(18, 4), True, B)),
    _gate("VectorizedResourceRequests", (V(17, 8), True, B), (V(18), *GONE), (V(18, 4), True, B)),
    _gate("TASRespectNodeAffinityPreferred", (V(18), False, A)),
    _gate("TASCacheTopologyTree", (V(18, 6), False, A), (V(19), *GONE), (V(19, 2), False, A), (V(20), True, B)),
    _gate("SchedulerLibraryIntegration", (V(19), False, A)),
    _gate("TASAssignmentsEncodingByHostnamePrefix", (V(19), True, B)),
    # gated in v0.15, and the gate (on) backported to v0.13.9 and v0.14.4
    _gate("ReclaimablePods", (V(13, 9), True, B), (V(14), *GONE), (V(14, 4), True, B), before=True),
    # v0.17's gates, backported (on) to v0.15.5/v0.15.6 and v0.16.2/v0.16.3
    _gate("FairSharingPreemptWithinNominal", (V(15, 6), True, B), (V(16), *GONE), (V(16, 3), True, B)),
    _gate("FairSharingPrioritizeNonBorrowing", (V(15, 5), True, B), (V(16), *GONE), (V(16, 2), True, B)),
    # backported on to v0.15.6 and v0.16.3, switched off again in the next patch of both lines
    _gate("SchedulingEquivalenceHashing", (V(15, 6), True, B), (V(15, 7), False, B), (V(16), *GONE),
          (V(16, 3), True, B), (V(16, 4), False, B), (V(18), True, B)),
    _gate("PriorityBoost", (V(17), False, A)),
    _gate("FastQuotaReleaseInPodIntegration", (V(17), False, A)),
    # honours Workload spec.preemptionGates (MultiKueue worker clusters); v0.19 on ConcurrentAdmission
    # does too (releases.CONCURRENT_ADMISSION_PREEMPTION_GATES)
    _gate("MultiKueueOrchestratedPreemption", (V(17), False, A)),
    # workload variants per flavor, FlavorMigration (KEP-8691)
    _gate("ConcurrentAdmission", (V(18), False, A)),
    _gate("QuotaCheckStrategy", (V(18), False, A), (V(19), True, B)),
    # "Temporary option while WaitForPodsReady is enabled by default" (v0.19+, kueue/podsready.py)
    _gate("DisableWaitForPodsReady", (V(19), False, A)),
    # every v0.19 tag shipped it off: main turned its "0.19" entry on in place (#13063, not in release-0.19)
    _gate("UnadmittedWorkloadsObservability", (V(18, 5), False, A), (V(19), False, B), (V(20), True, B)),
    _gate("PrioritizePreemptorWorkloads", (V(18, 6), False, A), (V(19), *GONE), (V(19, 2), False, A)),
    _gate("FlavorFungibilityPreserveScanProgress", (V(18, 5), True, B), (V(19), *GONE), (V(19, 1), True, B)),
    _gate("RecomputeAssignmentUponPreemptionTargetsOverlap", (V(18, 5), False, A), (V(19), *GONE),
          (V(19, 1), False, A), (V(20), True, B)),
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
