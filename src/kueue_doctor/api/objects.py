"""The object model: the Kueue and core Kubernetes objects kueue-doctor reads.

Plain data. Field names follow kueue.x-k8s.io/v1beta2; objects read from v1beta1 are
normalised to these names by ``api.parse``. Defaults are Kueue's (see
shared/reference/kueue-semantics.md §1).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .quantity import Quantity

ResourceList = dict[str, Quantity]


@dataclass(slots=True)
class Meta:
    name: str
    namespace: str = ""
    uid: str = ""
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    creation_timestamp: datetime | None = None
    deletion_timestamp: datetime | None = None
    deletion_grace_period_seconds: int | None = None
    generation: int = 0
    resource_version: str = ""
    owner_references: list[dict] = field(default_factory=list)


@dataclass(slots=True)
class Condition:
    type: str
    status: str
    reason: str = ""
    message: str = ""
    last_transition_time: datetime | None = None


def find_condition(conditions: list[Condition], ctype: str) -> Condition | None:
    """The condition of type ``ctype`` (objects carry at most one of each type), or None."""
    for c in conditions:   # a loop, not next(genexpr): asked about 20 times per Workload
        if c.type == ctype:
            return c
    return None


def conditions_by_type(conditions: list[Condition]) -> dict[str, Condition]:
    """The conditions by type, the first of a type winning as ``find_condition`` finds it: for
    the readers that ask one object about several types."""
    return {c.type: c for c in reversed(conditions)}


@dataclass(slots=True)
class Toleration:
    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""


@dataclass(slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""


@dataclass(slots=True)
class SelectorRequirement:
    key: str
    operator: str
    values: list[str] = field(default_factory=list)


@dataclass(slots=True)
class LabelSelector:
    match_labels: dict[str, str] = field(default_factory=dict)
    match_expressions: list[SelectorRequirement] = field(default_factory=list)


# -- Kueue ------------------------------------------------------------------------------

@dataclass(slots=True)
class ResourceFlavor:
    meta: Meta
    node_labels: dict[str, str] = field(default_factory=dict)
    node_taints: list[Taint] = field(default_factory=list)
    tolerations: list[Toleration] = field(default_factory=list)
    topology_name: str = ""
    kind = "ResourceFlavor"


@dataclass(slots=True)
class Topology:
    """kueue.x-k8s.io Topology (v1beta1 and v1beta2): node label keys, highest level first."""
    meta: Meta
    levels: list[str] = field(default_factory=list)
    kind = "Topology"


@dataclass(slots=True)
class ResourceQuota:
    name: str
    nominal_quota: Quantity
    borrowing_limit: Quantity | None = None
    lending_limit: Quantity | None = None


@dataclass(slots=True)
class FlavorQuotas:
    name: str
    resources: list[ResourceQuota] = field(default_factory=list)


@dataclass(slots=True)
class ResourceGroup:
    covered_resources: list[str]
    flavors: list[FlavorQuotas]


@dataclass(slots=True)
class BorrowWithinCohort:
    policy: str = "Never"
    max_priority_threshold: int | None = None


@dataclass(slots=True)
class Preemption:
    within_cluster_queue: str = "Never"
    reclaim_within_cohort: str = "Never"
    borrow_within_cohort: BorrowWithinCohort | None = None


@dataclass(slots=True)
class FlavorFungibility:
    when_can_borrow: str = "MayStopSearch"
    when_can_preempt: str = "TryNextFlavor"
    preference: str | None = None


@dataclass(slots=True)
class FlavorUsage:
    """One entry of ClusterQueue status flavorsReservation / flavorsUsage."""
    flavor: str
    resource: str
    total: Quantity
    borrowed: Quantity


@dataclass(slots=True)
class ClusterQueueStatus:
    conditions: list[Condition] = field(default_factory=list)
    pending_workloads: int | None = None
    reserving_workloads: int | None = None
    admitted_workloads: int | None = None
    flavors_reservation: list[FlavorUsage] = field(default_factory=list)
    flavors_usage: list[FlavorUsage] = field(default_factory=list)
    weighted_share: int | None = None


@dataclass(slots=True)
class ConcurrentAdmissionPolicy:
    """spec.concurrentAdmissionPolicy (v1beta2, v0.18+): how variants of a workload migrate
    between flavors, most favourable first in the ClusterQueue's flavor order."""
    migration_mode: str = "TryPreferredFlavors"    # or RetainFirstAdmission
    last_acceptable_flavor: str | None = None      # migration.constraints.lastAcceptableFlavorName


