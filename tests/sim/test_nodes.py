"""The simulator's nodes on the placement model: fits, gangs, readiness, devices."""
from __future__ import annotations

from kueue_doctor.engine.nodes import count_slots
from kueue_doctor.sim.nodes import RUNNING, NodePool, SimPod
from kueue_doctor.sim.scenario import NodeSpec

GPU = "nvidia.com/gpu"


def pool(policy: str = "LeastAllocated") -> NodePool:
    return NodePool([NodeSpec("a-0", {GPU: 8, "cpu": 64}, {"pool": "a"}),
                     NodeSpec("a-1", {GPU: 8, "cpu": 64}, {"pool": "a"}),
                     NodeSpec("b-0", {GPU: 8, "cpu": 64, "example.com/ib": 1}, {"pool": "b"})], policy)


def pods(n: int, **req: int) -> list[SimPod]:
    return [SimPod("ns/w", i, {GPU if k == "gpu" else k: v for k, v in req.items()}) for i in range(n)]


def test_pods_go_where_the_flavor_labels_point_and_gangs_are_all_or_nothing():
    p = pool()
    gang = pods(2, gpu=8)
    assert p.place_group(gang, {"pool": "a"})
    assert {x.node.name for x in gang} == {"a-0", "a-1"} and all(x.phase == RUNNING for x in gang)
    b = p.by_name["b-0"]
    assert not p.place_group(pods(3, gpu=4), {"pool": "b"})       # two fit, the third does not: none stays
    assert b.info.requested.get(GPU, 0) == 0 and b.info.gpu_free.count(1000) == 8
    assert p.place_group(pods(2, gpu=4), {"pool": "b"}) and b.info.gpu_free.count(1000) == 0


def test_every_requested_resource_and_readiness_decide():
    p = pool()
    assert not p.place_group(pods(1, gpu=1, **{"example.com/ib": 1}), {"pool": "a"})
    one = pods(1, gpu=1, **{"example.com/ib": 1})
    assert p.place_group(one, {}) and one[0].node.name == "b-0"
    p.by_name["a-0"].ready = False
    needs = p.needs({GPU: 1}, {"pool": "a"})
    assert count_slots(p.infos, needs) == (8, 1)
    p.by_name["a-0"].ready = True
    assert count_slots(p.infos, needs) == (16, 2)


def test_the_hostname_label_every_kubelet_sets_selects_a_node():
    p = pool()
    pinned = pods(1, gpu=1)
    assert p.place_group(pinned, {"kubernetes.io/hostname": "a-1"}) and pinned[0].node.name == "a-1"
    assert p.by_name["a-1"].labels == {"pool": "a"}   # the scenario's labels, as the snapshot writes them


def test_unbind_gives_the_devices_back():
    p = pool("MostAllocated")
    first, second = pods(1, gpu=3), pods(1, gpu=2)
    assert p.place_group(first, {}) and p.place_group(second, {})
    node = first[0].node
    assert second[0].node is node and node.info.gpu_free.count(1000) == 3
    node.unbind(first[0])
    assert node.info.gpu_free.count(1000) == 6 and node.info.requested[GPU] == 2
