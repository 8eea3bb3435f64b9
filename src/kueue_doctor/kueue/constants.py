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

# -- Workload condition reasons ------------------------------------------------------------------
# QuotaReserved
QUOTA_RESERVED_REASON: Final = "QuotaReserved"                 # True
PENDING: Final = "Pending"                                     # False: legacy (and granular reasons off)
PENDING_EVALUATION: Final = "PendingEvaluation"                # False, granular: e.g. just evicted
WAITING_FOR_QUOTA: Final = "WaitingForQuota"                    # False, granular
WAITING_FOR_PREEMPTED_WORKLOADS: Final = "WaitingForPreemptedWorkloads"  # False, granular: victims leaving
ADMISSION_GATED: Final = "AdmissionGated"                      # False: needs preemption, but gated
# BlockedOnPreemptionGates
PREEMPTION_GATED: Final = "PreemptionGated"                    # True
# Admitted
ADMITTED_REASON: Final = "Admitted"                            # True
NO_RESERVATION: Final = "NoReservation"                        # False
# Evicted (the Requeued condition carries the same reason once quota is released)
EVICTED_BY_PREEMPTION: Final = "Preempted"
EVICTED_BY_DEACTIVATION: Final = "Deactivated"
EVICTED_BY_DEACTIVATION_LEGACY: Final = "InactiveWorkload"    # the same, in older releases
EVICTED_BY_FLAVOR_MIGRATION: Final = "FlavorMigration"         # a more favourable variant took over
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


def evicted_event(reason: str) -> str:
    """The event an eviction with ``reason`` gives the Workload: EvictedDueTo<Reason>."""
    return f"EvictedDueTo{reason}"


# -- pod conditions Kueue and the scheduler set --------------------------------------------------
POD_SCHEDULED: Final = "PodScheduled"
SCHEDULING_GATED: Final = "SchedulingGated"                    # PodScheduled=False while a gate is on
UNSCHEDULABLE: Final = "Unschedulable"
TERMINATION_TARGET: Final = "TerminationTarget"                # the pod integration's, on stopped pods
WORKLOAD_EVICTED: Final = "WorkloadEvicted"                    # TerminationTarget's reason after eviction
