"""The stepping API: ``start`` / ``advance`` resume a run where it stopped, ``fork`` copies one.

A stepped or forked run must end exactly where one uninterrupted ``run`` ends: the same summary
(wall time aside) and the same folder written at the end, byte for byte."""
from __future__ import annotations

from pathlib import Path

import pytest

from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from kueue_doctor.sim.snapshot import write_snapshot

from ..paths import REPO

SCENARIOS = [*sorted((REPO / "examples" / "incidents").glob("*.yaml")), REPO / "examples" / "afs" / "two-teams.yaml"]


def _end(sim: Simulator, folder: Path) -> tuple[dict, dict[str, str]]:
    summary = sim.recorder.summary()
    summary.pop("wallSeconds", None)
    write_snapshot(sim, folder)
    return summary, {p.name: p.read_text() for p in sorted(folder.iterdir())}


def _finish(sim: Simulator) -> Simulator:
    sim.recorder.sample(final=True)   # what run() adds after its advance
    return sim


def _cut(path: Path) -> float:
    """A time inside the run: a third of its duration."""
    duration = load_scenario(str(path)).settings.duration
    assert duration, path
    return duration / 3


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_advance_in_steps_ends_as_one_run(path, tmp_path):
    whole = _end(Simulator(load_scenario(str(path))).run(), tmp_path / "whole")
    sim = Simulator(load_scenario(str(path))).start()
    cut = _cut(path)
    sim.advance(cut)
    assert sim.now == cut
    sim.start()   # a second start schedules nothing again
    sim.advance(2 * cut)
    stepped = _end(_finish(sim.advance()), tmp_path / "stepped")
    assert stepped == whole


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_a_fork_leaves_the_original_as_an_unforked_run(path, tmp_path):
    whole = _end(Simulator(load_scenario(str(path))).run(), tmp_path / "whole")
    sim = Simulator(load_scenario(str(path))).start()
    sim.advance(_cut(path))
    fork = sim.fork()
    forked_at = sim.recorder.summary()
    fork.advance()    # to the end, before the original moves on
    assert fork.now > sim.now
    assert sim.recorder.summary() == forked_at   # the fork's run did not touch the original
    original = _end(_finish(sim.advance()), tmp_path / "original")
    assert original == whole
    # and the fork, advanced to the same end, is the same run too
    assert _end(_finish(fork), tmp_path / "fork") == whole


def test_a_fork_shares_no_workload_with_its_original():
    sim = Simulator(load_scenario(str(SCENARIOS[0]))).start()
    sim.advance(_cut(SCENARIOS[0]))
    fork = sim.fork()
    assert fork.workloads.keys() == sim.workloads.keys()
    key = next(iter(sim.workloads))
    assert fork.workloads[key] is not sim.workloads[key]
    assert fork.model is not sim.model and fork.events is not sim.events
    assert fork.recorder.sim is fork
