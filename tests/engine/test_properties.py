"""Invariants of the admission engine on random cohort trees and workloads (hypothesis)."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.preemption import IN_CLUSTER_QUEUE, IN_COHORT_RECLAMATION, satisfies_policy
from kueue_doctor.engine.quota import recompute_usage

T0 = datetime(2026, 1, 1, tzinfo=UTC)
FLAVORS = ("a", "b")


@st.composite
def clusters(draw):
    state = ClusterState()
    for f in FLAVORS:
        state.add(build.flavor(f))
    n_cohorts = draw(st.integers(1, 4))
    cohorts = [f"co{i}" for i in range(n_cohorts)]
    for i, name in enumerate(cohorts):
        parent = cohorts[draw(st.integers(0, i - 1))] if i and draw(st.booleans()) else ""
        quota = {"a": {"cpu": str(draw(st.integers(0, 4)))}} if draw(st.booleans()) else None
        state.add(build.cohort(name, parent, quota))
    n_cqs = draw(st.integers(1, 6))
    for i in range(n_cqs):
        quotas = {}
        for f in FLAVORS[: draw(st.integers(1, 2))]:
            nominal = draw(st.integers(0, 10))
            bl = draw(st.one_of(st.none(), st.integers(0, 6)))
            ll = draw(st.one_of(st.none(), st.integers(0, nominal)))
            quotas[f] = {"cpu": (str(nominal), None if bl is None else str(bl), None if ll is None else str(ll))}
        cohort = draw(st.sampled_from([*cohorts, ""]))
        if not cohort:  # limits need a cohort
            quotas = {f: {"cpu": (v["cpu"][0],)} for f, v in quotas.items()}
        state.add(build.cluster_queue(
            f"cq{i}", quotas, cohort=cohort,
            within=draw(st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])),
            reclaim=draw(st.sampled_from(["Never", "LowerPriority", "Any"])),
            strategy=draw(st.sampled_from(["BestEffortFIFO", "StrictFIFO"])),
            when_can_borrow=draw(st.sampled_from(["MayStopSearch", "TryNextFlavor"])),
            weight=draw(st.sampled_from([None, "1", "2", "0"]))))
        state.add(build.local_queue("ns", f"lq{i}", f"cq{i}"))
    n_wls = draw(st.integers(1, 25))
    for k in range(n_wls):
        state.add(build.workload("ns", f"w{k}", f"lq{draw(st.integers(0, n_cqs - 1))}",
                                 {"cpu": str(draw(st.integers(1, 6)))}, count=draw(st.integers(1, 2)),
                                 priority=draw(st.integers(0, 3)), created=T0 + timedelta(seconds=k)))
    arrivals = draw(st.lists(st.lists(st.tuples(st.integers(0, n_cqs - 1), st.integers(1, 6), st.integers(0, 5)),
                                      max_size=3), min_size=6, max_size=6))
    return state, draw(st.booleans()), arrivals


def check_invariants(model: AdmissionModel) -> None:
    snap = model.snapshot
    for cq in snap.cluster_queues.values():
        expect = {}
        for wi in cq.workloads.values():
            for fr, v in wi.usage.items():
                expect[fr] = expect.get(fr, 0) + v
        got = {fr: v for fr, v in cq.node.usage.items() if v}
        assert got == {fr: v for fr, v in expect.items() if v}, f"{cq.name}: usage drifted from its workloads"
        for fr, v in cq.node.usage.items():
            assert v >= 0, f"{cq.name}: negative usage {fr}={v}"
    # incremental cohort usage equals the from-scratch aggregation
    roots = {id(n.root()): n.root() for n in snap.nodes()}.values()
    for root in roots:
        if root.is_cq:
            continue
        before = {n.name: {k: v for k, v in n.usage.items() if v} for n in snap.cohorts.values()}
        recompute_usage(root)
        after = {n.name: {k: v for k, v in n.usage.items() if v} for n in snap.cohorts.values()}
        assert before == after, "incremental cohort usage differs from the aggregated one"
    # Limits hold for the work that stays: like Kueue, a cycle may admit against quota that
    # evicted victims still hold while they terminate (a deliberate, transient over-subscription).
    victims = [wi for wi in snap.all_workloads() if wi.evicted]
    for wi in victims:
        snap.remove_workload(wi)
    try:
        for cq in snap.cluster_queues.values():
            for fr, v in cq.node.usage.items():
                bl = cq.node.borrowing_limit(fr)
                if bl is not None:
                    assert v <= cq.node.nominal(fr) + bl, f"{cq.name} exceeds nominal+borrowingLimit on {fr}"
                if cq.node.parent is None:
                    assert v <= cq.node.nominal(fr), f"{cq.name} without cohort exceeds nominal on {fr}"
        for root in roots:
            for fr, v in root.usage.items():
                assert v <= root.subtree.get(fr, 0), f"cohort {root.name} lends more than it has on {fr}"
    finally:
        for wi in victims:
            snap.add_workload(wi, wi.cluster_queue)


def check_preemptions(model: AdmissionModel, res, fair: bool) -> None:
    """Each victim of a cycle is one its preemptor's ClusterQueue policy allows, in its own cohort tree."""
    for t in res.preempted:
        pre = next(e for e in res.entries if t in e.targets)
        policy = (model.snapshot.cluster_queues[pre.cq_name].preemption.within_cluster_queue
                  if t.reason == IN_CLUSTER_QUEUE else
                  model.snapshot.cluster_queues[pre.cq_name].preemption.reclaim_within_cohort)
        if not fair or t.reason == IN_CLUSTER_QUEUE:
            assert satisfies_policy(pre.wi, t.wi, policy), f"{t.key} preempted against {policy}"
        if t.reason != IN_CLUSTER_QUEUE:
            own = model.snapshot.cluster_queues[pre.cq_name].node.root()
            assert model.snapshot.cluster_queues[t.cluster_queue].node.root() is own


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_cycles_keep_quota_invariants(case):
    state, fair, arrivals = case
    cfg = EngineConfig(fair_sharing=fair)
    model = AdmissionModel(state, cfg)
    now = T0 + timedelta(minutes=1)
    check_invariants(model)
    for step, batch in enumerate(arrivals):
        for n, (cq, cpu, prio) in enumerate(batch):
            model.submit(build.workload("ns", f"late{step}-{n}", f"lq{cq}", {"cpu": str(cpu)}, priority=prio,
                                        created=now))
        res = model.cycle(now)
        check_preemptions(model, res, fair)
        check_invariants(model)
        now += timedelta(seconds=10)
        # victims stop and release their quota; some admitted workloads finish
        for wi in list(model.admitted()):
            if wi.evicted:
                model.release(wi.key, now, requeue=True)
            elif (sum(map(ord, str(wi.key))) + step) % 4 == 0:
                model.release(wi.key, now, requeue=False)
        check_invariants(model)


