"""Admission checks: which apply, when a workload with quota is Admitted, what Retry and Rejected
do, and the ProvisioningRequest controller's mapping from a request's conditions to a check state.

Upstream: ``pkg/workload/admissionchecks.go`` (``SyncAdmittedCondition``, ``HasAllChecksReady``,
``GetMaxRetryTime``), ``pkg/workload/workload.go`` (``AdmissionChecksForWorkload``),
``pkg/controller/core/workload_controller.go`` (``reconcileCheckBasedEviction``,
``buildAdmissionChecksMessage``), ``pkg/workload/evict/evict.go`` (``resetChecksOnEviction``),
``pkg/controller/admissionchecks/provisioning/controller.go`` (``syncCheckStates``).

- A workload with quota reserved is Admitted only when every check in ``status.admissionChecks``
  is Ready (Admitted=False reason UnsatisfiedAdmissionChecks, legacy UnsatisfiedChecks).
- Retry: the workload is evicted (Evicted reason AdmissionCheck, "Evicted due to AdmissionCheck in
  Retry state: ..."), its quota released, every check reset to Pending (a Retry's retryCount + 1)
  and it waits until the latest Retry's lastTransitionTime + requeueAfterSeconds.
- Rejected: DeactivationTarget (reason AdmissionCheck), then spec.active=false and eviction
  (Evicted reason DeactivatedDueToAdmissionCheck); an AdmissionCheckRejected Warning event.
- While a check is Retry or Rejected the scheduler does not consider the workload ("The workload
  has failed admission checks", QuotaReserved reason PendingEvaluation).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Final

from ..api import objects as o
from ..kueue import constants as kc
from ..kueue.podsready import backoff_seconds

FAILED_CHECKS_MESSAGE: Final = "The workload has failed admission checks"


def checks_for(cq: o.ClusterQueue, flavors: Iterable[str] | None = None) -> list[str]:
    """The checks a workload of ``cq`` needs: with an admission (its flavors), every check whose
    onFlavors is empty or meets them; without one, only the checks for every flavor."""
    all_flavors = {f.name for g in cq.resource_groups for f in g.flavors}
    used = set(flavors) if flavors is not None else None
    out = []
    for name in cq.admission_checks:
        on = set(cq.admission_check_flavors.get(name) or all_flavors)
        if (used is not None and on & used) or (used is None and on >= all_flavors):
            out.append(name)
    return sorted(set(out))


def admitted_on_reservation(wl: o.Workload, cq: o.ClusterQueue, flavors: Iterable[str]) -> bool:
    """Whether the scheduler's quota reservation also admits ``wl`` (scheduler.go prepareWorkload):
    with no check required for its flavors it is Admitted at once; otherwise only when its status
    already lists every required check (HasAllRequiredChecks) and all its checks are Ready
    (SyncAdmittedCondition). Else the check controllers admit it later."""
    required = checks_for(cq, flavors)
    if not required:
        return True
    listed = {c.name for c in wl.status.check_states}
    return set(required) <= listed and all_ready(wl)


def in_state(wl: o.Workload, state: str) -> list[o.AdmissionCheckState]:
    return [c for c in wl.status.check_states if c.state == state]


def all_ready(wl: o.Workload) -> bool:
    return all(c.state == kc.CHECK_READY for c in wl.status.check_states)


def failed(wl: o.Workload) -> bool:
    """A Retry or Rejected check: the scheduler leaves the workload out (nominate)."""
    return any(c.state in (kc.CHECK_RETRY, kc.CHECK_REJECTED) for c in wl.status.check_states)


def checks_message(checks: Sequence[o.AdmissionCheckState], state: str) -> str:
    """buildAdmissionChecksMessage: ``AdmissionCheck in Retry state: "a" (msg); "b"``."""
    parts = [f'"{c.name}" ({c.message})' if c.message else f'"{c.name}"' for c in sorted(checks, key=lambda c: c.name)]
    noun = "AdmissionChecks" if len(checks) > 1 else "AdmissionCheck"
    return f"{noun} in {state} state: {'; '.join(parts)}"


@dataclass(frozen=True, slots=True)
class AdmittedCondition:
    status: str
    reason: str
    message: str


def admitted_condition(wl: o.Workload, granular: bool = True,
                       topology_pending: bool = False) -> AdmittedCondition:
    """The Admitted condition SyncAdmittedCondition writes (``granular``: the release writes the
    KEP-10852 reasons, UnadmittedWorkloadsObservability)."""
    reserved = wl.is_true(kc.QUOTA_RESERVED)
    ready = all_ready(wl)
    if not reserved and not ready:
        if granular:
            return AdmittedCondition("False", kc.NO_RESERVATION, kc.NO_RESERVATION_MESSAGE)
        return AdmittedCondition("False", kc.NO_RESERVATION_UNSATISFIED_CHECKS,
                                 "The workload has no reservation and not all checks ready")
    if not reserved:
        return AdmittedCondition("False", kc.NO_RESERVATION, kc.NO_RESERVATION_MESSAGE)
    if not ready:
        return AdmittedCondition("False", kc.UNSATISFIED_ADMISSION_CHECKS if granular else kc.UNSATISFIED_CHECKS_LEGACY,
                                 kc.UNSATISFIED_CHECKS_MESSAGE)
    if topology_pending:
        return AdmittedCondition("False", kc.PENDING_DELAYED_TOPOLOGY_REQUESTS,
                                 "There are pending delayed topology requests")
    return AdmittedCondition("True", kc.ADMITTED_REASON, kc.ADMITTED_MESSAGE)


REJECT: Final = "reject"   # DeactivationTarget, then deactivation and eviction
RETRY: Final = "retry"     # eviction with reason AdmissionCheck


@dataclass(frozen=True, slots=True)
class CheckEviction:
    action: str
    reason: str        # Evicted (Retry) or DeactivationTarget (Reject) reason
    message: str


def check_eviction(wl: o.Workload) -> CheckEviction | None:
    """reconcileCheckBasedEviction: what a Retry or Rejected check does to a not yet evicted workload."""
    if wl.is_true(kc.EVICTED):
        return None
    rejected = in_state(wl, kc.CHECK_REJECTED)
    if rejected:
        return CheckEviction(REJECT, kc.EVICTED_BY_ADMISSION_CHECK, checks_message(rejected, kc.CHECK_REJECTED))
    retry = in_state(wl, kc.CHECK_RETRY)
    if retry:
        return CheckEviction(RETRY, kc.EVICTED_BY_ADMISSION_CHECK,
                             f"Evicted due to {checks_message(retry, kc.CHECK_RETRY)}")
    return None


def max_retry_time(states: Iterable[o.AdmissionCheckState]) -> datetime | None:
    """GetMaxRetryTime: the latest Retry's lastTransitionTime + requeueAfterSeconds (None if none)."""
    best: datetime | None = None
    for c in states:
        if c.state != kc.CHECK_RETRY or c.requeue_after_seconds is None or c.last_transition_time is None:
            continue
        t = c.last_transition_time + timedelta(seconds=c.requeue_after_seconds)
        if best is None or t > best:
            best = t
    return best


