"""The quantities Kueue itself exports, computed from the same state as the doctor's own, under
upstream's metric names after the ``kueue_doctor_`` prefix and with upstream's label names, so a
dashboard joins the two ``on (cluster_queue, ...)`` (docs/exporter.md, "Joining").

Names, labels and meanings follow kubernetes-sigs/kueue ``pkg/metrics/metrics.go`` (v0.18-v0.20:
pending_workloads, reserving_active_workloads, admitted_active_workloads, unadmitted_workloads,
cluster_queue_resource_reservation / _usage / _nominal_quota / _borrowing_limit / _lending_limit);
the values as ``pkg/cache/scheduler/clusterqueue.go`` ``reportResourceMetrics`` and
``pkg/cache/queue/unadmitted_workloads.go`` ``getUnadmittedWorkloadStatus`` compute them.
``replica_role`` and custom labels are left out: they say which Kueue replica reported a series.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from prometheus_client.core import GaugeMetricFamily, Metric

from ..api import objects as o
from ..doctor.facts import Facts, WorkloadState
from ..engine.pending_reason import pending_reason
from ..engine.queues import QueueManager
from ..engine.snapshot import ClusterQueueSnapshot
from ..engine.workload import WorkloadInfo, is_variant
from ..kueue import constants as kc

ACTIVE, INADMISSIBLE = "active", "inadmissible"     # upstream PendingStatusActive / Inadmissible
# reasons of a failed attempt after which a BestEffortFIFO workload waits in the inadmissible set
# until the cluster changes (scheduler.go requeueAndUpdate: not an immediate requeue)
NO_FIT_REASONS = frozenset({kc.NO_MATCHING_FLAVOR, kc.WAITING_FOR_QUOTA, kc.EXCEEDS_MAX_QUOTA,
                            kc.TOPOLOGY_PLACEMENT_FAILED})
INF = float("inf")

QuotaKey = tuple[str, str, str, str]        # (cohort, cluster_queue, flavor, resource)


@dataclass
class UpstreamRows:
    pending: dict[tuple[str, str], int] = field(default_factory=dict)          # (cq, status)
    reserving: dict[str, int] = field(default_factory=dict)
    admitted: dict[str, int] = field(default_factory=dict)
    # (cq, reason, underlying_cause); None when the source cannot read workload conditions
    unadmitted: dict[tuple[str, str, str], int] | None = None
    # (LocalQueue name, namespace, cq, reason, underlying_cause), as kueue_local_queue_unadmitted_workloads
    lq_unadmitted: dict[tuple[str, str, str, str, str], int] | None = None
    reservation: dict[QuotaKey, float] = field(default_factory=dict)
    usage: dict[QuotaKey, float] = field(default_factory=dict)
    nominal: dict[QuotaKey, float] = field(default_factory=dict)
    borrowing_limit: dict[QuotaKey, float] = field(default_factory=dict)
    lending_limit: dict[QuotaKey, float] = field(default_factory=dict)


def _base(resource: str, amount: int) -> float:
    # engine amounts are millicores for cpu; Kueue exports cores (AsApproximateFloat64)
    return amount / 1000 if resource == "cpu" else float(amount)


Admitted = Callable[[WorkloadInfo], bool]


def written_admitted(wi: WorkloadInfo) -> bool:
    return wi.obj.is_true(kc.ADMITTED)


def quota_rows(rows: UpstreamRows, cqs: dict[str, ClusterQueueSnapshot], admitted: Admitted) -> None:
    """Per ClusterQueue quota (+Inf for an unset limit, as upstream) and what its workloads reserve
    (every workload holding quota) and use (those also Admitted=True)."""
    for name, cq in sorted(cqs.items()):
        cohort = cq.obj.cohort or ""
        reserved: dict[tuple[str, str], int] = {}
        used: dict[tuple[str, str], int] = {}
        for wi in cq.workloads.values():
            is_admitted = admitted(wi)
            for fr, v in wi.usage.items():
                reserved[fr] = reserved.get(fr, 0) + v
                if is_admitted:
                    used[fr] = used.get(fr, 0) + v
        for fr, q in sorted(cq.node.quotas.items()):
            key = (cohort, name, fr[0], fr[1])
            rows.nominal[key] = _base(fr[1], q.nominal)
            rows.borrowing_limit[key] = INF if q.borrowing_limit is None else _base(fr[1], q.borrowing_limit)
            rows.lending_limit[key] = INF if q.lending_limit is None else _base(fr[1], q.lending_limit)
            rows.reservation[key] = _base(fr[1], reserved.get(fr, 0))
            rows.usage[key] = _base(fr[1], used.get(fr, 0))


def holding_rows(rows: UpstreamRows, cqs: dict[str, ClusterQueueSnapshot], admitted: Admitted) -> None:
    """reserving_active_workloads and admitted_active_workloads (upstream counts only active
    workloads among the admitted: workload.IsActive && IsAdmitted)."""
    for name, cq in sorted(cqs.items()):
        rows.reserving[name] = len(cq.workloads)
        rows.admitted[name] = sum(1 for wi in cq.workloads.values()
                                  if admitted(wi) and wi.obj.active is not False)


def queue_pending_rows(rows: UpstreamRows, queues: QueueManager, names: Iterable[str]) -> None:
    """pending_workloads from the engine's own queues, where it keeps an inadmissible set (a
    running simulation)."""
    for name in sorted(names):
        q = queues.queues.get(name)
        parked = len(q.inadmissible) if q is not None else 0
        total = q.pending_count() if q is not None else 0
        rows.pending[(name, ACTIVE)] = total - parked
        rows.pending[(name, INADMISSIBLE)] = parked


def pending_status(wl: o.Workload, strategy: str) -> str:
    """Where Kueue keeps a pending workload, read from what its last attempt wrote: StrictFIFO
    requeues every failed head at once (manager.go RequeueWorkload, immediate), BestEffortFIFO parks
    one that did not fit until the cluster changes. Never attempted: active."""
    if strategy == "StrictFIFO":
        return ACTIVE
    c = wl.condition(kc.QUOTA_RESERVED)
    if c is None or c.status != "False":
        return ACTIVE
    pr = pending_reason(wl)
    return INADMISSIBLE if pr is not None and pr.reason in NO_FIT_REASONS else ACTIVE


def unadmitted_key(wl: o.Workload) -> tuple[str, str] | None:
    """(reason, underlying_cause) of kueue_unadmitted_workloads for a workload not admitted:
    the Admitted=False reason, and the QuotaReserved=False reason when quota is not reserved
    ("" when it is). Variants are left out, as upstream does (their parent is counted); None for
    an admitted, finished or deleted workload. The reasons are KEP-10852's, read when Kueue wrote
    them and computed (engine/pending_reason.py) for a release that writes the legacy ones."""
    if is_variant(wl) or wl.meta.deletion_timestamp is not None:
        return None
    pr = pending_reason(wl)
    if pr is None:
        return None
    if pr.condition == kc.QUOTA_RESERVED:
        return kc.NO_RESERVATION, pr.reason
    return pr.reason, ""


def unadmitted_rows(rows: UpstreamRows, workloads: Iterable[tuple[str, str, o.Workload]]) -> None:
    """Counts per (ClusterQueue, reason, underlying_cause), and per LocalQueue too, of the given
    (cluster queue, LocalQueue, workload)."""
    rows.unadmitted, rows.lq_unadmitted = {}, {}
    for cq, lq, wl in workloads:
        key = unadmitted_key(wl)
        if not cq or key is None:
            continue
        k = (cq, *key)
        rows.unadmitted[k] = rows.unadmitted.get(k, 0) + 1
        if lq:
            lk = (lq, wl.meta.namespace, cq, *key)
            rows.lq_unadmitted[lk] = rows.lq_unadmitted.get(lk, 0) + 1


def snapshot_upstream(facts: Facts, cqs: dict[str, ClusterQueueSnapshot]) -> UpstreamRows:
    """From a gathered snapshot: the engine's quota tree and queues, the conditions Kueue wrote."""
    rows = UpstreamRows()
    quota_rows(rows, cqs, written_admitted)
    holding_rows(rows, cqs, written_admitted)
    infos = facts.model.infos
    for name in sorted(cqs):
        rows.pending[(name, ACTIVE)] = rows.pending[(name, INADMISSIBLE)] = 0
    for name, q in facts.queues.items():
        strategy = cqs[name].strategy if name in cqs else ""
        for k in q.pending:
            key = (name, pending_status(infos[k].obj, strategy))
            rows.pending[key] = rows.pending.get(key, 0) + 1
    skip = (WorkloadState.FINISHED, WorkloadState.INACTIVE, WorkloadState.UNQUEUED)
    unadmitted_rows(rows, [(wf.cluster_queue, wf.local_queue, facts.state.workloads[k])
                           for k, wf in sorted(facts.workloads.items())
                           if wf.state not in skip and k in facts.state.workloads])
    return rows


