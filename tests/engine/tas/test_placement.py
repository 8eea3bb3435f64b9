"""Placement rules beyond the upstream cases: ordering, exclusions in messages, groups, usage."""
from kueue_doctor.api import objects as o
from kueue_doctor.engine.tas import TASPodSetRequest, build_flavor_snapshot, find_topology_assignments

from .helpers import LEVELS, flavor, gates, node, topology


def req(name: str = "main", count: int = 1, cpu: int = 1000, **kw) -> TASPodSetRequest:
    tr = kw.pop("topology", None)
    return TASPodSetRequest(name=name, count=count, single_pod_requests={"cpu": cpu}, topology=tr,
                            implied=tr is None, **kw)


def hosts(res) -> list[tuple[str, int]]:
    return [(d.values[-1], d.count) for d in res.assignment.domains]


def cluster():
    return [node("x1", "b1", "r1", cpu="2"), node("x2", "b1", "r1", cpu="1"),
            node("x3", "b1", "r2", cpu="3"), node("x4", "b2", "r1", cpu="1")]


def test_required_rack_takes_the_tightest_rack_that_fits():
    s = build_flavor_snapshot(flavor(), topology(), cluster())
    got = find_topology_assignments(s, [req(count=3, topology=o.TopologyRequest(required=LEVELS[1]))], gates())
    assert got["main"].failure_reason == ""
    # b1,r1 holds exactly 3 (BestFit picks the smallest fitting domain of the last level)
    assert hosts(got["main"]) == [("x1", 2), ("x2", 1)]


def test_required_failure_message_counts_excluded_nodes():
    taint = o.Taint("gpu", "yes", "NoSchedule")
    nodes = [*cluster(), node("x5", "b2", "r1", cpu="8", taints=[taint])]
    s = build_flavor_snapshot(flavor(), topology(), nodes)
    got = find_topology_assignments(s, [req(count=4, topology=o.TopologyRequest(required=LEVELS[1]))], gates())
    assert got["main"].assignment is None
    assert got["main"].failure_reason == ('topology "default" allows to fit only 3 out of 4 pod(s). '
                                          'Total nodes: 5; excluded: taint "gpu=yes:NoSchedule": 1')


def test_flavor_tolerations_apply_and_node_selector_excludes():
    taint = o.Taint("gpu", "", "NoSchedule")
    nodes = [node("x1", "b1", "r1", taints=[taint]), node("x2", "b1", "r1", labels={"zone": "a"})]
    fl = flavor(tolerations=[o.Toleration(key="gpu", operator="Exists")])
    s = build_flavor_snapshot(fl, topology(), nodes)
    got = find_topology_assignments(s, [req(count=1, node_selector={"zone": "b"},
                                            topology=o.TopologyRequest(required=LEVELS[1]))], gates())
    assert got["main"].failure_reason == ("topology \"default\" doesn't allow to fit any of 1 pod(s). "
                                          "Total nodes: 2; excluded: nodeSelector: 2")


def test_groups_place_in_order_and_count_earlier_groups_as_used():
    s = build_flavor_snapshot(flavor(), topology(), [node("x1", "b1", "r1", cpu="2")])
    got = find_topology_assignments(s, [req("a", 2), req("b", 1)], gates())
    assert hosts(got["a"]) == [("x1", 2)]
    assert got["b"].failure_reason.startswith('topology "default" doesn\'t allow to fit any of 1 pod(s)')


def test_leader_and_workers_share_a_domain():
    s = build_flavor_snapshot(flavor(), topology(), cluster())
    tr = o.TopologyRequest(required=LEVELS[1])
    got = find_topology_assignments(s, [req("workers", 2, topology=tr, group_name="g"),
                                        req("leader", 1, group_name="g")], gates())
    assert got["workers"].failure_reason == ""
    racks = {d.values[-1] for r in ("workers", "leader") for d in got[r].assignment.domains}
    assert racks <= {"x1", "x2"} or racks <= {"x3"}
    assert sum(d.count for d in got["workers"].assignment.domains) == 2


def test_unconstrained_least_free_capacity_with_profile_mixed_and_best_fit_without():
    s = build_flavor_snapshot(flavor(), topology(), cluster())
    un = o.TopologyRequest(unconstrained=True)
    lfc = find_topology_assignments(s, [req(count=1, topology=un)], gates())
    assert hosts(lfc["main"]) == [("x2", 1)]          # the least free node that fits
    bf = find_topology_assignments(s, [req(count=1, topology=un)], gates(TASProfileMixed=False))
    assert hosts(bf["main"]) == [("x2", 1)]           # BestFit's last domain is also the tightest
    two = find_topology_assignments(s, [req(count=3, topology=un)], gates(TASProfileMixed=False))
    assert hosts(two["main"]) == [("x3", 3)]


def test_bad_levels_are_reported_as_upstream_words_them():
    s = build_flavor_snapshot(flavor(), topology(), cluster())
    got = find_topology_assignments(s, [req(topology=o.TopologyRequest(required="zone"))], gates())
    assert got["main"].failure_reason == "no requested topology level: zone"
    above = o.TopologyRequest(required=LEVELS[1], slice_required_topology=LEVELS[0], slice_size=1)
    got = find_topology_assignments(s, [req(topology=above)], gates())
    assert got["main"].failure_reason == f"podset slice topology {LEVELS[0]} is above the podset topology {LEVELS[1]}"
    nosize = o.TopologyRequest(required=LEVELS[0], slice_required_topology=LEVELS[1])
    got = find_topology_assignments(s, [req(topology=nosize)], gates())
    assert got["main"].failure_reason == "slice topology requested, but slice size not provided"


def test_slices_fill_whole_racks():
    s = build_flavor_snapshot(flavor(), topology(), cluster())
    tr = o.TopologyRequest(required=LEVELS[0], slice_required_topology=LEVELS[1], slice_size=3)
    got = find_topology_assignments(s, [req(count=6, topology=tr)], gates())
    assert got["main"].failure_reason == ""
    assert sorted(hosts(got["main"])) == [("x1", 2), ("x2", 1), ("x3", 3)]
