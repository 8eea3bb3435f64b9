from kueue_doctor.api import objects as o
from kueue_doctor.engine.nodes import NodeTerms, Placement
from kueue_doctor.frag.shapes import NodeShape, PodShape, eligible
from kueue_doctor.frag.slots import count_slots, node_slots


def node(name="n", cpu=96000, mem=393216, gpus=(1000,) * 8, model="A100", **kw):
    return NodeShape(name, cpu, mem, tuple(gpus), model, **kw)


def test_twelve_eight_gpu_pods_need_twelve_whole_nodes():
    # 96 free GPUs, but spread 4 per node: no node takes an 8-GPU pod.
    thin = [node(f"n{i}", gpus=(0, 0, 0, 0, 1000, 1000, 1000, 1000)) for i in range(24)]
    pod = PodShape(cpu=8000, mem=1000, gpus=8, gpu_milli=1000)
    s = count_slots(thin, pod)
    assert (s.slots, s.nodes_with_slot, s.free_gpu_milli) == (0, 0, 96000)
    assert s.pooled == 12
    assert s.lost_to_fragmentation == 12
    whole = thin[:12] + [node(f"w{i}") for i in range(12)]
    assert count_slots(whole, pod).slots == 12


def test_share_slots_count_leftovers_per_gpu():
    n = node(gpus=(1000, 700, 300, 0))
    assert node_slots(n, PodShape(cpu=1000, gpus=1, gpu_milli=300)) == 3 + 2 + 1
    assert node_slots(n, PodShape(cpu=1000, gpus=1, gpu_milli=800)) == 1
    # CPU caps it: 96 cores / 40 cores
    assert node_slots(n, PodShape(cpu=40000, gpus=1, gpu_milli=100)) == 2


def test_multi_gpu_partial_shares_need_distinct_gpus():
    # 2-GPU pods of 500m each: GPUs hold 2,2,1 units -> only 2 pods, not 5//2
    n = node(gpus=(1000, 1000, 500))
    assert node_slots(n, PodShape(cpu=1, gpus=2, gpu_milli=500)) == 2
    n = node(gpus=(1000, 500, 500, 500))
    assert node_slots(n, PodShape(cpu=1, gpus=2, gpu_milli=500)) == 2
    assert node_slots(n, PodShape(cpu=1, gpus=4, gpu_milli=500)) == 1


def tolerating(*keys):
    return Placement(tolerations=tuple(o.Toleration(k, "Exists") for k in keys))


def test_eligibility_by_model_labels_and_taints():
    a = node("a", model="T4", terms=NodeTerms({"pool": "x"}))
    b = node("b", model="V100M16", terms=NodeTerms(taints=(o.Taint("dedicated", "ml", "NoSchedule"),)))
    p = PodShape(cpu=1, gpus=1, gpu_milli=1000, models=frozenset({"V100M16"}))
    assert [eligible(n, p) for n in (a, b)] == [False, False]
    tolerant = PodShape(cpu=1, gpus=1, gpu_milli=1000, models=p.models, placement=tolerating("dedicated"))
    assert [eligible(n, tolerant) for n in (a, b)] == [False, True]
    labelled = PodShape(cpu=1, placement=Placement(node_selector=(("pool", "x"),)))
    assert [eligible(n, labelled) for n in (a, b)] == [True, False]
    assert count_slots([a, b], tolerant).eligible_nodes == 1
    everything = PodShape(cpu=1, placement=tolerating(""))  # operator Exists without a key
    assert eligible(b, everything) and not eligible(b, PodShape(cpu=1, placement=tolerating("other")))


def test_not_ready_and_cordoned_nodes_are_not_eligible():
    down = node("down", terms=NodeTerms(ready=False))
    cordoned = node("c", terms=NodeTerms(unschedulable=True))
    p = PodShape(cpu=1, gpus=1, gpu_milli=1000)
    assert count_slots([down, cordoned, node("up")], p).eligible_nodes == 1