def sim_upstream(sim, cqs: dict[str, ClusterQueueSnapshot]) -> UpstreamRows:
    """From a running simulation: its engine's queues (with their inadmissible sets) and quota
    tree; Admitted=True as the simulator's Kueue holds it. The simulator keeps no pending
    reasons on its workloads, so unadmitted_workloads is left out (its snapshot carries them)."""
    rows = UpstreamRows()

    def admitted(wi: WorkloadInfo) -> bool:
        sw = sim.workloads.get(wi.key)
        return sw is not None and sw.admitted_true_at is not None

    quota_rows(rows, cqs, admitted)
    holding_rows(rows, cqs, admitted)
    queue_pending_rows(rows, sim.model.queues, cqs)
    return rows


def _gauge(name: str, doc: str, labels: list[str], items) -> GaugeMetricFamily:
    g = GaugeMetricFamily("kueue_doctor_" + name, doc, labels=labels)
    for key, value in sorted(items):
        g.add_metric(list(key) if isinstance(key, tuple) else [key], value)
    return g


QUOTA_LABELS = ["cohort", "cluster_queue", "flavor", "resource"]


def render_upstream(rows: UpstreamRows | None) -> Iterator[Metric]:
    if rows is None:
        return
    yield _gauge("pending_workloads", "Pending workloads per cluster_queue and status (active: in the "
                 "admission queue; inadmissible: waiting for the cluster to change), as kueue_pending_workloads.",
                 ["cluster_queue", "status"], rows.pending.items())
    yield _gauge("reserving_active_workloads", "Workloads reserving quota per cluster_queue, as "
                 "kueue_reserving_active_workloads.", ["cluster_queue"], rows.reserving.items())
    yield _gauge("admitted_active_workloads", "Admitted active workloads per cluster_queue, as "
                 "kueue_admitted_active_workloads.", ["cluster_queue"], rows.admitted.items())
    if rows.unadmitted is not None:
        yield _gauge("unadmitted_workloads", "Workloads not admitted per cluster_queue, reason (Admitted=False) "
                     "and underlying_cause (QuotaReserved=False), as kueue_unadmitted_workloads (KEP-10852); "
                     "computed for releases that do not write these reasons.",
                     ["cluster_queue", "reason", "underlying_cause"], rows.unadmitted.items())
    if rows.lq_unadmitted is not None:
        yield _gauge("local_queue_unadmitted_workloads", "Workloads not admitted per LocalQueue (name, namespace), "
                     "cluster_queue, reason and underlying_cause, as kueue_local_queue_unadmitted_workloads.",
                     ["name", "namespace", "cluster_queue", "reason", "underlying_cause"], rows.lq_unadmitted.items())
    for name, doc, data in (
            ("cluster_queue_resource_reservation", "Quota reserved per flavor and resource, as "
             "kueue_cluster_queue_resource_reservation.", rows.reservation),
            ("cluster_queue_resource_usage", "Quota used by admitted workloads, as "
             "kueue_cluster_queue_resource_usage.", rows.usage),
            ("cluster_queue_nominal_quota", "Nominal quota, as kueue_cluster_queue_nominal_quota.", rows.nominal),
            ("cluster_queue_borrowing_limit", "Borrowing limit (+Inf: unset), as "
             "kueue_cluster_queue_borrowing_limit.", rows.borrowing_limit),
            ("cluster_queue_lending_limit", "Lending limit (+Inf: unset), as kueue_cluster_queue_lending_limit.",
             rows.lending_limit)):
        yield _gauge(name, doc, QUOTA_LABELS, data.items())
