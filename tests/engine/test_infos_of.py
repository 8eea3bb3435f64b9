"""infos_of (one model build: gates read once, per-pod requests remembered per template) gives
each workload what info_of gives it, and no two workloads share a mutable part."""
import random
from datetime import UTC, datetime, timedelta

from kueue_doctor.api import objects as o
from kueue_doctor.api.quantity import Quantity
from kueue_doctor.engine.config import EngineConfig
from kueue_doctor.engine.transformations import ResourceRules
from kueue_doctor.engine.workload import RequestsMemo, WorkloadInfo, accounted_requests, info_of, infos_of
from kueue_doctor.keys import WorkloadKey

T0 = datetime(2024, 1, 1, tzinfo=UTC)
VALUES = ["1", "250m", "2Gi", "8", "4"]
NAMES = ["cpu", "memory", "nvidia.com/gpu", "example.com/foo"]
CONDITIONS = ["QuotaReserved", "Evicted", "Admitted", "Finished", "Requeued"]
REASONS = ["PodsReadyTimeout", "AdmissionCheck", "Preempted", ""]


def resources(rng: random.Random) -> dict[str, Quantity]:
    return {n: Quantity.parse(rng.choice(VALUES)) for n in rng.sample(NAMES, rng.randint(1, 3))}


def template(rng: random.Random) -> o.PodSpec:
    spec = o.PodSpec(containers=[o.Container("c", resources(rng), resources(rng) if rng.random() < 0.3 else {})])
    if rng.random() < 0.1:
        spec.init_containers = [o.Container("i", resources(rng))]
    if rng.random() < 0.05:
        spec.containers.append(o.Container("side", resources(rng)))
    return spec


def workload(rng: random.Random, i: int) -> o.Workload:
    conds = [o.Condition(rng.choice(CONDITIONS), rng.choice(["True", "False"]), rng.choice(REASONS),
                         last_transition_time=T0 + timedelta(minutes=rng.randint(0, 60)))
             for _ in range(rng.choice([0, 0, 1, 2, 4]))]   # types may repeat: the first counts
    w = o.Workload(o.Meta(f"w{i}", "ns", uid=f"u{i}", creation_timestamp=T0),
                   queue_name="lq", pod_sets=[o.PodSet(f"ps{k}", rng.randint(1, 4), template(rng))
                                              for k in range(rng.randint(1, 2))], priority=rng.randint(0, 3))
    w.status.conditions = conds
    if rng.random() < 0.3:
        w.status.admission = o.Admission("cq", [o.PodSetAssignment(ps.name, {"cpu": "f"}, {"cpu": Quantity.parse("2")},
                                                                   ps.count) for ps in w.pod_sets])
    if rng.random() < 0.2:
        w.status.reclaimable_pods = {"ps0": 1}
    return w


def view(wi: WorkloadInfo) -> tuple:
    return (wi.key, wi.priority, wi.creation, wi.queue_name, wi.pod_sets, wi.cluster_queue, wi.usage, wi.evicted,
            wi.quota_reserved_at, wi.cand_key, wi.queue_order_timestamp())


def test_infos_of_gives_what_info_of_gives():
    rng = random.Random(5)
    wls = {WorkloadKey("ns", f"w{i}"): workload(rng, i) for i in range(800)}
    for rules in (ResourceRules(), ResourceRules.of(["example.com/"])):
        for reclaimable in (False, True):
            cfg = EngineConfig()
            cfg.resource_rules = rules
            cfg.gates["ReclaimablePods"] = reclaimable
            got = infos_of(wls, cfg)
            assert list(got) == list(wls)
            for key, w in wls.items():
                assert view(got[key]) == view(info_of(w, cfg, key)), key
                assert got[key].key is key


def test_workloads_of_one_template_do_not_share_requests():
    spec = o.PodSpec(containers=[o.Container("c", {"cpu": Quantity.parse("4")})])
    same = o.PodSpec(containers=[o.Container("c", {"cpu": Quantity.parse("4")})])
    wls = {WorkloadKey("ns", n): o.Workload(o.Meta(n, "ns"), pod_sets=[o.PodSet("main", 1, s)])
           for n, s in (("a", spec), ("b", same), ("c", spec))}
    infos = infos_of(wls, EngineConfig())
    a, b, c = (infos[WorkloadKey("ns", n)].pod_sets[0] for n in "abc")
    assert a.per_pod == b.per_pod == c.per_pod == {"cpu": 4000}
    assert a.per_pod is not b.per_pod and a.per_pod is not c.per_pod
    a.per_pod["cpu"] = 1   # one workload's requests changed (a scaled pod set, a test) ...
    a.flavors["cpu"] = "f"
    assert b.per_pod == c.per_pod == {"cpu": 4000} and not b.flavors   # ... leaves the others alone


def test_memo_tells_quantities_and_resource_names_apart():
    memo = RequestsMemo(None)
    four, eight = Quantity.parse("4"), Quantity.parse("8")
    specs = [o.PodSpec(containers=[o.Container("c", r, lim)]) for r, lim in (
        ({"cpu": four}, {}), ({"cpu": eight}, {}), ({"memory": four}, {}), ({"cpu": four}, {"cpu": eight}),
        ({}, {"cpu": four}), ({"cpu": four}, {}))]
    got = [memo.per_pod(s) for s in specs]
    assert got == [accounted_requests(s, None) for s in specs]
    assert got[0] != got[1] and got[0] != got[2] and got[0] == got[5]
    assert got[4] == {"cpu": 4000}   # a limit stands for a missing request


def test_first_condition_of_a_type_decides():
    w = o.Workload(o.Meta("w", "ns", creation_timestamp=T0),
                   pod_sets=[o.PodSet("main", 1, o.PodSpec(containers=[o.Container("c", {"cpu": Quantity.parse("1")})]))])
    w.status.admission = o.Admission("cq", [])
    later = T0 + timedelta(hours=1)
    w.status.conditions = [o.Condition("QuotaReserved", "False"), o.Condition("QuotaReserved", "True"),
                           o.Condition("Evicted", "True", "PodsReadyTimeout", last_transition_time=later),
                           o.Condition("Evicted", "False")]
    wi = infos_of({WorkloadKey("ns", "w"): w}, EngineConfig())[WorkloadKey("ns", "w")]
    assert not w.is_true("QuotaReserved") and w.is_true("Evicted")
    assert wi.cluster_queue == "" and wi.quota_reserved_at is None and wi.evicted
    assert wi.queue_order_timestamp() == later