@dataclass(slots=True)
class ClusterQueue:
    meta: Meta
    cohort: str = ""
    queueing_strategy: str = "BestEffortFIFO"
    # None matches no namespace; an empty selector matches all (Kueue's rule).
    namespace_selector: LabelSelector | None = None
    resource_groups: list[ResourceGroup] = field(default_factory=list)
    preemption: Preemption = field(default_factory=Preemption)
    flavor_fungibility: FlavorFungibility = field(default_factory=FlavorFungibility)
    fair_sharing_weight: Quantity | None = None
    stop_policy: str = "None"
    admission_checks: list[str] = field(default_factory=list)
    # admissionChecksStrategy.admissionChecks[].onFlavors: check -> flavors it applies to
    # (a check not listed, or listed with no flavors, applies to every flavor)
    admission_check_flavors: dict[str, list[str]] = field(default_factory=dict)
    status: ClusterQueueStatus = field(default_factory=ClusterQueueStatus)
    # spec.admissionScope.admissionMode: UsageBasedAdmissionFairSharing | NoAdmissionFairSharing | ""
    admission_mode: str = ""
    concurrent_admission_policy: ConcurrentAdmissionPolicy | None = None
    kind = "ClusterQueue"


@dataclass(slots=True)
class Cohort:
    meta: Meta
    parent: str = ""
    resource_groups: list[ResourceGroup] = field(default_factory=list)
    fair_sharing_weight: Quantity | None = None
    weighted_share: int | None = None
    kind = "Cohort"


@dataclass(slots=True)
class AdmissionFairSharingStatus:
    """LocalQueue status.fairSharing.admissionFairSharingStatus: the decayed usage Kueue persists."""
    consumed_resources: ResourceList = field(default_factory=dict)
    last_update: datetime | None = None


@dataclass(slots=True)
class LocalQueue:
    meta: Meta
    cluster_queue: str
    stop_policy: str = "None"
    fair_sharing_weight: Quantity | None = None     # spec.fairSharing.weight (admission fair sharing)
    afs_status: AdmissionFairSharingStatus | None = None
    kind = "LocalQueue"


@dataclass(slots=True)
class WorkloadPriorityClass:
    meta: Meta
    value: int
    description: str = ""
    kind = "WorkloadPriorityClass"


@dataclass(slots=True)
class Container:
    name: str
    requests: ResourceList = field(default_factory=dict)
    limits: ResourceList = field(default_factory=dict)
    restart_policy: str = ""  # "Always" marks a sidecar init container


@dataclass(slots=True)
class NodeSelectorTerm:
    match_expressions: list[SelectorRequirement] = field(default_factory=list)
    match_fields: list[SelectorRequirement] = field(default_factory=list)


@dataclass(slots=True)
class PodSpec:
    containers: list[Container] = field(default_factory=list)
    init_containers: list[Container] = field(default_factory=list)
    overhead: ResourceList = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    # requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms (ORed)
    required_node_terms: list[NodeSelectorTerm] = field(default_factory=list)
    tolerations: list[Toleration] = field(default_factory=list)
    # preferredDuringSchedulingIgnoredDuringExecution: (weight, preference)
    preferred_node_terms: list[tuple[int, NodeSelectorTerm]] = field(default_factory=list)
    node_name: str = ""
    priority_class_name: str = ""
    priority: int | None = None
    termination_grace_period_seconds: int = 30
    scheduling_gates: list[str] = field(default_factory=list)


@dataclass(slots=True)
class SliceConstraint:
    """One layer of ``podsetSliceRequiredTopologyConstraints``: ``size`` pods in one domain of ``topology``."""
    topology: str
    size: int


