"""The indexed preemption cycle (preemption_index.py, targets leaving the tree as they are chosen)
against the reference cycle (every search walks the cohort, each overlap recompute takes the
targets out and puts them back: upstream's way), on random cohort trees with borrowing queues,
several resources and policies, over several cycles: same entries, statuses, messages, targets in
the same order, same preemptions."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.preemption import Preemptor
from kueue_doctor.engine.scheduler import CycleResult

T0 = datetime(2026, 1, 1, tzinfo=UTC)
RESOURCES = ("cpu", "memory")


@st.composite
def preempting_clusters(draw):
    """A cohort tree (up to three levels) whose queues run over their nominal quota, and pending
    heads of several priorities that must preempt to get in."""
    state = ClusterState()
    for f in ("a", "b"):
        state.add(build.flavor(f))
    cohorts = ["root"]
    state.add(build.cohort("root", "", {"a": {"cpu": str(draw(st.integers(0, 4)))}} if draw(st.booleans()) else None))
    for i in range(draw(st.integers(0, 3))):
        name = f"co{i}"
        quota = {"a": {"cpu": str(draw(st.integers(0, 4)))}} if draw(st.booleans()) else None
        state.add(build.cohort(name, cohorts[draw(st.integers(0, len(cohorts) - 1))], quota))
        cohorts.append(name)
    n_cqs = draw(st.integers(2, 8))
    for i in range(n_cqs):
        quotas = {}
        for f in ("a", "b")[: draw(st.integers(1, 2))]:
            quotas[f] = {r: (str(draw(st.integers(0, 8))), None if draw(st.booleans()) else str(draw(st.integers(0, 6))))
                         for r in RESOURCES[: draw(st.integers(1, 2))]}
        bwc = draw(st.sampled_from([None, "Never", "LowerPriority"]))
        state.add(build.cluster_queue(
            f"cq{i}", quotas, cohort=draw(st.sampled_from(cohorts)),
            within=draw(st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])),
            reclaim=draw(st.sampled_from(["Never", "LowerPriority", "Any"])), borrow_within=bwc,
            when_can_borrow=draw(st.sampled_from(["MayStopSearch", "TryNextFlavor"]))))
        state.add(build.local_queue("ns", f"lq{i}", f"cq{i}"))

    def requests():
        return {r: str(draw(st.integers(1, 4))) for r in RESOURCES[: draw(st.integers(1, 2))]}
    for k in range(draw(st.integers(0, 30))):
        cq = draw(st.integers(0, n_cqs - 1))
        req = requests()
        state.add(build.workload("ns", f"run{k}", f"lq{cq}", req, priority=draw(st.integers(0, 3)), created=T0,
                                 admitted_to=f"cq{cq}", flavors={r: draw(st.sampled_from(["a", "b"])) for r in req},
                                 admitted_at=T0 + timedelta(seconds=draw(st.integers(0, 5)))))
    for k in range(draw(st.integers(1, 12))):
        state.add(build.workload("ns", f"head{k}", f"lq{draw(st.integers(0, n_cqs - 1))}", requests(),
                                 priority=draw(st.integers(0, 5)), created=T0 + timedelta(minutes=1, seconds=k)))
    return state


def summary(res: CycleResult) -> list:
    return [[(e.key, e.status, e.reason, e.inadmissible_msg, e.requeue_reason,
              [(t.key, t.reason, t.cluster_queue) for t in e.targets]) for e in res.entries + res.inadmissible],
            [(t.key, t.reason) for t in res.preempted], [e.key for e in res.admitted], res.preemption_skips]


def run(state: ClusterState, indexed: bool, build_after: float = 0.0) -> list:
    model = AdmissionModel(state, EngineConfig())
    model.scheduler.use_candidate_index = indexed
    model.scheduler.candidate_index_after = build_after
    out = []
    now = T0 + timedelta(hours=1)
    for _ in range(4):
        res = model.cycle(now)
        out.append(summary(res))
        now += timedelta(seconds=10)
        for t in res.preempted:
            model.release(t.key, now, requeue=True)
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(preempting_clusters())
def test_indexed_cycles_equal_the_reference(state):
    import copy
    reference = run(copy.deepcopy(state), False)
    assert run(copy.deepcopy(state), True) == reference   # every search reads the index
    assert run(copy.deepcopy(state), True, 1.0) == reference   # walks first, then the index


def test_the_index_is_used_and_skips_the_walk(monkeypatch):
    """On a cohort of many borrowing queues, the first searches walk and then the index is built:
    the rest read it (none walks the cohort)."""
    state = ClusterState()
    state.add(build.flavor("default"))
    for i in range(40):
        state.add(build.cluster_queue(f"cq-{i}", {"default": {"cpu": "4"}}, cohort="all", reclaim="Any"))
        state.add(build.local_queue("ns", f"lq-{i}", f"cq-{i}"))
        if i % 2:
            for k in range(8):
                state.add(build.workload("ns", f"run-{i}-{k}", f"lq-{i}", {"cpu": "1"}, created=T0,
                                         admitted_to=f"cq-{i}", flavors={"cpu": "default"},
                                         admitted_at=T0 + timedelta(seconds=k)))
        else:
            state.add(build.workload("ns", f"head-{i}", f"lq-{i}", {"cpu": "4"}, created=T0 + timedelta(minutes=1)))
    walks = []
    orig = Preemptor._borrowing_cqs_under

    def counting(self, *args):
        walks.append(1)
        return orig(self, *args)
    monkeypatch.setattr(Preemptor, "_borrowing_cqs_under", counting)
    res = AdmissionModel(state, EngineConfig()).cycle(T0 + timedelta(hours=1))
    indexed_walks = len(walks)
    model = AdmissionModel(state, EngineConfig())
    model.scheduler.use_candidate_index = False
    assert summary(model.cycle(T0 + timedelta(hours=1))) == summary(res)
    assert len(res.preempted) == 80
    # 40 queues and 160 workloads: the index costs five walks; four walk, the fifth builds it
    assert indexed_walks == 4 and len(walks) - indexed_walks > 30
