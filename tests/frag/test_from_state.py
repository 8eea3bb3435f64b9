from datetime import UTC, datetime, timedelta

from kueue_doctor.api import objects as o
from kueue_doctor.api.quantity import Quantity
from kueue_doctor.api.state import ClusterState
from kueue_doctor.frag.diagnose import CAPACITY, FITS, FRAGMENTATION
from kueue_doctor.frag.from_state import node_shapes, queue_demands, queue_fragmentation

T0 = datetime(2024, 1, 1, tzinfo=UTC)


def q(v):
    return Quantity.parse(v)


def res(cpu, mem, gpu=0):
    r = {"cpu": q(cpu), "memory": q(mem)}
    if gpu:
        r["nvidia.com/gpu"] = q(str(gpu))
    return r


def spec(cpu, mem, gpu=0, node=""):
    return o.PodSpec(containers=[o.Container("main", requests=res(cpu, mem, gpu))], node_name=node)


def cluster(n_nodes=4, used_per_node=1, pending_8gpu=2, pool="a100"):
    s = ClusterState()
    s.add(o.ResourceFlavor(o.Meta("a100"), node_labels={"pool": pool}))
    s.add(o.ClusterQueue(o.Meta("cq"), resource_groups=[o.ResourceGroup(
        ["cpu", "memory", "nvidia.com/gpu"], [o.FlavorQuotas("a100", [])])]))
    s.add(o.LocalQueue(o.Meta("lq", "team"), cluster_queue="cq"))
    for i in range(n_nodes):
        s.add(o.Node(o.Meta(f"node-{i}", labels={"pool": "a100", "nvidia.com/gpu.product": "A100"}),
                     allocatable=res("64", "512Gi", 8)))
        for k in range(used_per_node):
            s.add(o.Pod(o.Meta(f"run-{i}-{k}", "team", creation_timestamp=T0 + timedelta(minutes=i)),
                        spec(cpu="4", mem="16Gi", gpu=1, node=f"node-{i}"), phase="Running"))
    for w in range(pending_8gpu):
        s.add(o.Workload(o.Meta(f"big-{w}", "team"), queue_name="lq",
                         pod_sets=[o.PodSet("main", 1, spec(cpu="8", mem="32Gi", gpu=8))]))
    return s


def test_node_shapes_subtract_bound_pods():
    now, empty, running = node_shapes(cluster(n_nodes=2, used_per_node=3))
    assert [n.gpu_free for n in now] == [(0, 0, 0) + (1000,) * 5] * 2
    assert [n.cpu_free for n in now] == [64000 - 3 * 4000] * 2
    assert all(n.gpu_free == (1000,) * 8 and n.model == "A100" for n in empty)
    assert len(running) == 6
    assert all(p.gpus == 1 for p in running)


def test_scattered_single_gpu_pods_are_reported_as_fragmentation():
    # 4 nodes, one 1-GPU pod on each: 28 GPUs free, yet no 8-GPU slot for 2 pending pods.
    findings = queue_fragmentation(cluster(), "cq", seed=1)
    assert len(findings) == 1
    f = findings[0]
    assert f.demand.pods == 2
    assert "flavor a100" in f.demand.source
    assert (f.slots.slots, f.slots.pooled, f.cause) == (0, 3, FRAGMENTATION)
    # packing the four running pods onto one node frees three whole nodes
    for policy in ("BestFit", "GpuPacking", "FGD"):
        assert f.policy_slots[policy] == 3
        assert f.policy_gain()[policy] == 3
    assert f.policy_refused["FGD"] == 0
    assert "fragmentation strands 3" in f.summary()


def test_verdict_follows_slots_and_pooled_capacity():
    s = cluster()
    s.add(o.Node(o.Meta("spare", labels={"pool": "a100"}), allocatable=res("64", "512Gi", 8)))
    f = queue_fragmentation(s, "cq", policies=())[0]
    # one whole node for two pods; 36 free GPUs would hold four if pooled
    assert (f.slots.slots, f.slots.pooled, f.shortfall, f.cause) == (1, 4, 1, FRAGMENTATION)
    s.add(o.Node(o.Meta("spare2", labels={"pool": "a100"}), allocatable=res("64", "512Gi", 8)))
    assert queue_fragmentation(s, "cq", policies=())[0].cause == FITS
    many = cluster(pending_8gpu=4)  # 28 free GPUs cannot hold four 8-GPU pods even pooled
    f = queue_fragmentation(many, "cq", policies=())[0]
    assert (f.demand.pods, f.slots.pooled, f.cause) == (4, 3, CAPACITY)
    assert f.policy_slots == {}


