"""Scheduler.fits by arithmetic (RemovalShadow) against fits by taking the workloads out of the
snapshot and putting them back (upstream's way, Scheduler.fits_by_removal)."""
from __future__ import annotations

from datetime import timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_doctor.api import build
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.quota import Quota, QuotaNode, RemovalShadow, link, recompute_subtree
from kueue_doctor.engine.scheduler import Scheduler

from .test_properties import T0, clusters

FRS = [("a", "cpu"), ("b", "cpu")]


@st.composite
def trees(draw):
    """A random cohort tree with admitted usage, and what a cycle does to it: ("target", cq, usage)
    removes a workload from the shadow, ("add", cq, usage) is usage the scheduler adds."""
    def quotas():
        out = {}
        for fr in FRS[: draw(st.integers(0, 2))]:
            nominal = draw(st.integers(0, 10))
            out[fr] = Quota(nominal, draw(st.one_of(st.none(), st.integers(0, 6))),
                            draw(st.one_of(st.none(), st.integers(0, nominal))))
        return out
    cohorts = [QuotaNode("root", False, quotas())]
    for i in range(draw(st.integers(0, 3))):
        c = QuotaNode(f"co{i}", False, quotas())
        link(c, cohorts[draw(st.integers(0, len(cohorts) - 1))])
        cohorts.append(c)
    cqs = []
    for i in range(draw(st.integers(1, 6))):
        q = QuotaNode(f"cq{i}", True, quotas())
        link(q, cohorts[draw(st.integers(0, len(cohorts) - 1))])
        cqs.append(q)
    recompute_subtree(cohorts[0])
    usage = st.dictionaries(st.sampled_from(FRS), st.integers(1, 6), min_size=1)
    admitted = draw(st.lists(st.tuples(st.integers(0, len(cqs) - 1), usage), max_size=12))
    for i, u in admitted:
        cqs[i].add_usages(u)
    steps = draw(st.lists(st.one_of(
        st.tuples(st.just("target"), st.sampled_from(range(len(admitted))) if admitted else st.nothing()),
        st.tuples(st.just("add"), st.tuples(st.integers(0, len(cqs) - 1), usage))), max_size=10))
    extra = draw(st.lists(st.sampled_from(range(len(admitted))), max_size=3)) if admitted else []
    query = (draw(st.integers(0, len(cqs) - 1)), draw(usage))
    return cqs, admitted, steps, extra, query


def by_removal(cq: QuotaNode, usage, removed) -> bool:
    for node, u in removed:
        node.remove_usages(u)
    ok = all(cq.available(fr) >= v for fr, v in usage.items())
    for node, u in removed:
        node.add_usages(u)
    return ok


@settings(max_examples=400, deadline=None)
@given(trees())
def test_shadow_fits_equals_removing_and_adding_back(case):
    cqs, admitted, steps, extra, (qi, qusage) = case
    shadow = RemovalShadow()
    targets: list[int] = []
    for kind, arg in steps:
        if kind == "target":
            if arg in targets:
                continue
            targets.append(arg)
            i, u = admitted[arg]
            shadow.remove(cqs[i], u)
        else:
            i, u = arg
            cqs[i].add_usages(u)
            shadow.refresh(cqs[i])
        for q in cqs:   # after every step, for every queue: the shadow is the tree minus the targets
            removed = [(cqs[admitted[t][0]], admitted[t][1]) for t in targets]
            assert shadow.fits(q, qusage, []) == by_removal(q, qusage, removed)
    extras = [x for x in dict.fromkeys(extra) if x not in targets]
    removed = [(cqs[admitted[t][0]], admitted[t][1]) for t in targets + extras]
    before = [dict(n.usage) for n in cqs]
    got = shadow.fits(cqs[qi], qusage, [(cqs[admitted[x][0]], admitted[x][1]) for x in extras])
    assert [n.usage for n in cqs] == before   # the tree itself is never touched
    assert got == by_removal(cqs[qi], qusage, removed)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_scheduler_fits_equals_fits_by_removal_in_cycles(case):
    state, fair, arrivals = case
    model = AdmissionModel(state, EngineConfig(fair_sharing=fair))
    fast = Scheduler.fits

    def checked(self, cq, usage, cycle_targets, targets):
        got = fast(self, cq, usage, cycle_targets, targets)
        removed = dict(cycle_targets.tree(cq))
        removed.update({t.key: t for t in targets})
        assert got == self.fits_by_removal(cq, usage, removed, cycle_targets)
        return got

    Scheduler.fits = checked
    try:
        now = T0 + timedelta(minutes=1)
        for step, batch in enumerate(arrivals):
            for n, (cq, cpu, prio) in enumerate(batch):
                model.submit(build.workload("ns", f"late{step}-{n}", f"lq{cq}", {"cpu": str(cpu)},
                                            priority=prio, created=now))
            res = model.cycle(now)
            now += timedelta(seconds=10)
            for t in res.preempted:
                model.release(t.key, now, requeue=True)
    finally:
        Scheduler.fits = fast


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(clusters(), st.randoms(use_true_random=False))
def test_removing_many_at_once_equals_one_by_one(case, rnd):
    state, fair, _arrivals = case
    model = AdmissionModel(state, EngineConfig(fair_sharing=fair))
    for m in range(1, 6):   # one head per ClusterQueue a cycle: several, to stack workloads up
        model.cycle(T0 + timedelta(minutes=m))
    snap = model.snapshot
    admitted = list(snap.all_workloads())
    gone = rnd.sample(admitted, rnd.randint(0, len(admitted)))

    def usages():
        return {id(n): {fr: v for fr, v in n.usage.items() if v} for n in snap.nodes()}

    start = usages()
    snap.remove_workloads(gone)
    at_once = usages()
    snap.add_workloads((wi, wi.cluster_queue) for wi in gone)
    assert usages() == start
    for wi in gone:
        snap.remove_workload(wi)
    assert at_once == usages()
    for wi in gone:
        snap.add_workload(wi, wi.cluster_queue)
    assert usages() == start
