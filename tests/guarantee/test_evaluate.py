"""The guarantee on hand-built queues: what counts as work that fits the nominal quota."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kueue_doctor.api.load import load_documents
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.guarantee import Evaluator, Fit, NotRunning, QueueObservation, Waiting
from kueue_doctor.keys import WorkloadKey
from tests.doctor.cluster import cluster_queue, flavor, local_queue, workload

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
LONG_AGO = NOW - timedelta(minutes=30)


def model(*objs) -> AdmissionModel:
    return AdmissionModel(load_documents(list(objs)), EngineConfig())


def observe(m: AdmissionModel, cq: str = "q", since: datetime = LONG_AGO, not_running=()) -> QueueObservation:
    snap = m.snapshot
    queue = snap.cluster_queues.get(cq) or snap.inactive[cq]
    return QueueObservation(queue, [Waiting(wi, since) for wi in m.queues.pending_in_order(cq)], not_running)


def evaluate(m: AdmissionModel, **kw):
    return Evaluator(m.snapshot.flavors, m.config).evaluate(observe(m, **kw), NOW, detail=True)


BASE = (flavor("f", {}), cluster_queue("q", {"f": 8}, strategy="BestEffortFIFO"), local_queue("ns", "lq", "q"))


def test_work_is_taken_in_queue_order_until_the_nominal_quota_is_used_up():
    m = model(*BASE, workload("ns", "a", "lq", 6, created="2026-11-30T11:00:00Z"),
              workload("ns", "b", "lq", 6, created="2026-11-30T11:01:00Z"))
    g = evaluate(m)
    assert g.pending_fits == {("f", "nvidia.com/gpu"): 6}   # b no longer fits after a
    assert g.fitting == (WorkloadKey("ns", "a"), WorkloadKey("ns", "b"))                      # ... but each fits alone
    assert g.violating == (WorkloadKey("ns", "a"), WorkloadKey("ns", "b")) and g.violated
    assert g.since == LONG_AGO + timedelta(minutes=5)


def test_work_waiting_less_than_the_threshold_is_not_a_violation():
    m = model(*BASE, workload("ns", "a", "lq", 2))
    g = evaluate(m, since=NOW - timedelta(minutes=4))
    assert g.fitting == (WorkloadKey("ns", "a"),) and g.violating == () and not g.violated


def test_work_larger_than_the_unused_nominal_quota_is_not_guaranteed():
    m = model(*BASE, workload("ns", "used", "lq", 4, admitted_to=("q", "f")), workload("ns", "a", "lq", 6))
    g = evaluate(m)
    assert g.reserved == {("f", "nvidia.com/gpu"): 4}
    assert g.fitting == () and g.verdicts[WorkloadKey("ns", "a")].fit is Fit.NEEDS_MORE_THAN_UNUSED_NOMINAL


def test_a_queue_at_its_nominal_quota_guarantees_nothing_more():
    m = model(*BASE, workload("ns", "used", "lq", 8, admitted_to=("q", "f")), workload("ns", "a", "lq", 1))
    g = evaluate(m)
    assert g.verdicts[WorkloadKey("ns", "a")].fit is Fit.QUEUE_AT_NOMINAL and not g.violated


def test_a_resource_no_group_covers_is_never_guaranteed():
    m = model(*BASE, workload("ns", "a", "lq", 1, resource="example.com/fpga"))
    assert evaluate(m).verdicts[WorkloadKey("ns", "a")].fit is Fit.RESOURCE_NOT_COVERED


def test_flavors_the_pod_cannot_use_are_excluded_with_kueues_reason():
    m = model(flavor("a100", {"pool": "a100"}), flavor("h100", {"pool": "h100"}),
              cluster_queue("q", {"a100": 8, "h100": 8}), local_queue("ns", "lq", "q"),
              workload("ns", "w", "lq", 8, node_selector={"pool": "h100"}))
    v = evaluate(m).verdicts[WorkloadKey("ns", "w")]
    assert v.fit is Fit.FITS and dict(v.placed) == {("h100", "nvidia.com/gpu"): 8}
    assert v.excluded == ("flavor a100 doesn't match node affinity",)


def test_no_eligible_flavor():
    m = model(flavor("a100", {"pool": "a100"}), cluster_queue("q", {"a100": 8}), local_queue("ns", "lq", "q"),
              workload("ns", "w", "lq", 1, node_selector={"pool": "h100"}))
    assert evaluate(m).verdicts[WorkloadKey("ns", "w")].fit is Fit.NO_ELIGIBLE_FLAVOR


def test_admitted_work_that_does_not_run_counts_only_inside_the_nominal_quota():
    m = model(*BASE, workload("ns", "gated", "lq", 4, admitted_to=("q", "f")))
    wi = m.snapshot.cluster_queues["q"].workloads[WorkloadKey("ns", "gated")]
    g = evaluate(m, not_running=[NotRunning(wi, LONG_AGO, "gated")])
    assert g.not_running == (WorkloadKey("ns", "gated"),) and g.violated
    recent = evaluate(m, not_running=[NotRunning(wi, NOW - timedelta(minutes=1), "gated")])
    assert recent.not_running == ()


def test_the_evaluator_keeps_plans_per_workload_object():
    m = model(*BASE, workload("ns", "a", "lq", 2))
    ev = Evaluator(m.snapshot.flavors, m.config)
    cq = m.snapshot.cluster_queues["q"]
    wi = m.infos[WorkloadKey("ns", "a")]
    assert ev.plan(cq, wi) is ev.plan(cq, wi)
    ev.forget(WorkloadKey("ns", "a"))
    assert ev._plans == {}


def test_partial_admission_counts_work_that_fits_at_its_min_count():
    w = workload("ns", "a", "lq", 2, count=8)           # 16 GPUs in all, 8 nominal
    w["spec"]["podSets"][0]["minCount"] = 3              # 6 GPUs at its smallest
    g = evaluate(model(*BASE, w))
    assert g.fitting == (WorkloadKey("ns", "a"),) and g.pending_fits == {("f", "nvidia.com/gpu"): 6}
    w["spec"]["podSets"][0]["minCount"] = 5              # 10 GPUs: more than the nominal quota
    assert evaluate(model(*BASE, w)).fitting == ()
