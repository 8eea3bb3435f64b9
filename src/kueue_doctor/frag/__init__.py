"""GPU fragmentation: free-slot counting, the FGD measure, placement policies, trace replay.

Shared by the doctor (step 2 of the recipe), the simulator and the exporter. Everything works
on plain shapes (``NodeShape``, ``PodShape``); ``from_state`` builds them from a ClusterState.
"""
from .measure import (
    ClusterFragmentation,
    TypicalShape,
    cluster_fragmentation,
    node_breakdown,
    node_fragmentation,
    typical_shapes,
)
from .shapes import NodeShape, PodShape, eligible

__all__ = [
    "ClusterFragmentation", "NodeShape", "PodShape", "TypicalShape", "cluster_fragmentation", "eligible",
    "node_breakdown", "node_fragmentation", "typical_shapes",
]
