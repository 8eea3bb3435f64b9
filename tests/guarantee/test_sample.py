"""Evaluator.sample (the simulator's per-sample evaluation, which stops once its answer is
known) against a complete Evaluator.evaluate of the same observation, on random queues: several
flavors and resources, flavors a node selector excludes, pod sets, partial admission, variants
of a parent that runs, admitted work that does not run, waits either side of the threshold."""
from __future__ import annotations

import random
from datetime import timedelta

import pytest

from kueue_doctor.api.load import load_documents
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.guarantee import Evaluator, NotRunning, QueueObservation, Waiting
from tests.doctor.cluster import API, flavor, local_queue, workload
from tests.guarantee.test_evaluate import NOW
from tests.guarantee.test_variants import PARENT

RESOURCES = ("nvidia.com/gpu", "cpu")
MIN_WAIT = timedelta(minutes=5)


def random_queue(rng: random.Random) -> tuple[AdmissionModel, list]:
    """A ClusterQueue with random quotas and admitted usage, its pending workloads; (model,
    the not-running entries of some of its admitted workloads)."""
    flavors = [f"f{i}" for i in range(rng.randint(1, 3))]
    resources = list(RESOURCES[:rng.randint(1, 2)])
    cq = {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": "q"}, "spec": {
        "queueingStrategy": "BestEffortFIFO", "namespaceSelector": {},
        "resourceGroups": [{"coveredResources": resources, "flavors": [
            {"name": f, "resources": [{"name": r, "nominalQuota": str(rng.choice([0, 2, 4, 8, 16]))}
                                      for r in resources]} for f in flavors]}]}}
    objs = [cq, local_queue("ns", "lq", "q")] + [flavor(f, {"pool": f}) for f in flavors]
    for i in range(rng.randint(0, 4)):   # admitted work: usage up to and past the nominal quota
        objs.append(workload("ns", f"adm{i}", "lq", rng.randint(1, 8), admitted_to=("q", rng.choice(flavors)),
                             resource=resources[0]))
        if rng.random() < 0.3:
            objs[-1]["metadata"]["ownerReferences"] = [dict(PARENT)]
    for i in range(rng.randint(0, 14)):
        minute = rng.randint(0, 59)
        w = workload("ns", f"w{i:02}", "lq", rng.choice([0, 1, 2, 3, 5, 8, 20]), count=rng.randint(1, 3),
                     created=f"2026-11-30T11:{minute:02}:00Z", resource=rng.choice(resources),
                     node_selector={"pool": rng.choice(flavors)} if rng.random() < 0.25 else None)
        spec = w["spec"]["podSets"][0]
        if rng.random() < 0.3:
            spec["minCount"] = rng.randint(1, spec["count"])
        if rng.random() < 0.3:   # a second pod set, sometimes of a resource the queue does not cover
            second = rng.choice([*resources, "example.com/fpga"])
            w["spec"]["podSets"].append({"name": "aux", "count": 1, "template": {"spec": {"containers": [
                {"name": "aux", "image": "x", "resources": {"requests": {second: str(rng.randint(1, 4))}}}]}}})
        if rng.random() < 0.15:
            w["metadata"]["ownerReferences"] = [dict(PARENT)]
        w["spec"]["priority"] = rng.choice([0, 100])
        objs.append(w)
    config = EngineConfig(gates={"PartialAdmission": True, "ConcurrentAdmission": rng.random() < 0.5})
    m = AdmissionModel(load_documents(objs), config)
    admitted = list(m.snapshot.cluster_queues["q"].workloads.values())
    not_running = [NotRunning(wi, NOW - rng.choice([timedelta(minutes=1), timedelta(minutes=10)]), "gated")
                   for wi in admitted if rng.random() < 0.4]
    return m, not_running


@pytest.mark.parametrize("seed", range(400))
def test_sample_gives_what_a_complete_evaluation_records(seed):
    rng = random.Random(seed)
    m, not_running = random_queue(rng)
    queue = m.snapshot.cluster_queues["q"]
    pending = [(wi, NOW - rng.choice([timedelta(minutes=2), MIN_WAIT, timedelta(minutes=30)]))
               for wi in m.queues.pending_in_order("q")]
    full = Evaluator(m.snapshot.flavors, m.config, MIN_WAIT).evaluate(
        QueueObservation(queue, [Waiting(wi, since) for wi, since in pending], not_running), NOW)
    ev = Evaluator(m.snapshot.flavors, m.config, MIN_WAIT)
    waited = any(nr.since <= ev.cutoff(NOW) for nr in not_running)
    for _ in range(2):   # the second time from what it kept of each workload
        oldest = min((since for _, since in pending), default=None) if rng.random() < 0.5 else None
        fits, fitting, violated = ev.sample(queue, iter(pending), waited, ev.cutoff(NOW), oldest)
        assert {fr: v for fr, v in fits.items() if v} == {fr: v for fr, v in full.pending_fits.items() if v}
        assert fitting == bool(full.fitting)
        assert violated == full.violated
