"""Engine settings: feature gates, fair sharing, and the named legacy behaviours."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..api import objects as o
from ..kueue.features import defaults
from ..kueue.podsready import WaitForPodsReady
from ..kueue.releases import DrsMode
from ..kueue.version import LATEST
from .afs import AfsBehaviour, AfsConfig
from .transformations import GATE as TRANSFORMATIONS_GATE
from .transformations import ResourceRules

# Gate defaults when no release is named: the reference commit's, which the conformance cases
# assume. A release's own defaults come from kueue.features through EngineConfig.gates.
_DEFAULT_GATES: dict[str, bool] = defaults(LATEST)

LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"


@dataclass
class EngineConfig:
    gates: dict[str, bool] = field(default_factory=dict)
    fair_sharing: bool = False
    preemption_strategies: list[str] = field(
        default_factory=lambda: [LESS_THAN_OR_EQUAL_TO_FINAL_SHARE, LESS_THAN_INITIAL_SHARE])
    # Configuration resources.quotaCheckStrategy
    quota_check_strategy: str = "BlockUndeclared"
    # Configuration resources.excludeResourcePrefixes and .transformations (engine/transformations.py)
    resource_rules: ResourceRules = field(default_factory=ResourceRules)
    # requeuingStrategy.timestamp: "Eviction" in a running Kueue, "" in upstream unit tests
    requeuing_timestamp: str = "Eviction"
    # Legacy DRS arithmetic (Bug 3) is selected by release: kueue.releases.drs_mode.
    drs_mode: DrsMode = DrsMode.EXACT
    # Configuration admissionFairSharing (None: not configured); engine/afs.py
    admission_fair_sharing: AfsConfig | None = None
    # what the release's AFS does beyond the gate: AfsBehaviour.for_release(version)
    afs_behaviour: AfsBehaviour = field(default_factory=AfsBehaviour)
    # how the release tells the pods TAS manages from others: engine/tas/snapshot.tas_pod_marks(version)
    tas_pod_marks: str = "annotations"

    def afs_enabled(self) -> bool:
        """afs.Enabled: the Configuration has admissionFairSharing and the gate is on."""
        return self.admission_fair_sharing is not None and self.gate("AdmissionFairSharing")
    # Closed preemption gates block preemption with MultiKueueOrchestratedPreemption on, and with
    # ConcurrentAdmission on where the release does so (v0.19+: KueueRelease.concurrent_admission_preemption_gates).
    concurrent_admission_preemption_gates: bool = True
    # PreemptionOverBorrowing ranks a flavor without preemption candidates last (#13616, v0.18.5,
    # v0.19.1, v0.20: KueueRelease.no_candidates_ranked_last); False: the release's #13607 bug
    no_candidates_ranked_last: bool = True
    # WaitForPodsReady as the release runs the Configuration (kueue.podsready.resolve); None: off,
    # as in upstream's scheduler unit tests (they build the scheduler without it).
    wait_for_pods_ready: WaitForPodsReady | None = None

    def gate(self, name: str) -> bool:
        if name in self.gates:
            return self.gates[name]
        return _DEFAULT_GATES.get(name, False)

    @classmethod
    def from_kueue(cls, configuration: o.KueueConfiguration | None = None,
                   feature_gates: dict[str, bool] | None = None) -> EngineConfig:
        cfg = cls()
        if configuration is not None:
            cfg.fair_sharing = configuration.fair_sharing.enabled
            cfg.preemption_strategies = list(configuration.fair_sharing.preemption_strategies)
            cfg.quota_check_strategy = configuration.quota_check_strategy
            if configuration.admission_fair_sharing is not None:
                cfg.admission_fair_sharing = AfsConfig.from_api(configuration.admission_fair_sharing)
            cfg.gates.update(configuration.feature_gates)
        if feature_gates:
            cfg.gates.update(feature_gates)
        if configuration is not None:
            cfg.resource_rules = resource_rules(configuration.exclude_resource_prefixes,
                                                configuration.resource_transformations, cfg.gates)
        return cfg


def resource_rules(excluded_prefixes: list[str], transformations: list[o.ResourceTransformation],
                   gates: dict[str, bool]) -> ResourceRules:
    """The Configuration's resources rules. Only v0.13 lets ConfigurableResourceTransformations be
    switched off (locked on in v0.14 - v0.15, gone from v0.16), so an explicit false is all it takes."""
    if not gates.get(TRANSFORMATIONS_GATE, True):
        transformations = []
    return ResourceRules.of(excluded_prefixes, transformations)
