"""From a scenario to the engine's inputs: configuration and cluster state."""
from __future__ import annotations

from ..api import objects as o
from ..api.fields import Fields
from ..api.parse import parse_admission_fair_sharing, parse_resource_transformations
from ..engine.afs import AfsConfig
from ..engine.config import EngineConfig, resource_rules
from .scenario import Scenario


def engine_config(scn: Scenario, gates: dict[str, bool]) -> EngineConfig:
    fs = scn.config.get("fairSharing") or {}
    cfg = EngineConfig(gates=dict(gates))
    cfg.fair_sharing = bool(fs.get("enable", False))
    if fs.get("preemptionStrategies"):
        cfg.preemption_strategies = list(fs["preemptionStrategies"])
    res = scn.config.get("resources") or {}
    if res.get("quotaCheckStrategy"):
        cfg.quota_check_strategy = res["quotaCheckStrategy"]
    # what upstream's tests pass as WithExcludedResourcePrefixes / WithResourceTransformations
    res_fields = Fields(res, "config.resources")
    cfg.resource_rules = resource_rules(res_fields.strs("excludeResourcePrefixes"),
                                        parse_resource_transformations(res_fields), cfg.gates)
    afs = scn.config.get("admissionFairSharing")
    if isinstance(afs, dict):
        cfg.admission_fair_sharing = AfsConfig.from_api(
            parse_admission_fair_sharing(Fields(afs, "config.admissionFairSharing")))
    # Upstream's unit tests order queues with workload.Ordering{} (no requeuing timestamp).
    cfg.requeuing_timestamp = ""
    return cfg


def prepare_state(scn: Scenario):
    """The scenario's objects, with the format's convention that an absent
    namespaceSelector matches every namespace (FORMAT.md: fields not shown keep defaults)."""
    state = scn.state
    for cq in state.cluster_queues.values():
        if cq.namespace_selector is None:
            cq.namespace_selector = o.LabelSelector()
    if (scn.config.get("fairSharing") or {}).get("enable"):
        # Upstream's unit tests build ClusterQueues without API defaulting: a preemption block
        # that leaves reclaimWithinCohort unset holds Go's "", which Kueue's fair-sharing code
        # treats differently from Never (conformance/scheduler/README.md, "Conventions").
        for raw in scn.raw_objects:
            if isinstance(raw, dict) and raw.get("kind") == "ClusterQueue":
                pre = (raw.get("spec") or {}).get("preemption")
                name = (raw.get("metadata") or {}).get("name")
                if isinstance(pre, dict) and "reclaimWithinCohort" not in pre and name in state.cluster_queues:
                    state.cluster_queues[name].preemption.reclaim_within_cohort = ""
    return state
