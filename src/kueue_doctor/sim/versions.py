"""Which Kueue release behaves how, for the three production failures.

Release facts: shared/reference/kueue-signals.md §0 and §A (fix PRs and the releases carrying them).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..engine.config import DRS_EXACT, DRS_INTEGER_MAX1, DRS_INTEGER_PRE_6617
from ..errors import InputError

LATEST = (0, 20, 0)


def parse_version(text: str) -> tuple[int, int, int]:
    m = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:[-+].*)?", str(text).strip())
    if not m:
        raise InputError(f"not a Kueue version: {text!r} (expected e.g. 0.13.2)", field="kueue.version")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def _fixed_in(v: tuple[int, int, int], lines: dict[tuple[int, int], int], first_all: tuple[int, int, int]) -> bool:
    """True when ``v`` carries a fix released as patch ``lines[(major, minor)]`` of older lines,
    and in every release from ``first_all`` on."""
    if v >= first_all:
        return True
    patch = lines.get(v[:2])
    return patch is not None and v[2] >= patch


@dataclass
class KueueBehaviour:
    version: tuple[int, int, int] = LATEST
    gates: dict[str, bool] = field(default_factory=dict)
    # Bug 1: pod-group quota is released when no pod is Running (False), or as soon as every
    # pod is marked for deletion (FastQuotaReleaseInPodIntegration, v0.17+, alpha, off by default).
    fast_pod_release: bool = False
    # Bug 2: a pod past deletionTimestamp + grace no longer counts as active (#6872).
    stuck_pod_fix: bool = True
    # Bug 3: DRS arithmetic (#6617, #6925).
    drs_mode: str = DRS_EXACT
    sticky_preemptor: bool = True

    @property
    def label(self) -> str:
        return "v%d.%d.%d" % self.version


def behaviour(version: str | None, gates: dict[str, bool] | None = None) -> KueueBehaviour:
    v = parse_version(version) if version else LATEST
    gates = dict(gates or {})
    defaults = {
        "RecomputeAssignmentUponPreemptionTargetsOverlap": v >= (0, 20, 0),
        "FlavorFungibilityPreserveScanProgress": v >= (0, 20, 0),
        "FairSharingPreemptWithinNominal": v >= (0, 17, 0),
        "FairSharingPrioritizeNonBorrowing": v >= (0, 17, 0),
        "SchedulingEquivalenceHashing": v >= (0, 18, 0),
        "UnadmittedWorkloadsObservability": v >= (0, 19, 0),
        "FastQuotaReleaseInPodIntegration": False,
    }
    effective = {**defaults, **gates}
    if v < (0, 17, 0):
        effective["FastQuotaReleaseInPodIntegration"] = False  # the gate does not exist before v0.17
    if _fixed_in(v, {(0, 13): 5}, (0, 14, 0)):
        drs = DRS_EXACT
    elif _fixed_in(v, {(0, 12): 8, (0, 13): 3}, (0, 14, 0)):
        drs = DRS_INTEGER_MAX1
    else:
        drs = DRS_INTEGER_PRE_6617
    return KueueBehaviour(
        version=v, gates=effective,
        fast_pod_release=effective["FastQuotaReleaseInPodIntegration"],
        stuck_pod_fix=_fixed_in(v, {(0, 12): 10, (0, 13): 5}, (0, 14, 0)),
        drs_mode=drs,
        sticky_preemptor=_fixed_in(v, {(0, 13): 6, (0, 14): 1}, (0, 15, 0)),
    )