def reset_on_eviction(states: Iterable[o.AdmissionCheckState], now: datetime) -> list[o.AdmissionCheckState]:
    """resetChecksOnEviction: every check not Pending back to Pending; a Retry counts one retry."""
    out = []
    for c in states:
        if c.state == kc.CHECK_PENDING:
            out.append(c)
            continue
        retry = (c.retry_count or 0) + 1 if c.state == kc.CHECK_RETRY else None
        out.append(o.AdmissionCheckState(c.name, kc.CHECK_PENDING, kc.CHECK_RESET_MESSAGE + c.state, now,
                                         [], retry, c.requeue_after_seconds))
    return out


# -- the ProvisioningRequest controller ---------------------------------------------------------

def provisioning_request_name(workload: str, check: str, attempt: int) -> str:
    """ProvisioningRequestName: ``<workload>-<check>-<attempt>`` (attempt = retryCount + 1)."""
    return f"{workload}-{check}-{attempt}"


def pod_template_name(request: str, pod_set: str) -> str:
    return f"ppt-{request}-{pod_set}"


def provisioning_state(state: o.AdmissionCheckState, pr: o.ProvisioningRequest | None,
                       retry: o.ProvisioningRetryStrategy, admitted: bool, active: bool,
                       pod_sets: Sequence[str], now: datetime) -> o.AdmissionCheckState:
    """syncCheckStates for one provisioning check: ``state`` as the request's conditions make it.

    ``pr`` is the check's current request (``<wl>-<check>-<retryCount+1>``); None: not created yet.
    """
    if pr is None:
        return state
    attempt = (state.retry_count or 0) + 1

    def msg(ctype: str) -> str:
        c = pr.condition(ctype)
        return c.message if c is not None else ""

    def to(new_state: str, message: str) -> o.AdmissionCheckState:
        if new_state == state.state and message == state.message:
            return state
        ltt = now if new_state != state.state else state.last_transition_time
        return replace(state, state=new_state, message=message, last_transition_time=ltt)

    def retry_or_reject(ctype: str, words: str) -> o.AdmissionCheckState:
        if attempt <= retry.backoff_limit_count:
            s = to(kc.CHECK_RETRY, f"{words}: {msg(ctype)}")
            wait = backoff_seconds(attempt, retry.backoff_base_seconds, retry.backoff_max_seconds)
            return replace(s, requeue_after_seconds=int(wait))
        return to(kc.CHECK_REJECTED, msg(ctype))

    if pr.is_true(kc.PR_FAILED):
        return retry_or_reject(kc.PR_FAILED, "Retrying after failure")
    if pr.is_true(kc.PR_CAPACITY_REVOKED):
        return to(kc.CHECK_REJECTED, msg(kc.PR_CAPACITY_REVOKED)) if active else state
    if pr.is_true(kc.PR_BOOKING_EXPIRED):
        return state if admitted else retry_or_reject(kc.PR_BOOKING_EXPIRED, "Retrying after booking expired")
    if pr.is_true(kc.PR_PROVISIONED):
        if state.state == kc.CHECK_READY:
            return state
        s = to(kc.CHECK_READY, msg(kc.PR_PROVISIONED))
        return replace(s, pod_set_updates=[
            o.PodSetUpdate(name=ps, annotations={kc.PR_CONSUME_ANNOTATION: pr.meta.name,
                                                 kc.PR_CLASS_ANNOTATION: pr.provisioning_class_name})
            for ps in pod_sets])
    if pr.is_true(kc.PR_ACCEPTED):
        prov = pr.condition(kc.PR_PROVISIONED)
        return to(kc.CHECK_PENDING, prov.message) if prov is not None else state
    return to(kc.CHECK_PENDING, "")
