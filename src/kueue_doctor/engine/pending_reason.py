"""Why a workload is not admitted, in KEP-10852's words: read when Kueue wrote them, computed when
the release wrote only the legacy reasons.

KEP-10852 (kubernetes-sigs/kueue#10852, PRs #12510, #13022) gives QuotaReserved=False reasons
(NoMatchingFlavor, WaitingForQuota, ExceedsMaxQuota, TopologyPlacementFailed,
WaitingForPreemptedWorkloads, Misconfigured, Suspended, PendingEvaluation, WaitingForPodsReady)
and Admitted=False reasons (NoReservation, UnsatisfiedAdmissionChecks,
PendingDelayedTopologyRequests). The constants ship from v0.18.5; Kueue writes them only with
UnadmittedWorkloadsObservability on (default on from v0.20), otherwise ``Pending`` /
``Inadmissible`` / ``Waiting`` and ``UnsatisfiedChecks`` / ``NoReservationUnsatisfiedChecks``.

The scheduler's own decision (``Entry.reason``, set in ``engine/scheduler.py`` as upstream's
``quotaReservedReason``) is the computed reason; without a cycle, the legacy message Kueue
wrote (the inadmissible message) is mapped to the reason the same decision carries upstream.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..api import objects as o
from ..kueue import constants as kc
from .admissionchecks import FAILED_CHECKS_MESSAGE, admitted_condition
from .podsready import BLOCK_MESSAGE

WRITTEN: Final = "written"      # Kueue wrote this reason
COMPUTED: Final = "computed"    # the engine's decision (or the legacy reason mapped)

GRANULAR: Final = frozenset(kc.QUOTA_RESERVED_GRANULAR_REASONS)
ADMITTED_GRANULAR: Final = frozenset({kc.NO_RESERVATION, kc.UNSATISFIED_ADMISSION_CHECKS,
                                      kc.PENDING_DELAYED_TOPOLOGY_REQUESTS})
_LEGACY_ADMITTED: Final = {kc.UNSATISFIED_CHECKS_LEGACY: kc.UNSATISFIED_ADMISSION_CHECKS,
                           kc.NO_RESERVATION_UNSATISFIED_CHECKS: kc.NO_RESERVATION}


@dataclass(frozen=True, slots=True)
class PendingReason:
    condition: str      # QuotaReserved (no quota yet) or Admitted (quota reserved, not admitted)
    reason: str         # a KEP-10852 reason
    message: str
    source: str         # WRITTEN or COMPUTED
    written_reason: str = ""   # what Kueue wrote, when it differs (a legacy reason)


def from_message(message: str) -> str:
    """The KEP-10852 reason of the decision a legacy QuotaReserved=False message describes."""
    m = message
    if m.startswith(FAILED_CHECKS_MESSAGE) or m == "The workload was evicted":
        return kc.PENDING_EVALUATION
    if m.startswith(BLOCK_MESSAGE):
        return kc.WAITING_FOR_PODS_READY
    if " is inactive" in m or "is stopped" in m:
        return kc.SUSPENDED
    if "not found" in m or "doesn't match ClusterQueue selector" in m or ("namespace" in m and "not found" in m) \
            or m.startswith("resource validation failed"):
        return kc.MISCONFIGURED
    if "Pending the preemption of" in m or m.startswith("Waiting for the preempted workloads"):
        return kc.WAITING_FOR_PREEMPTED_WORKLOADS
    if "overlapping preemption targets" in m or "no longer fits" in m:
        return kc.WAITING_FOR_QUOTA
    if "topology" in m.lower() and ("cannot" in m or "couldn't" in m or "no topology" in m.lower()):
        return kc.TOPOLOGY_PLACEMENT_FAILED
    if "doesn't match node affinity" in m or "untolerated taint" in m or "does not match" in m \
            or ("flavor" in m and "not found" in m):
        return kc.NO_MATCHING_FLAVOR
    if "exceeds the maximum" in m or "more than the maximum" in m or "request > maximum capacity" in m:
        return kc.EXCEEDS_MAX_QUOTA
    if "insufficient" in m or "borrowing limit" in m or "quota" in m:
        return kc.WAITING_FOR_QUOTA
    return kc.PENDING_EVALUATION


def pending_reason(wl: o.Workload, decision: tuple[str, str] | None = None) -> PendingReason | None:
    """Why ``wl`` is not admitted; None when it is admitted or finished.

    ``decision``: the engine's (reason, message) for it in the last cycle (``Entry.reason``,
    ``Entry.inadmissible_msg``), which wins over a legacy reason Kueue wrote.
    """
    if wl.is_true(kc.FINISHED) or wl.is_true(kc.ADMITTED):
        return None
    if wl.is_true(kc.QUOTA_RESERVED):
        c = wl.condition(kc.ADMITTED)
        if c is not None and c.status == "False" and c.reason in ADMITTED_GRANULAR:
            return PendingReason(kc.ADMITTED, c.reason, c.message, WRITTEN)
        want = admitted_condition(wl, granular=True)
        written = c.reason if c is not None else ""
        if c is not None and c.reason in _LEGACY_ADMITTED and want.status == "True":
            return PendingReason(kc.ADMITTED, _LEGACY_ADMITTED[c.reason], c.message, COMPUTED, written)
        if want.status == "True":
            return None   # Kueue has not synced the condition yet: nothing holds it
        return PendingReason(kc.ADMITTED, want.reason, want.message, COMPUTED, written)
    c = wl.condition(kc.QUOTA_RESERVED)
    if c is not None and c.status == "False" and c.reason in GRANULAR:
        return PendingReason(kc.QUOTA_RESERVED, c.reason, c.message, WRITTEN)
    written = c.reason if c is not None and c.status == "False" else ""
    if decision is not None and decision[0] in GRANULAR:
        return PendingReason(kc.QUOTA_RESERVED, decision[0], decision[1], COMPUTED, written)
    if c is not None and c.status == "False":
        if c.reason == kc.WAITING_LEGACY:
            return PendingReason(kc.QUOTA_RESERVED, kc.WAITING_FOR_PODS_READY, c.message, COMPUTED, written)
        return PendingReason(kc.QUOTA_RESERVED, from_message(c.message), c.message, COMPUTED, written)
    # never attempted (StrictFIFO non-heads, or not reconciled yet): waiting for the scheduler
    return PendingReason(kc.QUOTA_RESERVED, kc.PENDING_EVALUATION, "", COMPUTED, written)
