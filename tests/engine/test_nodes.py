"""The placement model (engine/nodes.py) on small hand-built nodes and pods."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from kueue_doctor.api import objects as o
from kueue_doctor.api.quantity import Quantity
from kueue_doctor.api.state import ClusterState
from kueue_doctor.engine.nodes import (
    NO_PLACEMENT,
    UNBOUNDED,
    NodeInfo,
    NodeTerms,
    Placement,
    admits,
    bound_pods,
    count_slots,
    fits,
    gpu_slots,
    needs_of,
    node_info,
    node_infos,
    placement_of,
    pod_needs,
    slots_on,
)

T0 = datetime(2026, 1, 1, tzinfo=UTC)
GPU = "nvidia.com/gpu"


def res(cpu: str = "64", mem: str = "512Gi", gpu: int = 8, pods: str | None = None,
        extra: dict[str, str] | None = None) -> dict[str, Quantity]:
    out = {"cpu": Quantity.parse(cpu), "memory": Quantity.parse(mem)}
    if gpu:
        out[GPU] = Quantity.parse(str(gpu))
    if pods is not None:
        out["pods"] = Quantity.parse(pods)
    out.update({k: Quantity.parse(v) for k, v in (extra or {}).items()})
    return out


def node(name: str, labels: dict[str, str] | None = None, taints: tuple[o.Taint, ...] = (),
         ready: str | None = "True", cordoned: bool = False, **alloc: object) -> o.Node:
    conds = [o.Condition("Ready", ready)] if ready is not None else []
    return o.Node(o.Meta(name, labels=dict(labels or {})), allocatable=res(**alloc),  # type: ignore[arg-type]
                  taints=list(taints), unschedulable=cordoned, conditions=conds)


def spec(cpu: str = "1", mem: str = "1Gi", gpu: int = 0, selector: dict[str, str] | None = None,
         terms: tuple[o.NodeSelectorTerm, ...] = (), tolerations: tuple[o.Toleration, ...] = (),
         node_name: str = "") -> o.PodSpec:
    req = {"cpu": Quantity.parse(cpu), "memory": Quantity.parse(mem)}
    if gpu:
        req[GPU] = Quantity.parse(str(gpu))
    return o.PodSpec(containers=[o.Container("main", requests=req)], node_selector=dict(selector or {}),
                     required_node_terms=list(terms), tolerations=list(tolerations), node_name=node_name)


def pod(name: str, node_name: str, age: int = 0, phase: str = "Running", deleting: bool = False,
        annotations: dict[str, str] | None = None, **kw: object) -> o.Pod:
    meta = o.Meta(name, "ns", creation_timestamp=T0 + timedelta(seconds=age),
                  annotations=dict(annotations or {}),
                  deletion_timestamp=T0 if deleting else None)
    return o.Pod(meta, spec(node_name=node_name, **kw), phase=phase)  # type: ignore[arg-type]


def term(*reqs: tuple[str, str, list[str]]) -> o.NodeSelectorTerm:
    return o.NodeSelectorTerm([o.SelectorRequirement(k, op, vals) for k, op, vals in reqs])


def info(n: o.Node) -> NodeInfo:
    return node_info(n)


# -- node selector and required affinity ----------------------------------------------------

def test_node_selector_is_equality_on_every_key():
    a = info(node("a", {"pool": "a100", "zone": "z1"}))
    assert fits(a, pod_needs(spec(selector={"pool": "a100"})))
    assert not fits(a, pod_needs(spec(selector={"pool": "h100"})))
    assert not fits(a, pod_needs(spec(selector={"pool": "a100", "rack": "r1"})))


@pytest.mark.parametrize(("req", "ok"), [
    (("pool", "In", ["a100", "h100"]), True),
    (("pool", "In", ["h100"]), False),
    (("pool", "NotIn", ["h100"]), True),
    (("pool", "NotIn", ["a100"]), False),
    (("rack", "NotIn", ["r1"]), True),          # a missing key is not in any set
    (("pool", "Exists", []), True),
    (("rack", "Exists", []), False),
    (("rack", "DoesNotExist", []), True),
    (("pool", "DoesNotExist", []), False),
    (("gpus", "Gt", ["4"]), True),
    (("gpus", "Lt", ["4"]), False),
    (("pool", "Gt", ["4"]), False),             # not a number
])
def test_required_affinity_operators(req, ok):
    a = info(node("a", {"pool": "a100", "gpus": "8"}))
    assert fits(a, pod_needs(spec(terms=(term(req),)))) is ok


def test_affinity_terms_are_ored_expressions_anded_and_an_empty_term_matches_nothing():
    a = info(node("a", {"pool": "a100", "zone": "z1"}))
    both = term(("pool", "In", ["a100"]), ("zone", "In", ["z2"]))
    assert not fits(a, pod_needs(spec(terms=(both,))))
    assert fits(a, pod_needs(spec(terms=(both, term(("zone", "Exists", []))))))
    assert not fits(a, pod_needs(spec(terms=(o.NodeSelectorTerm(),))))
    # nodeSelector and affinity must both hold
    assert not fits(a, pod_needs(spec(selector={"pool": "h100"}, terms=(term(("zone", "Exists", [])),))))


def test_match_fields_select_by_node_name():
    by_name = o.NodeSelectorTerm(match_fields=[o.SelectorRequirement("metadata.name", "In", ["b"])])
    needs = pod_needs(spec(terms=(by_name,)))
    assert needs.placement.uses_node_name
    assert count_slots([info(node("a")), info(node("b"))], needs)[1] == 1


def test_flavor_labels_and_tolerations_are_injected_and_a_conflict_matches_nothing():
    flavor = o.ResourceFlavor(o.Meta("a100"), node_labels={"pool": "a100"},
                              tolerations=[o.Toleration("dedicated", "Exists", "", "NoSchedule")])
    tainted = info(node("t", {"pool": "a100"}, taints=(o.Taint("dedicated", "ml", "NoSchedule"),)))
    other = info(node("o", {"pool": "h100"}))
    needs = pod_needs(spec(), None, [flavor])
    assert needs.placement.node_selector == (("pool", "a100"),)
    assert fits(tainted, needs) and not fits(other, needs)
    assert not fits(tainted, pod_needs(spec()))          # without the flavor: untolerated taint
    clash = pod_needs(spec(selector={"pool": "h100"}), None, [flavor])
    assert not fits(tainted, clash) and not fits(other, clash)


# -- taints, readiness, cordon ---------------------------------------------------------------

@pytest.mark.parametrize(("tol", "ok"), [
    (None, False),
    (o.Toleration("nvidia.com/gpu", "Exists"), True),
    (o.Toleration("nvidia.com/gpu", "Equal", "present"), True),
    (o.Toleration("nvidia.com/gpu", "Equal", "absent"), False),
    (o.Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule"), True),
    (o.Toleration("nvidia.com/gpu", "Exists", "", "NoExecute"), False),   # effect must match
    (o.Toleration("", "Exists"), True),                                   # tolerates everything
    (o.Toleration("other", "Exists"), False),
])
def test_taints_against_tolerations(tol, ok):
    n = info(node("g", taints=(o.Taint("nvidia.com/gpu", "present", "NoSchedule"),)))
    assert fits(n, pod_needs(spec(tolerations=(tol,) if tol else ()))) is ok


def test_prefer_no_schedule_taints_do_not_keep_pods_off():
    n = info(node("g", taints=(o.Taint("soft", "", "PreferNoSchedule"),)))
    assert n.terms.taints == () and fits(n, pod_needs(spec()))


def test_not_ready_nodes_take_nothing_and_nodes_without_a_ready_condition_are_taken_as_ready():
    p = pod_needs(spec(tolerations=(o.Toleration("", "Exists"),)))
    assert not fits(info(node("down", ready="False")), p)
    assert not fits(info(node("unknown", ready="Unknown")), p)
    assert fits(info(node("silent", ready=None)), p)


def test_cordoned_nodes_take_only_pods_tolerating_the_unschedulable_taint():
    n = info(node("c", cordoned=True))
    assert not n.terms.usable
    assert not fits(n, pod_needs(spec()))
    tol = o.Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule")
    assert fits(n, pod_needs(spec(tolerations=(tol,))))


# -- capacity: bound pods, terminating pods, resources -----------------------------------------

def _state(*objs: object) -> ClusterState:
    s = ClusterState()
    for x in objs:
        s.add(x)
    return s


def test_bound_pods_hold_resources_terminating_ones_too_done_ones_not():
    st = _state(node("n", cpu="8", gpu=8),
                pod("running", "n", gpu=2),
                pod("terminating", "n", 1, deleting=True, gpu=2),
                pod("pending-bound", "n", 2, phase="Pending", gpu=1),
                pod("succeeded", "n", 3, phase="Succeeded", gpu=2),
                pod("failed", "n", 4, phase="Failed", gpu=2),
                pod("elsewhere", "gone-node", 5, gpu=8),
                o.Pod(o.Meta("unbound", "ns"), spec(gpu=8)))
    assert [p.meta.name for p in bound_pods(st)] == ["running", "terminating", "pending-bound", "elsewhere"]
    (n,) = node_infos(st)
    assert n.requested[GPU] == 5 and n.pods == 3 and n.gpu_free.count(1000) == 3
    assert slots_on(n, pod_needs(spec(cpu="1", gpu=1))) == 3
    assert not fits(n, pod_needs(spec(gpu=4)))


def test_every_requested_resource_counts_and_zero_requests_do_not():
    n = info(node("n", cpu="4", mem="8Gi", gpu=0, extra={"example.com/ib": "1"}))
    assert slots_on(n, needs_of({"cpu": 1000, "memory": 1 << 30})) == 4
    assert slots_on(n, needs_of({"cpu": 1000, "example.com/ib": 1})) == 1
    assert slots_on(n, needs_of({"cpu": 1000, "example.com/other": 1})) == 0
    assert slots_on(n, needs_of({"cpu": 1000, "example.com/other": 0})) == 4
    assert slots_on(n, needs_of({"memory": 3 << 30})) == 2          # exact bytes, no rounding
    assert slots_on(n, needs_of({})) == UNBOUNDED


def test_allocatable_pods_limit_the_pod_count():
    n = info(node("n", cpu="64", gpu=0, pods="3"))
    n.bind(needs_of({"cpu": 1000}))
    assert slots_on(n, needs_of({"cpu": 1000})) == 2
    n.bind(needs_of({}))
    n.bind(needs_of({}))
    assert not fits(n, needs_of({"cpu": 1}))


def test_bind_and_unbind_are_inverse():
    n = info(node("n"))
    p = pod_needs(spec(cpu="8", gpu=3))
    devices = n.bind(p)
    assert devices == (0, 1, 2) and n.free("cpu") == 56_000 and n.free(GPU) == 5
    n.unbind(p, devices)
    assert n.requested == {"cpu": 0, "memory": 0, GPU: 0} and n.pods == 0 and n.gpu_free == [1000] * 8


# -- GPU sharing --------------------------------------------------------------------------------

def share(milli: int, count: int | None = None, gpu: int = 0) -> tuple[o.PodSpec, o.Meta]:
    ann = {"alibabacloud.com/gpu-milli": str(milli)}
    if count is not None:
        ann["alibabacloud.com/gpu-count"] = str(count)
    return spec(cpu="1", gpu=gpu), o.Meta("s", "ns", annotations=ann)


def test_gpu_share_annotation_makes_a_share_of_one_device():
    p = pod_needs(*share(300))
    assert (p.gpus, p.gpu_milli, p.is_share) == (1, 300, True)
    assert (pod_needs(*share(1500)).gpu_milli, pod_needs(*share(500, 2)).gpus) == (1000, 2)
    assert pod_needs(*share(500, gpu=1)).gpus == 1
    assert not pod_needs(spec(gpu=2)).is_share


def test_shares_go_on_the_tightest_device_and_block_whole_gpus():
    n = info(node("n", gpu=2))
    first = pod_needs(*share(600))
    assert n.bind(first) == (0,)
    assert n.bind(pod_needs(*share(300))) == (0,)       # 400 left on 0: tightest with room
    assert n.gpu_free == [100, 1000]
    assert slots_on(n, pod_needs(spec(cpu="1", gpu=1))) == 1   # the resource says 2, the devices 1
    assert slots_on(n, pod_needs(*share(500))) == 2
    assert slots_on(n, pod_needs(*share(100))) == 11


def test_a_multi_device_share_takes_distinct_devices():
    n = info(node("n", gpu=2))
    assert n.bind(pod_needs(*share(300, 2))) == (0, 1)
    assert gpu_slots([1000, 1000], 2, 300) == 3
    assert gpu_slots([1000], 2, 100) == 0


# -- counting -------------------------------------------------------------------------------------

def test_count_slots_sums_slots_and_counts_nodes_with_room():
    st = _state(node("a", {"pool": "x"}), node("b", {"pool": "x"}), node("c", {"pool": "y"}),
                node("d", {"pool": "x"}, ready="False"),
                pod("p1", "a", gpu=8), pod("p2", "b", gpu=4))
    nodes = node_infos(st)
    assert count_slots(nodes, pod_needs(spec(gpu=4), None, [o.ResourceFlavor(o.Meta("x"), {"pool": "x"})])) == (1, 1)
    assert count_slots(nodes, pod_needs(spec(gpu=4))) == (3, 2)
    assert count_slots(nodes, pod_needs(spec(gpu=1))) == (12, 2)
    assert count_slots([], pod_needs(spec())) == (0, 0)


def test_fits_agrees_with_slots_on():
    st = _state(node("a", taints=(o.Taint("k", "v", "NoSchedule"),)), node("b", cpu="3", pods="2"),
                node("c", cordoned=True), pod("p", "b", cpu="1", gpu=7))
    shapes = [pod_needs(spec(cpu=c, gpu=g, tolerations=t)) for c in ("1", "2", "4")
              for g in (0, 1, 2) for t in ((), (o.Toleration("k", "Exists"),))]
    shapes += [pod_needs(*share(m)) for m in (100, 999)]
    for n in node_infos(st):
        for p in shapes:
            assert fits(n, p) is (slots_on(n, p) > 0), (n, p)


def test_placements_and_terms_compare_by_value():
    a = placement_of(spec(selector={"a": "1"}, tolerations=(o.Toleration("k", "Exists"),),
                          terms=(term(("z", "In", ["1"])),)))
    b = placement_of(spec(selector={"a": "1"}, tolerations=(o.Toleration("k", "Exists"),),
                          terms=(term(("z", "In", ["1"])),)))
    assert a == b and hash(a) == hash(b) and a != NO_PLACEMENT and NO_PLACEMENT.empty
    assert len({pod_needs(spec(selector={"a": "1"})), pod_needs(spec(selector={"a": "1"}))}) == 1
    t = NodeTerms({"x": "1"}, (o.Taint("k", "v", "NoSchedule"),))
    assert t == NodeTerms({"x": "1"}, (o.Taint("k", "v", "NoSchedule"),)) and t != NodeTerms({"x": "1"})
    assert admits(t, Placement(tolerations=(o.Toleration("k", "Equal", "v"),)))
