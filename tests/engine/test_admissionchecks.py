"""engine/admissionchecks.py, the failed-checks rule at nomination, and engine/pending_reason.py."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kueue_doctor.api import build
from kueue_doctor.api import objects as o
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine import admissionchecks as acs
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.pending_reason import COMPUTED, WRITTEN, from_message, pending_reason

T0 = datetime(2026, 1, 1, tzinfo=UTC)
RETRY = o.ProvisioningRetryStrategy(backoff_limit_count=2, backoff_base_seconds=60, backoff_max_seconds=1800)


def reserved(*states: o.AdmissionCheckState) -> o.Workload:
    wl = build.workload("ns", "w", "main", {"nvidia.com/gpu": 8}, admitted_to="cq", flavors={"nvidia.com/gpu": "f"},
                        admitted_at=T0)
    wl.status.conditions = [c for c in wl.status.conditions if c.type != "Admitted"]
    wl.status.check_states = list(states)
    return wl


def st(name, state, msg="", t=T0, **kw) -> o.AdmissionCheckState:
    return o.AdmissionCheckState(name, state, msg, t, **kw)


def test_admitted_only_when_every_check_is_ready():
    wl = reserved(st("a", "Ready"), st("b", "Pending"))
    c = acs.admitted_condition(wl)
    assert (c.status, c.reason, c.message) == ("False", "UnsatisfiedAdmissionChecks",
                                               "The workload has not all checks ready")
    assert acs.admitted_condition(wl, granular=False).reason == "UnsatisfiedChecks"
    wl.status.check_states[1].state = "Ready"
    assert acs.admitted_condition(wl).status == "True"


def test_retry_evicts_and_rejected_deactivates():
    ev = acs.check_eviction(reserved(st("prov", "Retry", "Retrying after failure: stockout")))
    assert ev is not None and ev.action == acs.RETRY and ev.reason == "AdmissionCheck"
    assert ev.message == 'Evicted due to AdmissionCheck in Retry state: "prov" (Retrying after failure: stockout)'
    ev = acs.check_eviction(reserved(st("a", "Rejected", "no"), st("b", "Rejected"), st("c", "Retry")))
    assert ev.action == acs.REJECT and ev.message == 'AdmissionChecks in Rejected state: "a" (no); "b"'
    assert acs.check_eviction(reserved(st("a", "Pending"))) is None


def test_reset_on_eviction_and_max_retry_time():
    states = [st("a", "Retry", "x", requeue_after_seconds=120), st("b", "Ready"), st("c", "Pending")]
    assert acs.max_retry_time(states) == T0 + timedelta(seconds=120)
    later = T0 + timedelta(minutes=1)
    a, b, c = acs.reset_on_eviction(states, later)
    assert (a.state, a.message, a.retry_count, a.requeue_after_seconds) == (
        "Pending", "Reset to Pending after eviction. Previously: Retry", 1, 120)
    assert (b.state, b.retry_count, b.last_transition_time) == ("Pending", None, later)
    assert c is states[2]


def test_checks_for_a_cluster_queue_honour_on_flavors():
    cq = build.cluster_queue("cq", {"a100": {"nvidia.com/gpu": 8}, "h100": {"nvidia.com/gpu": 8}})
    cq.admission_checks = ["all", "h100-only"]
    cq.admission_check_flavors = {"h100-only": ["h100"]}
    assert acs.checks_for(cq, {"a100"}) == ["all"]
    assert acs.checks_for(cq, {"h100"}) == ["all", "h100-only"]
    assert acs.checks_for(cq) == ["all"]


def pr_with(*conds: str) -> o.ProvisioningRequest:
    return o.ProvisioningRequest(o.Meta("w-prov-1", "ns"), "queued-provisioning.gke.io",
                                 conditions=[o.Condition(c, "True", c, f"{c} message", T0) for c in conds])


def test_provisioning_request_outcomes():
    pending = st("prov", "Pending")
    now = T0 + timedelta(minutes=5)
    ready = acs.provisioning_state(pending, pr_with("Accepted", "Provisioned"), RETRY, False, True, ["main"], now)
    assert ready.state == "Ready" and ready.message == "Provisioned message"
    assert ready.pod_set_updates[0].annotations == {
        "autoscaling.x-k8s.io/consume-provisioning-request": "w-prov-1",
        "autoscaling.x-k8s.io/provisioning-class-name": "queued-provisioning.gke.io"}
    retry = acs.provisioning_state(pending, pr_with("Accepted", "Failed"), RETRY, False, True, ["main"], now)
    assert (retry.state, retry.message, retry.requeue_after_seconds) == (
        "Retry", "Retrying after failure: Failed message", 60)
    third = st("prov", "Pending", retry_count=2)     # attempt 3 > backoffLimitCount 2
    rej = acs.provisioning_state(third, pr_with("Failed"), RETRY, False, True, ["main"], now)
    assert (rej.state, rej.message) == ("Rejected", "Failed message")
    booking = pr_with("Provisioned", "BookingExpired")
    assert acs.provisioning_state(pending, booking, RETRY, False, True, ["main"], now).state == "Retry"
    assert acs.provisioning_state(ready, booking, RETRY, True, True, ["main"], now) is ready   # admitted: ignored
    revoked = acs.provisioning_state(ready, pr_with("Provisioned", "CapacityRevoked"), RETRY, True, True, ["main"], now)
    assert revoked.state == "Rejected"


def test_failed_checks_keep_a_workload_out_of_the_cycle():
    s = ClusterState()
    s.add(build.flavor("f"))
    s.add(build.cluster_queue("cq", {"f": {"nvidia.com/gpu": 64}}))
    s.add(build.local_queue("ns", "main", "cq"))
    wl = build.workload("ns", "p", "main", {"nvidia.com/gpu": 8}, created=T0)
    wl.status.check_states = [st("prov", "Retry")]
    s.add(wl)
    res = AdmissionModel(s, EngineConfig()).cycle(T0)
    assert res.admitted == []
    (e,) = res.inadmissible
    assert (e.reason, e.inadmissible_msg) == ("PendingEvaluation", "The workload has failed admission checks")


def test_pending_reasons_read_or_computed():
    wl = build.workload("ns", "p", "main", {"nvidia.com/gpu": 8}, created=T0)
    wl.status.conditions = [o.Condition("QuotaReserved", "False", "ExceedsMaxQuota", "too big", T0)]
    assert pending_reason(wl) .reason == "ExceedsMaxQuota" and pending_reason(wl).source == WRITTEN
    wl.status.conditions = [o.Condition("QuotaReserved", "False", "Pending",
                                        "couldn't assign flavors to pod set main: insufficient unused quota", T0)]
    p = pending_reason(wl)
    assert (p.reason, p.source, p.written_reason) == ("WaitingForQuota", COMPUTED, "Pending")
    assert pending_reason(wl, ("NoMatchingFlavor", "m")).reason == "NoMatchingFlavor"   # the engine's decision wins
    wl.status.conditions = [o.Condition("QuotaReserved", "False", "Waiting",
                                        "waiting for all admitted workloads to be in PodsReady condition", T0)]
    assert pending_reason(wl).reason == "WaitingForPodsReady"
    r = pending_reason(reserved(st("prov", "Pending")))
    assert (r.condition, r.reason) == ("Admitted", "UnsatisfiedAdmissionChecks")
    assert from_message("The workload has failed admission checks") == "PendingEvaluation"
    assert from_message("ClusterQueue cq is inactive") == "Suspended"
    assert from_message("couldn't assign flavors: Pending the preemption of 2 workload(s)") == \
        "WaitingForPreemptedWorkloads"
