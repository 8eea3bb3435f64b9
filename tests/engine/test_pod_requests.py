"""pod_requests' one-container shortcut sums what the sidecar-aware computation sums."""
import random

from kueue_doctor.api import objects as o
from kueue_doctor.api.quantity import Quantity
from kueue_doctor.engine.workload import pod_requests, sidecar_aware_requests

VALUES = ["0", "1", "250m", "1.5", "2Gi", "1e3", "8", "-1", "100Mi"]
NAMES = ["cpu", "memory", "nvidia.com/gpu", "example.com/foo"]


def resources(rng: random.Random) -> dict[str, Quantity]:
    return {n: Quantity.parse(rng.choice(VALUES)) for n in rng.sample(NAMES, rng.randint(0, 3))}


def test_one_container_shortcut_matches_the_general_sums():
    rng = random.Random(11)
    shortcut = 0
    for _ in range(2000):
        containers = [o.Container("c", resources(rng), resources(rng)) for _ in range(rng.choice([1, 1, 1, 2]))]
        spec = o.PodSpec(containers=containers)
        if rng.random() < 0.1:
            spec.init_containers = [o.Container("i", resources(rng), restart_policy=rng.choice(["", "Always"]))]
        if rng.random() < 0.1:
            spec.overhead = resources(rng)
        shortcut += len(containers) == 1 and not spec.init_containers and not spec.overhead
        got = pod_requests(spec)
        want = sidecar_aware_requests(spec)
        assert got == want and list(got) == list(want), spec
    assert shortcut > 1000
