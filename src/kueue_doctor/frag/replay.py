"""Replay a pod trace onto a cluster the way the FGD paper's simulator does.

Pods arrive one at a time in a seeded shuffle of the trace, topped up (or thinned) to
``tune`` times the cluster's GPU capacity; each is placed by the policy or fails for good
(nothing finishes, nothing is retried, nothing is preempted). After every pod the allocated
and the fragmented GPU milli are recorded, then binned by arrived load (% of capacity).

The Go simulator's random stream cannot be reproduced (see docs/fragmentation.md), so a seed
here gives a different but equally distributed pod order and node ranking: compare results
over several seeds, not seed by seed.
"""
from __future__ import annotations

import heapq
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from .cluster import Cluster
from .measure import TypicalShape, typical_shapes
from .policies import Policy, policy_class
from .shapes import NodeShape, PodShape
from .trace import TracePod

DEFAULT_TUNE = 1.3
MAX_COLUMN = 130


@dataclass
class Arrivals:
    pods: list[PodShape]
    rank: list[int]  # rank[i]: tie-break rank of node i (nodes in name order)


def arrivals(trace: Sequence[TracePod], capacity_milli: int, n_nodes: int, rng: random.Random,
             tune: float | None = DEFAULT_TUNE) -> Arrivals:
    """The pod sequence and node ranking for one seed.

    The tuning quirks are the simulator's: the top-up samples the name-ordered trace with
    replacement and stops when the sample's *per-GPU* milli would pass the target; the
    thinning removes pods at random positions until the total is at most the target.
    """
    base = sorted(trace, key=lambda p: p.name)
    seq = [p.shape for p in base]
    rng.shuffle(seq)
    if tune:
        target = tune * capacity_milli
        total = sum(p.gpu_total for p in seq)
        if total < target and any(p.shape.wants_gpu for p in base):
            while True:
                pick = base[rng.randrange(len(base))].shape
                if total + pick.gpu_milli > target:
                    break
                seq.append(pick)
                total += pick.gpu_total
        else:
            while total > target and seq:
                gone = seq.pop(rng.randrange(len(seq)))
                total -= gone.gpu_total
    rank = list(range(n_nodes))
    rng.shuffle(rank)
    return Arrivals(seq, rank)


@dataclass
class ReplayResult:
    policy: str
    seed: int
    capacity_milli: int
    arrived: np.ndarray     # cumulative GPU milli of pods attempted, after each pod
    used: np.ndarray        # allocated GPU milli after each pod
    fragmented: np.ndarray  # FGD-fragmented GPU milli after each pod
    failed: int
    pods: int
    final_nodes: list[NodeShape] = field(default_factory=list, repr=False)

    @property
    def final_allocation(self) -> float:
        return 100.0 * float(self.used[-1]) / self.capacity_milli if len(self.used) else 0.0

    def allocation_curve(self) -> dict[int, float]:
        """Milli-GPU allocation ratio (%) per arrived-load column 0..130."""
        gpus = self.capacity_milli / 1000
        return bin_by_arrival(self.arrived, [round(u / gpus / 10, 2) for u in self.used.tolist()], gpus)

    def fragmentation_curve(self) -> dict[int, float]:
        """Fragmented GPU milli as % of cluster capacity per arrived-load column."""
        gpus = self.capacity_milli / 1000
        raw = bin_by_arrival(self.arrived, self.fragmented.tolist(), gpus, digits=None)
        return {x: round(100 * v / 1000 / gpus, 2) for x, v in raw.items()}


def bin_by_arrival(arrived: np.ndarray, values: Sequence[float], total_gpus: float,
                   digits: int | None = 2, columns: int = MAX_COLUMN) -> dict[int, float]:
    """Mean value per integer arrived-% column, falling back to the columns either side.

    The column of an event is ``round(arrived / total_gpus / 10)`` with Python's
    round-half-even, as the paper's analysis scripts compute it.
    """
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for a, v in zip(arrived.tolist(), values, strict=True):
        x = round(a / total_gpus / 10)
        sums[x] = sums.get(x, 0.0) + v
        counts[x] = counts.get(x, 0) + 1
    out = {}
    for x in range(columns + 1):
        if x in counts:
            mean = sums[x] / counts[x]
        else:
            near = [y for y in (x - 1, x, x + 1) if y in counts]
            if not near:
                continue
            mean = sum(sums[y] for y in near) / sum(counts[y] for y in near)
        out[x] = round(mean, digits) if digits is not None else mean
    return out


class Placer:
    """Places pods one at a time with one policy; a pod that fits nowhere is refused.

    Where the policy scores a node by its state alone (``Policy.by_state``) and the nodes fall
    into few states (a cluster of a few node types: every node the same until pods land), the
    nodes are kept grouped by state (kind, free CPU, memory and GPUs; a kind decides
    eligibility): fit and score are asked once per state and pod shape, and the node chosen is
    the first row of the best-scoring states, which is the row ``argmax`` over all rows picks.
    With many states (a trace of varied nodes) every pod is scored over all rows instead.
    """

    MAX_STATES = 64   # beyond, a loop over states in Python costs more than numpy over rows

    def __init__(self, nodes: Sequence[NodeShape], policy: Policy, order: Sequence[int] | None = None,
                 typical: Sequence[TypicalShape] | None = None, measure: bool = True):
        """``measure``: keep the FGD measure up to date (FGD and the replay's curves read it)."""
        self.cluster = Cluster(nodes, order, (typical if typical is not None else []) if measure else None)
        self.policy = policy
        self._pids: dict[PodShape, int] = {}
        self._states: _States | None = _States(self.cluster) if policy.by_state else None
        if self._states is not None and self._states.live > self.MAX_STATES:
            self._states = None

    def place(self, pod: PodShape) -> bool:
        cl = self.cluster
        pid = self._pids.get(pod)
        if pid is None:
            pid = self._pids[pod] = len(self._pids)
            cl.grow_shapes(pid + 1)
        states = self._states
        if states is not None and not pod.placement.uses_node_name:
            chosen = states.choose(self.policy, pod, pid)
            if chosen is None:
                return False
            j, gpu = chosen
        else:
            feas = cl.feasible(pod)
            if not feas.any():
                return False
            j, gpu = self.policy.choose(cl, pod, pid, feas)
        cl.place(j, pod, gpu)
        if states is not None:
            states.moved(j)
            if states.live > self.MAX_STATES:
                self._states = None
        return True


