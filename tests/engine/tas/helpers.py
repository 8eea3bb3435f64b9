"""Building blocks for the TAS engine tests: nodes on a block/rack/host topology."""
from __future__ import annotations

from kueue_doctor.api import objects as o
from kueue_doctor.api.quantity import Quantity

LEVELS = ["cloud.com/topology-block", "cloud.com/topology-rack", "kubernetes.io/hostname"]


def node(name: str, block: str, rack: str, cpu: str = "1", pods: str = "10", ready: bool = True,
         unschedulable: bool = False, taints: list[o.Taint] | None = None,
         labels: dict[str, str] | None = None) -> o.Node:
    lab = {LEVELS[0]: block, LEVELS[1]: rack, LEVELS[2]: name, **(labels or {})}
    return o.Node(meta=o.Meta(name=name, labels=lab),
                  allocatable={"cpu": Quantity.parse(cpu), "pods": Quantity.parse(pods)},
                  taints=taints or [], unschedulable=unschedulable,
                  conditions=[o.Condition("Ready", "True" if ready else "False")])


def topology(levels: list[str] | None = None) -> o.Topology:
    return o.Topology(meta=o.Meta(name="default"), levels=list(levels or LEVELS))


def flavor(**kw: object) -> o.ResourceFlavor:
    return o.ResourceFlavor(meta=o.Meta(name="tas"), topology_name="default", **kw)  # type: ignore[arg-type]


def gates(**over: bool):
    from kueue_doctor.engine.config import EngineConfig
    return EngineConfig(gates=dict(over)).gate
