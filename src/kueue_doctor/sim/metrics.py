"""What a simulation measures: admissions, preemptions, time to admission, usage, violations."""
from __future__ import annotations

import math
import operator
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..guarantee import Evaluator
from ..guarantee.evaluate import saturated
from .observe import RESERVED

if TYPE_CHECKING:  # pragma: no cover
    from ..engine.quota import FR
    from ..engine.snapshot import ClusterQueueSnapshot
    from ..keys import WorkloadKey
    from .scenario import Fault
    from .simulator import Simulator, SimWorkload


_since = operator.itemgetter(1)


def primary_resource(resources: list[str]) -> str:
    """The resource a queue's usage % is reported on: its GPUs if it has any, else cpu."""
    for r in resources:
        if "gpu" in r.lower():
            return r
    return "cpu" if "cpu" in resources else (resources[0] if resources else "")


@dataclass(frozen=True, slots=True)
class EventMark:
    """When something a report marks on its time axis happened: a fault, a workload evicted by
    preemption (``eviction``, on the victim's queue) and the preemption it made (``preemption``,
    on the preemptor's queue). ``cluster_queue`` is "" for a fault on a node (every queue)."""
    t: float
    kind: str          # fault | eviction | preemption
    cluster_queue: str
    text: str


class Recorder:
    def __init__(self, sim: Simulator):
        self.sim = sim
        self.admissions: dict[str, int] = defaultdict(int)
        self.preemptions: dict[str, int] = defaultdict(int)
        self.migrations: dict[str, int] = defaultdict(int)   # FlavorMigration evictions per ClusterQueue
        self.series: dict[str, list[list]] = defaultdict(list)   # cq -> [t, used, nominal, pendingFits, violated]
        self.violation_seconds: dict[str, float] = defaultdict(float)
        self.last_sample: float | None = None
        self.last_violated: dict[str, bool] = {}
        self._primary_cache: dict[str, tuple[str, int]] = {}
        self._amounts: dict[tuple[str, str], int] = {}   # (request, resource) -> its amount
        self.evaluator: Evaluator | None = None
        self.usage_level: dict[str, float] = defaultdict(float)
        self.usage_area: dict[str, float] = defaultdict(float)
        self.usage_t: dict[str, float] = {}
        # time during which a queue had work waiting for quota (event-driven, exact)
        self.queued: dict[str, int] = defaultdict(int)
        self.pending_since: dict[str, float] = {}
        self.pending_seconds: dict[str, float] = defaultdict(float)
        self.marks: list[EventMark] = []   # in time order
        # evictions Kueue makes itself (PodsReadyTimeout, AdmissionCheck, Deactivated...): cq -> reason -> n
        self.kueue_evictions: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        # admission check state changes: check -> state -> n
        self.check_outcomes: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        # incremental sampling: a queue's last row, kept while its verdict cannot change (nothing
        # fits, nothing admitted waits to run: time alone changes nothing) and nothing touched it
        self._settled: dict[str, tuple[int, list]] = {}
        self._touched: set[str] = set()
        self._all_touched = True
        # per ClusterQueue, the workloads holding quota there by an admission (a superset of those
        # in state RESERVED, which the guarantee asks about): kept here so that a sample need not
        # walk every workload
        self._held: dict[str, dict[WorkloadKey, None]] = defaultdict(dict)
        self._frs: dict[str, tuple[object, tuple[FR, ...]]] = {}   # cq -> (its quota node, primary FRs)

    def queued_change(self, cq: str, delta: int) -> None:
        self._touched.add(cq)
        t = self.sim.now
        before = self.queued[cq]
        self.queued[cq] = before + delta
        if before <= 0 < self.queued[cq]:
            self.pending_since[cq] = t
        elif before > 0 >= self.queued[cq] and cq in self.pending_since:
            self.pending_seconds[cq] += t - self.pending_since.pop(cq)

    def pending_hours(self, cq: str) -> float:
        extra = self.sim.now - self.pending_since[cq] if cq in self.pending_since else 0.0
        return (self.pending_seconds[cq] + extra) / 3600.0

    def primary(self, cq: str) -> tuple[str, int]:
        """(resource usage % is reported on, nominal quota of it summed over flavors)."""
        if cq not in self._primary_cache:
            node = self.sim.model.snapshot.cluster_queues.get(cq)
            frs = node.node.quotas if node is not None else {}
            res = primary_resource(sorted({fr[1] for fr in frs}))
            self._primary_cache[cq] = (res, sum(q.nominal for fr, q in frs.items() if fr[1] == res))
        return self._primary_cache[cq]

    def _usage_change(self, sw: SimWorkload, sign: int) -> None:
        # exact time-weighted usage: workloads shorter than the sampling interval still count
        cq = sw.cluster_queue
        self._touched.add(cq)
        res, _ = self.primary(cq)
        v = sw.spec.requests.get(res)
        if v is None:
            return
        per_pod = self._amounts.get((v, res))
        if per_pod is None:   # a few distinct request strings, parsed at every admission and release
            from ..api.quantity import Quantity
            per_pod = self._amounts[(v, res)] = Quantity.parse(v).amount(res)
        amount = per_pod * sw.spec.pods
        t = self.sim.now
        last = self.usage_t.get(cq, t)
        self.usage_area[cq] += self.usage_level[cq] * (t - last)
        self.usage_level[cq] += sign * amount
        self.usage_t[cq] = t

    def admission(self, sw: SimWorkload) -> None:
        self.admissions[sw.cluster_queue] += 1
        self._held[sw.cluster_queue][sw.key] = None
        self._usage_change(sw, +1)

    def quota_released(self, sw: SimWorkload) -> None:
        self._held[sw.cluster_queue].pop(sw.key, None)
        self._usage_change(sw, -1)

    def _primary_frs(self, cq: ClusterQueueSnapshot) -> tuple[FR, ...]:
        """The (flavor, resource) pairs of the queue's quota on the resource its row reports."""
        cached = self._frs.get(cq.name)
        if cached is not None and cached[0] is cq.node:
            return cached[1]
        res = primary_resource(sorted({fr[1] for fr in cq.node.quotas}))
        frs = tuple(fr for fr in cq.node.quotas if fr[1] == res)
        self._frs[cq.name] = (cq.node, frs)
        return frs

    def avg_usage_percent(self, cq: str) -> float:
        _, nominal = self.primary(cq)
        t = self.sim.now
        area = self.usage_area[cq] + self.usage_level[cq] * (t - self.usage_t.get(cq, t))
        return area / t / nominal * 100.0 if nominal and t > 0 else 0.0

    def preemption(self, sw: SimWorkload, reason: str = "", preemptor: WorkloadKey | None = None) -> None:
        self._all_touched = True
        self.preemptions[sw.cluster_queue] += 1
        t = self.sim.now
        by = self.sim.workloads.get(preemptor) if preemptor is not None else None
        why = f" ({reason})" if reason else ""
        self.marks.append(EventMark(t, "eviction", sw.cluster_queue,
                                    f"{sw.key} evicted, preempted by {preemptor or 'unknown'}{why}"))
        if by is not None:
            self.marks.append(EventMark(t, "preemption", by.cluster_queue,
                                        f"{preemptor} preempted {sw.key} of {sw.cluster_queue}{why}"))

    def migration(self, sw: SimWorkload, evictor: WorkloadKey) -> None:
        """A FlavorMigration eviction: ``evictor``, a more favourable variant of the same parent, fits."""
        self._all_touched = True
        self.migrations[sw.cluster_queue] += 1
        self.marks.append(EventMark(self.sim.now, "eviction", sw.cluster_queue,
                                    f"{sw.key} evicted (FlavorMigration): {evictor} migrates to a more "
                                    f"favourable flavor"))
    def kueue_eviction(self, sw: SimWorkload, reason: str) -> None:
        self._all_touched = True
        self.kueue_evictions[sw.cluster_queue][reason] += 1
        self.marks.append(EventMark(self.sim.now, "eviction", sw.cluster_queue, f"{sw.key} evicted ({reason})"))

    def check_outcome(self, sw: SimWorkload, check: str, state: str) -> None:
        self._all_touched = True
        self.check_outcomes[check][state] += 1

    def fault(self, fault: Fault) -> None:
        self._all_touched = True
        sw = self.sim.workloads.get(fault.workload) if fault.workload is not None else None
        self.marks.append(EventMark(self.sim.now, "fault", sw.cluster_queue if sw is not None else "",
                                    f"{fault.kind} {fault.target}"))

    def sample(self, final: bool = False) -> None:
        sim = self.sim
        t = sim.now
        if self.last_sample is not None:
            dt = t - self.last_sample
            for cq, v in self.last_violated.items():
                if v:
                    self.violation_seconds[cq] += dt
        if final and self.last_sample == t:
            return
        self.last_sample = t
        now = sim.dt(t)
        if self.evaluator is None:
            self.evaluator = Evaluator(sim.model.snapshot.flavors, sim.config, timedelta(seconds=sim.settings.min_wait))
        settled = {} if self._all_touched else self._settled
        nodes = {name: id(cq.node) for name, cq in sim.model.snapshot.cluster_queues.items()}
        keep = {name for name, (node, _) in settled.items()
                if name not in self._touched and nodes.get(name) == node}
        for name in sorted(keep):
            row = settled[name][1]
            self.series[name].append([round(t, 3), *row])
        self._settled = {name: settled[name] for name in keep}
        self._touched, self._all_touched = set(), False
        held = self._held
        workloads = sim.workloads
        get = workloads.get
        cutoff = self._cutoff(now)
        pending_in_order = sim.model.queues.pending_in_order
        for name, queue in sim.model.snapshot.cluster_queues.items():
            if name in keep:
                continue
            # admitted work that does not run yet (sim.observe.observe_queue's not-running list):
            # whether there is some, and whether some waited the threshold
            not_running = waited = False
            admitted = queue.workloads
            for key in held.get(name, ()):
                sw = workloads[key]
                if sw.state == RESERVED and key in admitted:
                    not_running = True
                    if sw.waiting_since <= cutoff:
                        waited = True
                        break
            # a queue at its nominal quota does not read its pending work
            wis = () if saturated(queue) else pending_in_order(name)
            pending = [(wi, w.waiting_since) for wi in wis if (w := get(wi.key)) is not None]
            oldest = min(pending, key=_since)[1] if pending else None
            fits_by_fr, fitting, violated = self.evaluator.sample(queue, pending, waited, cutoff, oldest)
            frs = self._primary_frs(queue)
            usage, quotas = queue.node.usage, queue.node.quotas
            used = sum(usage.get(fr, 0) for fr in frs)
            nominal = sum(quotas[fr].nominal for fr in frs)
            fits = sum(fits_by_fr.get(fr, 0) for fr in frs)
            self.series[name].append([round(t, 3), used, nominal, fits, violated])
            self.last_violated[name] = violated
            if not fitting and not not_running:
                self._settled[name] = (nodes[name], [used, nominal, fits, violated])

    def _cutoff(self, now: datetime) -> float:
        """The latest simulated time whose work has waited the threshold at ``now`` (the guarantee
        compares datetimes, whole microseconds: sim.dt rounds to them, so the boundary is found
        among the floats that round to it, and a sample compares the simulator's own floats)."""
        assert self.evaluator is not None
        dt = self.sim.dt
        try:
            edge = now - self.evaluator.min_wait
            guess = (edge - self.sim.origin).total_seconds()
            lo, hi = guess - 1.0, guess + 1.0   # dt(lo) <= edge < dt(hi)
            dt(lo), dt(hi)
        except OverflowError:   # a threshold longer than the calendar: nothing has waited it
            return -math.inf
        while True:
            mid = lo + (hi - lo) / 2
            if mid in (lo, hi):
                return lo
            if dt(mid) <= edge:
                lo = mid
            else:
                hi = mid

    def summary(self) -> dict:
        sim = self.sim
        span = max(sim.now, 1e-9)
        hours = span / 3600.0
        classes: dict[str, list[float]] = defaultdict(list)
        counts: dict[str, int] = defaultdict(int)
        created = admitted = finished = preempted = 0
        for sw in sim.workloads.values():
            created += 1
            counts[sw.spec.klass] += 1
            if sw.first_admitted_at is not None:
                admitted += 1
                classes[sw.spec.klass].append((sw.first_admitted_at - sw.spec.at) * 1000.0)
            if sw.finished_at is not None:
                finished += 1
            if sw.preemptions:
                preempted += 1
        cqs: dict[str, dict[str, Any]] = {}
        for name in sorted(set(sim.model.snapshot.cluster_queues)):
            cqs[name] = {
                "avgUsagePercent": round(self.avg_usage_percent(name), 3),
                "violationSeconds": round(self.violation_seconds[name], 3),
                "admissionsPerHour": round(self.admissions[name] / hours, 3),
                "pendingHours": round(self.pending_hours(name), 4),
                # the rate tenants feel: admissions per hour during which the queue had work waiting
                "admissionsPerPendingHour": round(self.admissions[name] / self.pending_hours(name), 3)
                if self.pending_hours(name) > 0 else None,
                "preemptionsPerHour": round(self.preemptions[name] / hours, 3),
                "admissions": self.admissions[name],
                "preemptions": self.preemptions[name],
            }
        for name in cqs:
            cqs[name]["evictions"] = dict(sorted(self.kueue_evictions.get(name, {}).items()))
        pr = sim.pods_ready
        out: dict[str, Any] = {
            "scenario": sim.scn.name,
            "kueue": {"version": sim.kueue.label, "featureGates": dict(sorted(sim.scn.gates.items())),
                      "fastPodQuotaRelease": sim.kueue.fast_pod_release,
                      "stuckPodFix": sim.kueue.stuck_pod_fix, "drs": sim.kueue.drs_mode},
            "workloads": {"created": created, "admitted": admitted, "finished": finished, "preempted": preempted},
            "classes": {k: {"count": counts[k],
                            "avgTimeToAdmissionMs": round(sum(v) / len(v), 3) if v else None}
                        for k, v in sorted({**{c: [] for c in counts}, **classes}.items())},
            "clusterQueues": cqs,
            "cycles": sim.cycles,
            "simulatedSeconds": round(sim.now, 3),
            "wallSeconds": round(getattr(sim, "wall_seconds", 0.0), 3),
        }
        out["kueue"]["waitForPodsReady"] = None if pr is None else {
            "timeoutSeconds": pr.timeout, "blockAdmission": pr.block_admission,
            "recoveryTimeoutSeconds": pr.recovery_timeout,
            "backoffLimitCount": pr.requeuing.backoff_limit_count,
            "backoffBaseSeconds": pr.requeuing.backoff_base_seconds,
            "backoffMaxSeconds": pr.requeuing.backoff_max_seconds, "source": pr.source}
        out["workloads"]["deactivated"] = sum(1 for sw in sim.workloads.values() if sw.deactivation is not None)
        out["admissionChecks"] = {c: dict(sorted(v.items())) for c, v in sorted(self.check_outcomes.items())}
        return out

    def timeseries(self) -> dict:
        return {cq: {"columns": ["t", "used", "nominal", "pendingFitsNominal", "violation"], "rows": rows}
                for cq, rows in sorted(self.series.items())}