class _States:
    """The rows of a Cluster grouped by state, each group's rows in a heap (smallest row first;
    a row that left keeps a stale entry, dropped when it comes to the top), and per pod shape
    what a state offers: None (no fit) or (score, GPU choice)."""

    def __init__(self, cl: Cluster):
        self.cl = cl
        self.ids: dict[tuple, int] = {}
        self.rows: list[list[int]] = []       # state -> heap of rows
        self.count: list[int] = []            # state -> rows in it now
        self.of: list[int] = []               # row -> its state
        self.offers: list[dict[int, tuple[int, int | None] | None]] = []   # pod shape -> state -> offer
        self.alive: set[int] = set()          # states some row is in
        for j in range(len(cl.cpu)):
            sid = self._id(j)
            self.of.append(sid)
            self.rows[sid].append(j)          # rows ascending: already heaps
            self._count(sid, 1)

    def _id(self, j: int) -> int:
        cl = self.cl
        key = (int(cl.kind[j]), int(cl.cpu[j]), int(cl.mem[j]), cl.free[j].tobytes())
        sid = self.ids.get(key)
        if sid is None:
            sid = self.ids[key] = len(self.rows)
            self.rows.append([])
            self.count.append(0)
        return sid

    @property
    def live(self) -> int:
        return len(self.alive)

    def _count(self, sid: int, d: int) -> None:
        n = self.count[sid] = self.count[sid] + d
        if n:
            self.alive.add(sid)
        else:
            self.alive.discard(sid)

    def moved(self, j: int) -> None:
        """Row ``j`` was just placed on: file it under its new state."""
        sid = self._id(j)
        old = self.of[j]
        if sid != old:
            self.of[j] = sid
            self._count(old, -1)
            self._count(sid, 1)
            heapq.heappush(self.rows[sid], j)

    def _first(self, sid: int) -> int:
        heap = self.rows[sid]
        while self.of[heap[0]] != sid:
            heapq.heappop(heap)
        return heap[0]

    def choose(self, policy: Policy, pod: PodShape, pid: int) -> tuple[int, int | None] | None:
        while len(self.offers) <= pid:
            self.offers.append({})
        offers = self.offers[pid]
        live = self.alive
        new = [s for s in live if s not in offers]
        if new:
            reps = np.array([self._first(s) for s in new], dtype=np.int64)
            feas = self.cl.feasible(pod, reps)
            fit = np.flatnonzero(feas)
            for s in new:
                offers[s] = None
            if len(fit):
                scores, gpus = policy.state_scores(self.cl, pod, pid, reps[fit])
                for i, k in enumerate(fit.tolist()):
                    offers[new[k]] = (int(scores[i]), None if gpus is None else int(gpus[i]))
        best: tuple[int, int] | None = None   # (score, -row)
        gpu = None
        for s in live:
            offer = offers[s]
            if offer is None:
                continue
            score = offer[0]
            if best is not None and score < best[0]:
                continue
            row = self._first(s)
            if best is None or score > best[0] or -row > best[1]:
                best, gpu = (score, -row), offer[1]
        if best is None:
            return None
        return -best[1], gpu


def replay(nodes: Sequence[NodeShape], trace: Sequence[TracePod], policy: str, seed: int,
           tune: float | None = DEFAULT_TUNE,
           typical: list[TypicalShape] | None = None) -> ReplayResult:
    """Place every arriving pod with ``policy``; see the module docstring."""
    cls = policy_class(policy)
    rng = random.Random(seed)
    nodes = sorted(nodes, key=lambda n: n.name)
    capacity = 1000 * sum(n.gpus for n in nodes)
    if typical is None:
        # The workload's shape distribution comes from the untuned trace.
        typical = typical_shapes(p.shape for p in trace)
    plan = arrivals(trace, capacity, len(nodes), rng, tune)
    order = sorted(range(len(nodes)), key=lambda i: plan.rank[i])
    placer = Placer(nodes, cls(rng), order, typical)
    n = len(plan.pods)
    arrived = np.zeros(n, dtype=np.int64)
    used = np.zeros(n, dtype=np.int64)
    frag = np.zeros(n, dtype=np.float64)
    so_far = failed = 0
    cl = placer.cluster
    for i, pod in enumerate(plan.pods):
        so_far += pod.gpu_total  # failed pods count as arrived too
        if not placer.place(pod):
            failed += 1
        arrived[i] = so_far
        used[i] = cl.used_milli
        frag[i] = cl.frag_total
    return ReplayResult(cls.name, seed, capacity, arrived, used, frag, failed, n, cl.node_shapes())
