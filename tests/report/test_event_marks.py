"""The simulator's record of the events the reports mark on the time axis (Recorder.marks)."""
from __future__ import annotations

from kueue_doctor.sim.incidents import incident_path
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator


def run(name: str) -> Simulator:
    return Simulator(load_scenario(str(incident_path(name)))).run()


def test_a_fault_is_recorded_at_its_time_on_the_workloads_queue():
    sim = run("zombie-pod")
    faults = [m for m in sim.recorder.marks if m.kind == "fault"]
    assert [(m.t, m.cluster_queue, m.text) for m in faults] == [(1800.0, "team-d", "zombie team-d/train-lp")]


def test_each_preemption_is_an_eviction_of_the_victim_and_a_preemption_of_the_preemptor():
    sim = run("slow-preemption-release")
    ev = [m for m in sim.recorder.marks if m.kind == "eviction"]
    pre = [m for m in sim.recorder.marks if m.kind == "preemption"]
    assert len(ev) == len(pre) == sim.recorder.summary()["clusterQueues"]["team-b"]["preemptions"] == 8
    assert {m.cluster_queue for m in ev} == {"team-b"} and {m.cluster_queue for m in pre} == {"team-a"}
    assert [m.t for m in ev] == [m.t for m in pre] == sorted(m.t for m in ev)
    # the marks are at the times the simulator's own log has the evictions
    assert [m.t for m in ev] == [t for t, event, _ in sim.log if event == "preempted"]
    assert all("evicted, preempted by team-a/" in m.text for m in ev)


def test_a_node_fault_is_on_every_queue():
    sim = run("zombie-pod")
    from kueue_doctor.sim.scenario import Fault
    sim.events.now = 42.0
    sim.recorder.fault(Fault(at=42.0, kind="nodeNotReady", node="a100-node-0"))
    assert (sim.recorder.marks[-1].t, sim.recorder.marks[-1].cluster_queue) == (42.0, "")
