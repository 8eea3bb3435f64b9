"""Kueue's own scheduler performance-test config, replayed in simulation."""
from __future__ import annotations

from pathlib import Path

import pytest

from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "kueue-perf"


@pytest.mark.skipif(not (SHARED / "baseline-generator.yaml").exists(), reason="shared/ data not present")
def test_baseline_admits_everything_and_orders_classes_as_upstream():
    sim = Simulator(load_scenario(str(SHARED / "baseline-generator.yaml"))).run()
    s = sim.recorder.summary()
    assert s["workloads"] == {"created": 15000, "admitted": 15000, "finished": 15000,
                              "preempted": s["workloads"]["preempted"]}
    t = {k: v["avgTimeToAdmissionMs"] for k, v in s["classes"].items()}
    # upstream's rangespec: large 16.5 s < medium 76.8 s < small 215.5 s on average
    assert t["large"] < t["medium"] < t["small"]