@dataclass(slots=True)
class TopologyRequest:
    """A pod set's ``topologyRequest`` (v1beta2 PodSetTopologyRequest; v1beta1 and the
    pod-template annotations are normalised to it by ``api.parse``)."""
    required: str | None = None
    preferred: str | None = None
    unconstrained: bool | None = None
    pod_index_label: str | None = None
    sub_group_index_label: str | None = None
    sub_group_count: int | None = None
    pod_set_group_name: str | None = None
    slice_required_topology: str | None = None
    slice_size: int | None = None
    slice_constraints: list[SliceConstraint] = field(default_factory=list)

    def constraints(self) -> list[SliceConstraint]:
        """The slice layers, coarsest first (upstream PodSetSliceRequiredTopologyConstraints):
        the explicit list, else the single pair (a missing size reads 0)."""
        if self.slice_constraints:
            return list(self.slice_constraints)
        if self.slice_required_topology is None:
            return []
        return [SliceConstraint(self.slice_required_topology, self.slice_size or 0)]


@dataclass(slots=True)
class PodSet:
    name: str
    count: int
    template: PodSpec
    min_count: int | None = None
    # the raw topologyRequest mapping as written (used for equivalence hashing); parsed: ``topology``
    topology_request: dict | None = None
    topology: TopologyRequest | None = None


@dataclass(frozen=True, slots=True)
class TopologyDomainAssignment:
    values: tuple[str, ...]
    count: int


@dataclass(slots=True)
class TopologyAssignment:
    """``topologyAssignment`` decoded to its ordered domain list (v1beta1 ``domains`` or
    v1beta2 ``slices``)."""
    levels: list[str]
    domains: list[TopologyDomainAssignment] = field(default_factory=list)


@dataclass(slots=True)
class PodSetAssignment:
    name: str
    flavors: dict[str, str] = field(default_factory=dict)
    resource_usage: ResourceList = field(default_factory=dict)
    count: int | None = None
    topology_assignment: TopologyAssignment | None = None
    delayed_topology_request: str = ""


@dataclass(slots=True)
class Admission:
    cluster_queue: str
    pod_set_assignments: list[PodSetAssignment] = field(default_factory=list)


@dataclass(slots=True)
class RequeueState:
    count: int | None = None
    requeue_at: datetime | None = None


@dataclass(slots=True)
class PodSetUpdate:
    """What a Ready admission check asks Kueue to add to a pod set's pods when it starts them."""
    name: str
    labels: dict[str, str] = field(default_factory=dict)
    annotations: dict[str, str] = field(default_factory=dict)
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[Toleration] = field(default_factory=list)


@dataclass(slots=True)
class AdmissionCheckState:
    """One entry of a Workload's status.admissionChecks (state: Pending, Ready, Retry, Rejected)."""
    name: str
    state: str
    message: str = ""
    last_transition_time: datetime | None = None
    pod_set_updates: list[PodSetUpdate] = field(default_factory=list)
    retry_count: int | None = None             # v0.14+: retries so far (names the next ProvisioningRequest)
    requeue_after_seconds: int | None = None   # v0.14+: the backoff a Retry asks for


@dataclass(slots=True)
class WorkloadStatus:
    admission: Admission | None = None
    conditions: list[Condition] = field(default_factory=list)
    reclaimable_pods: dict[str, int] = field(default_factory=dict)
    requeue_state: RequeueState | None = None
    admission_checks: list[dict] = field(default_factory=list)   # as read (kept for older readers)
    check_states: list[AdmissionCheckState] = field(default_factory=list)   # the same, typed
    # status.preemptionGates (v1beta2): gate name -> position, Open or Closed
    preemption_gates: dict[str, str] = field(default_factory=dict)
    unhealthy_nodes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class Workload:
    meta: Meta
    queue_name: str = ""
    pod_sets: list[PodSet] = field(default_factory=list)
    priority: int | None = None
    priority_class_name: str = ""
    priority_class_source: str = ""
    active: bool = True
    maximum_execution_time_seconds: int | None = None
    status: WorkloadStatus = field(default_factory=WorkloadStatus)
    preemption_gates: list[str] = field(default_factory=list)   # spec.preemptionGates[].name (v1beta2)
    kind = "Workload"

    def condition(self, ctype: str) -> Condition | None:
        return find_condition(self.status.conditions, ctype)

    def is_true(self, ctype: str) -> bool:
        for c in self.status.conditions:   # asked millions of times on a large cluster
            if c.type == ctype:
                return c.status == "True"
        return False

    def check_state(self, name: str) -> AdmissionCheckState | None:
        for c in self.status.check_states:
            if c.name == name:
                return c
        return None


