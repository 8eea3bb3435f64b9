"""A cluster's free resources as numpy arrays, for placing pods one at a time quickly.

Rows are kept in the order of the nodes' tie-break rank, so ``argmax`` over a score vector
returns the best node with the smallest rank, which is how the FGD simulator breaks ties.

Each node's GPU row is sorted descending. Only the multiset of free GPU milli matters for
every fit test, score and measure here, and a sorted row turns "does some set of n GPUs have
m free each" into one comparison: ``free[:, n-1] >= m``.

Nodes with the same GPU model, GPU count and placement terms (labels, taints, readiness, cordon)
share a *kind*; eligibility and the FGD measure depend on a node only through its kind (a pod
that selects nodes by name, ``matchFields``, is checked node by node for fit; the FGD measure
still looks at its kind). Nodes with the same kind, free CPU and
free GPUs share a *state id*, so FGD scores are computed once per state, not once per node.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engine.nodes import NO_PLACEMENT, admits
from .measure import TypicalShape
from .shapes import GPU_MILLI, NodeShape, PodShape, eligible, selector_key


class FragModel:
    """The FGD measure over many node states at once (see ``measure.py`` for the definition)."""

    def __init__(self, typical: Sequence[TypicalShape], kind_reps: Sequence[NodeShape], width: int):
        gpu = [t for t in typical if t.shape.wants_gpu]
        self.width = width
        self.psum = float(sum(t.weight for t in typical))
        self.c = np.array([t.shape.cpu for t in gpu], dtype=np.int64)
        self.m = np.array([t.shape.gpu_milli for t in gpu], dtype=np.int32)
        n = np.array([t.shape.gpus for t in gpu], dtype=np.int64)
        self.p = np.array([t.weight for t in gpu], dtype=np.float64)
        self.col = np.clip(n - 1, 0, width - 1)
        access = np.array([[eligible(rep, t.shape) for t in gpu] for rep in kind_reps], dtype=bool)
        # A shape that needs more GPUs than any row holds never fits.
        self.access = access.reshape(len(kind_reps), len(gpu)) & (n <= width)[None, :]
        self.thr, self.thr_idx = np.unique(self.m, return_inverse=True)

    def frag(self, cpu: np.ndarray, free: np.ndarray, kind: np.ndarray) -> np.ndarray:
        idle = free.sum(axis=1, dtype=np.int64).astype(np.float64)
        if not len(self.p):
            return idle * self.psum
        # usable[x, t]: idle milli on GPUs with at least thr[t] free (the rest is fragment).
        ge = free[:, None, :] >= self.thr[None, :, None]
        usable = np.where(ge, free[:, None, :], 0).sum(axis=2, dtype=np.int64)
        fit = (free[:, self.col] >= self.m) & (cpu[:, None] >= self.c) & self.access[kind]
        return idle * self.psum - (fit * usable[:, self.thr_idx]) @ self.p


class Cluster:
    def __init__(self, nodes: Sequence[NodeShape], order: Sequence[int] | None = None,
                 typical: Sequence[TypicalShape] | None = None):
        order = list(range(len(nodes))) if order is None else list(order)
        self.nodes = [nodes[i] for i in order]
        n = len(self.nodes)
        self.width = max([1] + [nd.gpus for nd in self.nodes])
        self.cpu = np.array([nd.cpu_free for nd in self.nodes], dtype=np.int64)
        self.mem = np.array([nd.mem_free for nd in self.nodes], dtype=np.int64)
        self.free = np.zeros((n, self.width), dtype=np.int32)
        for i, nd in enumerate(self.nodes):
            self.free[i, :nd.gpus] = sorted(nd.gpu_free, reverse=True)
        self.ngpu = np.array([nd.gpus for nd in self.nodes], dtype=np.int64)
        self.capacity_milli = int(self.ngpu.sum()) * GPU_MILLI
        self.idle = self.free.sum(axis=1, dtype=np.int64)
        self.nfull = (self.free == GPU_MILLI).sum(axis=1)  # untouched GPUs per node
        self.used_milli = self.capacity_milli - int(self.idle.sum())
        kinds: dict[tuple, int] = {}
        self.kind_reps: list[NodeShape] = []
        kind = []
        for nd in self.nodes:
            key = (nd.model, nd.gpus, nd.terms)
            if key not in kinds:
                kinds[key] = len(kinds)
                self.kind_reps.append(nd)
            kind.append(kinds[key])
        self.kind = np.array(kind, dtype=np.int64)
        # whether some node refuses a pod that asks for nothing (a taint, NotReady, cordoned)
        self._any_refusal = not all(admits(nd.terms, NO_PLACEMENT, nd.name) for nd in self.kind_reps)
        self.tags = np.zeros(n, dtype=np.int64)  # GpuClustering: bit set per affinity tag present
        self._tag_bits: dict[str, int] = {}
        self._elig: dict[tuple, np.ndarray] = {}
        self.model: FragModel | None = None
        if typical is not None:
            self._attach_measure(typical)

    # -- fit ----------------------------------------------------------------------------
    def eligible_mask(self, pod: PodShape) -> np.ndarray:
        key = (*selector_key(pod), pod.gpus)
        mask = self._elig.get(key)
        if mask is None:
            if pod.placement.uses_node_name:
                mask = self._elig[key] = np.array([eligible(nd, pod) for nd in self.nodes], dtype=bool)
            else:
                ok = np.array([eligible(rep, pod) for rep in self.kind_reps], dtype=bool)
                mask = self._elig[key] = ok[self.kind]
        return mask

    def feasible(self, pod: PodShape, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """Nodes (of ``rows``, default all) that can take one more ``pod`` now (CPU, memory, GPU
        count and share, selectors)."""
        mask = (self.cpu[rows] >= pod.cpu) & (self.mem[rows] >= pod.mem)
        if pod.wants_gpu:
            if pod.gpus > self.width:
                return np.zeros(len(mask), dtype=bool)
            mask &= self.free[rows, pod.gpus - 1] >= pod.gpu_milli
        if pod.wants_gpu or not pod.placement.empty or self._any_refusal:
            mask &= self.eligible_mask(pod)[rows]
        return mask

    def fitting_count(self, pod: PodShape, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """How many GPUs of each row have room for the pod's per-GPU share."""
        return (self.free[rows] >= pod.gpu_milli).sum(axis=1)

    def tag_bit(self, tag: str) -> int:
        if tag not in self._tag_bits:
            self._tag_bits[tag] = 1 << len(self._tag_bits)
        return self._tag_bits[tag]

    # -- commit -------------------------------------------------------------------------
    def place(self, j: int, pod: PodShape, gpu_value: int | None = None) -> None:
        """Bind ``pod`` to row ``j``.

        A share pod goes on a GPU with ``gpu_value`` free (the policy's choice; the tightest
        fitting GPU when None). Other GPU pods take the ``n`` tightest GPUs that fit, which for
        whole-GPU pods are untouched GPUs, like the simulator's lowest-index free devices.
        """
        self.cpu[j] -= pod.cpu
        self.mem[j] -= pod.mem
        if pod.wants_gpu:
            # a row is a handful of GPUs: plain list work costs less than numpy calls on it
            row = self.free[j].tolist()
            m, n = pod.gpu_milli, pod.gpus
            if pod.is_share and gpu_value is not None:
                row[row.index(gpu_value)] -= m
            else:
                cnt = sum(1 for v in row if v >= m)
                for k in range(cnt - n, cnt):
                    row[k] -= m
            row.sort(reverse=True)
            self.free[j] = row
            self.nfull[j] = row.count(GPU_MILLI)
            self.idle[j] -= n * m
            self.used_milli += n * m
            self.tags[j] |= self.tag_bit(pod.affinity_tag())
        if self.model is not None:
            old = self.node_frag[j]
            sid = self._state_id(j, self.model)
            self.sid[j] = sid
            self.node_frag[j] = self.st_frag[sid]
            self.frag_total += self.node_frag[j] - old

    # -- FGD measure and per-state cache -------------------------------------------------
    def _attach_measure(self, typical: Sequence[TypicalShape]) -> None:
        model = self.model = FragModel(typical, self.kind_reps, self.width)
        self._states: dict[tuple, int] = {}
        cap = 256
        self.st_cpu = np.zeros(cap, dtype=np.int64)
        self.st_kind = np.zeros(cap, dtype=np.int64)
        self.st_free = np.zeros((cap, self.width), dtype=np.int32)
        self.st_frag = np.zeros(cap, dtype=np.float64)
        self.scores = np.full((cap, 8), -1, dtype=np.int16)   # [state, pod shape id] -> score
        self.choice = np.zeros((cap, 8), dtype=np.int32)      # share pods: free milli of the GPU to use
        self.sid = np.array([self._state_id(j, model) for j in range(len(self.cpu))], dtype=np.int64)
        self.node_frag = self.st_frag[self.sid].copy()
        self.frag_total = float(self.node_frag.sum())

    def _state_id(self, j: int, model: FragModel) -> int:
        key = (int(self.kind[j]), int(self.cpu[j]), self.free[j].tobytes())
        sid = self._states.get(key)
        if sid is None:
            sid = self._states[key] = len(self._states)
            if sid >= len(self.st_cpu):
                self._grow_states()
            self.st_cpu[sid] = self.cpu[j]
            self.st_kind[sid] = self.kind[j]
            self.st_free[sid] = self.free[j]
            self.st_frag[sid] = model.frag(self.cpu[j:j + 1], self.free[j:j + 1], self.kind[j:j + 1])[0]
        return sid

    def _grow_states(self) -> None:
        grow = len(self.st_cpu)
        self.st_cpu = np.concatenate([self.st_cpu, np.zeros(grow, dtype=np.int64)])
        self.st_kind = np.concatenate([self.st_kind, np.zeros(grow, dtype=np.int64)])
        self.st_free = np.concatenate([self.st_free, np.zeros((grow, self.width), dtype=np.int32)])
        self.st_frag = np.concatenate([self.st_frag, np.zeros(grow)])
        self.scores = np.concatenate([self.scores, np.full((grow, self.scores.shape[1]), -1, np.int16)])
        self.choice = np.concatenate([self.choice, np.zeros((grow, self.choice.shape[1]), np.int32)])

    def grow_shapes(self, need: int) -> None:
        if self.model is None:
            return   # no measure, no per-state scores
        have = self.scores.shape[1]
        if need > have:
            extra = max(need, 2 * have) - have
            rows = self.scores.shape[0]
            self.scores = np.concatenate([self.scores, np.full((rows, extra), -1, np.int16)], axis=1)
            self.choice = np.concatenate([self.choice, np.zeros((rows, extra), np.int32)], axis=1)

    # -- views --------------------------------------------------------------------------
    def node_shapes(self) -> list[NodeShape]:
        """The current free resources as plain shapes, in the original rank order."""
        out = []
        for i, nd in enumerate(self.nodes):
            out.append(NodeShape(name=nd.name, cpu_free=int(self.cpu[i]), mem_free=int(self.mem[i]),
                                 gpu_free=tuple(int(g) for g in self.free[i, :nd.gpus]),
                                 model=nd.model, terms=nd.terms))
        return out
