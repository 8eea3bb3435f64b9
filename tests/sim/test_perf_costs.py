"""Incremental sampling (the perf configs' API-client model: test_perf_api.py)."""
from __future__ import annotations

import pytest

from kueue_doctor.sim import metrics
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from tests.paths import INCIDENTS


@pytest.mark.parametrize("name", ["zombie-pod", "slow-preemption-release", "drs-rounding"])
def test_incremental_sampling_gives_the_rows_of_a_full_evaluation(name, monkeypatch):
    path = str(INCIDENTS / f"{name}.yaml")
    incremental = Simulator(load_scenario(path)).run().recorder
    full_sample = metrics.Recorder.sample

    def every_queue(self, final=False):
        self._all_touched = True
        full_sample(self, final)

    monkeypatch.setattr(metrics.Recorder, "sample", every_queue)
    full = Simulator(load_scenario(path)).run().recorder
    assert incremental.timeseries() == full.timeseries()
    assert incremental.violation_seconds == full.violation_seconds

