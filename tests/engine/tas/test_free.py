"""Free capacity per domain (engine/tas/free.py): the snapshot's capacity rules, pods of a shape
counted per leaf as placement's phase 1 counts them."""
from kueue_doctor.engine.tas import build_flavor_snapshot
from kueue_doctor.engine.tas.free import free_at_level, largest_free, main_resource

from .helpers import LEVELS, flavor, node, topology
from .test_snapshot import pod


def snapshot():
    nodes = [node("x1", "b1", "r1", cpu="4"), node("x2", "b1", "r1", cpu="3"),
             node("x3", "b1", "r2", cpu="4"), node("x4", "b2", "r3", cpu="8")]
    s = build_flavor_snapshot(flavor(), topology(), nodes, [pod("np", "x4", "5")])
    s.add_tas_usage("x1", {"cpu": 2000, "pods": 1})
    return s


def test_free_per_rack_sums_leaves_after_non_tas_pods_and_tas_usage():
    racks = {d.id: d for d in free_at_level(snapshot(), 1)}
    assert racks["b1,r1"].free["cpu"] == 2000 + 3000 and racks["b1,r1"].leaves == ("x1", "x2")
    assert racks["b2,r3"].free["cpu"] == 3000          # 8 minus the 5-cpu pod Kueue does not manage
    assert racks["b1,r2"].free["cpu"] == 4000


def test_pods_of_a_shape_are_counted_per_node_not_pooled():
    # 2-cpu pods: x1 takes 1, x2 takes 1 (3 cpus, one left over): 2 in b1,r1 though 5 cpus are free
    racks = free_at_level(snapshot(), 1, {"cpu": 2000})
    assert [(d.id, d.pods) for d in racks] == [("b1,r1", 2), ("b1,r2", 2), ("b2,r3", 1)]


def test_simulate_empty_ignores_tas_usage_only():
    racks = {d.id: d for d in free_at_level(snapshot(), 1, simulate_empty=True)}
    assert racks["b1,r1"].free["cpu"] == 7000 and racks["b2,r3"].free["cpu"] == 3000


def test_largest_free_per_level():
    got = [(lv, d.id if d else None, d.free["cpu"] if d else None) for lv, d in largest_free(snapshot(), "cpu")]
    assert got == [(LEVELS[0], "b1", 9000), (LEVELS[1], "b1,r1", 5000), (LEVELS[2], "x3", 4000)]


def test_main_resource_prefers_an_extended_resource():
    assert main_resource({"cpu": 8000, "memory": 1 << 30, "nvidia.com/gpu": 1}) == "nvidia.com/gpu"
    assert main_resource({"cpu": 8000, "memory": 1 << 30}) == "cpu"
