"""Flavor assignment: which flavor each pod set gets, and whether it fits, needs preemption
or does not fit.

Upstream: pkg/scheduler/flavorassigner/flavorassigner.go (assignFlavors,
findFlavorForPodSets, checkFlavorForPodSets, fitsResourceQuota, shouldTryNextFlavor,
flavorSelector), flavor_assigner_attempts.go. Reference: kueue-semantics.md §3.4.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..api import objects as o
from ..api.quantity import format_amount
from .assignment import (
    BEST,
    EXCEEDS_MAX_QUOTA,
    FIT,
    MODE_TO_POSSIBILITY,
    NO_FIT,
    NO_MATCHING_FLAVOR,
    P_FIT,
    P_NO_CANDIDATES,
    P_NO_FIT,
    P_PREEMPT,
    P_RECLAIM,
    POSSIBILITY_TO_MODE,
    PREEMPT,
    PUBLIC_MODE,
    TOPOLOGY_PLACEMENT_FAILED,
    WAITING_FOR_QUOTA,
    WORST,
    Assignment,
    Attempt,
    FlavorChoice,
    GranularMode,
    PodSetAssignment,
    is_preferred,
    most_severe,
)
from .config import EngineConfig
from .eligibility import allowed_flavors, flavor_problem, ignores_undeclared
from .quota import FR
from .snapshot import ClusterQueueSnapshot
from .tas import TASPodSetRequest, find_topology_assignments
from .tas.cycle import CycleAssignment, CycleTAS, flavor_match_problem, tas_only, tas_requested
from .workload import PodSetRequests, WorkloadInfo, pod_requests

# (cq, workload, fr, quantity) -> (possibility, borrowing level after preemption)
Oracle = Callable[[ClusterQueueSnapshot, WorkloadInfo, FR, int], tuple[int, int]]


@dataclass
class ReplacedSlice:
    """The admitted slice an elastic workload slice replaces (ElasticJobsViaWorkloadSlices)."""
    pod_sets: list[tuple[str, int, dict[str, int], dict[str, str]]]  # (name, count, total requests, flavors)


# -- the assigner ----------------------------------------------------------------------------

class FlavorAssigner:
    def __init__(self, wi: WorkloadInfo, cq: ClusterQueueSnapshot, flavors: dict[str, o.ResourceFlavor],
                 config: EngineConfig, oracle: Oracle, replaced: ReplacedSlice | None = None,
                 last_tried: list[dict[str, int]] | None = None,
                 nomination: dict[tuple[int, str], str] | None = None, tas: CycleTAS | None = None):
        self.wi = wi
        self.cq = cq
        self.flavors = flavors
        self.config = config
        self.oracle = oracle
        self.replaced = replaced if config.gate("ElasticJobsViaWorkloadSlices") else None
        self.last_tried = last_tried
        self.nomination = nomination
        self.observability = config.gate("UnadmittedWorkloadsObservability")
        self.allowed_flavors = allowed_flavors(wi, config)
        self.tas = tas if tas is not None and config.gate("TopologyAwareScheduling") else None
        self.tas_only = self.tas is not None and tas_only(
            [f for g in cq.groups for f in g.flavors], flavors, self.tas.inputs.topologies)

    def ignore_undeclared(self) -> bool:
        return ignores_undeclared(self.config)

    def assign(self, counts: list[int] | None = None) -> Assignment:
        wi, cq = self.wi, self.cq
        pod_sets = (wi.pod_sets if counts is None
                    else [ps.scaled_to(c) for ps, c in zip(wi.pod_sets, counts, strict=True)])
        out = CycleAssignment()
        covers_pods = cq.covers("pods")
        groups: dict[str, list[int]] = {}
        psas: list[PodSetAssignment] = []
        for i, ps in enumerate(pod_sets):
            req = ps.total()
            if covers_pods:
                req["pods"] = ps.count
            prev = self.previous_psa(ps.name)
            if prev is not None:   # a second pass works on what the admission holds
                req = {r: q.amount(r) for r, q in prev.resource_usage.items()}
                psas.append(PodSetAssignment(name=ps.name, count=prev.count if prev.count is not None else ps.count,
                                             requests=req))
            else:
                psas.append(PodSetAssignment(name=ps.name, count=ps.count, requests=req))
            tr = wi.obj.pod_sets[i].topology_request if i < len(wi.obj.pod_sets) else None
            key = str(i)
            if isinstance(tr, dict) and tr.get("podSetGroupName"):
                key = "g:" + str(tr["podSetGroupName"])
            groups.setdefault(key, []).append(i)

        for ids in groups.values():
            requests: dict[str, int] = {}
            total_count = 0
            for i in ids:
                for r, v in psas[i].requests.items():
                    requests[r] = requests.get(r, 0) + v
                total_count += pod_sets[i].count
            probe: dict[str, int] | None = None
            if total_count == 0:
                probe = {}
                for i in ids:
                    for r, v in pod_sets[i].per_pod.items():
                        probe[r] = probe.get(r, 0) + v
                if covers_pods:
                    probe["pods"] = len(ids)
            considered: dict[str, Attempt] = {}
            group_flavors: dict[str, FlavorChoice] = {}
            for i in ids:   # a second pass (TAS node replacement) keeps the flavors it holds
                group_flavors.update(self.previous_flavors(i))
            reasons: list[str] = []
            error = ""
            status_nofit = ""
            failed = False
            for res, qty in requests.items():
                if not cq.covers(res) and (qty == 0 or self.ignore_undeclared()):
                    continue
                if res in group_flavors:
                    continue
                found, st_reasons, st_nofit, attempts = self.find_flavor(ids, requests, probe, res, out.usage)
                if probe is not None and not found:
                    found, st_reasons, st_nofit, attempts = self.find_flavor(ids, requests, None, res, out.usage)
                merge_attempts(considered, attempts, res, cq, self.observability)
                if not found and requests:
                    group_flavors = {}
                    reasons = list(st_reasons)
                    status_nofit = st_nofit
                    failed = True
                    break
                group_flavors.update(found)
                reasons += st_reasons
            final = sorted(considered.values(), key=lambda a: a.flavor)
            for i in ids:
                psa = psas[i]
                psa.flavors = {r: f for r, f in group_flavors.items() if r in psa.requests} if psa.requests else {}
                psa.reasons = list(reasons)
                psa.error = error
                psa.status_no_fit_reason = status_nofit
                psa.attempts = final
                self._append(out, psa, pod_sets[i])
                if psa.requests and not psa.flavors:
                    failed = True
            if failed:
                if self.observability:
                    out.resolve_no_fit_reason([g.flavors for g in cq.groups])
                return out
        if self.tas is not None:
            self.assign_topology(out, pod_sets)
        if self.observability:
            out.resolve_no_fit_reason([g.flavors for g in cq.groups])
        return out

    def second_pass(self) -> bool:
        """A TAS second pass: the workload holds a reservation and has unhealthy nodes."""
        wl = self.wi.obj
        return self.tas is not None and wl.is_true("QuotaReserved") and wl.status.admission is not None \
            and bool(wl.status.unhealthy_nodes)

    def previous_flavors(self, i: int) -> dict[str, FlavorChoice]:
        if not self.second_pass() or i >= len(self.wi.obj.pod_sets):
            return {}
        adm = self.wi.obj.status.admission
        assert adm is not None
        name = self.wi.obj.pod_sets[i].name
        for psa in adm.pod_set_assignments:
            if psa.name == name:
                return {r: FlavorChoice(f, FIT) for r, f in psa.flavors.items()}
        return {}

    def previous_psa(self, name: str) -> o.PodSetAssignment | None:
        adm = self.wi.obj.status.admission
        if not self.second_pass() or adm is None:
            return None
        for psa in adm.pod_set_assignments:
            if psa.name == name:
                return psa
        return None

    def previous_topology(self, name: str) -> o.TopologyAssignment | None:
        psa = self.previous_psa(name)
        return psa.topology_assignment if psa is not None else None

    def _append(self, out: Assignment, psa: PodSetAssignment, ps: PodSetRequests) -> None:
        out.pod_sets.append(psa)
        tried = {}
        for res, choice in psa.flavors.items():
            out.borrowing = max(out.borrowing, choice.borrow)
            amount = psa.requests.get(res, 0)
            if self.replaced is not None:
                for name, _count, reqs, _fl in self.replaced.pod_sets:
                    if name == psa.name:
                        amount -= reqs.get(res, 0)
                        break
            fr = (choice.name, res)
            out.usage[fr] = out.usage.get(fr, 0) + amount
            tried[res] = choice.tried_idx
        out.last_tried.append(tried)

    def _start_index(self, ps_index: int, res: str) -> int:
        if not self.last_tried or ps_index >= len(self.last_tried):
            return 0
        return self.last_tried[ps_index].get(res, -1) + 1

    def find_flavor(self, ids: list[int], requests: dict[str, int], probe: dict[str, int] | None, res: str,
                    usage: dict[FR, int]) -> tuple[dict[str, FlavorChoice], list[str], str, list[Attempt]]:
        """-> (resource -> FlavorChoice, reasons, no-fit reason, attempts)."""
        cq = self.cq
        group = cq.group_for(res)
        if group is None:
            return {}, [f"resource {res} unavailable in ClusterQueue"], NO_MATCHING_FLAVOR, []
        covered = set(group.covered)
        requests = {r: v for r, v in requests.items() if r in covered}
        if probe is not None:
            probe = {r: v for r, v in probe.items() if r in covered}
        reasons: list[str] = []
        attempts: list[Attempt] = []
        best: dict[str, FlavorChoice] = {}
        best_mode = WORST
        attempted = -1
        idx = self._start_index(ids[0], res)
        fungibility = cq.fungibility
        while idx < len(group.flavors):
            attempted = idx
            fname = group.flavors[idx]
            idx += 1
            if self.nomination and any(self.nomination.get((i, res)) not in (None, fname) for i in ids):
                reasons.append(f"skipping flavor {fname} as it is not found in the nomination mapping "
                               f"for resource {res}")
                continue
            if self.allowed_flavors is not None and fname not in self.allowed_flavors:
                reasons.append(f"skipping flavor {fname} due to WorkloadAllowedResourceFlavorAnnotation annotation")
                continue
            problem = self.check_flavor(fname, ids, group.covered)
            if problem:
                reasons.append(problem)
                attempts.append(Attempt(fname, NO_FIT, reasons=[problem],
                                        no_fit_reason=NO_MATCHING_FLAVOR if self.observability else ""))
                continue
            if probe is not None:
                probe_reasons: list[str] = []
                for r, v in probe.items():
                    cap = cq.node.potential_available((fname, r))
                    if cap < v:
                        probe_reasons.append(
                            f"insufficient quota for {r} in flavor {fname}, one pod per zero-count podset request "
                            f"({format_amount(r, v)}) > maximum capacity ({format_amount(r, cap)})")
                if probe_reasons:
                    reasons += probe_reasons
                    attempts.append(Attempt(fname, NO_FIT, reasons=probe_reasons,
                                            no_fit_reason=EXCEEDS_MAX_QUOTA if self.observability else ""))
                    continue
            choices: dict[str, FlavorChoice] = {}
            rep = BEST
            max_borrow = 0
            flavor_reasons: list[str] = []
            flavor_nofit = ""
            for r, val in requests.items():
                if self.replaced is not None:
                    for i in ids:
                        if i >= len(self.replaced.pod_sets):
                            continue
                        _n, _c, old_req, old_flavors = self.replaced.pod_sets[i]
                        original = old_flavors.get(r, "")
                        if original != fname:
                            rep = WORST
                            msg = f"could not assign {fname} flavor since the original workload is assigned: {original}"
                            reasons.append(msg)
                            flavor_reasons.append(msg)
                            flavor_nofit = most_severe(flavor_nofit, NO_MATCHING_FLAVOR)
                            break
                        val -= old_req.get(r, 0)
                fr = (fname, r)
                pmode, borrow, st = self.fits_resource_quota(fr, usage.get(fr, 0), val)
                if st is not None:
                    flavor_reasons += st[0]
                    reasons += st[0]
                    flavor_nofit = most_severe(flavor_nofit, st[1])
                max_borrow = max(max_borrow, borrow)
                mode = GranularMode(pmode, borrow)
                if is_preferred(rep, mode, fungibility.preference, self.config.no_candidates_ranked_last):
                    rep = mode
                if rep.mode == P_NO_FIT:
                    continue  # the flavor is out, but every resource's reasons are still reported
                choices[r] = FlavorChoice(fname, PUBLIC_MODE[pmode], borrow=borrow)
            attempts.append(Attempt(fname, PUBLIC_MODE[rep.mode], borrow=max_borrow,
                                    possibility=MODE_TO_POSSIBILITY.get(rep.mode),
                                    reasons=sorted(flavor_reasons),
                                    no_fit_reason=flavor_nofit if self.observability else ""))
            if self.config.gate("FlavorFungibility"):
                if not should_try_next(rep, fungibility):
                    best, best_mode = choices, rep
                    break
                if is_preferred(rep, best_mode, fungibility.preference,
                                self.config.no_candidates_ranked_last):
                    best, best_mode = choices, rep
            elif rep.mode > best_mode.mode:
                best, best_mode = choices, rep
                if best_mode.mode == P_FIT:
                    return best, [], "", attempts
        if self.config.gate("FlavorFungibility"):
            tried = -1 if attempted == len(group.flavors) - 1 else attempted
            for c in best.values():
                c.tried_idx = tried
            if best_mode.mode == P_FIT:
                return best, [], "", attempts
        return best, reasons, "", attempts

    def check_flavor(self, fname: str, ids: list[int], covered: list[str] | None = None) -> str:
        flavor = self.flavors.get(fname)
        if self.tas is not None and flavor is not None:
            for i in ids:
                problem = flavor_match_problem(self.wi.obj.pod_sets[i], fname, flavor, covered or [],
                                               self.tas_only, self.tas.snaps)
                if problem:
                    return problem
        return flavor_problem(fname, self.flavors.get(fname), [self.wi.obj.pod_sets[i].template for i in ids])

    # -- topology-aware scheduling (tas_flavorassigner.go) ---------------------------------------
    def tas_requests(self, out: CycleAssignment,
                     pod_sets: list[PodSetRequests]) -> dict[str, list[TASPodSetRequest]]:
        """WorkloadsTopologyRequests: per TAS flavor, the pod sets to place."""
        assert self.tas is not None
        reqs: dict[str, list[TASPodSetRequest]] = {}
        for i, ps in enumerate(self.wi.obj.pod_sets):
            if i >= len(out.pod_sets) or not tas_requested(ps, self.tas_only):
                continue
            psa = out.pod_sets[i]
            if psa.error or psa.count == 0:
                continue
            prev = self.previous_topology(psa.name)
            if prev is not None:
                unhealthy = set(self.wi.obj.status.unhealthy_nodes)
                out.topology[psa.name] = prev
                if not any(d.values and d.values[-1] in unhealthy for d in prev.domains):
                    continue
            tas_flavors = sorted({f.name for f in psa.flavors.values() if f.name in self.tas.snaps})
            if not tas_flavors:
                psa.error = "no TAS flavor assigned"
                continue
            if len(tas_flavors) > 1:
                psa.error = f"more than one TAS flavor assigned: {tas_flavors}"
                continue
            # the pod spec's requests, not the accounted ones (#8865; engine/transformations.py)
            if self.config.resource_rules.behaviour.tas_pod_spec_requests or i >= len(self.wi.pod_sets):
                single = dict(pod_requests(ps.template))
            else:
                single = dict(self.wi.pod_sets[i].per_pod)
            out.tas_flavor[psa.name] = tas_flavors[0]
            out.single_pod[psa.name] = single
            reqs.setdefault(tas_flavors[0], []).append(
                TASPodSetRequest.of_pod_set(ps, psa.count, single))
            _ = pod_sets
        return reqs

    def find_topology(self, reqs: dict[str, list[TASPodSetRequest]],
                      simulate_empty: bool) -> tuple[dict[str, o.TopologyAssignment], tuple[str, str, str] | None]:
        """FindTopologyAssignmentsForWorkload -> (assignments, first failure (pod set, flavor, reason))."""
        assert self.tas is not None
        got: dict[str, o.TopologyAssignment] = {}
        failure: tuple[str, str, str] | None = None
        for fname in sorted(reqs):
            res = find_topology_assignments(self.tas.snaps[fname], reqs[fname], self.config.gate,
                                            workload=self.wi.obj, simulate_empty=simulate_empty)
            for r in reqs[fname]:
                pr = res.get(r.name)
                if pr is None:
                    continue
                if pr.failure_reason:
                    if failure is None:
                        failure = (r.name, fname, pr.failure_reason)
                elif pr.assignment is not None:
                    got[r.name] = pr.assignment
        return got, failure

    def assign_topology(self, out: CycleAssignment, pod_sets: list[PodSetRequests]) -> None:
        reqs = self.tas_requests(out, pod_sets)
        by_name = {psa.name: psa for psa in out.pod_sets}
        if out.representative_mode() == FIT:
            got, failure = self.find_topology(reqs, simulate_empty=False)
            if failure is not None:
                psa = by_name[failure[0]]
                psa.reasons.append(failure[2])
                for f in psa.flavors.values():
                    f.mode = PREEMPT
            else:
                out.topology.update(got)
        unhealthy = bool(self.wi.obj.status.unhealthy_nodes)
        if out.representative_mode() == PREEMPT and not unhealthy:
            _got, failure = self.find_topology(reqs, simulate_empty=True)
            if failure is not None:
                psa = by_name[failure[0]]
                if self.observability:
                    for at in psa.attempts:
                        if at.flavor == failure[1]:
                            at.mode = NO_FIT
                            at.no_fit_reason = TOPOLOGY_PLACEMENT_FAILED
                            break
                for f in psa.flavors.values():
                    f.mode = NO_FIT
            else:
                for rs in reqs.values():
                    for r in rs:
                        for f in by_name[r.name].flavors.values():
                            f.mode = PREEMPT

    def fits_resource_quota(self, fr: FR, assumed: int,
                            request: int) -> tuple[int, int, tuple[list[str], str] | None]:
        """-> (internal mode, borrowing level, (reasons, no-fit reason) or None)."""
        node = self.cq.node
        available = node.available(fr)
        cap = node.potential_available(fr)
        val = assumed + request
        res = fr[1]
        if val > cap:
            msg = (f"insufficient quota for {res} in flavor {fr[0]}, previously considered podsets requests "
                   f"({format_amount(res, assumed)}) + current podset request ({format_amount(res, request)}) "
                   f"> maximum capacity ({format_amount(res, cap)})")
            return P_NO_FIT, 0, ([msg], EXCEEDS_MAX_QUOTA)
        borrow, may_reclaim = node.find_height(fr, val)
        if val <= available:
            return P_FIT, borrow, None
        msg = (f"insufficient unused quota for {res} in flavor {fr[0]}, "
               f"{format_amount(res, val - available)} more needed")
        if node.nominal(fr) >= val or may_reclaim or self.can_preempt_while_borrowing():
            possibility, borrow_after = self.oracle(self.cq, self.wi, fr, val)
            mode = POSSIBILITY_TO_MODE[possibility]
            return mode, borrow_after, ([msg], "" if mode != P_NO_FIT else WAITING_FOR_QUOTA)
        return P_NO_FIT, borrow, ([msg], WAITING_FOR_QUOTA)

    def can_preempt_while_borrowing(self) -> bool:
        p = self.cq.preemption
        bwc = p.borrow_within_cohort
        return (bwc is not None and bwc.policy not in ("", "Never")) or \
            (self.config.fair_sharing and p.reclaim_within_cohort != "Never")


def should_try_next(mode: GranularMode, fungibility: o.FlavorFungibility) -> bool:
    if mode.mode in (P_NO_FIT, P_NO_CANDIDATES):
        return True
    if mode.mode in (P_PREEMPT, P_RECLAIM) and fungibility.when_can_preempt == "TryNextFlavor":
        return True
    if mode.borrow != 0 and fungibility.when_can_borrow == "TryNextFlavor":
        return True
    return False


def merge_attempts(dst: dict[str, Attempt], src: list[Attempt], res: str, cq: ClusterQueueSnapshot,
                   observability: bool) -> None:
    for at in src:
        cur = dst.get(at.flavor)
        if cur is None:
            dst[at.flavor] = Attempt(at.flavor, at.mode, at.borrow, at.possibility, sorted(set(at.reasons)),
                                     at.no_fit_reason)
            continue
        possibility = cur.possibility
        if at.possibility is not None and (possibility is None or at.possibility < possibility):
            possibility = at.possibility
        dst[at.flavor] = Attempt(at.flavor, min(cur.mode, at.mode), max(cur.borrow, at.borrow), possibility,
                                 sorted(set(cur.reasons) | set(at.reasons)),
                                 most_severe(cur.no_fit_reason, at.no_fit_reason) if observability else "")
    if src:
        group = cq.group_for(res)
        present = {a.flavor for a in src}
        for flv, at in dst.items():
            if group is not None and flv in group.flavors and flv not in present:
                at.mode = NO_FIT
                at.reasons = sorted(set(at.reasons) | {f"flavor {flv} does not provide resource {res}"})
                if observability:
                    at.no_fit_reason = NO_MATCHING_FLAVOR
