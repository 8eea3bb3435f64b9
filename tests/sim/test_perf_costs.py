"""The perf configs' controller-cost model (sim/perf.py ApiWrites) and incremental sampling."""
from __future__ import annotations

import pytest

from kueue_doctor.sim import metrics
from kueue_doctor.sim.perf import ApiWrites
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from tests.paths import INCIDENTS


def test_writes_pass_the_burst_then_wait_at_the_rate():
    api = ApiWrites(qps=50, burst=100, per_admission=1.0, lag=1)
    waits = [api.write(0.0) for _ in range(150)]
    # burst 100 at once, then one every 1/50 s, in call order
    assert waits[:100] == pytest.approx([0.0] * 100, abs=1e-9)
    assert waits[100] == pytest.approx(0.02)
    assert waits[149] == pytest.approx(50 * 0.02)
    assert waits == sorted(waits)


def test_a_cycle_waits_for_the_writes_of_the_cycle_lag_back():
    api = ApiWrites(qps=10, burst=1, per_admission=1.0, lag=2)
    for _ in range(20):
        api.write(0.0)                      # served 0.0 .. 1.9 s, drained at 2.0 s
    first = api.end_cycle(0.0, 0.01)        # only one cycle seen: only its compute cost
    assert first == pytest.approx(0.01)
    for _ in range(10):
        api.write(0.01)                     # served 2.0 .. 2.9 s
    # the cycle 2 back (the first) has its writes drained at 2.0 s
    assert api.end_cycle(0.01, 0.01) == pytest.approx(2.0)


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

