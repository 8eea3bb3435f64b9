"""TASBalancedPlacement: spread a preferred pod set evenly over the fewest domains
(upstream pkg/cache/scheduler/tas_balanced_placement.go).

The placement picks, among the sibling groups of the requested level, the one where a greedy
fill gives the highest per-domain threshold (slices every chosen domain takes at least), prunes
domains below it, then chooses the smallest domain set that fits and spreads the slices over it.
It works on copies of the domains; any failure falls back to BestFit.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from . import messages as m
from .placement import fill_in_counts_helper
from .snapshot import Domain

if TYPE_CHECKING:
    from .placement import Params, Placer


def evaluate_greedy(pl: Placer, domains: list[Domain], slice_count: int,
                    leader_count: int) -> tuple[bool, int, Domain | None, Domain | None]:
    selected = 0
    last: Domain | None = None
    last_wl: Domain | None = None
    remaining_slices, remaining_leaders = slice_count, leader_count
    if leader_count > 0:
        with_leader = pl.sorted_with_leader(domains, False)
        idx = 0
        while remaining_leaders > 0 and idx < len(with_leader) and with_leader[idx].leader_count > 0:
            selected += 1
            last_wl = with_leader[idx]
            remaining_leaders -= with_leader[idx].leader_count
            remaining_slices -= with_leader[idx].slice_count_wl
            idx += 1
        without = pl.sorted_domains(with_leader[idx:], False)
    else:
        without = pl.sorted_domains(domains, False)
    if remaining_leaders > 0:
        return False, 0, None, None
    idx = 0
    while remaining_slices > 0 and idx < len(without) and without[idx].slice_count > 0:
        selected += 1
        last = without[idx]
        remaining_slices -= without[idx].slice_count
        idx += 1
    if remaining_slices > 0:
        return False, 0, None, None
    return True, selected, last_wl, last


def threshold_value(slice_count: int, selected: int, last_wl: Domain | None, last: Domain | None) -> int:
    t = slice_count // selected
    if last_wl is not None:
        t = min(t, last_wl.slice_count_wl)
    if last is not None:
        t = min(t, last.slice_count)
    return t


def entropy(domains: list[Domain]) -> float:
    total = sum(d.pod_count for d in domains)
    if total == 0:
        return 0.0
    e = 0.0
    for d in domains:
        if d.pod_count > 0:
            pi = d.pod_count / total
            e += -pi * math.log2(pi)
    return e


def select_optimal_domain_set(pl: Placer, domains: list[Domain], slice_count: int, leader_count: int,
                              slice_size: int, by_entropy: bool) -> list[Domain] | None:
    fits, optimal, _, _ = evaluate_greedy(pl, domains, slice_count, leader_count)
    if not fits:
        return None
    if by_entropy:
        ordered = sorted(domains, key=lambda d: (-d.leader_count, -d.slice_count_wl, -entropy(d.children), d.values))
    else:
        ordered = sorted(domains, key=lambda d: d.values)
    # placements[i][leaders left][pods left] = the first i-domain set reaching that state
    placements: list[dict[int, dict[int, list[Domain]]]] = [{} for _ in range(optimal + 1)]
    placements[0][leader_count] = {slice_count * slice_size: []}
    for d in ordered:
        for i in range(optimal, 0, -1):
            prev = placements[i - 1]
            for before_leader in sorted(prev):
                for before_pods in sorted(prev[before_leader]):
                    chosen = prev[before_leader][before_pods]
                    if before_leader <= 0 and before_pods <= 0:
                        continue
                    new = [*chosen, d]
                    if before_leader > 0 and d.leader_count > 0:
                        after_l = before_leader - d.leader_count
                        after_p = before_pods - d.pod_count_wl
                        placements[i].setdefault(after_l, {}).setdefault(after_p, new)
                    if d.slice_count > 0:
                        after_p = before_pods - d.pod_count
                        placements[i].setdefault(before_leader, {}).setdefault(after_p, new)
    best_leader = placements[optimal].get(0, {})
    best_left: int | None = None
    best: list[Domain] | None = None
    for left in sorted(best_leader):
        if left <= 0 and (best_left is None or left > best_left):
            best_left, best = left, best_leader[left]
    return best


def place_slices_balanced(pl: Placer, domains: list[Domain], slice_count: int, leader_count: int,
                          slice_size: int, threshold: int) -> tuple[list[Domain], str]:
    chosen = select_optimal_domain_set(pl, domains, slice_count, leader_count, slice_size, False)
    if chosen is None:
        return [], m.BALANCED_NO_OPTIMAL_SET
    if slice_count < len(chosen) * threshold:
        return [], m.BALANCED_BELOW_THRESHOLD
    chosen = pl.sorted_with_leader(chosen, False)
    extra_left = slice_count - len(chosen) * threshold
    leaders_left = leader_count
    for d in chosen:
        if leaders_left > 0:
            take = min(d.slice_count_wl - threshold, extra_left)
            d.leader_count = 1
            leaders_left -= 1
        elif extra_left > 0:
            take = min(d.slice_count - threshold, extra_left)
            d.leader_count = 0
        else:
            d.leader_count = 0
            take = 0
        d.pod_count = (threshold + take) * slice_size
        d.slice_count = threshold + take
        d.slice_count_wl = d.slice_count
        d.pod_count_wl = d.pod_count - d.leader_count
        extra_left -= take
    if extra_left > 0 or leaders_left > 0:
        return [], m.BALANCED_NOT_ALL_PLACED
    return chosen, ""


def clear_state(d: Domain) -> None:
    aff = d.affinity
    d.reset()
    d.affinity = aff
    for c in d.children:
        clear_state(c)


def clear_leader_capacity(d: Domain) -> None:
    d.pod_count_wl = d.slice_count_wl = d.leader_count = 0
    for c in d.children:
        clear_leader_capacity(c)


def prune_node(d: Domain, threshold: int, leader_required: bool) -> None:
    if d.slice_count < threshold:
        clear_state(d)
        return
    if leader_required and d.leader_count > 0 and d.slice_count_wl < threshold:
        clear_leader_capacity(d)


def prune_below_threshold(domains: list[Domain], threshold: int, slice_size: int, slice_level: int,
                          level: int, leader_required: bool) -> None:
    for d in domains:
        for c in d.children:
            prune_node(c, threshold, leader_required)
    for d in domains:
        fill_in_counts_helper(d, slice_size, slice_level, level, None, leader_required)
        prune_node(d, threshold, leader_required)


def lower_if_above_slice(domains: list[Domain], level: int, slice_level: int) -> list[Domain]:
    return [c for d in domains for c in d.children] if level < slice_level else domains


def find_best_domains_for_balanced_placement(pl: Placer, p: Params) -> tuple[list[Domain], int]:
    s = pl.s
    slice_count = p.count // p.slice_size
    if p.requested_level == 0:
        groups = [sorted(s.per_level[0].values(), key=lambda d: d.values)]
    else:
        higher = sorted(s.per_level[p.requested_level - 1].values(), key=lambda d: d.values)
        groups = [h.children for h in higher]
    best_threshold = 0
    best_count = 0
    fit: list[Domain] = []
    for siblings in groups:
        cands = [d.clone() for d in siblings]
        lower = lower_if_above_slice(cands, p.requested_level, p.slice_level)
        fits, selected, last_wl, last = evaluate_greedy(pl, lower, slice_count, p.leader_count)
        if not fits:
            continue
        threshold = threshold_value(slice_count, selected, last_wl, last)
        with_reservation = threshold
        if p.leader_count > 0 and last is not None:
            with_reservation = min(threshold, last.slice_count_wl)
        if threshold < best_threshold:
            continue
        prune_below_threshold(cands, threshold, p.slice_size, p.slice_level, p.requested_level, p.leader_count > 0)
        fits_after, count_after, _, _ = evaluate_greedy(pl, cands, slice_count, p.leader_count)
        if not fits_after and with_reservation < threshold:
            if with_reservation <= 0 or with_reservation < best_threshold:
                continue
            threshold = with_reservation
            cands = [d.clone() for d in siblings]
            prune_below_threshold(cands, threshold, p.slice_size, p.slice_level, p.requested_level,
                                  p.leader_count > 0)
            fits_after, count_after, _, _ = evaluate_greedy(pl, cands, slice_count, p.leader_count)
        if not fits_after:
            continue
        if threshold > best_threshold or (threshold == best_threshold and count_after < best_count):
            best_threshold, best_count, fit = threshold, count_after, cands
    return fit, best_threshold


def apply_balanced_placement(pl: Placer, p: Params, threshold: int,
                             fit: list[Domain]) -> tuple[list[Domain], int, str]:
    slice_count = p.count // p.slice_size
    if p.requested_level < p.slice_level:
        chosen = select_optimal_domain_set(pl, fit, slice_count, p.leader_count, p.slice_size, True)
        if chosen is None:
            return [], 0, m.BALANCED_NO_OPTIMAL_SET
        fit = [c for d in chosen for c in d.children]
        fit_level = p.requested_level + 1
    else:
        fit_level = p.requested_level
    placed, reason = place_slices_balanced(pl, fit, slice_count, p.leader_count, p.slice_size, threshold)
    if reason:
        return [], 0, reason
    return placed, fit_level, ""
