"""How a given Kueue release behaves: its gates, and which fixes it carries.

A fix reaches a release either as a patch on an older line (a cherry-pick) or because the
release is at or past the first minor release made after it merged. Facts:
shared/reference/kueue-signals.md §0 and §A.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from .features import effective
from .podsready import ON_BY_DEFAULT as PODS_READY_ON_BY_DEFAULT
from .version import LATEST, Version, parse_version


class DrsMode(StrEnum):
    """The dominant-resource-share arithmetic of a release (Bug 3, kueue-semantics.md §4.6).

    The values are written to JSON output, so they must not change.
    """

    EXACT = "exact"                  # float shares compared with CompareDRS (#6925)
    INTEGER_MAX1 = "integer-max1"    # integer floor, at least 1 while borrowing (#6617 only)
    INTEGER_FLOOR = "integer-floor"  # integer floor: a borrowing queue can score 0




@dataclass(frozen=True, slots=True)
class Fix:
    pr: int
    first: Version                       # the first minor release made after the merge
    backports: tuple[Version, ...] = ()  # patch releases of older lines that picked it up

    @property
    def releases(self) -> tuple[Version, ...]:
        return (*sorted(self.backports), self.first)

    def carried_by(self, version: Version) -> bool:
        if version >= self.first:
            return True
        return any(version.line == b.line and version >= b for b in self.backports)

    @property
    def text(self) -> str:
        return " / ".join(v.label for v in self.releases) + f" (PR #{self.pr})"


# Bug 3: "Fix fairsharing reclamation bug": a borrowing queue's share is at least 1.
MIN_ONE_SHARE_FIX = Fix(6617, Version(0, 14), (Version(0, 12, 8), Version(0, 13, 3)))
# Bug 3: "[Fair Sharing] Fix Rounding Bug": exact shares.
EXACT_SHARE_FIX = Fix(6925, Version(0, 14), (Version(0, 13, 5),))
# Bug 2: pods stuck terminating past their grace period no longer count as active.
STUCK_POD_FIX = Fix(6872, Version(0, 14), (Version(0, 12, 10), Version(0, 13, 5)))
# "[BestEffortFIFO] Implement Sticky ClusterQueue Head Policy" (#7197, #7202 backport it).
STICKY_HEAD_FIX = Fix(7157, Version(0, 15), (Version(0, 13, 6), Version(0, 14, 1)))
# "Add preemptionGates support to ConcurrentAdmission": from v0.19.0 the scheduler honours a
# Workload's closed preemption gates with ConcurrentAdmission on, not only with
# MultiKueueOrchestratedPreemption (v0.17, v0.18).
CONCURRENT_ADMISSION_PREEMPTION_GATES = Fix(11872, Version(0, 19))
# "Don't prefer a flavor with no preemption candidates over one that fits" (#13616, fixing #13607;
# cherry-picked as #13903 to release-0.18 and #13896 to release-0.19): with
# flavorFungibility.preference PreemptionOverBorrowing, isPreferred compared the borrowing level
# before the preemption mode, so a flavor with no candidates could outrank a later one that fits.
NO_CANDIDATES_RANKED_LAST_FIX = Fix(13616, Version(0, 20), (Version(0, 18, 5), Version(0, 19, 1)))


@dataclass(frozen=True, slots=True)
class KueueRelease:
    version: Version
    gates: dict[str, bool]            # every listed gate as this release runs it
    # Bug 1: a pod group's quota is released when no pod is Running (False), or as soon as every
    # pod is marked for deletion (FastQuotaReleaseInPodIntegration).
    fast_pod_release: bool
    # Bug 2: a pod past deletionTimestamp + grace no longer counts as active.
    stuck_pod_fix: bool
    drs_mode: DrsMode
    # BestEffortFIFO keeps a preemptor waiting for its victims at the head of its queue.
    sticky_preemptor: bool
    # ConcurrentAdmission alone makes the scheduler honour preemption gates (v0.19+)
    concurrent_admission_preemption_gates: bool = True
    # PreemptionOverBorrowing ranks a flavor without preemption candidates below every viable one
    # (#13616); before, by borrowing level first (#13607: a workload pending while a flavor fits)
    no_candidates_ranked_last: bool = True
    # WaitForPodsReady is on without a waitForPodsReady block (config v1beta2, v0.19+, 30 min
    # timeout) unless DisableWaitForPodsReady is set; kueue.podsready.resolve has the details.
    pods_ready_by_default: bool = False
    # Kueue writes the KEP-10852 QuotaReserved=False / Admitted=False reasons
    # (NoMatchingFlavor, WaitingForQuota, ...; UnsatisfiedAdmissionChecks) instead of Pending.
    granular_pending_reasons: bool = False

    @property
    def label(self) -> str:
        return self.version.label


def drs_mode(version: Version) -> DrsMode:
    if EXACT_SHARE_FIX.carried_by(version):
        return DrsMode.EXACT
    if MIN_ONE_SHARE_FIX.carried_by(version):
        return DrsMode.INTEGER_MAX1
    return DrsMode.INTEGER_FLOOR


def release_for(version: str | None, gates: Mapping[str, bool] | None = None) -> KueueRelease:
    """The release tagged ``version`` (the latest when None) run with the ``gates`` overrides.

    Raises InputError when ``version`` is not a release number.
    """
    v = parse_version(version) if version else LATEST
    effective_gates = effective(v, gates)
    return KueueRelease(
        version=v, gates=effective_gates,
        fast_pod_release=effective_gates["FastQuotaReleaseInPodIntegration"],
        stuck_pod_fix=STUCK_POD_FIX.carried_by(v),
        drs_mode=drs_mode(v),
        sticky_preemptor=STICKY_HEAD_FIX.carried_by(v),
        concurrent_admission_preemption_gates=CONCURRENT_ADMISSION_PREEMPTION_GATES.carried_by(v),
        no_candidates_ranked_last=NO_CANDIDATES_RANKED_LAST_FIX.carried_by(v),
        pods_ready_by_default=v >= PODS_READY_ON_BY_DEFAULT
        and not effective_gates.get("DisableWaitForPodsReady", False),
        granular_pending_reasons=effective_gates.get("UnadmittedWorkloadsObservability", False),
    )
