"""Topology-aware scheduling (TAS): the per-flavor snapshot of topology domains and the
placement algorithms of upstream's ``TASFlavorSnapshot`` (pkg/cache/scheduler/tas_*.go).

- ``requests``: what a placement is asked for (``TASPodSetRequest``) and the integer resource
  arithmetic it uses;
- ``snapshot``: the topology tree of one TAS ResourceFlavor, built from Nodes, with each leaf's
  free capacity (allocatable minus non-TAS pods minus TAS usage);
- ``placement``: ``find_topology_assignments`` (BestFit, LeastFreeCapacity, slices,
  multi-layer slices, pod-set groups);
- ``balanced``: TASBalancedPlacement;
- ``replacement``: node replacement for unhealthy nodes and elastic reuse of a previous assignment;
- ``messages``: upstream's failure messages and exclusion statistics.
"""
from .placement import PodSetResult, find_topology_assignments
from .requests import TASPodSetRequest
from .snapshot import TASFlavorSnapshot, build_flavor_snapshot

__all__ = ["PodSetResult", "TASFlavorSnapshot", "TASPodSetRequest", "build_flavor_snapshot",
           "find_topology_assignments"]
