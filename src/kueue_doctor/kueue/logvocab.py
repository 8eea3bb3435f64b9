"""The Kueue controller's log, as zap's JSON encoder prints it: record keys, messages, the field
keys each message carries and the values readers compare with (kueue-signals.md §D).

The simulator's log writer (sim/zaplog.py) and the log scanner (logs/) both spell every message
and key from here, so a wording that changes in a Kueue release changes in one place for both.
The scanner's byte-level fast path derives its byte patterns from these strings when it is
imported; nothing here is looked up per line.
"""
from __future__ import annotations

import re
from typing import Final

# -- what zap writes on every record, in this order --------------------------------------------
LEVEL: Final = "level"
TS: Final = "ts"
LOGGER: Final = "logger"
CALLER: Final = "caller"
MSG: Final = "msg"
REPLICA_ROLE: Final = "replica-role"      # from about v0.17, right after msg

LEVEL_ERROR: Final = "error"
ERROR_LEVELS: Final = (LEVEL_ERROR, "dpanic", "panic", "fatal")


def level(v: int) -> str:
    """zap's name for logr verbosity ``v``: V(0) is info, V(1) debug, deeper ones Level(-v)."""
    return {0: "info", 1: "debug"}.get(v, f"Level(-{v})")


# -- messages: the scheduling cycle (pkg/scheduler) --------------------------------------------
MSG_CYCLE_STARTS: Final = "Scheduling cycle starts"                      # v0.17+
MSG_CLUSTER_QUEUE_HEADS: Final = "Obtained ClusterQueue heads"
MSG_HEADS: Final = "Obtained heads"                                      # v0.17+
MSG_SNAPSHOT_TAKEN: Final = "Snapshot taken"                             # v0.17+
MSG_NOMINATION_DONE: Final = "Nomination done"                           # v0.17+
MSG_ATTEMPTING: Final = "Attempting to schedule workload"
MSG_ASSUMED: Final = "Workload assumed in the cache"
MSG_EVALUATED: Final = "Workload evaluated for admission"
MSG_ADMITTED: Final = "Workload successfully admitted and assigned flavors"
MSG_NO_FIT: Final = "Skipping workload as FlavorAssigner assigned NoFit mode"
MSG_NO_CANDIDATES: Final = ("Workload requires preemption, but there are no candidate workloads allowed for "
                            "preemption")
MSG_REQUEUED: Final = "Workload re-queued"
MSG_REQUEUED_SECOND_PASS: Final = "Workload re-queued for second pass"
MSG_PROCESSING_DONE: Final = "Workload processing done"                  # v0.17+
MSG_CYCLE_COMPLETE: Final = "Scheduling cycle complete"                  # v0.17+

# -- messages: preemption --------------------------------------------------------------------------
MSG_PREEMPTED: Final = "Preempted"
MSG_PREEMPTION_ONGOING: Final = "Preemption ongoing"                     # the target is already evicted
MSG_PREEMPTION_ISSUED: Final = "Preemption already issued, waiting for observation"
MSG_EXPECTING_UIDS: Final = "Expecting UIDs"
MSG_SIMULATING_FAIR_PREEMPTION: Final = "Simulating fair preemption"
MSG_FAIR_SHARING_STRATEGY: Final = "Evaluating FairSharing strategy"     # v0.16+

# -- messages: the fair-sharing tournament ---------------------------------------------------------
MSG_COMPUTING_DRS: Final = "Computing DominantResourceShare for tournament"
MSG_RUNNING_TOURNAMENT: Final = "Running tournament to decide next workload to consider in scheduling cycle"
MSG_TOURNAMENT_WINNER: Final = "Determined tournament winner"
MSG_DRS_VALUES: Final = "DominantResourceShare values used during tournament"

# -- messages: cache and controllers ---------------------------------------------------------------
MSG_SKIPPING_CLUSTER_QUEUE: Final = "Skipping ClusterQueue"             # an inactive one, every snapshot
MSG_WORKLOAD_CREATE: Final = "Workload create event"
MSG_WORKLOAD_UPDATE: Final = "Workload update event"
MSG_JOB_SUSPENDED: Final = "Job is suspended and workload not yet admitted by a clusterQueue, nothing to do"
MSG_JOB_UNSUSPENDING: Final = "Job admitted, unsuspending"               # released, Jobs and pod groups
MSG_STARTING_POD: Final = "Starting pod in group"                        # a pod's gate removed
MSG_JOB_EVICTED: Final = "Handling a job with evicted condition"

# -- messages: client-go's leader election and controller-runtime's manager ----------------------
# klog text lines mostly, and the leader election ones go on with the lease's name: readers look
# for these words inside a message rather than for the whole message.
MSG_ACQUIRING_LEASE: Final = "attempting to acquire leader lease"
MSG_ACQUIRED_LEASE: Final = "successfully acquired lease"
MSG_RENEW_FAILED: Final = "failed to renew lease"
MSG_ELECTION_LOST: Final = "leader election lost"
MSG_STOPPED_LEADING: Final = "stopped leading"
MSG_STARTING_MANAGER: Final = "Starting manager"
# The API server's answer to an update on a stale resourceVersion, inside an error's text.
CONFLICT: Final = "Operation cannot be fulfilled"

