"""Free-slot counting: how many pods of one shape the nodes can take, node by node.

This is the fragmentation question of the diagnosis recipe. Twelve 8-GPU pods need twelve
nodes with 8 free GPUs each; 96 free GPUs spread thinly do not help. So next to the slot
count we report the *pooled* count — what would fit if every eligible node's free resources
were one big node — and the gap between the two is what fragmentation costs.

A shape read from a cluster (``from_state``: the node carries ``live``, the pod ``needs``) has
its slots counted by the placement model (``engine.nodes.slots_on``: every requested resource
in exact amounts, the node's pod limit), so step 2, ``explain`` and the exporter's
``free_slots`` agree; trace and replayed shapes count CPU, memory and GPUs.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..engine.nodes import UNBOUNDED, gpu_slots, room
from .shapes import NodeShape, PodShape, eligible


def node_slots(node: NodeShape, pod: PodShape) -> int:
    """How many more pods of shape ``pod`` fit on ``node`` (its free resources only)."""
    return _room(node, pod) if eligible(node, pod) else 0


def _room(node: NodeShape, pod: PodShape) -> int:
    if node.live is not None and pod.needs is not None:
        return room(node.live, pod.needs)
    k = UNBOUNDED
    if pod.cpu > 0:
        k = min(k, node.cpu_free // pod.cpu)
    if pod.mem > 0:
        k = min(k, node.mem_free // pod.mem)
    if pod.wants_gpu:
        k = min(k, gpu_slots(node.gpu_free, pod.gpus, pod.gpu_milli))
    return max(k, 0)


@dataclass(frozen=True)
class SlotCount:
    shape: PodShape
    eligible_nodes: int     # nodes the shape may use at all (model, labels, taints)
    nodes_with_slot: int    # nodes that can take one more pod of the shape now
    slots: int              # pods of the shape the nodes can take in all
    pooled: int             # pods that would fit if eligible free resources were pooled
    free_gpu_milli: int     # idle GPU milli on eligible nodes

    @property
    def lost_to_fragmentation(self) -> int:
        return max(self.pooled - self.slots, 0)


def count_slots(nodes: Iterable[NodeShape], pod: PodShape) -> SlotCount:
    n_eligible = with_slot = slots = 0
    cpu = mem = gpu = 0
    for node in nodes:
        if not eligible(node, pod):
            continue
        n_eligible += 1
        cpu += max(node.cpu_free, 0)
        mem += max(node.mem_free, 0)
        gpu += node.gpu_idle
        k = _room(node, pod)
        slots += k
        with_slot += k > 0
    pooled = UNBOUNDED
    for have, need in ((cpu, pod.cpu), (mem, pod.mem), (gpu, pod.gpu_total)):
        if need > 0:
            pooled = min(pooled, have // need)
    if pooled == UNBOUNDED:  # a shape that asks for nothing fits once per eligible node at least
        pooled = slots
    return SlotCount(pod, n_eligible, with_slot, slots, pooled, gpu)
