"""Which Kueue releases carry the three production bugs (kueue-signals.md §0, §H)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ..engine.config import DRS_EXACT
from ..sim.versions import KueueBehaviour


@dataclass(frozen=True)
class KnownBug:
    cause: str
    title: str
    issue: str
    fixed_in: str
    affected: Callable[[KueueBehaviour], bool]


BUGS = (
    KnownBug("slow-preemption-release", "pod-group quota held while preempted pods terminate",
             "kubernetes-sigs/kueue#6143",
             "v0.17.0 with the alpha gate FastQuotaReleaseInPodIntegration=true (PR #8992; off by default)",
             lambda r: not r.fast_pod_release),
    KnownBug("stuck-preemption-target", "a pod stuck terminating keeps its quota and blocks every head targeting it",
             "kubernetes-sigs/kueue#6488, #6757",
             "v0.12.10 / v0.13.5 / v0.14.0 (PR #6872)", lambda r: not r.stuck_pod_fix),
    KnownBug("drs-rounding", "integer DRS rounds borrowing ClusterQueues to 0 in fair-sharing preemption",
             "kubernetes-sigs/kueue#6577",
             "v0.12.8 / v0.13.3 / v0.14.0 (PR #6617); exact shares from v0.13.5 / v0.14.0 (PR #6925)",
             lambda r: r.drs_mode != DRS_EXACT),
)


def bug(cause: str) -> KnownBug:
    return next(b for b in BUGS if b.cause == cause)


def affected(release: Optional[KueueBehaviour], cause: str) -> Optional[bool]:
    """True/False when the release is known, None when it is not."""
    if release is None:
        return None
    return bug(cause).affected(release)


def release_notes(release: Optional[KueueBehaviour], fair_sharing: bool) -> list[str]:
    if release is None:
        return ["Kueue version unknown (no kueue-controller-manager Deployment in the snapshot): "
                "release-specific bugs cannot be ruled in or out."]
    notes = []
    for b in BUGS:
        if b.cause == "drs-rounding" and not fair_sharing:
            continue
        if b.affected(release):
            notes.append(f"Kueue {release.label} carries the bug '{b.title}' ({b.issue}); fixed in {b.fixed_in}.")
    return notes
