"""WaitForPodsReady: the PodsReady timeout, the requeue backoff and its limit, blockAdmission.

Upstream: ``pkg/controller/core/workload_controller.go`` (``admittedNotReadyWorkload``,
``reconcileNotReadyTimeout``, ``triggerDeactivation``), ``pkg/workload/workload.go``
(``UpdateRequeueState``), ``pkg/cache/scheduler`` (``WorkloadsNotReady``,
``PodsReadyForAllAdmittedWorkloads``), ``pkg/scheduler/scheduler.go`` (``waitForPodsReadyIfNeeded``).
Settings per release: ``kueue.podsready``. Pure: time is an argument.

- An admitted workload (Admitted=True) whose PodsReady is not True is timed from its Admitted
  condition's transition while PodsReady is absent or WaitForStart (``timeout``), or from the
  PodsReady=False transition while WaitForRecovery (``recoveryTimeout``; none configured: never).
- At the deadline: if ``requeueState.count + 1`` exceeds ``backoffLimitCount`` the workload gets
  DeactivationTarget (reason RequeuingLimitExceeded) and is then deactivated and evicted
  (Evicted reason DeactivatedDueToRequeuingLimitExceeded); otherwise it is evicted with reason
  PodsReadyTimeout ("Exceeded the PodsReady timeout ns/name"), count + 1, requeueAt = now + backoff.
- After the eviction its quota is released when the job stops (Requeued=False, reason
  PodsReadyTimeout) and it waits in the queue until requeueAt (then Requeued=True,
  BackoffFinished).
- blockAdmission: while any workload holding quota is not PodsReady, the scheduler does not admit
  a new one (it writes QuotaReserved=False WaitingForPodsReady on the candidate and waits).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from ..api import objects as o
from ..kueue import constants as kc
from ..kueue.podsready import WaitForPodsReady

NONE: Final = "none"              # not timed: not admitted, ready, or no timeout applies
WAIT: Final = "wait"              # timed, the deadline is ahead
EVICT: Final = "evict"            # evicted with reason PodsReadyTimeout
DEACTIVATE: Final = "deactivate"  # over backoffLimitCount: deactivated


@dataclass(frozen=True, slots=True)
class Verdict:
    action: str
    cause: str = ""                         # WaitForStart | WaitForRecovery (the underlying cause)
    deadline: datetime | None = None
    requeue_count: int | None = None        # status.requeueState.count after an eviction
    requeue_at: datetime | None = None
    reason: str = ""                        # the Evicted (or DeactivationTarget) reason Kueue writes
    message: str = ""


def pods_ready(wl: o.Workload) -> bool:
    return wl.is_true(kc.PODS_READY)


def deadline(wl: o.Workload, cfg: WaitForPodsReady) -> tuple[str, datetime] | None:
    """(underlying cause, when the timeout fires) for an admitted, not ready workload; else None."""
    if not wl.is_true(kc.ADMITTED) or not wl.active or wl.is_true(kc.EVICTED):
        return None
    cond = wl.condition(kc.PODS_READY)
    if cond is not None and cond.status == "True":
        return None
    if cond is None or cond.reason in (kc.WAIT_FOR_START, "PodsReady"):
        admitted = wl.condition(kc.ADMITTED)
        if admitted is None or admitted.last_transition_time is None:
            return None
        return kc.WAIT_FOR_START, admitted.last_transition_time + timedelta(seconds=cfg.timeout)
    if cond.reason == kc.WAIT_FOR_RECOVERY and cfg.recovery_timeout is not None \
            and cond.last_transition_time is not None:
        return kc.WAIT_FOR_RECOVERY, cond.last_transition_time + timedelta(seconds=cfg.recovery_timeout)
    return None


def timeout_message(wl: o.Workload) -> str:
    return f"Exceeded the PodsReady timeout {wl.meta.namespace}/{wl.meta.name}"


LIMIT_MESSAGE: Final = "exceeding the maximum number of re-queuing retries"


def deactivated_message(cause_message: str) -> str:
    """The Evicted message of a deactivation with a DeactivationTarget (workload_controller.go)."""
    return f"The workload is deactivated due to {cause_message}" if cause_message else "The workload is deactivated"


def evaluate(wl: o.Workload, cfg: WaitForPodsReady, now: datetime) -> Verdict:
    """What the workload controller does to ``wl`` at ``now`` (reconcileNotReadyTimeout)."""
    d = deadline(wl, cfg)
    if d is None:
        return Verdict(NONE)
    cause, when = d
    if now < when:
        return Verdict(WAIT, cause, when)
    count = (wl.status.requeue_state.count or 0) if wl.status.requeue_state is not None else 0
    limit = cfg.requeuing.backoff_limit_count
    if limit is not None and count + 1 > limit:
        return Verdict(DEACTIVATE, cause, when, reason=kc.REQUEUING_LIMIT_EXCEEDED, message=LIMIT_MESSAGE)
    n = count + 1
    return Verdict(EVICT, cause, when, requeue_count=n, requeue_at=now + timedelta(seconds=cfg.backoff(n)),
                   reason=kc.EVICTED_BY_PODS_READY_TIMEOUT, message=timeout_message(wl))


def not_ready(holding_quota: Iterable[o.Workload]) -> list[o.Workload]:
    """The workloads the cache counts in WorkloadsNotReady: holding quota, PodsReady not True."""
    return [w for w in holding_quota if not pods_ready(w)]


BLOCK_MESSAGE: Final = "waiting for all admitted workloads to be in PodsReady condition"


def block_reason(granular: bool) -> str:
    """The QuotaReserved=False reason of a candidate blocked by blockAdmission."""
    return kc.WAITING_FOR_PODS_READY if granular else kc.WAITING_LEGACY
