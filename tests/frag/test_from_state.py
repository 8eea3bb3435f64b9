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
    assert d
    assert dict(d[0].shape.node_labels) == {"pool": "h100"}
    f = queue_fragmentation(s, "cq", policies=())[0]
    assert (f.slots.eligible_nodes, f.cause) == (0, CAPACITY)
