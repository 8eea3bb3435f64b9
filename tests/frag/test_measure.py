import random

import numpy as np

from kueue_doctor.engine.nodes import NodeTerms, Placement
from kueue_doctor.frag.cluster import Cluster
from kueue_doctor.frag.measure import (
    TypicalShape,
    cluster_fragmentation,
    node_breakdown,
    node_fragmentation,
    typical_shapes,
)
from kueue_doctor.frag.shapes import NodeShape, PodShape
from kueue_doctor.frag.trace import read_pods


def test_typical_shapes_cover_threshold_and_break_ties_by_key():
    pods = [PodShape(1000, gpus=1, gpu_milli=1000)] * 6 + [PodShape(2000)] * 2 + \
           [PodShape(1000, gpus=1, gpu_milli=500)] * 2
    t = typical_shapes(pods, popularity=0.8)
    # 6 then the tie of two: (2000, 0, 0) > (1000, 500, 1) by key, so the CPU-only one is kept
    assert [x.count for x in t] == [6, 2]
    assert t[1].shape.cpu == 2000
    assert abs(sum(x.weight for x in t) - 1) < 1e-12
    assert t[0].weight == 6 / 8


def test_node_fragmentation_by_hand():
    # shapes: half of the mass a 500m share, half a whole GPU
    typ = [TypicalShape(PodShape(4000, gpus=1, gpu_milli=500), 0.5, 1),
           TypicalShape(PodShape(4000, gpus=1, gpu_milli=1000), 0.5, 1)]
    n = NodeShape("n", 8000, 1, (1000, 300, 600), "X")
    # 500m: fits; the 300 GPU is a fragment.  1000m: fits; 300+600 are fragments.
    assert node_fragmentation(n, typ) == 0.5 * 300 + 0.5 * 900
    starved = NodeShape("n", 2000, 1, (1000, 300, 600), "X")  # no CPU: every idle milli is fragment
    assert node_fragmentation(starved, typ) == 1900
    b = node_breakdown(starved, typ)
    assert b["q4_lack_cpu"] == 1900
    assert b["q3_satisfied"] == 0
    c = cluster_fragmentation([n, starved], typ)
    assert c.fragmented_milli == 600 + 1900
    assert c.idle_milli == 3800
    assert abs(c.ratio - 100 * 2500 / 3800) < 1e-9
    assert abs(c.of_capacity - 100 * 2500 / 6000) < 1e-9


def test_vectorised_measure_matches_reference(sample_paths):
    typical = typical_shapes(p.shape for p in read_pods(sample_paths[1]))
    assert any(t.shape.models for t in typical)  # gpuspec shapes exercise no_access
    rng = random.Random(7)
    nodes = []
    for i in range(300):
        g = rng.choice([1, 2, 4, 8])
        nodes.append(NodeShape(f"n{i:03}", rng.randrange(0, 128001, 500), 1000,
                               tuple(rng.choice([0, 50, 250, 500, 700, 1000]) for _ in range(g)),
                               rng.choice(["G2", "T4", "V100M16", "V100M32"])))
    cl = Cluster(nodes, typical=typical)
    got = cl.model.frag(cl.cpu, cl.free, cl.kind)
    want = np.array([node_fragmentation(n, typical) for n in nodes])
    assert np.allclose(got, want, atol=1e-6)
    assert abs(cl.frag_total - want.sum()) < 1e-6


def test_label_constrained_shapes_see_other_pools_as_no_access():
    pinned = PodShape(1000, gpus=1, gpu_milli=1000, placement=Placement(node_selector=(("pool", "a"),)))
    free = PodShape(1000, gpus=1, gpu_milli=1000)
    typical = typical_shapes([pinned] * 3 + [free])
    assert [t.count for t in typical] == [3, 1]  # same CPU/GPU, kept apart by the label
    a = NodeShape("a", 8000, 1, (1000, 1000), "X", terms=NodeTerms({"pool": "a"}))
    b = NodeShape("b", 8000, 1, (1000, 1000), "X", terms=NodeTerms({"pool": "b"}))
    assert node_fragmentation(a, typical) == 0
    assert node_breakdown(b, typical)["no_access"] == 0.75 * 2000
    cl = Cluster([a, b], typical=typical)
    assert np.allclose(cl.model.frag(cl.cpu, cl.free, cl.kind), [0, 1500])
