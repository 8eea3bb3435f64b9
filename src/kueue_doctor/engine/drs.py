"""Dominant Resource Share (fair sharing).

Upstream: pkg/cache/scheduler/fair_sharing.go (dominantResourceShare, DRS, CompareDRS).
The legacy integer arithmetic of Bug 3 (kueue-semantics.md §4.6) is kept as named modes.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..kueue.releases import DrsMode
from .quota import FR, QuotaNode

MAX_INT64 = 2**63 - 1


@dataclass(slots=True)
class DRS:
    ratio: float = 0.0            # unweighted, per mille of what the parent could lend
    weight: float = 1.0
    borrowing: bool = False
    dominant: str = ""
    borrowed: frozenset[FR] = field(default_factory=frozenset)   # the frs above subtree quota
    legacy: int | None = None  # the integer share of a pre-fix release, when modelled

    def zero_weight_borrows(self) -> bool:
        return self.weight == 0 and self.ratio != 0

    def precise(self) -> float:
        if self.ratio == 0:
            return 0.0
        if self.weight == 0:
            return math.inf
        return self.ratio / self.weight

    def is_zero(self) -> bool:
        if self.legacy is not None:
            return self.legacy == 0
        return self.ratio == 0

    def is_borrowing_on(self, requested: Iterable[FR]) -> bool:
        return any(fr in self.borrowed for fr in requested)

    def rounded(self) -> int:
        """status.fairSharing.weightedShare: ceil, +Inf as MaxInt64."""
        if self.legacy is not None:
            return self.legacy
        p = self.precise()
        if math.isinf(p):
            return MAX_INT64
        return math.ceil(p)


NEGATIVE_DRS = DRS(ratio=-1.0, weight=1.0)


def compare_drs(a: DRS, b: DRS) -> int:
    if a.legacy is not None and b.legacy is not None:
        return (a.legacy > b.legacy) - (a.legacy < b.legacy)
    az, bz = a.zero_weight_borrows(), b.zero_weight_borrows()
    if az and bz:
        return (a.ratio > b.ratio) - (a.ratio < b.ratio)
    if az:
        return 1
    if bz:
        return -1
    pa, pb = a.precise(), b.precise()
    return (pa > pb) - (pa < pb)


def dominant_resource_share(node: QuotaNode, wl_req: dict[FR, int] | None = None,
                            mode: DrsMode = DrsMode.EXACT) -> DRS:
    if node.parent is None:
        return DRS(weight=node.weight, legacy=0 if mode != DrsMode.EXACT else None)
    wl_req = wl_req or {}
    borrowed: dict[str, int] = {}
    borrowed_frs = set()
    for fr, quota in node.subtree.items():
        b = wl_req.get(fr, 0) + node.usage.get(fr, 0) - quota
        if b > 0:
            borrowed[fr[1]] = borrowed.get(fr[1], 0) + b
            borrowed_frs.add(fr)
    if not borrowed:
        return DRS(weight=node.weight, legacy=0 if mode != DrsMode.EXACT else None)
    parent = node.parent
    root = node.root()
    lendable: dict[str, int] = {}
    for fr in root.subtree:
        if fr[1] in borrowed:
            lendable[fr[1]] = lendable.get(fr[1], 0) + parent.potential_available(fr)
    ratio, dominant = 0.0, ""
    int_ratio = -1
    for res in sorted(borrowed):
        lend = lendable.get(res, 0)
        if lend <= 0:
            continue
        r = borrowed[res] * 1000.0 / lend
        if r > ratio:
            ratio, dominant = r, res
        int_ratio = max(int_ratio, borrowed[res] * 1000 // lend)
    drs = DRS(ratio=ratio, weight=node.weight, borrowing=True, dominant=dominant if ratio else "",
              borrowed=frozenset(borrowed_frs))
    if mode != DrsMode.EXACT:
        drs.legacy = legacy_share(int_ratio, node.weight, mode)
    return drs


def legacy_share(int_ratio: int, weight: float, mode: DrsMode) -> int:
    """The integer weighted share of releases before #6925 (and before #6617 for floor)."""
    weight_milli = round(weight * 1000)
    if weight_milli == 0:
        value = MAX_INT64
    else:
        value = int_ratio * 1000 // weight_milli if int_ratio >= 0 else -1
    if mode == DrsMode.INTEGER_MAX1:
        value = max(1, value)
    elif mode == DrsMode.INTEGER_FLOOR:
        pass
    return value
