"""Labels, annotations, finalizers, scheduling gates, condition types and reasons, event reasons:
Kueue's own spelling of each (facts from shared/reference/kueue-signals.md §A, §E and
kueue-semantics.md), for whatever writes them (the simulator's snapshot) and whatever reads them.

Names follow upstream's roles rather than its Go identifiers; several values are the same string
in different roles ("Preempted" is a condition type, an eviction reason and an event reason) and
get one name per role, so a reader can tell which is meant.
"""
from __future__ import annotations

from typing import Final

# Kueue's API group, also the prefix of its labels, annotations, finalizers and gates
GROUP: Final = "kueue.x-k8s.io"

# -- on pods and jobs ----------------------------------------------------------------------------
# The gate the pod webhook adds and (*Pod).Run removes on admission: a gated pod is not released.
ADMISSION_GATE: Final = f"{GROUP}/admission"
TOPOLOGY_GATE: Final = f"{GROUP}/topology"                    # the TAS ungater's
WORKLOAD_ANNOTATION: Final = f"{GROUP}/workload"              # a pod's Workload (by name)
POD_GROUP_NAME_LABEL: Final = f"{GROUP}/pod-group-name"
POD_GROUP_TOTAL_COUNT_ANNOTATION: Final = f"{GROUP}/pod-group-total-count"
QUEUE_NAME_LABEL: Final = f"{GROUP}/queue-name"               # the LocalQueue a job or pod asks for
MANAGED_LABEL: Final = f"{GROUP}/managed"                     # a pod the pod integration manages
MANAGED_FINALIZER: Final = f"{GROUP}/managed"                 # same string, kept until Kueue lets go
PODSET_LABEL: Final = f"{GROUP}/podset"
# Kubernetes' Job controller, not Kueue, labels a Job's pods with the Job's UID and name; newer
# Kubernetes releases add the batch.kubernetes.io/ forms and keep the old ones.
JOB_CONTROLLER_UID_LABEL: Final = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL: Final = "batch.kubernetes.io/job-name"
LEGACY_JOB_CONTROLLER_UID_LABEL: Final = "controller-uid"
LEGACY_JOB_NAME_LABEL: Final = "job-name"
JOB_CONTROLLER_UID_LABELS: Final = (LEGACY_JOB_CONTROLLER_UID_LABEL, JOB_CONTROLLER_UID_LABEL)

# -- on Workloads --------------------------------------------------------------------------------
JOB_UID_LABEL: Final = f"{GROUP}/job-uid"                     # the owning job's UID
ALLOWED_FLAVORS_ANNOTATION: Final = f"{GROUP}/workload-allowed-resource-flavors"
# added to spec.priority with the PriorityBoost gate (KEP-7990; pkg/util/priority EffectivePriority)
PRIORITY_BOOST_ANNOTATION: Final = f"{GROUP}/priority-boost"
# ConcurrentAdmission (v0.18+): a parent Workload carries this label ("true"); its variants are
# Workloads owned by it (ownerReference kind Workload), each allowed one flavor by the annotation above.
CONCURRENT_ADMISSION_PARENT_LABEL: Final = f"{GROUP}/concurrent-admission-parent"
# spec.preemptionGates names (v1beta2, v0.17+): the controllers that add and open them
MULTIKUEUE_PREEMPTION_GATE: Final = f"{GROUP}/multikueue"
CONCURRENT_ADMISSION_PREEMPTION_GATE: Final = f"{GROUP}/concurrent-admission"
SLICE_REPLACEMENT_ANNOTATION: Final = f"{GROUP}/workload-slice-replacement-for"
RESOURCE_IN_USE_FINALIZER: Final = f"{GROUP}/resource-in-use"  # also on ClusterQueues and flavors
# spec.priorityClassSource (v1beta1): where a Workload's priority comes from
WORKLOAD_PRIORITY_CLASS_SOURCE: Final = f"{GROUP}/workloadpriorityclass"
POD_PRIORITY_CLASS_SOURCE: Final = "scheduling.k8s.io/priorityclass"

# -- Workload condition types ----------------------------------------------------------------------
QUOTA_RESERVED: Final = "QuotaReserved"
ADMITTED: Final = "Admitted"
EVICTED: Final = "Evicted"
PREEMPTED: Final = "Preempted"
REQUEUED: Final = "Requeued"
FINISHED: Final = "Finished"
# True while the workload needs preemption but a preemption gate of its is closed (v0.17+)
BLOCKED_ON_PREEMPTION_GATES: Final = "BlockedOnPreemptionGates"
PODS_READY: Final = "PodsReady"
DEACTIVATION_TARGET: Final = "DeactivationTarget"

