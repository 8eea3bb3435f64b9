"""GPU fragmentation of a simulated run: the FGD measure (frag/measure.py) over time.

Every ``EVERY`` simulated seconds the probe notes what each GPU node has free; at the end each
noted state is measured against the run's pod shapes: the pods of every workload the run
admitted, with the node labels of the flavors it was given (a pod meant for one flavor's nodes
has no access to another's), each pod once. A workload never admitted adds no shape: where it
could have gone is what admission decides. Node states repeat (most nodes are full, empty, or
like each other), so each distinct one is measured once."""
from __future__ import annotations

import math
from array import array
from typing import Any

from ..frag.from_state import MIB, node_model, shape_of
from ..frag.measure import TypicalShape, node_fragmentation, typical_shapes
from ..frag.shapes import NodeShape, PodShape
from ..sim.simulator import Simulator

EVERY = 300.0   # seconds of simulated time between samples


class FragmentationProbe:
    """A progress hook for ``Simulator.progress``; ``measures()`` once the run is over."""

    def __init__(self, sim: Simulator, every: float = EVERY):
        self.sim, self.every = sim, every
        self.nodes = [n for n in sim.pool.nodes if n.info.gpu_free]
        self.next = 0.0
        self.states: dict[tuple, int] = {}
        self.samples: list[array] = []

    def __call__(self, now: float) -> None:
        # the simulator's own sample events fall on every multiple of its interval, so a
        # sample time is never passed by far; states between events do not change
        while self.next <= now:
            self._note()
            self.next += self.every

    def _note(self) -> None:
        ids = array("I")
        for i, node in enumerate(self.nodes):
            info = node.info
            key = (i, info.free("cpu"), info.free("memory"), tuple(info.gpu_free), info.terms)
            sid = self.states.get(key)
            if sid is None:
                sid = self.states[key] = len(self.states)
            ids.append(sid)
        self.samples.append(ids)

    def pod_shapes(self) -> list[PodShape]:
        pool = self.sim.pool
        shapes: list[PodShape] = []
        for sw in self.sim.workloads.values():
            if sw.first_admitted_at is None:
                continue
            shapes.extend(shape_of(pool.needs(p.requests, sw.labels)) for p in sw.pods)
        return shapes

    def series(self) -> list[tuple[float, float | None]]:
        """Per sample: fragmented GPUs, and the fragmented share of idle GPU in % (None when no
        GPU is idle). Empty without GPU nodes, samples or an admitted GPU pod."""
        typical = typical_shapes(self.pod_shapes())
        if not self.nodes or not self.samples or not any(t.shape.wants_gpu for t in typical):
            return []
        frag, idle = self._per_state(typical)
        out: list[tuple[float, float | None]] = []
        for ids in self.samples:
            f = sum(frag[s] for s in ids)
            free = sum(idle[s] for s in ids)
            out.append((f / 1000.0, 100.0 * f / free if free else None))
        return out

    def measures(self) -> dict[str, Any]:
        """``fragmentation``: the mean share of idle GPU that is fragment for the run's pod
        shapes over the samples with idle GPU (%); ``fragmentedGpus``: the mean fragmented GPUs.
        NaN when there is nothing to measure."""
        series = self.series()
        if not series:
            return {"fragmentation": math.nan, "fragmentedGpus": math.nan}
        ratios = [r for _, r in series if r is not None]
        return {"fragmentation": round(sum(ratios) / len(ratios), 6) if ratios else 0.0,
                "fragmentedGpus": round(sum(g for g, _ in series) / len(series), 6)}

    def _per_state(self, typical: list[TypicalShape]) -> tuple[list[float], list[int]]:
        frag = [0.0] * len(self.states)
        idle = [0] * len(self.states)
        for (i, cpu, mem, gpu, terms), sid in self.states.items():
            info = self.nodes[i].info
            shape = NodeShape(info.name, cpu, mem // MIB, gpu, node_model(info.terms.labels), terms)
            frag[sid] = node_fragmentation(shape, typical)
            idle[sid] = shape.gpu_idle
        return frag, idle

