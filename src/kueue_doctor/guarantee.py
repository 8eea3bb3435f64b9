"""Guarantee violations: work a ClusterQueue's nominal quota would hold, waiting too long.

As the tenant sees it (shared/DESIGN.md, "Words"): pending work that fits inside the queue's
nominal quota, counting what the queue already uses, has waited longer than a threshold
without running - not admitted, or admitted but still gated, suspended or unschedulable.
Work that only fits by borrowing is not guaranteed. Shared by the simulator, the doctor
and the exporter; pure (time comes in as an argument).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Iterable, Optional

from .engine.quota import FR
from .engine.snapshot import ClusterQueueSnapshot
from .engine.workload import WorkloadInfo

DEFAULT_MIN_WAIT = timedelta(minutes=5)


@dataclass
class QueueGuarantee:
    cluster_queue: str
    nominal: dict[FR, int] = field(default_factory=dict)
    reserved: dict[FR, int] = field(default_factory=dict)
    pending_fits: dict[FR, int] = field(default_factory=dict)   # quota pending work needs that nominal would give
    fitting: list[str] = field(default_factory=list)            # pending workloads that alone fit unused nominal
    violating: list[str] = field(default_factory=list)          # ... that waited longer than the threshold
    not_running: list[str] = field(default_factory=list)        # admitted, not running, waited too long
    since: Optional[datetime] = None

    @property
    def violated(self) -> bool:
        return bool(self.violating or self.not_running)


def waiting_since(wi: WorkloadInfo) -> datetime:
    return wi.extra.get("waiting_since") or wi.creation


def evaluate(cq: ClusterQueueSnapshot, pending: Iterable[WorkloadInfo], now: datetime,
             min_wait: timedelta = DEFAULT_MIN_WAIT,
             not_running: Iterable[tuple[WorkloadInfo, datetime]] = ()) -> QueueGuarantee:
    """``pending`` in queue order; ``not_running``: admitted workloads not yet running, with the
    time since which they wait (admission or creation)."""
    node = cq.node
    g = QueueGuarantee(cq.name)
    for fr, q in node.quotas.items():
        g.nominal[fr] = q.nominal
        g.reserved[fr] = node.usage.get(fr, 0)
    unused = {fr: max(0, g.nominal[fr] - g.reserved[fr]) for fr in g.nominal}
    free = dict(unused)
    if not any(unused.values()):
        pending = ()  # a queue at or above its nominal quota guarantees nothing more
    # what any flavor could still give per resource: a cheap first test before placing
    room: dict[str, int] = {}
    for fr, v in unused.items():
        room[fr[1]] = max(room.get(fr[1], 0), v)
    for wi in pending:
        if any(v > room.get(r, 0) for r, v in _largest_requests(wi).items()):
            continue
        # the quota nominal would give: pending work taken in queue order until it is used up
        placed = _fit_within(cq, wi, free)
        if placed is not None:
            for fr, v in placed.items():
                free[fr] -= v
                g.pending_fits[fr] = g.pending_fits.get(fr, 0) + v
        # a workload is guaranteed when it alone fits what the queue leaves unused
        if placed is None and _fit_within(cq, wi, unused) is None:
            continue
        g.fitting.append(wi.key)
        started = waiting_since(wi)
        if now - started >= min_wait:
            g.violating.append(wi.key)
            g.since = min(g.since, started + min_wait) if g.since else started + min_wait
    for wi, started in not_running:
        if now - started >= min_wait:
            g.not_running.append(wi.key)
            g.since = min(g.since, started + min_wait) if g.since else started + min_wait
    return g


def _largest_requests(wi: WorkloadInfo) -> dict[str, int]:
    """Per resource, the largest pod set total: no flavor with less room can take the workload."""
    cached = wi.extra.get("largest_requests")
    if cached is None:
        cached = {}
        for ps in wi.pod_sets:
            for r, v in ps.total().items():
                if v > cached.get(r, 0):
                    cached[r] = v
        wi.extra["largest_requests"] = cached
    return cached


def _plan(cq: ClusterQueueSnapshot, wi: WorkloadInfo) -> Optional[list[tuple[list[str], dict[str, int]]]]:
    """Per pod set and resource group: the flavors to try and what the group needs (None when
    a requested resource is in no group). Cached per workload and queue: samples ask often."""
    cache = wi.extra.setdefault("fit_plans", {})
    if cq.name in cache:
        return cache[cq.name]
    plan: Optional[list] = []
    covers_pods = cq.covers("pods")
    for ps in wi.pod_sets:
        req = ps.total()
        if covers_pods:
            req["pods"] = ps.count
        done: set[str] = set()
        for res, v in req.items():
            if res in done or v == 0:
                continue
            group = cq.group_for(res)
            if group is None:
                plan = None
                break
            wanted = {r: x for r, x in req.items() if r in group.covered and x}
            plan.append((group.flavors, wanted))
            done.update(wanted)
        if plan is None:
            break
    cache[cq.name] = plan
    return plan


def _fit_within(cq: ClusterQueueSnapshot, wi: WorkloadInfo, free: dict[FR, int]) -> Optional[dict[FR, int]]:
    """Flavors (first that fits, in the queue's order) under which the workload fits in ``free``."""
    plan = _plan(cq, wi)
    if plan is None:
        return None
    placed: dict[FR, int] = {}
    for flavors, wanted in plan:
        for flavor in flavors:
            if all(free.get((flavor, r), 0) - placed.get((flavor, r), 0) >= x for r, x in wanted.items()):
                for r, x in wanted.items():
                    placed[(flavor, r)] = placed.get((flavor, r), 0) + x
                break
        else:
            return None
    return placed