# -- Workload condition reasons ------------------------------------------------------------------
# QuotaReserved
QUOTA_RESERVED_REASON: Final = "QuotaReserved"                 # True
PENDING: Final = "Pending"                                     # False: legacy (and granular reasons off)
PENDING_EVALUATION: Final = "PendingEvaluation"                # False, granular: e.g. just evicted
# QuotaReserved=False, granular (KEP-10852, apis/kueue/v1beta2/workload_types.go): the constants
# ship from v0.18.5; Kueue writes them only with UnadmittedWorkloadsObservability on (alpha off in
# v0.18.5+, beta off in v0.19, beta on in v0.20); otherwise the legacy reasons below.
NO_MATCHING_FLAVOR: Final = "NoMatchingFlavor"
WAITING_FOR_QUOTA: Final = "WaitingForQuota"
EXCEEDS_MAX_QUOTA: Final = "ExceedsMaxQuota"
TOPOLOGY_PLACEMENT_FAILED: Final = "TopologyPlacementFailed"
WAITING_FOR_PREEMPTED_WORKLOADS: Final = "WaitingForPreemptedWorkloads"
MISCONFIGURED: Final = "Misconfigured"
SUSPENDED: Final = "Suspended"
WAITING_FOR_PODS_READY: Final = "WaitingForPodsReady"
QUOTA_RESERVED_GRANULAR_REASONS: Final = (
    NO_MATCHING_FLAVOR, WAITING_FOR_QUOTA, EXCEEDS_MAX_QUOTA, TOPOLOGY_PLACEMENT_FAILED,
    WAITING_FOR_PREEMPTED_WORKLOADS, MISCONFIGURED, SUSPENDED, PENDING_EVALUATION, WAITING_FOR_PODS_READY)
# QuotaReserved=False, legacy (deprecated, written when the gate is off)
INADMISSIBLE: Final = "Inadmissible"                           # missing or stopped LocalQueue/ClusterQueue
WAITING_LEGACY: Final = "Waiting"                              # blockAdmission's, before WaitingForPodsReady
ADMISSION_GATED: Final = "AdmissionGated"                      # False: needs preemption, but gated
# BlockedOnPreemptionGates
PREEMPTION_GATED: Final = "PreemptionGated"                    # True
# Admitted
ADMITTED_REASON: Final = "Admitted"                            # True
NO_RESERVATION: Final = "NoReservation"                        # False
UNSATISFIED_ADMISSION_CHECKS: Final = "UnsatisfiedAdmissionChecks"   # False: reserved, a check not Ready
UNSATISFIED_CHECKS_LEGACY: Final = "UnsatisfiedChecks"         # the same, gate off
NO_RESERVATION_UNSATISFIED_CHECKS: Final = "NoReservationUnsatisfiedChecks"   # legacy, gate off
PENDING_DELAYED_TOPOLOGY_REQUESTS: Final = "PendingDelayedTopologyRequests"
ADMITTED_MESSAGE: Final = "The workload is admitted"
NO_RESERVATION_MESSAGE: Final = "The workload has no reservation"
UNSATISFIED_CHECKS_MESSAGE: Final = "The workload has not all checks ready"
# Evicted (the Requeued condition carries the same reason once quota is released)
EVICTED_BY_PREEMPTION: Final = "Preempted"
EVICTED_BY_DEACTIVATION: Final = "Deactivated"
EVICTED_BY_DEACTIVATION_LEGACY: Final = "InactiveWorkload"    # the same, in older releases
EVICTED_BY_FLAVOR_MIGRATION: Final = "FlavorMigration"         # a more favourable variant took over
EVICTED_BY_PODS_READY_TIMEOUT: Final = "PodsReadyTimeout"
EVICTED_BY_ADMISSION_CHECK: Final = "AdmissionCheck"
# DeactivationTarget reasons (the underlying cause; Evicted then reads Deactivated + "DueTo" + cause)
REQUEUING_LIMIT_EXCEEDED: Final = "RequeuingLimitExceeded"
# Requeued
BACKOFF_FINISHED: Final = "BackoffFinished"
REACTIVATED: Final = "Reactivated"
# PodsReady (jobframework generatePodsReadyCondition)
PODS_READY_STARTED: Final = "Started"                          # True
PODS_READY_RECOVERED: Final = "Recovered"                      # True, after WaitForRecovery
WAIT_FOR_START: Final = "WaitForStart"                         # False, never ready yet
WAIT_FOR_RECOVERY: Final = "WaitForRecovery"                   # False, was ready, a pod failed
PODS_READY_MESSAGE: Final = "All pods reached readiness and the workload is running"
PODS_NOT_READY_MESSAGE: Final = "Not all pods are ready or succeeded"
PODS_RECOVERY_MESSAGE: Final = "At least one pod has failed, waiting for recovery"
# Preempted: why the victim was chosen
IN_CLUSTER_QUEUE: Final = "InClusterQueue"
IN_COHORT_RECLAMATION: Final = "InCohortReclamation"
IN_COHORT_FAIR_SHARING: Final = "InCohortFairSharing"
IN_COHORT_RECLAIM_WHILE_BORROWING: Final = "InCohortReclaimWhileBorrowing"
# Finished
FINISHED_SUCCEEDED: Final = "Succeeded"

