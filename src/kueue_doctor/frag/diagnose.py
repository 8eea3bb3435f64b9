"""Step 2 of the recipe on plain shapes: does fragmentation explain pending work?

For each pending pod shape: the free slots now, what would fit if free resources were pooled,
a verdict, and — when the running pods are known — how many slots each placement policy
would have left for that shape had it placed the same running pods on the same empty nodes.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from .measure import typical_shapes
from .policies import POLICIES, policy_class
from .replay import Placer
from .shapes import NodeShape, PodShape
from .slots import SlotCount, count_slots

FITS = "fits"                    # enough free slots of the shape: look elsewhere
FRAGMENTATION = "fragmentation"  # enough free resources in total, not enough on single nodes
CAPACITY = "capacity"            # not enough free resources on eligible nodes even pooled


@dataclass(frozen=True)
class Demand:
    """``pods`` pending pods of one shape (e.g. one pod set of a pending workload)."""
    shape: PodShape
    pods: int
    source: str = ""  # what asked for it, e.g. "team-a/job-1 (flavor a100)"


@dataclass
class ShapeFinding:
    demand: Demand
    slots: SlotCount
    cause: str
    # policy name -> slots for the shape had that policy placed the running pods
    policy_slots: dict[str, int] = field(default_factory=dict)
    # policy name -> running pods that policy could not place at all
    policy_refused: dict[str, int] = field(default_factory=dict)

    @property
    def shortfall(self) -> int:
        return max(self.demand.pods - self.slots.slots, 0)

    def policy_gain(self) -> dict[str, int]:
        """How many more pods of the shape each policy would have fit than the cluster can now."""
        return {p: s - self.slots.slots for p, s in self.policy_slots.items()}

    def summary(self) -> str:
        s, d = self.slots, self.demand
        head = (f"{d.pods} pending pod(s) of {d.shape.describe()}: {s.slots} free slot(s) on "
                f"{s.nodes_with_slot} of {s.eligible_nodes} eligible node(s), {s.pooled} if pooled")
        if self.cause == FRAGMENTATION:
            return head + f"; fragmentation strands {s.lost_to_fragmentation} slot(s)"
        if self.cause == CAPACITY:
            return head + "; not enough free resources even pooled"
        return head + "; slots are free, so fragmentation does not explain the wait"

    def as_dict(self) -> dict:
        return {"shape": self.demand.shape.describe(), "source": self.demand.source,
                "pending": self.demand.pods, "cause": self.cause,
                "eligible_nodes": self.slots.eligible_nodes,
                "nodes_with_slot": self.slots.nodes_with_slot, "slots": self.slots.slots,
                "pooled": self.slots.pooled, "lost_to_fragmentation": self.slots.lost_to_fragmentation,
                "policy_slots": dict(self.policy_slots), "policy_gain": self.policy_gain(),
                "policy_refused": dict(self.policy_refused)}


def verdict(slots: SlotCount, wanted: int) -> str:
    if slots.slots >= wanted:
        return FITS
    return FRAGMENTATION if slots.pooled >= wanted else CAPACITY


def what_if(empty_nodes: Sequence[NodeShape], running: Sequence[PodShape],
            shapes: Sequence[PodShape], policies: Sequence[str] = tuple(POLICIES), seed: int = 0,
            typical_from: Sequence[PodShape] | None = None) -> dict[str, tuple[list[int], int]]:
    """Re-place ``running`` (in order) on ``empty_nodes`` with each policy.

    Returns policy -> (slots left for each of ``shapes``, running pods refused). The node
    tie-break order is a seeded shuffle, as in the replay; FGD weighs fragmentation by the
    shapes of ``typical_from`` (default: the running pods and the asked shapes).
    """
    classes = [policy_class(name) for name in policies]
    # only FGD reads the measure: the other policies place the same without it
    typical = typical_shapes(list(typical_from) if typical_from is not None else [*running, *shapes]) \
        if any(cls.needs_measure for cls in classes) else None
    out = {}
    for cls in classes:
        rng = random.Random(seed)
        order = list(range(len(empty_nodes)))
        rng.shuffle(order)
        placer = Placer(empty_nodes, cls(rng), order, typical, measure=cls.needs_measure)
        refused = sum(not placer.place(p) for p in running)
        after = placer.cluster.node_shapes()
        out[cls.name] = ([count_slots(after, s).slots for s in shapes], refused)
    return out


def diagnose(nodes: Sequence[NodeShape], demands: Sequence[Demand],
             running: Sequence[PodShape] | None = None,
             empty_nodes: Sequence[NodeShape] | None = None,
             policies: Sequence[str] = tuple(POLICIES), seed: int = 0,
             slot_cache: dict | None = None) -> list[ShapeFinding]:
    """Findings for each demand; the policy comparison needs ``running`` and ``empty_nodes``.
    ``slot_cache`` (shape -> SlotCount on ``nodes``) is shared by callers asking many times."""
    findings = []
    cache = slot_cache if slot_cache is not None else {}
    for d in demands:
        if d.shape not in cache:
            cache[d.shape] = count_slots(nodes, d.shape)
        s = cache[d.shape]
        findings.append(ShapeFinding(d, s, verdict(s, d.pods)))
    if running is not None and empty_nodes is not None and findings and policies:
        shapes = [d.shape for d in demands]
        pending = [d.shape for d in demands for _ in range(d.pods)]
        results = what_if(empty_nodes, running, shapes, policies, seed,
                          typical_from=[*running, *pending])
        for name, (slots, refused) in results.items():
            for f, n in zip(findings, slots, strict=True):
                f.policy_slots[name] = n
                f.policy_refused[name] = refused
    return findings
