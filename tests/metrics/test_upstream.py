"""metrics/upstream.py: upstream Kueue's own quantities under kueue_doctor_ names, and the new causes.

Upstream: pkg/metrics/metrics.go (names, labels), pkg/cache/scheduler/clusterqueue.go
reportResourceMetrics (+Inf for an unset limit), pkg/cache/queue/unadmitted_workloads.go
getUnadmittedWorkloadStatus (reason from Admitted, underlying_cause from QuotaReserved).
"""
from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from kueue_doctor.api import build
from kueue_doctor.api import objects as o
from kueue_doctor.metrics.sources import FolderSource, SimSource
from kueue_doctor.metrics.upstream import ACTIVE, INADMISSIBLE, pending_status, unadmitted_key
from kueue_doctor.sim.incidents import incident_path
from tests.paths import TESTS

from .helpers import scrape, series

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def values(m, name, **labels) -> dict[tuple[str, ...], float]:
    return {tuple(v for _, v in k): val for k, val in series(m, name, **labels).items()}


def test_quota_metrics_follow_the_cluster_queue(hol_source):
    m = scrape(hol_source)
    key = ("perception", "autonomy", "h200", "nvidia.com/gpu")   # labels sorted: cluster_queue, cohort, ...
    # ANSWER.yaml of the incident: perception reserves 8 of its 24 GPUs
    assert values(m, "cluster_queue_nominal_quota")[key] == 24
    assert values(m, "cluster_queue_resource_reservation")[key] == 8
    assert values(m, "cluster_queue_resource_usage")[key] == 8        # the reserving workload is admitted
    lend = values(m, "cluster_queue_lending_limit", resource="nvidia.com/gpu")
    assert lend[key] == 0                                               # perception lends nothing
    assert lend[("planning", "autonomy", "h200", "nvidia.com/gpu")] == math.inf   # unset: +Inf, as upstream
    assert values(m, "cluster_queue_borrowing_limit")[key] == 40
    # the same amount in upstream's units: cores, not millicores
    assert values(m, "cluster_queue_nominal_quota")[("perception", "autonomy", "h200", "cpu")] == 576


def test_pending_and_reserving_counts(hol_source):
    m = scrape(hol_source)
    pending = values(m, "pending_workloads")
    # perception is StrictFIFO: Kueue requeues its head at once, nothing is parked
    assert pending[("perception", INADMISSIBLE)] == 0 and pending[("perception", ACTIVE)] == 7
    # BestEffortFIFO queues whose heads were tried and did not fit park them
    assert pending[("planning", INADMISSIBLE)] == 2
    assert values(m, "reserving_active_workloads")[("perception",)] == 1
    assert values(m, "admitted_active_workloads")[("data-labeling",)] == 16
    # every pending workload is one unadmitted workload, by its reasons
    unadmitted = values(m, "unadmitted_workloads")
    for cq in ("perception", "planning", "foundation-models", "simulation"):
        assert sum(v for k, v in unadmitted.items() if k[0] == cq) == \
            pending[(cq, ACTIVE)] + pending[(cq, INADMISSIBLE)], cq
    assert unadmitted[("perception", "NoReservation", "WaitingForQuota")] == 1      # the head
    assert unadmitted[("perception", "NoReservation", "PendingEvaluation")] == 6    # never tried behind it
    # per LocalQueue the same workloads, summed back per ClusterQueue
    per_lq = values(m, "local_queue_unadmitted_workloads")
    assert per_lq and all(len(k) == 5 for k in per_lq)
    back: dict[tuple[str, str, str], float] = {}
    for k, v in per_lq.items():
        labels = dict(zip(("cluster_queue", "name", "namespace", "reason", "underlying_cause"), k, strict=True))
        key = (labels["cluster_queue"], labels["reason"], labels["underlying_cause"])
        back[key] = back.get(key, 0) + v
    assert back == unadmitted


def pending_wl(reason: str, message: str) -> o.Workload:
    wl = build.workload("ns", "p", "main", {"nvidia.com/gpu": 8}, created=T0)
    wl.status.conditions = [o.Condition("QuotaReserved", "False", reason, message, T0)]
    return wl


def test_unadmitted_reason_and_underlying_cause():
    assert unadmitted_key(pending_wl("ExceedsMaxQuota", "too big")) == ("NoReservation", "ExceedsMaxQuota")
    # a release that writes the legacy reason: computed from the message
    assert unadmitted_key(pending_wl("Pending", "couldn't assign flavors to pod set main: insufficient unused "
                                     "quota for nvidia.com/gpu")) == ("NoReservation", "WaitingForQuota")
    # never attempted: upstream's fallback
    assert unadmitted_key(build.workload("ns", "n", "main", {"cpu": 1}, created=T0)) == \
        ("NoReservation", "PendingEvaluation")
    reserved = build.workload("ns", "r", "main", {"nvidia.com/gpu": 8}, admitted_to="cq",
                              flavors={"nvidia.com/gpu": "f"}, admitted_at=T0)
    assert unadmitted_key(reserved) is None
    reserved.status.conditions = [c for c in reserved.status.conditions if c.type != "Admitted"]
    reserved.status.check_states = [o.AdmissionCheckState("prov", "Pending", "", T0)]
    assert unadmitted_key(reserved) == ("UnsatisfiedAdmissionChecks", "")
    variant = pending_wl("Pending", "insufficient quota")
    variant.meta.owner_references = [{"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "name": "parent",
                                      "uid": "u1", "controller": True}]
    assert unadmitted_key(variant) is None      # upstream counts the parent, not its variants


def test_pending_status_from_the_last_attempt():
    no_fit = pending_wl("Pending", "couldn't assign flavors to pod set main: insufficient unused quota")
    assert pending_status(no_fit, "BestEffortFIFO") == INADMISSIBLE
    assert pending_status(no_fit, "StrictFIFO") == ACTIVE
    waiting = pending_wl("Pending", "couldn't assign flavors to pod set main: Pending the preemption of 1 workload(s)")
    assert pending_status(waiting, "BestEffortFIFO") == ACTIVE
    assert pending_status(build.workload("ns", "n", "main", {"cpu": 1}, created=T0), "BestEffortFIFO") == ACTIVE


def test_simulation_counts_come_from_the_engine_queues():
    src = SimSource(str(incident_path("slow-preemption-release")), timedelta(minutes=5), 30.0, 60.0)
    src.advance(40 * 60)
    m = scrape(src)
    sim = src.sim
    for name in ("team-a", "team-b"):
        q = sim.model.queues.queues[name]
        assert values(m, "pending_workloads", cluster_queue=name) == {
            (name, ACTIVE): q.pending_count() - len(q.inadmissible), (name, INADMISSIBLE): len(q.inadmissible)}
        assert values(m, "reserving_active_workloads")[(name,)] == len(sim.model.snapshot.cluster_queues[name].workloads)
    assert values(m, "reserving_active_workloads")[("team-b",)] > 0
    assert "kueue_doctor_unadmitted_workloads" not in m    # the simulator keeps no pending reasons


@pytest.mark.parametrize("cause", ["head-exceeds-max-quota", "preemption-retry-storm", "quota-held-without-pods"])
def test_new_causes_are_exported(cause):
    src = FolderSource(str(TESTS / "data" / "causes" / cause), timedelta(minutes=5), 30.0)
    named = {dict(k)["id"]: v for k, v in series(scrape(src), "cause").items() if v == 1}
    assert cause in named