@dataclass(slots=True)
class AdmissionCheck:
    """kueue.x-k8s.io AdmissionCheck (cluster-scoped)."""
    meta: Meta
    controller_name: str
    parameters: dict[str, str] | None = None     # {apiGroup, kind, name}
    retry_delay_minutes: int | None = None       # v1beta1 only (deprecated)
    conditions: list[Condition] = field(default_factory=list)
    kind = "AdmissionCheck"

    def active(self) -> bool | None:
        c = find_condition(self.conditions, "Active")
        return None if c is None else c.status == "True"


@dataclass(slots=True)
class ProvisioningRetryStrategy:
    backoff_limit_count: int = 3
    backoff_base_seconds: int = 60
    backoff_max_seconds: int = 1800


@dataclass(slots=True)
class ProvisioningRequestConfig:
    """kueue.x-k8s.io ProvisioningRequestConfig (cluster-scoped): the parameters of a
    provisioning AdmissionCheck."""
    meta: Meta
    provisioning_class_name: str
    parameters: dict[str, str] = field(default_factory=dict)
    managed_resources: list[str] = field(default_factory=list)
    retry_strategy: ProvisioningRetryStrategy = field(default_factory=ProvisioningRetryStrategy)
    kind = "ProvisioningRequestConfig"


@dataclass(slots=True)
class ProvisioningRequest:
    """autoscaling.x-k8s.io ProvisioningRequest (namespaced; cluster-autoscaler's CRD), created by
    Kueue's provisioning controller as ``<workload>-<check>-<attempt>``."""
    meta: Meta
    provisioning_class_name: str = ""
    pod_sets: list[tuple[str, int]] = field(default_factory=list)   # (podTemplateRef.name, count)
    parameters: dict[str, str] = field(default_factory=dict)
    conditions: list[Condition] = field(default_factory=list)
    kind = "ProvisioningRequest"

    def condition(self, ctype: str) -> Condition | None:
        return find_condition(self.conditions, ctype)

    def is_true(self, ctype: str) -> bool:
        c = self.condition(ctype)
        return c is not None and c.status == "True"


# -- core Kubernetes --------------------------------------------------------------------

@dataclass(slots=True)
class Namespace:
    meta: Meta
    kind = "Namespace"


@dataclass(slots=True)
class LimitRangeItem:
    type: str
    max: ResourceList = field(default_factory=dict)
    min: ResourceList = field(default_factory=dict)
    default: ResourceList = field(default_factory=dict)
    default_request: ResourceList = field(default_factory=dict)
    max_limit_request_ratio: ResourceList = field(default_factory=dict)


@dataclass(slots=True)
class LimitRange:
    meta: Meta
    limits: list[LimitRangeItem] = field(default_factory=list)
    kind = "LimitRange"


@dataclass(slots=True)
class Node:
    meta: Meta
    capacity: ResourceList = field(default_factory=dict)
    allocatable: ResourceList = field(default_factory=dict)
    taints: list[Taint] = field(default_factory=list)
    unschedulable: bool = False
    conditions: list[Condition] = field(default_factory=list)
    kind = "Node"

    def ready(self) -> bool | None:
        c = find_condition(self.conditions, "Ready")
        return None if c is None else c.status == "True"


