"""Kueue's own scheduler performance-test configs (shared/data/kueue-perf): built the way upstream's
generator reads them, and the baseline replayed in simulation."""
from __future__ import annotations

from collections import Counter, defaultdict

import pytest
import yaml

from kueue_doctor.api.quantity import Quantity
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from tests.paths import SHARED

PERF = SHARED / "data" / "kueue-perf"
needs_perf = pytest.mark.skipif(not (PERF / "baseline-generator.yaml").exists(), reason="shared/ data not present")

# What upstream says each config makes, as (ClusterQueues, workloads): shared/data/README.md
# and the header of large-scale-generator.yaml.
UPSTREAM_SIZE = {"baseline": (30, 15_000), "large-scale": (1_000, 50_000)}


def read(name: str) -> dict:
    return yaml.safe_load((PERF / name).read_text())


@needs_perf
@pytest.mark.parametrize("name", sorted(UPSTREAM_SIZE))
def test_generator_builds_what_the_config_describes(name):
    cfg = read(f"{name}-generator.yaml")
    scn = load_scenario(str(PERF / f"{name}-generator.yaml"))
    cqs = scn.state.cluster_queues
    assert (len(cqs), len(scn.workloads)) == UPSTREAM_SIZE[name]
    # both configs hold one cohort class with one queue set
    (cohorts,) = cfg["cohorts"]
    (queues,) = cohorts["queuesSets"]
    assert sorted(Counter(cq.cohort for cq in cqs.values()).values()) == [queues["count"]] * cohorts["count"]
    assert sorted(lq.cluster_queue for lq in scn.state.local_queues.values()) == sorted(cqs)
    for cq in cqs.values():
        (rq,) = cq.resource_groups[0].flavors[0].resources
        assert (rq.name, rq.nominal_quota, rq.borrowing_limit) == (
            "cpu", Quantity.parse(queues["nominalQuota"]), Quantity.parse(queues["borrowingLimit"]))
        assert (cq.preemption.within_cluster_queue, cq.preemption.reclaim_within_cohort) == (
            queues["withinClusterQueue"], queues["reclaimWithinCohort"])
    # each workload set: `count` rounds, one every creationIntervalMs, each creating one workload
    # of each template in every ClusterQueue
    by_class = defaultdict(list)
    for w in scn.workloads:
        by_class[w.klass].append(w)
    sets = {t["className"]: (ws, t) for ws in queues["workloadsSets"] for t in ws["workloads"]}
    assert sorted(by_class) == sorted(sets)
    for klass, (ws, template) in sets.items():
        made = by_class[klass]
        assert Counter(w.queue for w in made) == dict.fromkeys(cqs, ws["count"]), klass
        arrivals = sorted({w.at for w in made})
        # generator.go generateWlSet sleeps the interval before each round's Create
        assert arrivals == pytest.approx([(r + 1) * ws["creationIntervalMs"] / 1000 for r in range(ws["count"])]), klass
        assert {(Quantity.parse(w.requests["cpu"]), w.priority, w.runtime) for w in made} == {
            (Quantity.parse(template["request"]), template["priority"], template["runtimeMs"] / 1000)}, klass


# upstream's measured means (the rangespecs' comments): per-class average time to admission in
# seconds and the average ClusterQueue usage; baseline also says what it was without
# SchedulingEquivalenceHashing (large 6,666 ms, usage 58.7%)
UPSTREAM_MEAN = {"baseline": {"large": 16.501, "medium": 76.768, "small": 215.468},
                 "large-scale": {"large": 105.604, "medium": 256.413, "small": 700.379}}


def run_perf(name: str, gates: dict[str, bool] | None = None) -> dict:
    scn = load_scenario(str(PERF / f"{name}-generator.yaml"))
    scn.gates.update(gates or {})
    return Simulator(scn).run().recorder.summary()


def mean_usage(summary: dict) -> float:
    cqs = summary["clusterQueues"].values()
    return sum(c["avgUsagePercent"] for c in cqs) / len(cqs)


@needs_perf
def test_baseline_matches_upstreams_timing_and_usage():
    scn = load_scenario(str(PERF / "baseline-generator.yaml"))
    per_class = Counter(w.klass for w in scn.workloads)
    s = Simulator(scn).run().recorder.summary()
    w = s["workloads"]
    assert w["created"] == w["admitted"] == w["finished"] == UPSTREAM_SIZE["baseline"][1]
    assert {k: c["count"] for k, c in s["classes"].items()} == per_class
    spec = read("baseline-rangespec.yaml")
    # issue 17's bar: each class at most upstream's pass bound and at least half its measured mean,
    # usage at least the bound, the run no longer than upstream's wall bound
    for klass, bound in spec["wlClassesMaxAvgTimeToAdmissionMs"].items():
        ours = s["classes"][klass]["avgTimeToAdmissionMs"]
        assert UPSTREAM_MEAN["baseline"][klass] * 500 <= ours <= bound, klass
    assert mean_usage(s) >= spec["clusterQueueClassesMinUsage"]["cq"]
    assert s["simulatedSeconds"] * 1000 <= spec["cmd"]["maxWallMs"]
    # without the gate upstream admits the large class sooner and uses more: equivalent NoFit
    # heads are no longer parked together until a capacity event
    off = run_perf("baseline", {"SchedulingEquivalenceHashing": False})
    assert off["classes"]["large"]["avgTimeToAdmissionMs"] < s["classes"]["large"]["avgTimeToAdmissionMs"]
    assert mean_usage(off) > mean_usage(s)
