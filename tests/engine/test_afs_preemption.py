"""Admission fair sharing orders preemption candidates: within one ClusterQueue, workloads of
LocalQueues with higher usage are preempted first, before priority decides.

Upstream: pkg/scheduler/preemption/common/ordering.go CandidatesOrdering (step 2) and
resourceUsagePreemptionEnabled, since v0.13 ("[AFS] Support preemption based on historical LQ's
usage", kubernetes-sigs/kueue#5632). The unit cases are TestCandidatesOrdering's in
pkg/scheduler/preemption/preemption_test.go ("workloads with higher LQ usage first", "workloads
from different CQ are sorted based on priority and timestamp").
"""
from __future__ import annotations

from datetime import timedelta

from kueue_doctor.api import build
from kueue_doctor.api.load import load_documents
from kueue_doctor.engine.afs import AfsBehaviour
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.preemption import candidate_sort_key
from kueue_doctor.engine.workload import WorkloadInfo
from kueue_doctor.kueue.version import Version

from .test_afs import CFG, FLAVOR, NOW, cq, lq, wl


def info(name: str, queue: str, cluster_queue: str, priority: int) -> WorkloadInfo:
    return WorkloadInfo(build.workload("ns", name, queue, {"cpu": 1}, admitted_to=cluster_queue,
                                       flavors={"cpu": "default"}, admitted_at=NOW, priority=priority))


USAGE = {"low_usage_lq": 0.1, "mid_usage_lq": 0.5, "high_usage_lq_different_cq": 1.0}


def ordered(cands: list[tuple[WorkloadInfo, str]], afs: bool) -> list[str]:
    def key(c):
        wi, cq_name = c
        usage = USAGE[wi.queue_name] if afs and cq_name == "preemptor" else None
        return candidate_sort_key(wi, cq_name, "preemptor", usage)
    return [wi.name for wi, _ in sorted(cands, key=key)]


def test_candidates_ordering_cases_of_upstream():
    low = (info("low_lq_usage", "low_usage_lq", "preemptor", 1), "preemptor")
    mid = (info("mid_lq_usage", "mid_usage_lq", "preemptor", 10), "preemptor")
    other = (info("high_lq_usage_different_cq", "high_usage_lq_different_cq", "different_cq", 1), "different_cq")
    # "workloads with higher LQ usage first": usage wins over the lower priority
    assert ordered([low, mid], afs=True) == ["mid_lq_usage", "low_lq_usage"]
    assert ordered([low, mid], afs=False) == ["low_lq_usage", "mid_lq_usage"]
    # "workloads from different CQ are sorted based on priority and timestamp": another queue first
    assert ordered([mid, other], afs=True) == ["high_lq_usage_different_cq", "mid_lq_usage"]


def admitted_wl(name: str, queue: str, cpu: str, priority: int) -> dict:
    d = wl(name, queue, cpu, priority=priority)
    t = (NOW - timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    d["status"] = {"admission": {"clusterQueue": "cq1", "podSetAssignments": [
        {"name": "one", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": cpu}}]},
        "conditions": [{"type": t_, "status": "True", "reason": t_, "message": "", "lastTransitionTime": t}
                       for t_ in ("QuotaReserved", "Admitted")]}
    return d


def victims(behaviour: AfsBehaviour, gate: bool = True) -> list[str]:
    queue = cq(cpu="8")
    queue["spec"]["preemption"] = {"withinClusterQueue": "LowerPriority"}
    objs = [FLAVOR, queue, lq("heavy", consumed={"cpu": "100"}), lq("light", consumed={"cpu": "0"}),
            admitted_wl("heavy-job", "heavy", "4", priority=5), admitted_wl("light-job", "light", "4", priority=1),
            wl("urgent", "light", "4", priority=10)]
    ec = EngineConfig(gates={"AdmissionFairSharing": gate}, admission_fair_sharing=CFG, afs_behaviour=behaviour)
    model = AdmissionModel(load_documents(objs, "test"), ec)
    res = model.cycle(NOW)
    return sorted(t.key.name for e in res.entries for t in e.targets)


def test_the_busier_localqueue_is_preempted_first():
    # light-job has the lowest priority, but heavy's LocalQueue used far more
    assert victims(AfsBehaviour()) == ["heavy-job"]
    assert victims(AfsBehaviour.for_release(Version(0, 19, 0))) == ["heavy-job"]


def test_without_afs_or_before_v0_13_priority_decides():
    assert victims(AfsBehaviour(), gate=False) == ["light-job"]
    assert victims(AfsBehaviour.for_release(Version(0, 12, 0))) == ["light-job"]


def admitted_in(name: str, queue: str, cluster_queue: str, cpu: str, priority: int) -> dict:
    d = admitted_wl(name, queue, cpu, priority)
    d["status"]["admission"]["clusterQueue"] = cluster_queue
    return d


def test_reclaim_takes_the_busier_localqueue_of_the_borrowing_queue_first():
    # test/integration/singlecluster/scheduler/fairsharing/fair_sharing_test.go, "should preempt a
    # workload from LQ with higher recent usage": cq1 (AFS, StrictFIFO) borrows from cq2; cq2's new
    # workload reclaims, and lq-a's priority-10 workload goes, not lq-b's priority-1 one
    cq1, cq2 = cq("cq1", cpu="16"), cq("cq2", cpu="16", afs_mode=False)
    cq1["spec"].update(cohortName="all", queueingStrategy="StrictFIFO", preemption={"withinClusterQueue": "Never"})
    cq2["spec"].update(cohortName="all", preemption={"reclaimWithinCohort": "Any",
                                                     "withinClusterQueue": "LowerPriority"})
    lq_c = lq("lq-c")
    lq_c["spec"]["clusterQueue"] = "cq2"
    objs = [FLAVOR, cq1, cq2, lq("lq-a", consumed={"cpu": "20"}), lq("lq-b", consumed={"cpu": "12"}), lq_c,
            admitted_in("high-a", "lq-a", "cq1", "20", 10), admitted_in("low-b", "lq-b", "cq1", "12", 1),
            wl("reclaimer", "lq-c", "10")]

    def targets(gate: bool) -> list[str]:
        ec = EngineConfig(gates={"AdmissionFairSharing": gate}, admission_fair_sharing=CFG)
        res = AdmissionModel(load_documents(objs, "test"), ec).cycle(NOW)
        return sorted(t.key.name for e in res.entries for t in e.targets)
    assert targets(True) == ["high-a"]
    assert targets(False) == ["low-b"]