# -- events --------------------------------------------------------------------------------------
EVENT_QUOTA_RESERVED: Final = "QuotaReserved"
EVENT_ADMITTED: Final = "Admitted"
EVENT_PREEMPTED: Final = "Preempted"                           # on the victim
EVENT_PREEMPTED_WORKLOAD: Final = "PreemptedWorkload"          # on the preemptor
EVENT_CREATED_WORKLOAD: Final = "CreatedWorkload"              # on the job
EVENT_STARTED: Final = "Started"                               # on the job: released to Kubernetes
EVENT_STOPPED: Final = "Stopped"                               # on the job: suspended, pods stopped
EVENT_FINISHED_WORKLOAD: Final = "FinishedWorkload"
EVENT_ADMISSION_CHECK_UPDATED: Final = "AdmissionCheckUpdated"   # the provisioning controller's
EVENT_ADMISSION_CHECK_REJECTED: Final = "AdmissionCheckRejected"  # Warning, on deactivation


def reason_with_cause(reason: str, cause: str) -> str:
    """patching.ReasonWithCause: the Evicted reason of a deactivation with an underlying cause
    (``DeactivatedDueToRequeuingLimitExceeded``, ``DeactivatedDueToAdmissionCheck``)."""
    return f"{reason}DueTo{cause}" if cause else reason


# -- admission checks (apis/kueue/v1beta2/admissioncheck_types.go) --------------------------------
CHECK_PENDING: Final = "Pending"
CHECK_READY: Final = "Ready"
CHECK_RETRY: Final = "Retry"
CHECK_REJECTED: Final = "Rejected"
CHECK_STATES: Final = (CHECK_PENDING, CHECK_READY, CHECK_RETRY, CHECK_REJECTED)
ADMISSION_CHECK_ACTIVE: Final = "Active"                       # the AdmissionCheck's condition
PROVISIONING_CONTROLLER: Final = f"{GROUP}/provisioning-request"   # spec.controllerName
PROVISIONING_REQUEST_CONFIG: Final = "ProvisioningRequestConfig"
# ProvisioningRequest (autoscaling.x-k8s.io), its conditions
AUTOSCALING_GROUP: Final = "autoscaling.x-k8s.io"
PR_ACCEPTED: Final = "Accepted"
PR_PROVISIONED: Final = "Provisioned"
PR_FAILED: Final = "Failed"
PR_BOOKING_EXPIRED: Final = "BookingExpired"
PR_CAPACITY_REVOKED: Final = "CapacityRevoked"
PR_CONDITIONS: Final = (PR_ACCEPTED, PR_PROVISIONED, PR_FAILED, PR_BOOKING_EXPIRED, PR_CAPACITY_REVOKED)
# the pod annotations a Ready provisioning check adds through podSetUpdates
PR_CONSUME_ANNOTATION: Final = "autoscaling.x-k8s.io/consume-provisioning-request"
PR_CLASS_ANNOTATION: Final = "autoscaling.x-k8s.io/provisioning-class-name"
CHECK_RESET_MESSAGE: Final = "Reset to Pending after eviction. Previously: "
CHECK_INACTIVE_MESSAGE: Final = "the check is not active"


def evicted_event(reason: str) -> str:
    """The event an eviction with ``reason`` gives the Workload: EvictedDueTo<Reason>."""
    return f"EvictedDueTo{reason}"


# -- pod conditions Kueue and the scheduler set --------------------------------------------------
POD_SCHEDULED: Final = "PodScheduled"
SCHEDULING_GATED: Final = "SchedulingGated"                    # PodScheduled=False while a gate is on
UNSCHEDULABLE: Final = "Unschedulable"
TERMINATION_TARGET: Final = "TerminationTarget"                # the pod integration's, on stopped pods
WORKLOAD_EVICTED: Final = "WorkloadEvicted"                    # TerminationTarget's reason after eviction
