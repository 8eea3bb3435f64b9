"""The result of flavor assignment: per pod set, per resource, a flavor and a mode.

Upstream: pkg/scheduler/flavorassigner/flavorassigner.go (Assignment, PodSetAssignment,
FlavorAssignmentMode, granularMode, isPreferred), flavor_assigner_attempts.go.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from .quota import FR


class Mode(IntEnum):
    """Public modes, worst first (FlavorAssignmentMode); str() is Kueue's spelling."""
    NO_FIT = 0
    PREEMPT = 1
    DEFERRED_FIT = 2
    FIT = 3

    def __str__(self) -> str:
        return MODE_NAMES[self]


class PreemptionMode(IntEnum):
    """Internal preemption modes, worst first (preemptionMode)."""
    NO_FIT = 0
    NO_CANDIDATES = 1
    PREEMPT = 2
    RECLAIM = 3
    FIT = 4


class Possibility(IntEnum):
    """Results of a preemption simulation (PreemptionPossibility)."""
    NO_CANDIDATES = 0
    CAN_PREEMPT = 1
    CAN_RECLAIM = 2

    def __str__(self) -> str:
        return POSSIBILITY_NAMES[self]


NO_FIT, PREEMPT, DEFERRED_FIT, FIT = Mode.NO_FIT, Mode.PREEMPT, Mode.DEFERRED_FIT, Mode.FIT
MODE_NAMES: dict[int, str] = {NO_FIT: "NoFit", PREEMPT: "Preempt", DEFERRED_FIT: "DeferredFit", FIT: "Fit"}
MODE_BY_NAME: dict[str, int] = {v: k for k, v in MODE_NAMES.items()}

P_NO_FIT, P_NO_CANDIDATES, P_PREEMPT, P_RECLAIM, P_FIT = PreemptionMode
PUBLIC_MODE: dict[int, Mode] = {P_NO_FIT: NO_FIT, P_NO_CANDIDATES: PREEMPT, P_PREEMPT: PREEMPT, P_RECLAIM: PREEMPT,
                               P_FIT: FIT}

NO_CANDIDATES, CAN_PREEMPT, CAN_RECLAIM = Possibility
POSSIBILITY_NAMES: dict[int, str] = {NO_CANDIDATES: "NoCandidates", CAN_PREEMPT: "Preempt", CAN_RECLAIM: "Reclaim"}
POSSIBILITY_BY_NAME: dict[str, int] = {v: k for k, v in POSSIBILITY_NAMES.items()}
POSSIBILITY_TO_MODE: dict[int, PreemptionMode] = {NO_CANDIDATES: P_NO_CANDIDATES, CAN_PREEMPT: P_PREEMPT,
                                                  CAN_RECLAIM: P_RECLAIM}
MODE_TO_POSSIBILITY: dict[int, Possibility] = {P_NO_CANDIDATES: NO_CANDIDATES, P_PREEMPT: CAN_PREEMPT,
                                               P_RECLAIM: CAN_RECLAIM}

# QuotaReserved=False reasons, by severity (resolveNoFitReason).
NO_MATCHING_FLAVOR = "NoMatchingFlavor"
EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
WAITING_FOR_QUOTA = "WaitingForQuota"
TOPOLOGY_PLACEMENT_FAILED = "TopologyPlacementFailed"
SEVERITY = {"": 0, TOPOLOGY_PLACEMENT_FAILED: 1, WAITING_FOR_QUOTA: 2, EXCEEDS_MAX_QUOTA: 3, NO_MATCHING_FLAVOR: 4}

INF_BORROW = 1 << 62


def most_severe(a: str, b: str) -> str:
    return a if SEVERITY.get(a, 0) >= SEVERITY.get(b, 0) else b


@dataclass(slots=True, frozen=True)
class GranularMode:
    mode: int        # internal preemption mode
    borrow: int      # borrowing level: 0 = within the ClusterQueue's nominal quota


WORST = GranularMode(P_NO_FIT, INF_BORROW)
BEST = GranularMode(P_FIT, 0)


