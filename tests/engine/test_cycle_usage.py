"""The quota tree after a cycle is the tree before it, whatever the cycle added, reserved or took
out on the way; and a reserve below zero stays in its ClusterQueue (upstream's addUsage passes
nothing up for it: pkg/cache/scheduler/resource_node.go, addUsage).

The case was found by test_candidate_index's random trees: a ClusterQueue admitted over its
nominal quota plus borrowing limit (3 of 2, limit 0) makes an entry that must preempt but cannot
reserve a negative amount (quotaResourcesToReserve); undoing that add by the inverse walk, after
the cycle had taken a preemption target out, left the cohort 1 cpu short, and the next cycle
admitted a workload that did not fit."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.quota import Quota, QuotaNode, link, recompute_subtree

T0 = datetime(2026, 1, 1, tzinfo=UTC)
CPU = ("a", "cpu")


def over_admitted() -> ClusterState:
    state = ClusterState()
    state.add(build.flavor("a"))
    state.add(build.cohort("root", "", None))
    state.add(build.cluster_queue("cq0", {"a": {"cpu": "0"}}, cohort="root", within="LowerOrNewerEqualPriority",
                                  reclaim="LowerPriority", borrow_within="LowerPriority"))
    state.add(build.cluster_queue("cq1", {"a": {"cpu": ("2", "0")}}, cohort="root"))
    for i in range(2):
        state.add(build.local_queue("ns", f"lq{i}", f"cq{i}"))
    for name, cpu in (("run5", "2"), ("run7", "1")):
        state.add(build.workload("ns", name, "lq1", {"cpu": cpu}, created=T0, admitted_to="cq1",
                                 flavors={"cpu": "a"}, admitted_at=T0))
    state.add(build.workload("ns", "head0", "lq0", {"cpu": "1"}, priority=1, created=T0 + timedelta(minutes=1)))
    state.add(build.workload("ns", "head2", "lq1", {"cpu": "1"}, priority=2, created=T0 + timedelta(minutes=2)))
    return state


def usages(model: AdmissionModel) -> dict[str, dict]:
    snap = model.scheduler.snap
    nodes = {n: c.node for n, c in snap.cluster_queues.items()}
    nodes["root"] = snap.cluster_queues["cq0"].node.parent
    return {n: {fr: v for fr, v in node.usage.items() if v} for n, node in nodes.items()}


@pytest.mark.parametrize("indexed", [False, True])
def test_the_tree_after_a_cycle_is_the_tree_before_it(indexed):
    model = AdmissionModel(over_admitted(), EngineConfig())
    model.scheduler.use_candidate_index = indexed
    before = usages(model)
    res = model.cycle(T0 + timedelta(hours=1))
    assert [t.key.name for t in res.preempted] == ["run5"] and not res.admitted
    assert usages(model) == before
    assert before["root"][CPU] == 3000


@pytest.mark.parametrize("indexed", [False, True])
def test_the_cohort_is_full_once_the_preempted_workload_is_gone(indexed):
    model = AdmissionModel(over_admitted(), EngineConfig())
    model.scheduler.use_candidate_index = indexed
    now = T0 + timedelta(hours=1)
    res = model.cycle(now)
    model.release(res.preempted[0].key, now + timedelta(seconds=10), requeue=True)
    res = model.cycle(now + timedelta(seconds=10))
    # head2 fits cq1's nominal quota and goes first; the cohort (2 cpu) is then full
    assert [e.key.name for e in res.admitted] == ["head2"]
    head0 = next(e for e in res.entries if e.key.name == "head0")
    assert head0.inadmissible_msg == "Workload no longer fits after processing another workload"


def test_a_negative_add_stays_in_its_cluster_queue():
    root = QuotaNode("root", False, {})
    cq = QuotaNode("cq", True, {CPU: Quota(nominal=2000, borrowing_limit=0)})
    link(cq, root)
    recompute_subtree(root)
    cq.add_usage(CPU, 3000)
    assert (cq.usage[CPU], root.usage[CPU]) == (3000, 3000)
    cq.add_usage(CPU, -1000)
    assert (cq.usage[CPU], root.usage[CPU]) == (2000, 3000)