# -- field keys --------------------------------------------------------------------------------------
KEY_SCHEDULING_CYCLE: Final = "schedulingCycle"
KEY_WORKLOAD: Final = "workload"
KEY_CLUSTER_QUEUE: Final = "clusterQueue"
KEY_PARENT_COHORT: Final = "parentCohort"
KEY_ROOT_COHORT: Final = "rootCohort"
KEY_COHORT: Final = "cohort"
KEY_QUEUE: Final = "queue"                      # the LocalQueue
KEY_NAME: Final = "name"                        # of an object reference: {"name", "namespace"}
KEY_NAMESPACE: Final = "namespace"
KEY_COUNT: Final = "count"
KEY_HEAD_COUNT: Final = "headCount"
KEY_WAIT_DURATION: Final = "waitDuration"
KEY_DURATION: Final = "duration"                # seconds, a float
KEY_ENTRIES: Final = "entries"
KEY_INADMISSIBLE_ENTRIES: Final = "inadmissibleEntries"
KEY_STATUS: Final = "status"
KEY_PREV_STATUS: Final = "prevStatus"
KEY_REASON: Final = "reason"
KEY_MESSAGE: Final = "message"
KEY_NOMINATED_ASSIGNMENT: Final = "nominatedAssignment"   # V(4)+: the flavor assigner's whole result
KEY_PREEMPTED: Final = "preempted"                        # the targets an evaluation names
KEY_ASSIGNMENTS: Final = "assignments"                    # per pod set, on admission:
KEY_FLAVORS: Final = "flavors"                            #   resource -> flavor
KEY_RESOURCE_USAGE: Final = "resourceUsage"               #   resource -> quantity
KEY_PREEMPTION: Final = "preemption"                      # the ClusterQueue's preemption policy
KEY_REQUEUE_REASON: Final = "requeueReason"
KEY_ADDED: Final = "added"
KEY_TARGET_WORKLOAD: Final = "targetWorkload"
KEY_PREEMPTING_WORKLOAD: Final = "preemptingWorkload"
KEY_TARGET_CLUSTER_QUEUE: Final = "targetClusterQueue"
KEY_PREEMPTOR_UID: Final = "preemptorUID"
KEY_PREEMPTOR_JOB_UID: Final = "preemptorJobUID"
KEY_PREEMPTOR_PATH: Final = "preemptorPath"
KEY_PREEMPTEE_PATH: Final = "preempteePath"
KEY_PREEMPTOR_EFFECTIVE_PRIORITY: Final = "preemptorEffectivePriority"   # v0.19+
KEY_PREEMPTOR_BOOST: Final = "preemptorBoost"
KEY_TARGET_EFFECTIVE_PRIORITY: Final = "targetEffectivePriority"
KEY_TARGET_BOOST: Final = "targetBoost"
KEY_STORE: Final = "store"
KEY_KEY: Final = "key"
KEY_UIDS: Final = "uids"
KEY_CANDIDATES: Final = "candidates"
KEY_RESOURCES_REQUIRING_PREEMPTION: Final = "resourcesRequiringPreemption"
KEY_TARGET_OLD_SHARE: Final = "targetOldShare"
KEY_WINNING_WORKLOAD: Final = "winningWorkload"
KEY_DRS_VALUES: Final = "drsValues"             # a list of {parentCohort, workload, drs}
KEY_DRS: Final = "drs"
KEY_RECONCILE_ID: Final = "reconcileID"
KEY_JOB: Final = "job"
KEY_GVK: Final = "gvk"
KEY_POD_IN_GROUP: Final = "podInGroup"
# inside nominatedAssignment (Go field names, not JSON tags): the borrowing level
ASSIGNMENT_BORROWING: Final = "Borrowing"

# -- values ----------------------------------------------------------------------------------------
# KEY_STATUS of an evaluation: the scheduler's entry status
STATUS_ASSUMED: Final = "assumed"               # admitted in this cycle
STATUS_NOMINATED: Final = "nominated"           # fits, possibly after preemptions
STATUS_SKIPPED: Final = "skipped"               # fits, but another head of the cycle came first
STATUS_NOT_NOMINATED: Final = ""
STATUS_PREEMPTION_GATED: Final = "preemptionGated"  # needs preemption, a preemption gate is closed

# KEY_REQUEUE_REASON. Kueue logs its generic reason as ""; kueue-doctor (engine, reports) calls it
# REQUEUE_GENERIC.
REQUEUE_GENERIC: Final = "Generic"
REQUEUE_GENERIC_LOGGED: Final = ""
REQUEUE_NO_FIT: Final = "NoFit"
REQUEUE_NAMESPACE_MISMATCH: Final = "NamespaceMismatch"
REQUEUE_FAILED_AFTER_NOMINATION: Final = "FailedAfterNomination"
REQUEUE_PENDING_PREEMPTION: Final = "PendingPreemption"
REQUEUE_PENDING_MIGRATION: Final = "PendingMigration"
REQUEUE_PREEMPTION_NO_CANDIDATES: Final = "PreemptionNoCandidates"
REQUEUE_PREEMPTION_FAILED: Final = "PreemptionFailed"
REQUEUE_PREEMPTION_GATED: Final = "PreemptionGated"

# KEY_REASON of an evaluation skipped for sharing a target with an earlier head
OVERLAPPING_TARGETS: Final = "Workload has overlapping preemption targets with another workload"


# -- the DRS values of releases before v0.16 -------------------------------------------------------
# Each value was a pre-formatted string at V(5) rather than a struct at V(4).
_DRS_TEXT = re.compile(r"workload ([^,\s}]+),\s*drs:\s*(-?[0-9.]+)")


def drs_value_text(parent_cohort: str, workload: str, drs: str) -> str:
    """One value as those releases print it: ``{parentCohort: P, workload ns/name, drs: N}``."""
    return f"{{parentCohort: {parent_cohort}, workload {workload}, drs: {drs}}}"


def parse_drs_value_text(text: str) -> tuple[str, str] | None:
    """(workload, drs) from ``drs_value_text``'s form; None if the text is not one. An infinite
    share ("+Inf") is not read: only zero shares matter to the readers."""
    m = _DRS_TEXT.search(text)
    return (m.group(1), m.group(2)) if m else None
