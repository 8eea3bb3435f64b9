"""PriorityBoost (alpha from v0.17, KEP-7990): with the gate on, a Workload's effective priority is
spec.priority plus its kueue.x-k8s.io/priority-boost annotation (pkg/util/priority
EffectivePriority), read by the queue order, the cycle's order and every preemption rule."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kueue_doctor.api import build
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.workload import priority_boost
from kueue_doctor.kueue.constants import PRIORITY_BOOST_ANNOTATION

T0 = datetime(2026, 9, 1, tzinfo=UTC)


def boosted(name: str, boost: str, **kw):
    w = build.workload("ns", name, "lq", {"cpu": "2"}, **kw)
    w.meta.annotations[PRIORITY_BOOST_ANNOTATION] = boost
    return w


def cluster() -> ClusterState:
    s = ClusterState()
    s.add(build.flavor("default"))
    s.add(build.cluster_queue("cq", {"default": {"cpu": "2"}}, within="LowerPriority"))
    s.add(build.local_queue("ns", "lq", "cq"))
    s.add(build.workload("ns", "running", "lq", {"cpu": "2"}, priority=5, created=T0, admitted_to="cq",
                         flavors={"cpu": "default"}, admitted_at=T0))
    return s


@pytest.mark.parametrize("gate", [False, True])
def test_a_boost_lets_a_workload_preempt_a_higher_spec_priority(gate):
    s = cluster()
    s.add(boosted("urgent", "+10", priority=0, created=T0 + timedelta(minutes=1)))
    res = AdmissionModel(s, EngineConfig(gates={"PriorityBoost": gate})).cycle(T0 + timedelta(hours=1))
    assert [t.key.name for t in res.preempted] == (["running"] if gate else [])


@pytest.mark.parametrize("gate", [False, True])
def test_a_negative_boost_orders_the_queue(gate):
    s = cluster()
    s.add(build.workload("ns", "plain", "lq", {"cpu": "1"}, priority=1, created=T0 + timedelta(minutes=2)))
    s.add(boosted("demoted", "-5", priority=3, created=T0 + timedelta(minutes=1)))
    model = AdmissionModel(s, EngineConfig(gates={"PriorityBoost": gate}))
    head = model.queues.queues["cq"].pending_in_order()[0]
    assert head.key.name == ("plain" if gate else "demoted")
    assert model.infos[head.key].priority == (1 if gate else 3)


@pytest.mark.parametrize(("raw", "value"), [
    ("7", 7), ("+7", 7), ("-7", -7), ("", 0), (" 7", 0), ("1_0", 0), ("7.0", 0), ("x", 0),
    (str(1 << 31), 0), (str(-(1 << 31)), -(1 << 31))])
def test_the_annotation_parses_as_kueue_does(raw, value):
    assert priority_boost(boosted("w", raw)) == value
