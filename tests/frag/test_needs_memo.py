"""NeedsMemo: a pod's needs and shape worked out once per content, the same as pod_needs and
pod_shape work them out; node_shapes and queue_demands with it say what they said without."""
import random
from datetime import UTC, datetime, timedelta

from kueue_doctor.api import objects as o
from kueue_doctor.api.quantity import Quantity
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.nodes import pod_needs
from kueue_doctor.frag.from_state import NeedsMemo, empty_node_shape, node_shapes, pod_shape, queue_demands

T0 = datetime(2024, 1, 1, tzinfo=UTC)
FLAVORS = [o.ResourceFlavor(o.Meta("a100"), node_labels={"pool": "a"}),
           o.ResourceFlavor(o.Meta("h100"), node_labels={"pool": "h"}, tolerations=[o.Toleration("gpu", "Exists")])]


def spec(rng: random.Random) -> o.PodSpec:
    req = {"cpu": Quantity.parse(rng.choice(["1", "4"])), "nvidia.com/gpu": Quantity.parse(rng.choice(["1", "8"]))}
    s = o.PodSpec(containers=[o.Container("c", req, {"memory": Quantity.parse("1Gi")} if rng.random() < 0.3 else {})])
    if rng.random() < 0.3:
        s.node_selector = {"zone": rng.choice(["x", "y"])}
    if rng.random() < 0.3:
        s.tolerations = [o.Toleration("t", "Equal", rng.choice(["1", "2"]), "NoSchedule")]
    if rng.random() < 0.1:
        s.required_node_terms = [o.NodeSelectorTerm([o.SelectorRequirement("zone", "In", ["x"])])]
    if rng.random() < 0.1:
        s.init_containers = [o.Container("i", {"cpu": Quantity.parse("8")})]
    return s


def meta(rng: random.Random) -> o.Meta | None:
    if rng.random() < 0.5:
        return None
    ann = {"alibabacloud.com/gpu-milli": rng.choice(["500", "250"])} if rng.random() < 0.5 else {}
    return o.Meta("p", "ns", annotations=ann)


def test_memo_gives_what_pod_needs_and_pod_shape_give():
    rng = random.Random(3)
    memo = NeedsMemo()
    seen = set()
    for _ in range(3000):
        s, m = spec(rng), meta(rng)
        flavors = rng.choice([[], [FLAVORS[0]], [FLAVORS[1]]])
        needs = memo.needs(s, m, flavors)
        assert needs == pod_needs(s, m, flavors)
        assert memo.shape(s, m, flavors) == pod_shape(s, m, flavors)
        seen.add(needs)
    assert len(seen) > 20


def test_equal_pods_share_their_needs_and_unequal_ones_do_not():
    memo = NeedsMemo()

    def pod(cpu: str, zone: str = "", tol: str = "", milli: str = "") -> tuple[o.PodSpec, o.Meta]:
        s = o.PodSpec(containers=[o.Container("c", {"cpu": Quantity.parse(cpu)})],
                      node_selector={"zone": zone} if zone else {},
                      tolerations=[o.Toleration("t", "Equal", tol)] if tol else [])
        return s, o.Meta("p", annotations={"gpu-milli": milli} if milli else {})
    base = memo.needs(*pod("4"))
    assert memo.needs(*pod("4")) is base
    others = [memo.needs(*pod("8")), memo.needs(*pod("4", zone="x")), memo.needs(*pod("4", tol="1")),
              memo.needs(*pod("4", milli="500")), memo.needs(pod("4")[0], None, [FLAVORS[0]])]
    assert all(n != base for n in others) and len(set(others)) == len(others)


def cluster() -> ClusterState:
    s = ClusterState()
    for f in FLAVORS:
        s.add(f)
    s.add(o.ClusterQueue(o.Meta("cq"), resource_groups=[o.ResourceGroup(
        ["cpu", "nvidia.com/gpu"], [o.FlavorQuotas("a100", []), o.FlavorQuotas("h100", [])])]))
    s.add(o.LocalQueue(o.Meta("lq", "ns"), cluster_queue="cq"))
    gpus = {"cpu": Quantity.parse("64"), "nvidia.com/gpu": Quantity.parse("8")}
    for i in range(6):
        pool = "a" if i < 3 else "h"
        s.add(o.Node(o.Meta(f"n{i}", labels={"pool": pool}), allocatable=gpus, unschedulable=i == 5,
                     taints=[o.Taint("gpu", "", "NoSchedule")] if pool == "h" else []))
    rng = random.Random(9)
    for i in range(40):
        s.add(o.Pod(o.Meta(f"run{i}", "ns", creation_timestamp=T0 + timedelta(seconds=i)),
                    o.PodSpec(containers=[o.Container("c", {"nvidia.com/gpu": Quantity.parse(rng.choice(["1", "2"])),
                                                            "cpu": Quantity.parse("1")})],
                              node_name=f"n{i % 6}", tolerations=[o.Toleration("gpu", "Exists")]), phase="Running"))
    for i in range(30):
        s.add(o.Workload(o.Meta(f"w{i:02}", "ns"), queue_name="lq", pod_sets=[o.PodSet("main", 1 + i % 3, spec(rng))]))
    return s


def test_node_shapes_and_demands_are_those_worked_out_pod_by_pod():
    state = cluster()
    now, empty, running = node_shapes(state)
    assert empty == [empty_node_shape(state.nodes[f"n{i}"]) for i in range(5)]   # n5 is cordoned
    by_age = sorted(state.pods.values(), key=lambda p: p.meta.creation_timestamp)
    assert running == [pod_shape(p.spec, p.meta) for p in by_age if p.spec.node_name != "n5"]
    memo = NeedsMemo()
    assert node_shapes(state, memo) == (now, empty, running)
    pending = sorted(state.workloads.values(), key=lambda w: w.meta.name)
    got = queue_demands(state, "cq", now, pending, {}, memo)
    # each pod set on its own, as queue_demands would count a queue of it alone
    alone = [d for w in pending for d in queue_demands(state, "cq", now, [w], {})]
    assert sum(d.pods for d in got) == sum(d.pods for d in alone) == sum(ps.count for w in pending for ps in w.pod_sets)
    for d in got:
        mine = [a for a in alone if a.shape == d.shape and a.source.split(" (")[1:] == d.source.split(" (")[1:]]
        assert d.pods == sum(a.pods for a in mine)
        assert d.source.split(" (")[0] == ", ".join(a.source.split(" (")[0] for a in mine)
    assert [(d.shape, tuple(d.source.split(" (")[1:])) for d in got] == list(
        dict.fromkeys((a.shape, tuple(a.source.split(" (")[1:])) for a in alone))
