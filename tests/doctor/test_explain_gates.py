"""explain names preemption gates that hold a workload back, and ConcurrentAdmission variants."""
from __future__ import annotations

from typing import Any

from kueue_doctor.doctor.explain import explain_facts
from kueue_doctor.keys import WorkloadKey

from .cluster import API, cluster_queue, facts_of, flavor, local_queue, workload

GATE = "kueue.x-k8s.io/multikueue"


def config(**gates: bool) -> dict[str, Any]:
    return {"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration", "featureGates": gates}


def objects(**gates: bool) -> list[dict[str, Any]]:
    cq = cluster_queue("q", {"f": 8})
    cq["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority"}
    low = workload("team-a", "low", "lq", 8, admitted_to=("q", "f"))
    high = workload("team-a", "high", "lq", 8)
    high["spec"]["priority"] = 10
    high["spec"]["preemptionGates"] = [{"name": GATE}]
    high["status"] = {"conditions": [
        {"type": "QuotaReserved", "status": "False", "reason": "AdmissionGated",
         "message": "Workload requires preemption, but it's gated", "lastTransitionTime": "2026-11-30T11:50:00Z"},
        {"type": "BlockedOnPreemptionGates", "status": "True", "reason": "PreemptionGated",
         "message": "Workload requires preemption, but it's gated", "lastTransitionTime": "2026-11-30T11:50:00Z"}]}
    return [flavor("f", {}), cq, local_queue("team-a", "lq", "q"), low, high, config(**gates)]


def topics(out: dict[str, Any], topic: str) -> list[dict[str, Any]]:
    return [c for c in out["chain"] if c["topic"] == topic]


def test_a_gated_preemptor_is_named_with_its_gates(tmp_path):
    facts = facts_of(tmp_path, objects(MultiKueueOrchestratedPreemption=True))
    out = explain_facts(facts, WorkloadKey("team-a", "high"))
    [g] = topics(out, "preemption-gates")
    assert g["data"]["gates"] == [GATE] and f"blocked by preemption gate(s) {GATE}" in g["text"]
    assert any("BlockedOnPreemptionGates=True, reason PreemptionGated" in c["text"] for c in topics(out, "condition"))


def test_gates_the_release_ignores_are_said_to_be_ignored(tmp_path):
    facts = facts_of(tmp_path, objects())
    out = explain_facts(facts, WorkloadKey("team-a", "high"))
    [g] = topics(out, "preemption-gates")
    assert "ignored" in g["text"]


def test_a_variant_names_its_parent_flavor_and_siblings(tmp_path):
    objs = objects(ConcurrentAdmission=True)
    for name, fl in (("job-f", "f"), ("job-g", "g")):
        w = workload("team-a", name, "lq", 1)
        w["metadata"]["annotations"] = {"kueue.x-k8s.io/workload-allowed-resource-flavors": fl}
        w["metadata"]["ownerReferences"] = [{"apiVersion": API, "kind": "Workload", "name": "job", "uid": "u"}]
        objs.append(w)
    out = explain_facts(facts_of(tmp_path, objs), WorkloadKey("team-a", "job-f"))
    [v] = topics(out, "variant")
    assert v["data"] == {"parent": "team-a/job", "flavor": "f", "siblings": ["team-a/job-g"]}