def test_flavor_labels_limit_the_nodes():
    s = cluster(pool="h100")  # the flavor selects nodes no node carries
    d = queue_demands(s, "cq")
    assert d and dict(d[0].shape.placement.node_selector) == {"pool": "h100"}
    f = queue_fragmentation(s, "cq", policies=())[0]
    assert (f.slots.eligible_nodes, f.cause) == (0, CAPACITY)


def test_shapes_come_from_the_placement_model():
    s = cluster(n_nodes=2, used_per_node=1)
    # a terminating pod still holds its GPUs; a finished one does not
    s.add(o.Pod(o.Meta("leaving", "team", creation_timestamp=T0, deletion_timestamp=T0),
                spec(cpu="1", mem="1Gi", gpu=2, node="node-0"), phase="Running"))
    s.add(o.Pod(o.Meta("done", "team", creation_timestamp=T0), spec(cpu="1", mem="1Gi", gpu=4, node="node-1"),
                phase="Succeeded"))
    # a GPU share (annotation) takes part of one device
    s.add(o.Pod(o.Meta("share", "team", creation_timestamp=T0 + timedelta(hours=1),
                       annotations={"alibabacloud.com/gpu-milli": "300"}),
                spec(cpu="1", mem="1Gi", node="node-1"), phase="Running"))
    now, empty, running = node_shapes(s)
    by = {n.name: n for n in now}
    assert by["node-0"].gpu_free == (0, 0, 0) + (1000,) * 5
    assert by["node-1"].gpu_free == (0, 700) + (1000,) * 6
    assert all(n.live is not None for n in now) and all(n.live is None for n in empty)
    assert sorted((p.gpus, p.gpu_milli) for p in running) == [(1, 300), (1, 1000), (1, 1000), (2, 1000)]


def test_cordoned_and_not_ready_nodes_count_for_no_slot_and_are_not_replayed():
    s = cluster(n_nodes=3, used_per_node=0, pending_8gpu=1)
    s.nodes["node-1"].unschedulable = True
    s.nodes["node-2"].conditions = [o.Condition("Ready", "False")]
    now, empty, _ = node_shapes(s)
    assert [n.name for n in now] == ["node-0", "node-1", "node-2"]
    assert [n.name for n in empty] == ["node-0"]
    f = queue_fragmentation(s, "cq", policies=())[0]
    assert (f.slots.slots, f.slots.eligible_nodes) == (1, 1)


def test_slots_of_cluster_shapes_are_the_models_count():
    # the node's pod limit and an extended resource are not in the shape, but the count has them
    s = cluster(n_nodes=1, used_per_node=2, pending_8gpu=0)
    s.nodes["node-0"].allocatable["pods"] = q("3")
    s.add(o.Workload(o.Meta("small", "team"), queue_name="lq",
                     pod_sets=[o.PodSet("main", 4, spec(cpu="1", mem="1Gi", gpu=1))]))
    (d,) = queue_demands(s, "cq")
    assert d.shape.needs is not None and d.pods == 4
    f = queue_fragmentation(s, "cq", policies=())[0]
    assert f.slots.slots == 1 and f.slots.nodes_with_slot == 1


def test_pending_pods_own_affinity_limits_the_nodes():
    s = cluster(n_nodes=2, used_per_node=0, pending_8gpu=0)
    s.nodes["node-1"].meta.labels["zone"] = "z1"
    away = o.PodSpec(containers=[o.Container("main", requests=res("8", "32Gi", 8))],
                     required_node_terms=[o.NodeSelectorTerm([o.SelectorRequirement("zone", "NotIn", ["z1"])])])
    s.add(o.Workload(o.Meta("away", "team"), queue_name="lq", pod_sets=[o.PodSet("main", 2, away)]))
    f = queue_fragmentation(s, "cq", policies=())[0]
    assert (f.slots.slots, f.slots.eligible_nodes, f.cause) == (1, 1, CAPACITY)
