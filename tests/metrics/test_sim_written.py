"""`serve --simulate`: the series that need the workloads as Kueue wrote them (pending reasons)
and the TAS facts come from the folder the simulator writes at each refresh, and equal what the
exporter reads from that folder gathered."""
from __future__ import annotations

import threading

import pytest

from kueue_doctor.metrics.from_sim import sim_written, view_from_sim
from kueue_doctor.metrics.from_snapshot import view_from_snapshot
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from kueue_doctor.sim.snapshot import write_snapshot
from kueue_doctor.sources.snapshot import load_folder

from ..paths import REPO


@pytest.mark.parametrize(("scenario", "at"), [("examples/incidents/topology-fragmentation.yaml", 3600.0),
                                          ("examples/incidents/slow-preemption-release.yaml", 1800.0)])
def test_written_series_are_the_gathered_folders(tmp_path, scenario, at):
    path = REPO / scenario
    sim = Simulator(load_scenario(str(path))).run(at)
    live = view_from_sim(sim)
    assert live.upstream is not None and live.upstream.unadmitted is None and not live.topology_free
    view = view_from_sim(sim, written=sim_written(sim, threading.Lock()))
    write_snapshot(sim, str(tmp_path))
    gathered = view_from_snapshot(load_folder(str(tmp_path)))
    assert view.upstream is not None and gathered.upstream is not None
    assert view.upstream.unadmitted == gathered.upstream.unadmitted
    assert view.upstream.lq_unadmitted == gathered.upstream.lq_unadmitted
    assert view.topology_free == gathered.topology_free
    assert view.causes == gathered.causes
    assert sum(view.upstream.unadmitted.values()) > 0   # something pending to count
    if "topology" in scenario:
        assert view.topology_free
