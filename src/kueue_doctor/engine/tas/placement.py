"""TAS placement of pod sets on one flavor's topology (upstream
``TASFlavorSnapshot.FindTopologyAssignmentsForFlavor`` and ``findTopologyAssignment``).

Phase 1 (``fill_in_counts``): how many pods (and slices, and pods once a leader is placed) each
leaf can take, rolled up the tree. Phase 2: the level and domains that hold the request
(``find_level_with_fit_domains``: BestFit, or LeastFreeCapacity for unconstrained requests with
TASProfileMixed; TASBalancedPlacement for preferred ones), then down level by level keeping as
few domains as possible (``update_counts_to_minimum``), and the assignment of the lowest level.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ...api import objects as o
from ..eligibility import requirement_matches, untolerated_taint
from . import messages as m
from .requests import INT32_MAX, GateFn, Resources, TASPodSetRequest, add, count_in, scaled, sub, with_one_pod
from .snapshot import Domain, Leaf, TASFlavorSnapshot, belongs_to, domain_id

NODE_NAME_FIELD = "metadata.name"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


@dataclass
class PodSetResult:
    """One pod set's outcome: an assignment, or Kueue's failure reason ('' when placed)."""
    assignment: o.TopologyAssignment | None = None
    failure_reason: str = ""


@dataclass
class Params:
    count: int
    slice_size: int = 1
    leader_count: int = 0
    requested_level: int = 0
    slice_level: int = 0
    required: bool = False
    unconstrained: bool = False
    slice_size_at_level: dict[int, int] = field(default_factory=dict)
    multi_layer: list[o.SliceConstraint] = field(default_factory=list)
    stats: m.ExclusionStats = field(default_factory=m.ExclusionStats)


AssumedUsage = dict[str, Resources]


# -- the request's shape --------------------------------------------------------------------------

def constraints(tr: o.TopologyRequest | None) -> list[o.SliceConstraint]:
    return tr.constraints() if tr is not None else []


def slice_only(tr: o.TopologyRequest | None) -> bool:
    return tr is not None and tr.required is None and tr.preferred is None and bool(tr.constraints())


def is_unconstrained(req: TASPodSetRequest) -> bool:
    tr = req.topology
    return bool(tr is not None and tr.unconstrained) or req.implied or slice_only(tr)


def slice_size_or_one(tr: o.TopologyRequest | None) -> tuple[int, str]:
    cs = constraints(tr)
    if not cs:
        return 1, ""
    if cs[0].size <= 0:
        return 0, m.SLICE_SIZE_MISSING
    return cs[0].size, ""


class Placer:
    """The algorithms over one snapshot, with the gates in force."""

    def __init__(self, snap: TASFlavorSnapshot, gate: GateFn) -> None:
        self.s = snap
        self.gate = gate
        self.profile_mixed = gate("TASProfileMixed")
        self.affinity_preferred = gate("TASRespectNodeAffinityPreferred")

    # -- levels ---------------------------------------------------------------------------------
    def level_key(self, tr: o.TopologyRequest | None) -> str | None:
        if tr is None:
            return None
        if tr.required is not None:
            return tr.required
        if tr.preferred is not None:
            return tr.preferred
        if slice_only(tr):
            return self.s.levels[0]
        if tr.unconstrained:
            return self.s.levels[-1]
        return None

    def level_key_implied(self, req: TASPodSetRequest) -> str | None:
        key = self.level_key(req.topology)
        if key is not None:
            return key
        return self.s.levels[-1] if req.implied else None

    def slice_level_key(self, tr: o.TopologyRequest | None) -> str:
        cs = constraints(tr)
        return cs[0].topology if cs else self.s.levels[-1]

    def least_free(self, unconstrained: bool) -> bool:
        return unconstrained and self.profile_mixed

    # -- ordering -------------------------------------------------------------------------------
    def sorted_domains(self, domains: Sequence[Domain], unconstrained: bool) -> list[Domain]:
        lfc = self.least_free(unconstrained)
        aff = self.affinity_preferred
        return sorted(domains, key=lambda d: (-d.affinity if aff else 0,
                                              d.slice_count if lfc else -d.slice_count,
                                              d.pod_count, d.values))

    def sorted_with_leader(self, domains: Sequence[Domain], unconstrained: bool) -> list[Domain]:
        lfc = self.least_free(unconstrained)
        aff = self.affinity_preferred
        return sorted(domains, key=lambda d: (-d.leader_count, -d.affinity if aff else 0,
                                              d.slice_count_wl if lfc else -d.slice_count_wl,
                                              d.pod_count_wl, d.values))

    def top_affinity_tier(self, domains: list[Domain]) -> list[Domain]:
        if not self.affinity_preferred or not domains:
            return domains
        score = domains[0].affinity
        for i, d in enumerate(domains):
            if d.affinity != score:
                return domains[:i]
        return domains

    def best_fit_by(self, domains: list[Domain], needed: int, attr: str, leader_count: int) -> Domain:
        """The first domain with the smallest ``attr`` >= needed (the first one if none)."""
        cands = self.top_affinity_tier(domains)
        best, best_count, found = cands[0], INT32_MAX, False
        for d in cands:
            if d.leader_count < leader_count:
                continue
            c = getattr(d, attr)
            if needed <= c < best_count:
                best, best_count, found = d, c, True
        return best if found else cands[0]

    def best_fit_pods(self, domains: list[Domain], count: int, leader_count: int) -> Domain:
        return self.best_fit_by(domains, count, "pod_count_wl" if leader_count > 0 else "pod_count", leader_count)

    def best_fit_slices(self, domains: list[Domain], count: int, leader_count: int) -> Domain:
        return self.best_fit_by(domains, count, "slice_count_wl" if leader_count > 0 else "slice_count",
                                leader_count)

    # -- phase 1 --------------------------------------------------------------------------------
    def matching_leaves(self, req: TASPodSetRequest, tolerations: list[o.Toleration],
                        stats: m.ExclusionStats) -> list[tuple[Leaf, int]]:
        """Leaves whose node passes taints, node selector and required affinity (only for
        hostname-lowest topologies), with their preferred-affinity score."""
        leaves = list(self.s.leaves.values())
        stats.total_nodes += len(leaves)
        if not self.s.lowest_is_node:
            return [(lf, 0) for lf in leaves]
        out = []
        library = self.gate("SchedulerLibraryIntegration")
        if not (library or req.node_selector or req.required_node_terms
                or (self.affinity_preferred and req.preferred_node_terms)):
            # only taints can exclude a node: the loop below without its per-node no-op checks
            for lf in leaves:
                node = lf.node
                if node is not None and node.taints:
                    taint = untolerated_taint(node.taints, tolerations)
                    if taint is not None:
                        stats.record_taint(taint)
                        continue
                out.append((lf, 0))
            return out
        for lf in leaves:
            node = lf.node
            if node is None:
                out.append((lf, 0))
                continue
            labels = node.meta.labels
            if library and node.unschedulable and not any(
                    (t.key == UNSCHEDULABLE_TAINT and t.effect in ("", "NoSchedule")) or
                    (t.key == "" and t.operator == "Exists") for t in tolerations):
                # the scheduler library (WAS) keeps unschedulable nodes in the cache and its
                # NodeUnschedulable filter drops them (was/scheduling_simulator.go)
                stats.scheduler_library_no_fit += 1
                continue
            taint = untolerated_taint(node.taints, tolerations) if node.taints else None
            if taint is not None:
                stats.record_taint(taint)
                continue
            if any(labels.get(k) != v for k, v in req.node_selector.items()):
                stats.node_selector += 1
                continue
            if req.required_node_terms and not any(term_matches(t, labels, node.meta.name)
                                                   for t in req.required_node_terms):
                stats.affinity += 1
                continue
            score = 0
            if self.affinity_preferred:
                score = sum(w for w, t in req.preferred_node_terms if term_matches(t, labels, node.meta.name))
            out.append((lf, score))
        return out

    def fill_in_counts(self, req: TASPodSetRequest, p: Params, requests: Resources,
                       leader_requests: Resources | None, assumed: AssumedUsage,
                       replacement_domain: str, simulate_empty: bool) -> None:
        self.s.reset_state()
        tolerations = list(req.tolerations) + list(self.s.tolerations)
        for lf, score in self.matching_leaves(req, tolerations, p.stats):
            d = lf.domain
            d.affinity += score
            if replacement_domain and not belongs_to(domain_id(d.values), replacement_domain):
                p.stats.topology_domain += 1
                continue
            # phase 1 visits every leaf for every placement (twice per TAS head in a cycle): the
            # leaf's free capacity is read in place unless something is taken off it
            if leader_requests is not None or d.id in assumed or (lf.tas_usage and not simulate_empty):
                remaining = lf.remaining(simulate_empty)
                if d.id in assumed:
                    sub(remaining, assumed[d.id])
            else:
                remaining = lf.free
            d.pod_count, limiting = count_in(requests, remaining)
            if d.pod_count == 0 and limiting:
                p.stats.record_resource(limiting)
            d.leader_count = 0
            if leader_requests is None:
                d.pod_count_wl = d.pod_count     # nothing taken off for a leader
                continue
            if count_in(leader_requests, remaining)[0] > 0:
                d.leader_count = 1
                sub(remaining, leader_requests)
            d.pod_count_wl = count_in(requests, remaining)[0]
        for root in self.s.roots.values():
            fill_in_counts_helper(root, p.slice_size, p.slice_level, 0, p.slice_size_at_level, p.leader_count > 0)

    # -- phase 2a -------------------------------------------------------------------------------
    def not_fit_reason(self, p: Params, level: int, fit: int, total: int) -> str:
        if p.multi_layer:
            return self.multi_layer_message(level, p)
        return m.not_fit(self.s.topology_name, fit, total, p.slice_size, p.stats)

    def multi_layer_message(self, level: int, p: Params) -> str:
        best: Domain | None = None
        for d in self.s.per_level[level].values():
            if best is None or d.slice_count > best.slice_count or (d.slice_count == best.slice_count
                                                                     and d.id < best.id):
                best = d
        if best is None:
            return f"topology {m.go_quote(self.s.topology_name)} doesn't allow to fit"
        layers = []
        for c in p.multi_layer:
            target = self.s.level_index(c.topology)
            if target is None:
                continue
            layers.append((count_slices_in_subtree(best, level, target, c.size), p.count // c.size, c.topology))
        return m.multi_layer_not_fit(self.s.topology_name, layers, p.stats)

    def find_level_with_fit_domains(self, level: int, p: Params) -> tuple[int, list[Domain], str]:
        domains = list(self.s.per_level[level].values())
        if not domains:
            return 0, [], m.no_domains_at_level(self.s.levels[level])
        ordered = self.sorted_with_leader(domains, p.unconstrained)
        top = ordered[0]
        slice_count = p.count // p.slice_size
        best_fit = not self.least_free(p.unconstrained)
        if best_fit and top.slice_count_wl >= slice_count and top.leader_count >= p.leader_count:
            top = self.best_fit_slices(ordered, slice_count, p.leader_count)
        if self.least_free(p.unconstrained):
            for cand in ordered:
                cap = cand.slice_count
                if p.leader_count > 0:
                    if cand.leader_count < p.leader_count:
                        continue
                    cap = cand.slice_count_wl
                if cap >= slice_count:
                    return level, [cand], ""
            if p.required:
                return 0, [], self.not_fit_reason(p, level, ordered[-1].pod_count, slice_count)
        if top.slice_count_wl < slice_count or top.leader_count < p.leader_count:
            if p.required:
                if self.affinity_preferred:
                    for i in range(1, len(ordered)):
                        d = ordered[i]
                        if d.slice_count_wl >= slice_count and d.leader_count >= p.leader_count:
                            return level, [self.best_fit_slices(ordered[i:], slice_count, p.leader_count)], ""
                return 0, [], self.not_fit_reason(p, level, top.slice_count, slice_count)
            if level > 0 and not p.unconstrained:
                return self.find_level_with_fit_domains(level - 1, p)
            results: list[Domain] = []
            remaining_slices = slice_count
            remaining_leaders = p.leader_count
            ordered = self.prioritize_leader_domain(ordered, p.count, p.leader_count, p.slice_size, True)
            idx = 0
            while remaining_leaders > 0 and idx < len(ordered) and ordered[idx].leader_count > 0:
                d = ordered[idx]
                if best_fit and d.slice_count_wl >= remaining_slices:
                    d = self.best_fit_slices(ordered[idx:], remaining_slices, remaining_leaders)
                results.append(d)
                remaining_leaders -= d.leader_count
                remaining_slices -= d.slice_count_wl
                idx += 1
            if remaining_leaders > 0:
                return 0, [], self.not_fit_reason(p, level, p.leader_count - remaining_leaders, slice_count)
            ordered = self.sorted_domains(ordered[idx:], p.unconstrained)
            j = 0
            while remaining_slices > 0 and j < len(ordered):
                d = ordered[j]
                if best_fit and d.slice_count >= remaining_slices:
                    d = self.best_fit_slices(ordered[j:], remaining_slices, 0)
                results.append(d)
                remaining_slices -= d.slice_count
                j += 1
            if remaining_slices > 0:
                return 0, [], self.not_fit_reason(p, level, slice_count - remaining_slices, slice_count)
            return level, results, ""
        return level, [top], ""

    # -- phase 2b -------------------------------------------------------------------------------
    def prioritize_leader_domain(self, domains: list[Domain], count: int, leader_count: int,
                                 slice_size: int, slices: bool) -> list[Domain]:
        if leader_count == 0 or len(domains) < 2:
            return domains
        required = count // slice_size if slices else count
        available = sum(d.slice_count if slices else d.pod_count for d in domains)
        for i, d in enumerate(domains):
            if d.leader_count < leader_count:
                continue
            penalty = (d.slice_count - d.slice_count_wl) if slices else (d.pod_count - d.pod_count_wl)
            if available - penalty < required:
                continue
            if i == 0:
                return domains
            return [d, *domains[:i], *domains[i + 1:]]
        return domains

    def consume_with_leaders(self, dom: Domain, rest: list[Domain], remaining: list[int], unconstrained: bool,
                             slice_size: int, slices: bool) -> tuple[Domain, bool]:
        """``remaining`` = [primary units left, leaders left], updated in place."""
        wl_attr, prim_attr = ("slice_count_wl", "slice_count") if slices else ("pod_count_wl", "pod_count")
        if (not self.least_free(unconstrained) and getattr(dom, wl_attr) >= remaining[0]
                and dom.leader_count >= remaining[1]):
            dom = (self.best_fit_slices if slices else self.best_fit_pods)(rest, remaining[0], remaining[1])
        with_leader = getattr(dom, wl_attr)
        if with_leader >= remaining[0] and dom.leader_count >= remaining[1]:
            setattr(dom, prim_attr, remaining[0])
            dom.leader_count = remaining[1]
            dom.pod_count = remaining[0] * slice_size
            return dom, True
        if with_leader > remaining[0]:
            with_leader = remaining[0]
            setattr(dom, wl_attr, with_leader)
        if dom.leader_count > remaining[1]:
            dom.leader_count = remaining[1]
        setattr(dom, prim_attr, with_leader)
        dom.pod_count = with_leader * slice_size
        remaining[1] -= dom.leader_count
        remaining[0] -= with_leader
        return dom, False

    def update_counts_to_minimum(self, domains: list[Domain], count: int, leader_count: int, slice_size: int,
                                 unconstrained: bool, slices: bool) -> list[Domain]:
        domains = self.prioritize_leader_domain(domains, count, leader_count, slice_size, slices)
        result: list[Domain] = []
        remaining = [count // slice_size if slices else count, leader_count]
        best_fit = not self.least_free(unconstrained)
        for i, dom in enumerate(domains):
            if remaining[1] > 0:
                d, done = self.consume_with_leaders(dom, domains[i:], remaining, unconstrained,
                                                    slice_size if slices else 1, slices)
                result.append(d)
                if done:
                    return result
                continue
            if slices:
                if best_fit and dom.slice_count >= remaining[0]:
                    dom = self.best_fit_slices(domains[i:], remaining[0], 0)
                dom.leader_count = 0
                if dom.slice_count >= remaining[0]:
                    dom.pod_count = remaining[0] * slice_size
                    dom.slice_count = remaining[0]
                    result.append(dom)
                    return result
                dom.pod_count = dom.slice_count * slice_size
                remaining[0] -= dom.slice_count
                result.append(dom)
                continue
            if best_fit and dom.pod_count >= remaining[0]:
                dom = self.best_fit_pods(domains[i:], remaining[0], 0)
            dom.leader_count = 0
            if dom.pod_count >= remaining[0]:
                dom.pod_count = remaining[0]
                result.append(dom)
                return result
            remaining[0] -= dom.pod_count
            result.append(dom)
        return []   # upstream logs "code assumptions violated" and returns nil

    # -- assignments ----------------------------------------------------------------------------
    def build_assignment(self, domains: list[Domain]) -> o.TopologyAssignment:
        level = len(self.s.levels) - 1 if self.s.lowest_is_node else 0
        out = o.TopologyAssignment(levels=self.s.levels[level:])
        for d in sorted(domains, key=lambda d: d.values):
            if d.pod_count == 0:
                continue
            out.domains.append(o.TopologyDomainAssignment(d.values[level:], d.pod_count))
        return out

    def slice_size_at_level(self, req: TASPodSetRequest, slice_size: int,
                            slice_level: int) -> tuple[dict[int, int], str]:
        out: dict[int, int] = {}
        layers = constraints(req.topology)[1:]
        prev_size, prev_level = slice_size, slice_level
        for layer in layers:
            idx = self.s.level_index(layer.topology)
            if idx is None:
                return {}, m.no_inner_slice_level(layer.topology)
            if idx <= prev_level:
                return {}, m.inner_layer_not_lower(layer.topology, self.s.levels[prev_level])
            if layer.size == 0 or prev_size % layer.size != 0:
                return {}, m.inner_layer_not_dividing(layer.size, prev_size)
            for lv in range(prev_level + 1, idx + 1):
                out[lv] = layer.size
            prev_size, prev_level = layer.size, idx
        return out, ""

    def find_topology_assignment(self, workers: TASPodSetRequest, leader: TASPodSetRequest | None,
                                 assumed: AssumedUsage, simulate_empty: bool = False,
                                 replacement_domain: str = "") -> tuple[dict[str, o.TopologyAssignment], str]:
        p = Params(count=workers.count)
        requests = with_one_pod(workers.single_pod_requests)
        leader_requests = None
        if leader is not None:
            leader_requests = with_one_pod(leader.single_pod_requests)
            p.leader_count = 1
        tr = workers.topology
        size, reason = slice_size_or_one(tr)
        if reason:
            return {}, reason
        p.slice_size = size
        p.required = tr is not None and tr.required is not None
        p.unconstrained = is_unconstrained(workers)
        key = self.level_key_implied(workers)
        if key is None:
            return {}, m.LEVEL_NOT_SPECIFIED
        lvl = self.s.level_index(key)
        if lvl is None:
            return {}, m.no_requested_level(key)
        p.requested_level = lvl
        skey = self.slice_level_key(tr)
        slvl = self.s.level_index(skey)
        if slvl is None:
            return {}, m.no_requested_slice_level(skey)
        p.slice_level = slvl
        if p.requested_level > p.slice_level:
            return {}, m.slice_above_podset(skey, key)
        p.slice_size_at_level, reason = self.slice_size_at_level(workers, p.slice_size, p.slice_level)
        if reason:
            return {}, reason
        if p.slice_size_at_level:
            p.multi_layer = constraints(tr)

        self.fill_in_counts(workers, p, requests, leader_requests, assumed, replacement_domain, simulate_empty)

        fit: list[Domain] = []
        fit_level = 0
        balanced = False
        if self.gate("TASBalancedPlacement") and not p.required and not p.unconstrained:
            from .balanced import apply_balanced_placement, find_best_domains_for_balanced_placement
            fit, threshold = find_best_domains_for_balanced_placement(self, p)
            balanced = threshold > 0
            if balanced:
                fit, fit_level, reason = apply_balanced_placement(self, p, threshold, fit)
                if reason:
                    balanced = False
        if not balanced:
            fit_level, fit, reason = self.find_level_with_fit_domains(p.requested_level, p)
            if reason:
                return {}, reason
        fit = self.update_counts_to_minimum(fit, p.count, p.leader_count, p.slice_size, p.unconstrained, True)
        level = fit_level
        last = len(self.s.levels) - 1
        if not balanced:
            while level < min(last, p.slice_level):
                lower = self.sorted_domains([c for d in fit for c in d.children], p.unconstrained)
                fit = self.update_counts_to_minimum(lower, p.count, p.leader_count, p.slice_size,
                                                    p.unconstrained, True)
                level += 1
        while level < last:
            size_here = p.slice_size
            if level >= p.slice_level:
                size_here = p.slice_size_at_level.get(level + 1, 1)
            new_fit: list[Domain] = []
            for d in fit:
                lower = self.sorted_domains(d.children, p.unconstrained)
                if size_here > 1:
                    for c in lower:
                        c.slice_count = c.pod_count // size_here
                        c.slice_count_wl = c.pod_count_wl // size_here
                new_fit += self.update_counts_to_minimum(lower, d.pod_count, d.leader_count, size_here,
                                                         p.unconstrained, size_here > 1)
            fit = new_fit
            level += 1

        out: dict[str, o.TopologyAssignment] = {}
        if leader is not None:
            leader_domains, worker_domains = [], []
            for d in fit:
                if d.leader_count > 0:
                    c = Domain(d.id, d.values)
                    c.parent, c.leaf = d.parent, d.leaf
                    c.pod_count = d.leader_count
                    leader_domains.append(c)
                if d.pod_count > 0:
                    worker_domains.append(d)
            out[leader.name] = self.build_assignment(leader_domains)
            fit = worker_domains
        out[workers.name] = self.build_assignment(fit)
        return out, ""


def fill_in_counts_helper(d: Domain, slice_size: int, slice_level: int, level: int,
                          size_at_level: dict[int, int] | None, leader_required: bool) -> None:
    if not d.children:
        if level == slice_level:
            d.slice_count = d.pod_count // slice_size
            d.slice_count_wl = d.pod_count_wl // slice_size
        return
    children_pods = slice_cap = leader_count = 0
    affinity = 0
    contributor = False
    min_pod_diff = min_slice_diff = INT32_MAX
    child_level = level + 1
    inner = (size_at_level or {}).get(child_level)
    # run for every domain of every placement: leaves are handled here rather than by a call each,
    # and min/max written out (the builtins cost a call per child)
    for c in d.children:
        if c.children:
            fill_in_counts_helper(c, slice_size, slice_level, child_level, size_at_level, leader_required)
        elif child_level == slice_level:
            c.slice_count = c.pod_count // slice_size
            c.slice_count_wl = c.pod_count_wl // slice_size
        pc, pcwl = c.pod_count, c.pod_count_wl
        if inner:
            pc, pcwl = (pc // inner) * inner, (pcwl // inner) * inner
        children_pods += pc
        slice_cap += c.slice_count
        if not leader_required or c.leader_count > 0:
            contributor = True
            if pc - pcwl < min_pod_diff:
                min_pod_diff = pc - pcwl
            if c.slice_count - c.slice_count_wl < min_slice_diff:
                min_slice_diff = c.slice_count - c.slice_count_wl
        if c.leader_count > leader_count:
            leader_count = c.leader_count
        affinity += c.affinity
    d.pod_count = children_pods
    slice_wl = 0
    if contributor:
        d.pod_count_wl = children_pods - min_pod_diff
        slice_wl = slice_cap - min_slice_diff
    else:
        d.pod_count_wl = 0
    d.leader_count = leader_count
    d.affinity = affinity
    if level == slice_level:
        slice_cap = d.pod_count // slice_size
        slice_wl = d.pod_count_wl // slice_size
    d.slice_count = slice_cap
    d.slice_count_wl = slice_wl


def count_slices_in_subtree(d: Domain, level: int, target: int, size: int) -> int:
    if level == target:
        return d.pod_count // size
    return sum(count_slices_in_subtree(c, level + 1, target, size) for c in d.children)


def term_matches(term: o.NodeSelectorTerm, labels: dict[str, str], node_name: str) -> bool:
    """A node selector term (nodeaffinity): an empty term matches nothing."""
    if not term.match_expressions and not term.match_fields:
        return False
    if not all(requirement_matches(e, labels) for e in term.match_expressions):
        return False
    return all(requirement_matches(f, {NODE_NAME_FIELD: node_name}) for f in term.match_fields)


def usage_per_domain(ta: o.TopologyAssignment, single_pod_requests: Resources) -> AssumedUsage:
    out: AssumedUsage = {}
    for d in ta.domains:
        u = scaled(single_pod_requests, d.count)
        u["pods"] = u.get("pods", 0) + d.count
        out[domain_id(d.values)] = u
    return out


def add_assumed(assumed: AssumedUsage, ta: o.TopologyAssignment | None, req: TASPodSetRequest) -> None:
    if ta is None:
        return
    for did, u in usage_per_domain(ta, req.single_pod_requests).items():
        add(assumed.setdefault(did, {}), u)


def leader_and_workers(group: list[TASPodSetRequest]) -> tuple[TASPodSetRequest | None, TASPodSetRequest]:
    workers = group[0]
    leader = None
    if len(group) > 1:
        leader = group[1]
        if leader.count > workers.count:
            leader, workers = group[0], group[1]
    return leader, workers


def find_topology_assignments(snap: TASFlavorSnapshot, requests: Sequence[TASPodSetRequest], gate: GateFn,
                              workload: o.Workload | None = None, simulate_empty: bool = False,
                              aggregated_usage: AssumedUsage | None = None) -> dict[str, PodSetResult]:
    """Upstream ``FindTopologyAssignmentsForFlavor``: pod sets group by group (podSetGroupName),
    each placed with what the earlier groups took counted as used; the first failing group
    ends the run. ``workload`` with ``status.unhealthyNodes`` switches to node replacement;
    ``aggregated_usage`` (TASHandleOverlappingFlavors) is usage on sibling flavors' nodes."""
    from .replacement import find_replacement, handle_elastic, owned_by_single_pod
    placer = Placer(snap, gate)
    result: dict[str, PodSetResult] = {}
    assumed: AssumedUsage = {}
    if gate("TASHandleOverlappingFlavors") and aggregated_usage is not None:
        assumed = {k: dict(v) for k, v in aggregated_usage.items()}
    groups: dict[str, list[TASPodSetRequest]] = {}
    for i, r in enumerate(requests):
        groups.setdefault(r.group_name if r.group_name is not None else f"\x00{i}", []).append(r)
    unhealthy = workload is not None and bool(workload.status.unhealthy_nodes)
    for group in groups.values():
        if unhealthy:
            assert workload is not None
            for r in group:
                psa = find_psa(workload, r.name)
                if psa is None or psa.topology_assignment is None:
                    continue
                if gate("SkipReassignmentForPodOwnedWorkloads") and owned_by_single_pod(workload):
                    result[r.name] = PodSetResult(copy_assignment(psa.topology_assignment))
                    continue
                new, replacement, reason = find_replacement(placer, r, copy_assignment(psa.topology_assignment),
                                                            workload, assumed)
                result[r.name] = PodSetResult(new, reason)
                if reason:
                    return result
                add_assumed(assumed, replacement, r)
            continue
        leader, workers = leader_and_workers(group)
        if gate("ElasticJobsViaWorkloadSlicesWithTAS"):
            elastic = handle_elastic(placer, workers, leader, assumed, simulate_empty)
            if elastic is not None:
                result.update(elastic)
                if elastic[workers.name].failure_reason:
                    return result
                continue
        assignments, reason = placer.find_topology_assignment(workers, leader, assumed, simulate_empty)
        for r in group:
            result[r.name] = PodSetResult(assignments.get(r.name), reason)
        if reason:
            return result
        for r in group:
            add_assumed(assumed, assignments.get(r.name), r)
    return result


def find_psa(wl: o.Workload, name: str) -> o.PodSetAssignment | None:
    if wl.status.admission is None:
        return None
    return next((p for p in wl.status.admission.pod_set_assignments if p.name == name), None)


def copy_assignment(ta: o.TopologyAssignment) -> o.TopologyAssignment:
    return o.TopologyAssignment(levels=list(ta.levels), domains=list(ta.domains))
