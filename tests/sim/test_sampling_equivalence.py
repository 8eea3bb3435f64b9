"""The sampler's shortcuts (sim/metrics.py: the index of admitted work, no pending list for a
queue at its nominal quota, an evaluation that stops once the row is known, rows kept for
settled queues) give, at every sample, the row a full observation and a complete guarantee
evaluation of every queue gives."""
from __future__ import annotations

import dataclasses
import math
import random
from datetime import timedelta

import pytest

from kueue_doctor.guarantee import Evaluator
from kueue_doctor.sim import metrics
from kueue_doctor.sim.observe import observations
from kueue_doctor.sim.perf import scenario_from_generator
from kueue_doctor.sim.scenario import Scenario, load_scenario
from kueue_doctor.sim.simulator import Simulator
from tests.paths import INCIDENTS


def reference_row(sim: Simulator, evaluator: Evaluator, name: str, obs) -> list:
    """The row as the sampler wrote it before its shortcuts: every workload walked, every
    pending workload listed and evaluated."""
    g = evaluator.evaluate(obs, sim.dt(sim.now))
    res = metrics.primary_resource(sorted({fr[1] for fr in obs.cluster_queue.node.quotas}))
    used = sum(v for fr, v in g.reserved.items() if fr[1] == res)
    nominal = sum(v for fr, v in g.nominal.items() if fr[1] == res)
    fits = sum(v for fr, v in g.pending_fits.items() if fr[1] == res)
    return [round(sim.now, 3), used, nominal, fits, g.violated]


def checked_run(scn: Scenario, monkeypatch) -> tuple[int, int]:
    """Run ``scn`` comparing every sample's rows with the reference; (rows compared, violated rows)."""
    real_sample = metrics.Recorder.sample
    seen = {"rows": 0, "violated": 0}

    def sample(self, final=False):
        before = {name: len(rows) for name, rows in self.series.items()}
        real_sample(self, final)
        sim = self.sim
        evaluator = Evaluator(sim.model.snapshot.flavors, sim.config, self.evaluator.min_wait)
        for name, obs in observations(sim).items():
            rows = self.series.get(name, [])
            if len(rows) == before.get(name, 0):
                continue   # a final sample at the time of the last one writes nothing
            assert rows[-1] == reference_row(sim, evaluator, name, obs), (name, sim.now)
            seen["rows"] += 1
            seen["violated"] += bool(rows[-1][4])

    monkeypatch.setattr(metrics.Recorder, "sample", sample)
    Simulator(scn).run()
    return seen["rows"], seen["violated"]


def random_generator(rng: random.Random) -> dict:
    """A small perf-generator config: cohorts of queues that borrow and preempt, workload sets of
    random sizes, priorities and runtimes arriving in rounds."""
    def workload_set() -> dict:
        return {"count": rng.randint(2, 12), "creationIntervalMs": rng.choice([50, 200, 500, 1500]),
                "workloads": [{"className": c, "runtimeMs": rng.choice([100, 800, 3000, 9000]),
                               "priority": rng.choice([0, 50, 100, 200]), "request": rng.choice([1, 2, 5, 8, 20])}
                              for c in rng.sample(["small", "medium", "large"], rng.randint(1, 3))]}
    return {"cohorts": [{"className": "cohort", "count": rng.randint(1, 3), "queuesSets": [{
        "className": "cq", "count": rng.randint(1, 5), "nominalQuota": rng.choice([4, 10, 20]),
        "borrowingLimit": rng.choice([0, 5, 100]),
        "reclaimWithinCohort": rng.choice(["Never", "Any", "LowerPriority"]),
        "withinClusterQueue": rng.choice(["Never", "LowerPriority"]),
        "workloadsSets": [workload_set() for _ in range(rng.randint(1, 3))]}]}]}


# seeds whose runs all have violated samples (0 has none, 4 is tiny); each run takes a few seconds
@pytest.mark.parametrize("seed", [1, 2, 3, 5, 6, 7])
def test_sampled_rows_equal_a_full_evaluation_on_random_perf_configs(seed, monkeypatch):
    rng = random.Random(seed)
    scn = scenario_from_generator(random_generator(rng), f"random-{seed}.yaml")
    # samples often, with a short wait threshold and a slow API client (admitted work waits for
    # its patch, pending heads for their status writes), so that work waits past it
    scn.settings = dataclasses.replace(scn.settings, sample_interval=rng.choice([0.25, 0.5, 1.0]),
                                       min_wait=rng.choice([0.2, 0.5, 2.0]),
                                       api_writes=(rng.choice([2.0, 5.0, 50.0]), 4.0, 1.0))
    rows, violated = checked_run(scn, monkeypatch)
    assert rows > 400 and violated > 20


@pytest.mark.parametrize("name", ["zombie-pod", "slow-preemption-release", "drs-rounding",
                                  "quota-held-without-pods", "admission-check-stuck", "pods-ready-timeout-loop",
                                  "head-exceeds-max-quota", "topology-fragmentation"])
def test_sampled_rows_equal_a_full_evaluation_on_the_incidents(name, monkeypatch):
    rows, _ = checked_run(load_scenario(str(INCIDENTS / f"{name}.yaml")), monkeypatch)
    assert rows > 0


@pytest.mark.parametrize("seed", range(20))
def test_the_samplers_cutoff_on_simulated_seconds_is_the_guarantees_on_datetimes(seed):
    """A sample compares the simulator's float seconds with Recorder._cutoff: for every waiting
    time, the same answer as ``now - since >= min_wait`` on the datetimes sim.dt makes."""
    rng = random.Random(seed)
    scn = load_scenario(str(INCIDENTS / "zombie-pod.yaml"))
    scn.settings = dataclasses.replace(scn.settings, min_wait=rng.choice([0.0, 0.2, 1e-7, 300.0, rng.uniform(0, 900)]))
    sim = Simulator(scn)
    rec = sim.recorder
    rec.evaluator = Evaluator(sim.model.snapshot.flavors, sim.config, timedelta(seconds=scn.settings.min_wait))
    t = rng.choice([0.0, 1.5, 300.0000004, rng.uniform(0, 5000)])
    now = sim.dt(t)
    cutoff = rec._cutoff(now)
    probes = [cutoff, math.nextafter(cutoff, math.inf), math.nextafter(cutoff, -math.inf), t, 0.0,
              *(t - scn.settings.min_wait + d for d in (-1e-6, -5e-7, 0.0, 5e-7, 1e-6)),
              *(rng.uniform(-10, t + 10) for _ in range(50))]
    for ws in probes:
        assert (ws <= cutoff) == (now - sim.dt(ws) >= rec.evaluator.min_wait), ws
