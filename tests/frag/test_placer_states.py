"""The Placer's grouping of nodes by state picks exactly the node the scan over all rows picks."""
import random

import pytest

from kueue_doctor.api import objects as o
from kueue_doctor.engine.nodes import NodeTerms, Placement
from kueue_doctor.frag.diagnose import what_if
from kueue_doctor.frag.measure import typical_shapes
from kueue_doctor.frag.policies import POLICIES, policy_class
from kueue_doctor.frag.replay import Placer
from kueue_doctor.frag.shapes import NodeShape, PodShape

TAINTED = NodeTerms(labels={"pool": "b"}, taints=(o.Taint("gpu", "x", "NoSchedule"),))
POOL_A = NodeTerms(labels={"pool": "a"})
BY_NAME = Placement(required_terms=(o.NodeSelectorTerm(
    match_fields=[o.SelectorRequirement("metadata.name", "In", ["n1", "n3", "n5"])]),))
SELECT_A = Placement(node_selector=(("pool", "a"),))


class RowScan(Placer):
    """The reference: every pod scored over all rows."""
    MAX_STATES = -1


def cluster(rng: random.Random, n: int, kinds: int) -> list[NodeShape]:
    templates = []
    for _ in range(kinds):
        gpus = rng.choice([0, 1, 2, 4, 8])
        templates.append((rng.choice([16000, 32000, 96000]), rng.choice([64000, 128000]), gpus,
                          rng.choice(["A100", "T4"]), rng.choice([NodeTerms(), POOL_A, TAINTED])))
    nodes = []
    for i in range(n):
        cpu, mem, gpus, model, terms = rng.choice(templates)
        free = tuple(rng.choice([1000, 1000, 1000, 500, 0]) for _ in range(gpus)) if rng.random() < 0.2 \
            else (1000,) * gpus
        nodes.append(NodeShape(f"n{i}", cpu, mem, free, model, terms))
    return nodes


def pods(rng: random.Random, k: int) -> list[PodShape]:
    shapes = [PodShape(0), PodShape(2000, 1000), PodShape(4000, 0, 1, 300), PodShape(4000, 0, 1, 700),
              PodShape(12000, 4000, 1, 1000), PodShape(24000, 0, 2, 1000), PodShape(48000, 8000, 4, 1000),
              PodShape(8000, 0, 8, 1000), PodShape(1000, 0, 1, 1000, frozenset({"T4"})),
              PodShape(2000, 0, 1, 1000, placement=SELECT_A), PodShape(2000, 0, 0, 0, placement=BY_NAME),
              PodShape(6000, 0, 1, 500, placement=Placement(tolerations=(o.Toleration("gpu", "Exists"),)))]
    return [rng.choice(shapes) for _ in range(k)]


def run(cls: type[Placer], policy: str, nodes, trace, seed: int):
    rng = random.Random(seed)
    order = list(range(len(nodes)))
    rng.shuffle(order)
    p = cls(nodes, policy_class(policy)(rng), order, typical_shapes(trace))
    placed = [p.place(pod) for pod in trace]
    cl = p.cluster
    return placed, cl.node_shapes(), cl.frag_total, cl.used_milli


@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("seed", range(6))
def test_grouped_by_state_places_as_the_scan_over_rows(policy, seed):
    rng = random.Random(seed)
    nodes = cluster(rng, rng.choice([5, 40, 120]), rng.choice([1, 2, 4]))
    trace = pods(rng, 300)
    assert run(Placer, policy, nodes, trace, seed) == run(RowScan, policy, nodes, trace, seed)


def test_states_are_used_on_a_cluster_of_few_node_types():
    nodes = [NodeShape(f"n{i}", 96000, 0, (1000,) * 8) for i in range(50)]
    p = Placer(nodes, policy_class("BestFit")())
    assert p._states is not None and p._states.live == 1
    assert p.place(PodShape(12000, 0, 1, 1000))
    # the first row took it (every node ties); two states now
    assert p.cluster.nodes[0].gpu_free != p.cluster.node_shapes()[0].gpu_free and p._states.live == 2


def test_many_states_fall_back_to_the_scan():
    nodes = [NodeShape(f"n{i}", 1000 * (i + 1), 0, ()) for i in range(Placer.MAX_STATES + 1)]
    assert Placer(nodes, policy_class("BestFit")())._states is None


def test_what_if_without_measure_places_as_with_it():
    rng = random.Random(3)
    nodes = cluster(rng, 60, 3)
    trace = pods(rng, 200)
    for policy in ("BestFit", "GpuPacking", "DotProd"):
        got = what_if(nodes, trace, trace[:3], (policy,))
        rng2 = random.Random(0)
        order = list(range(len(nodes)))
        rng2.shuffle(order)
        ref = RowScan(nodes, policy_class(policy)(rng2), order, typical_shapes(trace))
        refused = sum(not ref.place(p) for p in trace)
        assert got[policy][1] == refused