def is_preferred(a: GranularMode, b: GranularMode, preference: str | None, no_candidates_last: bool = True) -> bool:
    """Is ``a`` a better outcome than ``b`` for the ClusterQueue's fungibility preference?

    ``no_candidates_last`` False: a release before #13616, where PreemptionOverBorrowing let a
    flavor without preemption candidates win on a shallower borrowing level (#13607)."""
    if a.mode == P_NO_FIT:
        return False
    if b.mode == P_NO_FIT:
        return True
    a_none, b_none = a.mode == P_NO_CANDIDATES, b.mode == P_NO_CANDIDATES
    if a_none != b_none and no_candidates_last:
        return not a_none
    if preference == "PreemptionOverBorrowing":
        if a.borrow != b.borrow:
            return a.borrow < b.borrow
        return a.mode > b.mode
    if a.mode != b.mode:
        return a.mode > b.mode
    return a.borrow < b.borrow


@dataclass(slots=True)
class FlavorChoice:
    name: str
    mode: int           # public mode
    tried_idx: int = -1
    borrow: int = 0


@dataclass(slots=True)
class Attempt:
    flavor: str
    mode: int
    borrow: int = 0
    possibility: int | None = None
    reasons: list[str] = field(default_factory=list)
    no_fit_reason: str = ""


@dataclass(slots=True)
class PodSetAssignment:
    name: str
    count: int
    requests: dict[str, int]
    flavors: dict[str, FlavorChoice] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    error: str = ""
    attempts: list[Attempt] = field(default_factory=list)
    status_no_fit_reason: str = ""

    def is_fit(self) -> bool:
        return not self.error and not self.reasons

    def representative_mode(self) -> int:
        if self.is_fit():
            return FIT
        if self.error or not self.flavors:
            return NO_FIT
        return min(f.mode for f in self.flavors.values())

    def message(self) -> str:
        return self.error or ", ".join(sorted(self.reasons))


@dataclass
class Assignment:
    pod_sets: list[PodSetAssignment] = field(default_factory=list)
    borrowing: int = 0
    usage: dict[FR, int] = field(default_factory=dict)
    no_fit_reason: str = ""
    forced_mode: int | None = None
    last_tried: list[dict[str, int]] = field(default_factory=list)

    def representative_mode(self) -> int:
        if not self.pod_sets:
            return NO_FIT
        if self.forced_mode is not None:
            return self.forced_mode
        return min(ps.representative_mode() for ps in self.pod_sets)

    def borrows(self) -> int:
        return self.borrowing

    def message(self) -> str:
        parts = []
        for ps in self.pod_sets:
            if ps.is_fit():
                continue
            if ps.error:
                return f"failed to assign flavors to pod set {ps.name}: {ps.error}"
            parts.append(f"couldn't assign flavors to pod set {ps.name}: {ps.message()}")
        return "; ".join(parts)

    def pending_flavors(self) -> bool:
        """Some resource still has flavors the search has not tried (LastTriedFlavorIdx != -1)."""
        return any(idx != -1 for m in self.last_tried for idx in m.values())

    def frs_needing_preemption(self) -> set[FR]:
        return {(f.name, res) for ps in self.pod_sets for res, f in ps.flavors.items() if f.mode == PREEMPT}

    def flavor_of(self, pod_set: str, resource: str) -> str | None:
        for ps in self.pod_sets:
            if ps.name == pod_set and resource in ps.flavors:
                return ps.flavors[resource].name
        return None

    def resolve_no_fit_reason(self, flavor_groups: list[list[str]]) -> None:
        """The overall QuotaReserved=False reason of a NoFit assignment (resolveNoFitReason)."""
        if self.representative_mode() != NO_FIT:
            return
        overall = ""
        for ps in self.pod_sets:
            if ps.representative_mode() != NO_FIT:
                continue
            if not ps.attempts:
                overall = most_severe(overall, NO_MATCHING_FLAVOR)
                continue
            per_group: dict[int, str] = {}
            for i, att in enumerate(ps.attempts):
                if att.mode != NO_FIT:
                    continue
                idxs = [g for g, flavors in enumerate(flavor_groups) if att.flavor in flavors] or [-1 - i]
                for g in idxs:
                    if g not in per_group or SEVERITY.get(att.no_fit_reason, 0) < SEVERITY.get(per_group[g], 0):
                        per_group[g] = att.no_fit_reason
            reason = ps.status_no_fit_reason
            for r in per_group.values():
                reason = most_severe(reason, r)
            overall = most_severe(overall, reason)
        self.no_fit_reason = overall