def test_the_checks_see_reclaim_and_priority_preemption():
    """The random clusters rarely preempt (about 1 cycle in 60) and almost never across ClusterQueues,
    so the preemption checks above get one cluster where both happen: a lender reclaims its nominal
    quota from a borrower, then a higher-priority workload preempts within the lender."""
    state = ClusterState()
    state.add(build.flavor("a"))
    state.add(build.cohort("co"))
    state.add(build.cluster_queue("lender", {"a": {"cpu": "4"}}, cohort="co", within="LowerPriority", reclaim="Any"))
    state.add(build.cluster_queue("borrower", {"a": {"cpu": "4"}}, cohort="co"))
    state.add(build.local_queue("ns", "lq-lender", "lender"))
    state.add(build.local_queue("ns", "lq-borrower", "borrower"))
    for i in range(2):  # 8 cpu: the borrower's 4 and the lender's 4
        state.add(build.workload("ns", f"borrowed-{i}", "lq-borrower", {"cpu": "4"}, created=T0 + timedelta(seconds=i)))
    model = AdmissionModel(state, EngineConfig())
    now = T0 + timedelta(minutes=1)
    arrivals = {2: ("reclaim", 0), 4: ("urgent", 5)}
    seen = []
    for step in range(6):
        if step in arrivals:
            name, prio = arrivals[step]
            model.submit(build.workload("ns", name, "lq-lender", {"cpu": "4"}, priority=prio, created=now))
        res = model.cycle(now)
        check_preemptions(model, res, fair=False)
        check_invariants(model)
        seen += [(t.cluster_queue, t.reason) for t in res.preempted]
        now += timedelta(seconds=10)
        for wi in list(model.admitted()):
            if wi.evicted:
                model.release(wi.key, now, requeue=True)
    assert seen == [("borrower", IN_COHORT_RECLAMATION), ("lender", IN_CLUSTER_QUEUE)]