@dataclass(slots=True)
class Pod:
    meta: Meta
    spec: PodSpec
    phase: str = ""
    conditions: list[Condition] = field(default_factory=list)
    start_time: datetime | None = None
    container_statuses: list[dict] = field(default_factory=list)
    kind = "Pod"


@dataclass(slots=True)
class Event:
    meta: Meta
    involved_kind: str = ""
    involved_namespace: str = ""
    involved_name: str = ""
    reason: str = ""
    message: str = ""
    type: str = ""
    count: int = 1
    first_timestamp: datetime | None = None
    last_timestamp: datetime | None = None
    source: str = ""
    kind = "Event"


@dataclass(slots=True)
class Job:
    meta: Meta
    suspend: bool = False
    parallelism: int = 1
    completions: int | None = None
    template: PodSpec = field(default_factory=PodSpec)
    active: int = 0
    succeeded: int = 0
    failed: int = 0
    conditions: list[Condition] = field(default_factory=list)
    start_time: datetime | None = None                # status.startTime (resumed jobs: the last resume)
    active_deadline_seconds: int | None = None        # spec.activeDeadlineSeconds: killed after this long
    kind = "Job"


@dataclass(slots=True)
class Deployment:
    meta: Meta
    replicas: int = 1
    images: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    ready_replicas: int = 0
    kind = "Deployment"

    def kueue_version(self) -> str | None:
        """The tag of the Kueue manager image, e.g. ``v0.13.2``."""
        for image in self.images:
            repo, _, tag = image.rpartition(":")
            if "kueue" in repo and tag and "/" not in tag:
                return tag.split("@")[0]
        return None

    def feature_gates(self) -> dict[str, bool]:
        gates: dict[str, bool] = {}
        for arg in self.args:
            if arg.startswith("--feature-gates="):
                for item in arg.split("=", 1)[1].split(","):
                    name, _, val = item.partition("=")
                    if name.strip():
                        gates[name.strip()] = val.strip().lower() == "true"
        return gates


@dataclass(slots=True)
class FairSharingConfig:
    enabled: bool = False
    preemption_strategies: list[str] = field(
        default_factory=lambda: ["LessThanOrEqualToFinalShare", "LessThanInitialShare"])


@dataclass(slots=True)
class AdmissionFairSharingConfig:
    """Configuration admissionFairSharing (the same fields in v1beta1 and v1beta2)."""
    usage_half_life_time: float = 0.0          # seconds; 0 resets usage at every sample
    usage_sampling_interval: float = 300.0     # seconds; Kueue defaults it to 5 min
    resource_weights: dict[str, float] = field(default_factory=dict)


@dataclass(slots=True)
class ResourceTransformation:
    """Configuration resources.transformations[]: what a pod's request of ``input`` counts as."""
    input: str
    strategy: str = "Retain"                  # Retain | Replace (Kueue defaults it to Retain)
    outputs: ResourceList = field(default_factory=dict)   # per unit of input
    multiply_by: str = ""                     # v0.16+: scale by the request of this resource


@dataclass(slots=True)
class KueueConfiguration:
    """The Kueue Configuration (kept in the kueue-manager-config ConfigMap)."""
    meta: Meta
    fair_sharing: FairSharingConfig = field(default_factory=FairSharingConfig)
    feature_gates: dict[str, bool] = field(default_factory=dict)
    # the waitForPodsReady block as written (None: absent); what a release makes of it, with its
    # apiVersion: kueue.podsready.resolve(wait_for_pods_ready, api_version, version, gates)
    wait_for_pods_ready: dict | None = None
    exclude_resource_prefixes: list[str] = field(default_factory=list)
    resource_transformations: list[ResourceTransformation] = field(default_factory=list)
    quota_check_strategy: str = "BlockUndeclared"
    admission_fair_sharing: AdmissionFairSharingConfig | None = None
    raw: dict = field(default_factory=dict)
    api_version: str = ""      # config.kueue.x-k8s.io/v1beta1 or /v1beta2
    kind = "Configuration"


@dataclass(slots=True)
class ConfigMap:
    meta: Meta
    data: dict[str, str] = field(default_factory=dict)
    kind = "ConfigMap"
