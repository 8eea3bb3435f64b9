"""What a TAS placement is asked for, and the integer resource arithmetic it uses.

Amounts are Kueue's integers (``Quantity.amount``: millicores for cpu, units otherwise);
``pods`` counts pods. Upstream: ``TASPodSetRequests`` (tas_flavor_snapshot.go),
``resources.Requests`` (pkg/resources/requests.go).
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ...api import objects as o

Resources = dict[str, int]
GateFn = Callable[[str], bool]
INT32_MAX = 2**31 - 1
PODS = "pods"


def add(into: Resources, other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) + v


def sub(into: Resources, other: Mapping[str, int]) -> None:
    for k, v in other.items():
        into[k] = into.get(k, 0) - v


def scaled(r: Mapping[str, int], n: int) -> Resources:
    return {k: v * n for k, v in r.items()}


def count_in(requests: Mapping[str, int], capacity: Mapping[str, int]) -> tuple[int, str]:
    """How many times ``requests`` fit in ``capacity``, and the limiting resource (ties by
    name); a zero request does not limit, a negative capacity fits 0 times."""
    result: int | None = None
    limiting = ""
    for name, value in requests.items():
        if value == 0:
            n = INT32_MAX
        else:
            cap = capacity.get(name, 0)
            n = 0 if cap <= 0 else cap // value
            if n > INT32_MAX:
                n = INT32_MAX
        if result is None or n < result or (n == result and name < limiting):
            result, limiting = n, name
    return (result or 0), limiting


def with_one_pod(r: Mapping[str, int]) -> Resources:
    out = dict(r)
    out[PODS] = out.get(PODS, 0) + 1
    return out


@dataclass
class TASPodSetRequest:
    """One pod set to place on one TAS flavor (upstream TASPodSetRequests)."""
    name: str
    count: int
    single_pod_requests: Resources
    topology: o.TopologyRequest | None = None
    implied: bool = False            # no topologyRequest on a pod set that landed on a TAS flavor
    group_name: str | None = None    # podSetGroupName
    node_selector: dict[str, str] = field(default_factory=dict)
    tolerations: list[o.Toleration] = field(default_factory=list)
    required_node_terms: list[o.NodeSelectorTerm] = field(default_factory=list)
    preferred_node_terms: list[tuple[int, o.NodeSelectorTerm]] = field(default_factory=list)
    previous_assignment: o.TopologyAssignment | None = None

    @classmethod
    def of_pod_set(cls, ps: o.PodSet, count: int, single_pod_requests: Resources,
                   previous_assignment: o.TopologyAssignment | None = None) -> TASPodSetRequest:
        """A Workload pod set as the flavor assigner hands it to TAS."""
        t = ps.template
        return cls(name=ps.name, count=count, single_pod_requests=dict(single_pod_requests),
                   topology=ps.topology, implied=ps.topology is None,
                   group_name=ps.topology.pod_set_group_name if ps.topology else None,
                   node_selector=dict(t.node_selector), tolerations=list(t.tolerations),
                   required_node_terms=list(t.required_node_terms),
                   preferred_node_terms=list(t.preferred_node_terms),
                   previous_assignment=previous_assignment)
