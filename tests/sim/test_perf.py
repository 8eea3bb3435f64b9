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
        assert arrivals == pytest.approx([r * ws["creationIntervalMs"] / 1000 for r in range(ws["count"])]), klass
        assert {(Quantity.parse(w.requests["cpu"]), w.priority, w.runtime) for w in made} == {
            (Quantity.parse(template["request"]), template["priority"], template["runtimeMs"] / 1000)}, klass


@needs_perf
def test_baseline_admits_everything_and_orders_classes_as_upstream():
    scn = load_scenario(str(PERF / "baseline-generator.yaml"))
    per_class = Counter(w.klass for w in scn.workloads)
    s = Simulator(scn).run().recorder.summary()
    w = s["workloads"]
    assert w["created"] == w["admitted"] == w["finished"] == UPSTREAM_SIZE["baseline"][1]
    assert {k: c["count"] for k, c in s["classes"].items()} == per_class
    # upstream's pass bounds on each class's average time to admission (baseline-rangespec.yaml)
    # rank the classes as its measured averages do: large 16.5 s < medium 76.8 s < small 215.5 s
    bound = read("baseline-rangespec.yaml")["wlClassesMaxAvgTimeToAdmissionMs"]
    assert sorted(bound, key=bound.get) == ["large", "medium", "small"]
    t = {k: c["avgTimeToAdmissionMs"] for k, c in s["classes"].items()}
    assert sorted(t, key=t.get) == sorted(bound, key=bound.get)
