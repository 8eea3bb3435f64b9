"""The three production bugs: their upstream issues, the releases that fix them, and whether a
given release carries them (kueue-signals.md §0, §H)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .features import GATES
from .releases import (
    EXACT_SHARE_FIX,
    MIN_ONE_SHARE_FIX,
    NO_CANDIDATES_RANKED_LAST_FIX,
    STUCK_POD_FIX,
    DrsMode,
    KueueRelease,
)
from .version import LATEST, Version

# flavorFungibility.preference (PreemptionOverBorrowing) is API from v0.15.0 (#7316)
PREFERENCE_API = Version(0, 15)

ISSUES = "kubernetes-sigs/kueue"


@dataclass(frozen=True, slots=True)
class KnownBug:
    cause: str                    # the cause id the doctor and the log scanner report
    title: str
    issues: tuple[int, ...]       # upstream issue numbers, the main one first
    fixed_in: str
    affected: Callable[[KueueRelease], bool]
    gate: str | None = None       # the fix ships behind this feature gate (off by default)

    @property
    def issue(self) -> str:
        return f"{ISSUES}#" + ", #".join(str(n) for n in self.issues)


def _gated_fix(gate: str, pr: int) -> str:
    """A fix that ships behind a gate: the first release with the gate and how to turn it on."""
    g = GATES[gate]
    default = "on" if g.default(LATEST) else "off"
    first = g.specs[0].stage
    assert first is not None, gate   # Gate refuses a table that starts with a "missing" marker
    stage = first.lower()
    return f"{g.introduced.label} with the {stage} gate {gate}=true (PR #{pr}; {default} by default)"


BUGS: tuple[KnownBug, ...] = (
    KnownBug("slow-preemption-release", "pod-group quota held while preempted pods terminate", (6143,),
             _gated_fix("FastQuotaReleaseInPodIntegration", 8992),
             lambda r: not r.fast_pod_release, gate="FastQuotaReleaseInPodIntegration"),
    KnownBug("stuck-preemption-target",
             "a pod stuck terminating keeps its quota and blocks every head targeting it", (6488, 6757),
             STUCK_POD_FIX.text, lambda r: not r.stuck_pod_fix),
    KnownBug("drs-rounding", "integer DRS rounds borrowing ClusterQueues to 0 in fair-sharing preemption",
             (6577,), f"{MIN_ONE_SHARE_FIX.text}; exact shares from {EXACT_SHARE_FIX.text}",
             lambda r: r.drs_mode != DrsMode.EXACT),
    KnownBug("no-candidates-flavor-preferred",
             "PreemptionOverBorrowing prefers a flavor without preemption candidates over one that fits",
             (13607,), NO_CANDIDATES_RANKED_LAST_FIX.text,
             lambda r: r.version >= PREFERENCE_API and not r.no_candidates_ranked_last),
)

_BY_CAUSE = {b.cause: b for b in BUGS}


def bug(cause: str) -> KnownBug:
    """Raises KeyError for a cause that is not one of the known bugs."""
    return _BY_CAUSE[cause]


def affected(release: KueueRelease | None, cause: str) -> bool | None:
    """True/False when the release is known, None when it is not."""
    if release is None:
        return None
    return bug(cause).affected(release)


def release_notes(release: KueueRelease | None, fair_sharing: bool,
                  preemption_over_borrowing: bool = False) -> list[str]:
    """``preemption_over_borrowing``: some ClusterQueue sets flavorFungibility.preference
    PreemptionOverBorrowing, the only setting where #13607 bites."""
    if release is None:
        return [("Kueue version unknown (no kueue-controller-manager Deployment in the snapshot): "
                 "release-specific bugs cannot be ruled in or out.")]
    notes = []
    for b in BUGS:
        if b.cause == "drs-rounding" and not fair_sharing:
            continue   # DRS is only computed under fair sharing: the bug cannot bite
        if b.cause == "no-candidates-flavor-preferred" and not preemption_over_borrowing:
            continue
        if not b.affected(release):
            continue
        if b.gate and release.version >= GATES[b.gate].introduced:
            # the release has the fix but runs with its gate off: "fixed in <older>" would read
            # as a contradiction
            g = GATES[b.gate]
            notes.append(f"Kueue {release.label} has the fix for '{b.title}' ({b.issue}) but runs with it off: "
                         f"turn on the feature gate {b.gate}=true ({g.specs[0].stage or ''} since "
                         f"{g.introduced.label}, off by default).")
        else:
            notes.append(f"Kueue {release.label} carries the bug '{b.title}' ({b.issue}); "
                         f"fixed in {b.fixed_in}.")
    return notes
