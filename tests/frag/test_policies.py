import random

import numpy as np
import pytest

from kueue_doctor.errors import InputError
from kueue_doctor.frag.cluster import Cluster
from kueue_doctor.frag.measure import TypicalShape, node_fragmentation
from kueue_doctor.frag.policies import POLICIES, policy_class
from kueue_doctor.frag.replay import Placer
from kueue_doctor.frag.shapes import NodeShape, PodShape

WHOLE = PodShape(4000, 1000, gpus=1, gpu_milli=1000)
SHARE = PodShape(4000, 1000, gpus=1, gpu_milli=300)


def node(name, gpus, cpu=64000, model="T4"):
    return NodeShape(name, cpu, 100000, tuple(gpus), model)


def choose(policy, nodes, pod, typical=(), seed=0):
    p = Placer(nodes, policy_class(policy)(random.Random(seed)), typical=list(typical))
    cl = p.cluster
    feas = cl.feasible(pod)
    j, gpu = p.policy.choose(cl, pod, 0, feas)
    return cl.nodes[j].name, gpu


def test_unknown_policy_is_input_error():
    with pytest.raises(InputError, match="unknown policy"):
        policy_class("Tetris")
    assert policy_class("fgd").name == "FGD"


def test_bestfit_takes_least_leftover_and_ties_go_to_smallest_rank():
    nodes = [node("a", (1000,) * 4), node("b", (1000, 1000)), node("c", (1000, 1000))]
    assert choose("BestFit", nodes, WHOLE)[0] == "b"
    # rank = row order: put c first and it wins the tie with b
    p = Placer(nodes, policy_class("BestFit")(), order=[2, 1, 0])
    j, _ = p.policy.choose(p.cluster, WHOLE, 0, p.cluster.feasible(WHOLE))
    assert p.cluster.nodes[j].name == "c"


def test_gpupacking_prefers_partly_used_gpu_then_used_node_then_small_idle_node():
    partly = node("partly", (1000, 400))
    used = node("used", (1000, 1000, 0, 0))
    idle8 = node("idle8", (1000,) * 8)
    idle1 = node("idle1", (1000,))
    assert choose("GpuPacking", [idle8, idle1, used, partly], SHARE)[0] == "partly"
    assert choose("GpuPacking", [idle8, idle1, used], SHARE)[0] == "used"
    assert choose("GpuPacking", [idle8, idle1], SHARE)[0] == "idle1"


def test_gpuclustering_keeps_tags_together():
    p = Placer([node("a", (1000,) * 4), node("b", (1000,) * 4)], policy_class("GpuClustering")())
    cl = p.cluster
    assert p.place(SHARE)
    assert p.place(WHOLE)
    # the share went to a (rank tie); the whole-GPU pod avoids the node holding a share pod
    names = {cl.nodes[i].name: int(cl.tags[i]) for i in range(2)}
    assert names["a"] != names["b"]
    assert names["a"]
    assert names["b"]


def test_random_is_uniform_over_feasible_nodes_only():
    nodes = [node("a", (1000,)), node("b", (1000,)), node("full", (0,)), node("c", (1000,))]
    picks = {choose("Random", nodes, WHOLE, seed=s)[0] for s in range(60)}
    assert picks == {"a", "b", "c"}


def test_dotprod_prefers_node_least_aligned_with_demand():
    cpu_rich = node("cpu_rich", (1000,) * 2, cpu=128000)
    gpu_rich = node("gpu_rich", (1000,) * 8, cpu=40000)
    cpu_pod = PodShape(32000, 1000)
    gpu_pod = PodShape(1000, 1000, gpus=4, gpu_milli=1000)
    assert choose("DotProd", [cpu_rich, gpu_rich], cpu_pod)[0] == "gpu_rich"
    assert choose("DotProd", [node("x", (1000,) * 8, cpu=128000), node("y", (1000,) * 4, cpu=128000)],
                  gpu_pod)[0] == "y"


def test_fgd_places_share_where_it_leaves_no_fragment():
    # Workload: only 700m shares. A 300m share on the 1000 GPU would strand 300m for nobody...
    typical = [TypicalShape(PodShape(1000, gpus=1, gpu_milli=700), 0.5, 1),
               TypicalShape(PodShape(1000, gpus=1, gpu_milli=300), 0.5, 1)]
    nodes = [node("whole", (1000,)), node("leftover", (300,))]
    name, gpu = choose("FGD", nodes, SHARE, typical)
    assert (name, gpu) == ("leftover", 300)
    # ...and within one node it shares the 600 GPU: 1000 stays whole for a 700m share and the
    # 300 left over still takes a 300m share, whereas sharing the 1000 GPU would leave 600
    # that no 700m share can use.
    name, gpu = choose("FGD", [node("mixed", (1000, 600))], SHARE, typical)
    assert gpu == 600


def test_fgd_score_is_gradient_of_reference_measure():
    typical = [TypicalShape(PodShape(2000, gpus=1, gpu_milli=1000), 1.0, 1)]
    nodes = [node(f"n{i}", g) for i, g in enumerate([(1000, 1000), (1000, 500), (500, 500)])]
    cl = Cluster(nodes, typical=typical)
    cl.grow_shapes(1)
    from kueue_doctor.frag.policies import fgd_scores
    score, _ = fgd_scores(cl, SHARE, cl.sid)
    for i, n in enumerate(nodes):
        best = 0
        for g in range(n.gpus):
            if n.gpu_free[g] >= SHARE.gpu_milli:
                after = list(n.gpu_free)
                after[g] -= SHARE.gpu_milli
                a = NodeShape(n.name, n.cpu_free - SHARE.cpu, 1, tuple(after), n.model)
                delta = node_fragmentation(n, typical) - node_fragmentation(a, typical)
                best = max(best, int(100 / (1 + np.exp(-delta / 1000))))
        assert score[i] == best


@pytest.mark.parametrize("policy", list(POLICIES))
def test_every_policy_respects_capacity(policy):
    rng = random.Random(3)
    nodes = [node(f"n{i}", (1000,) * rng.choice([1, 2, 4, 8]), cpu=rng.choice([16000, 64000]),
                  model=rng.choice(["T4", "P100"])) for i in range(12)]
    shapes = [WHOLE, SHARE, PodShape(2000, 500), PodShape(8000, 1000, gpus=4, gpu_milli=1000),
              PodShape(1000, 100, gpus=1, gpu_milli=1000, models=frozenset({"P100"}))]
    typical = [TypicalShape(s, 1 / len(shapes), 1) for s in shapes]
    p = Placer(nodes, policy_class(policy)(random.Random(1)), typical=typical)
    placed = [s for s in (rng.choice(shapes) for _ in range(200)) if p.place(s)]
    cl = p.cluster
    assert (cl.cpu >= 0).all()
    assert (cl.mem >= 0).all()
    assert (cl.free >= 0).all()
    assert cl.used_milli == sum(s.gpu_total for s in placed)
    assert cl.used_milli == cl.capacity_milli - int(cl.free.sum())
    # a refusal means no node had room
    assert all(p.place(s) == bool(feas) for s in shapes for feas in [cl.feasible(s).any()])
    # the model-constrained pods never landed on a T4: those hold only unconstrained shapes
    t4_used = sum(1000 * cl.nodes[i].gpus - int(cl.free[i].sum()) for i in range(len(nodes))
                  if cl.nodes[i].model == "T4")
    assert t4_used <= sum(s.gpu_total for s in placed if not s.models)
