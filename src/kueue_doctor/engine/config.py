"""Engine settings: feature gates, fair sharing, and the named legacy behaviours."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..api import objects as o

# Gate defaults at the upstream commit the conformance cases come from (reference §0).
DEFAULT_GATES: dict[str, bool] = {
    "FlavorFungibility": True,
    "PrioritySortingWithinCohort": True,
    "PartialAdmission": True,
    "FairSharingPreemptWithinNominal": True,
    "FairSharingPrioritizeNonBorrowing": True,
    "RecomputeAssignmentUponPreemptionTargetsOverlap": True,
    "FlavorFungibilityPreserveScanProgress": True,
    "SchedulingEquivalenceHashing": True,
    "ReclaimablePods": True,
    "UnadmittedWorkloadsObservability": True,
    "QuotaCheckStrategy": True,
    "PrioritizePreemptorWorkloads": False,
    "PriorityBoost": False,
    "FastQuotaReleaseInPodIntegration": False,
    "ElasticJobsViaWorkloadSlices": True,
    "TopologyAwareScheduling": True,
    "ConcurrentAdmission": False,
}

LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"

# Legacy DRS arithmetic (Bug 3, shared/reference/kueue-semantics.md §4.6):
DRS_EXACT = "exact"            # float shares, CompareDRS (v0.13.5 / v0.14.0 and later)
DRS_INTEGER_PRE_6617 = "integer-floor"   # int floor, borrowing queues can score 0 (<= v0.12.7 / v0.13.2)
DRS_INTEGER_MAX1 = "integer-max1"        # int floor but at least 1 when borrowing (v0.12.8 / v0.13.3-v0.13.4)


@dataclass
class EngineConfig:
    gates: dict[str, bool] = field(default_factory=dict)
    fair_sharing: bool = False
    preemption_strategies: list[str] = field(
        default_factory=lambda: [LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE])
    # Configuration resources.quotaCheckStrategy
    quota_check_strategy: str = "BlockUndeclared"
    # requeuingStrategy.timestamp: "Eviction" in a running Kueue, "" in upstream unit tests
    requeuing_timestamp: str = "Eviction"
    drs_mode: str = DRS_EXACT

    def gate(self, name: str) -> bool:
        if name in self.gates:
            return self.gates[name]
        return DEFAULT_GATES.get(name, False)

    @classmethod
    def from_kueue(cls, configuration: o.KueueConfiguration | None = None,
                   feature_gates: dict[str, bool] | None = None) -> EngineConfig:
        cfg = cls()
        if configuration is not None:
            cfg.fair_sharing = configuration.fair_sharing.enabled
            cfg.preemption_strategies = list(configuration.fair_sharing.preemption_strategies)
            cfg.quota_check_strategy = configuration.quota_check_strategy
            cfg.gates.update(configuration.feature_gates)
        if feature_gates:
            cfg.gates.update(feature_gates)
        return cfg
