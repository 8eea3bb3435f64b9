"""The prometheus_client collector: renders the source's current View at every scrape."""
from __future__ import annotations

import platform
import time
from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from .. import __version__
from ..doctor.findings import CauseId
from .topology import topology_metrics
from .upstream import render_upstream
from .view import View, base_value

P = "kueue_doctor_"
CQ_FR = ["cluster_queue", "flavor", "resource"]
COHORT_FR = ["cohort", "flavor", "resource"]


class DoctorCollector:
    def __init__(self, source):
        self.source = source

    def describe(self) -> list:
        # registering must not compute anything (live mode may not have a state yet)
        return []

    def collect(self) -> Iterator[Metric]:
        view, last, errors = self.source.current()
        now = time.time()
        yield build_info(view.kueue_version if view is not None else "")
        if view is not None:
            yield from render(view)
        g = GaugeMetricFamily(P + "last_refresh_timestamp_seconds",
                              "Unix time the exporter last confirmed its state current (0: never).")
        g.add_metric([], last or 0.0)
        yield g
        g = GaugeMetricFamily(P + "state_age_seconds",
                              "Seconds since the served state was last refreshed (+Inf: never).")
        g.add_metric([], now - last if last else float("inf"))
        yield g
        c = CounterMetricFamily(P + "refresh_errors", "Refreshes that failed; the last good state is served.")
        c.add_metric([], errors)
        yield c
        g = GaugeMetricFamily(P + "refresh_failing",
                              "1 while the most recent refresh failed (the last good state is served), else 0.")
        g.add_metric([], 1 if self.source.last_error else 0)
        yield g


def build_info(kueue_version: str) -> GaugeMetricFamily:
    """The Prometheus ``build_info`` convention: value 1, the build in labels. ``kueue_version`` is
    the Kueue release the served cluster runs (its controller image), "" until known."""
    g = GaugeMetricFamily(P + "build_info", "kueue-doctor build information, value 1; kueue_version is the Kueue "
                          "release of the served cluster (empty if unknown).",
                          labels=["version", "python_version", "kueue_version"])
    g.add_metric([__version__, platform.python_version(), kueue_version], 1)
    return g


def _gauge(name: str, doc: str, labels: list[str], rows) -> GaugeMetricFamily:
    g = GaugeMetricFamily(P + name, doc, labels=labels)
    for key, value in rows:
        g.add_metric(list(key) if isinstance(key, tuple) else [key], value)
    return g


def _frs(d: dict) -> list:
    return [(k, base_value(k[2], v)) for k, v in sorted(d.items())]


def render(view: View) -> Iterator[Metric]:
    yield _gauge("guarantee_violation",
                 "1 if work that fits the ClusterQueue's nominal quota waited past the threshold (or was admitted "
                 "but not running) on this flavor/resource, else 0.", CQ_FR, sorted(view.violation.items()))
    yield _gauge("pending_fitting_nominal",
                 "Requests of pending work the ClusterQueue's unused nominal quota would hold, in queue order "
                 "(cores for cpu, bytes for memory).", CQ_FR, _frs(view.pending_fits))
    yield _gauge("cluster_queue_resource_pending",
                 "Total requests of the ClusterQueue's pending workloads (upstream #9741). flavor is the first "
                 "flavor of the resource group covering the resource (pending work has no flavor yet); empty "
                 "if no group covers it.", CQ_FR, _frs(view.pending))
    yield _gauge("cohort_info", "Cohort tree edges, value 1 (upstream #7539); parent_cohort empty for a root.",
                 ["cohort", "parent_cohort", "root_cohort"],
                 [((c, p, r), 1) for c, (p, r) in sorted(view.cohort_info.items())])
    yield _gauge("cluster_queue_info", "ClusterQueue to cohort tree, value 1; empty cohorts for a standalone queue.",
                 ["cluster_queue", "parent_cohort", "root_cohort"],
                 [((q, p, r), 1) for q, (p, r) in sorted(view.cq_info.items())])
    yield _gauge("cohort_resource_usage", "Quota reserved against the cohort's shared pool by its subtree "
                 "(Kueue's cohort usage: what ClusterQueues use beyond the quota they keep back via lendingLimit).",
                 COHORT_FR, _frs(view.cohort_usage))
    yield _gauge("cohort_nominal_quota",
                 "Nominal quota of the cohort's subtree: its own plus what its children can lend "
                 "(upstream kueue_cohort_subtree_quota; same series as kueue_doctor_cohort_subtree_quota).",
                 COHORT_FR, _frs(view.cohort_nominal))
    yield _gauge("cohort_subtree_quota",
                 "Nominal quota of the cohort's subtree, named and labelled as upstream kueue_cohort_subtree_quota "
                 "(same series as kueue_doctor_cohort_nominal_quota).",
                 COHORT_FR, _frs(view.cohort_nominal))
    yield _gauge("free_slots",
                 "Nodes that could take one more pod of a pending shape, on the flavor's nodes "
                 "(shape: GPUs, CPUs, memory per pod, e.g. 8gpu or 1gpu-16cpu).",
                 ["flavor", "shape"], sorted(view.free_slots.items()))
    yield _gauge("stuck_preemption_targets",
                 "Preemption victims (Evicted=True) that still hold their quota (QuotaReserved=True).",
                 ["cluster_queue"], sorted(view.stuck_targets.items()))
    yield _gauge("terminating_victims_holding_quota",
                 "Victims still holding quota whose pods are past their termination grace period.",
                 ["cluster_queue"], sorted(view.past_grace.items()))
    yield _gauge("not_released_workloads",
                 "Admitted workloads still gated or suspended longer than the wait threshold.",
                 ["cluster_queue"], sorted(view.not_released.items()))
    yield from render_upstream(view.upstream)
    yield from topology_metrics(view)
    if view.causes is not None:
        yield _gauge("cause", "1 for each ClusterQueue the doctor names this cause for in a current guarantee "
                     "violation (cluster_queue empty: cluster-wide); a cause not named has one series, value 0.",
                     ["id", "cluster_queue"], cause_rows(view.causes))


def cause_rows(causes: dict[str, tuple[str, ...]]) -> list[tuple[tuple[str, str], int]]:
    """One series per (cause, ClusterQueue) named, value 1; one per other cause id, value 0 and
    cluster_queue "", so `max by (id)` sees every id."""
    rows = []
    for c in CauseId:
        named = causes.get(str(c))
        rows += [((str(c), q), 1) for q in named] if named else [((str(c), ""), 0)]
    return rows
