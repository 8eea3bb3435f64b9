"""The six placement policies of the FGD paper's simulator, scored over all nodes at once.

Each policy gives every feasible node an integer score 0..100 (truncated like the Go
``int64()`` cast, which makes ties common); the highest wins and ties go to the node with the
smallest rank, i.e. the first row of the cluster arrays. Inside the chosen node, share pods go
on a GPU picked by the policy; whole-GPU pods take untouched GPUs.
"""
from __future__ import annotations

import random

import numpy as np

from ..errors import InputError
from .cluster import Cluster
from .shapes import GPU_MILLI, PodShape

NEG = np.iinfo(np.int64).min // 2
CPU_SCALE = 128_000   # the simulator normalises CPU by its largest node (128 cores) ...
GPU_SCALE = 8 * GPU_MILLI  # ... and GPU by 8 whole GPUs, whatever the node has


def _pick(score: np.ndarray, feas: np.ndarray) -> int:
    return int(np.argmax(np.where(feas, score, NEG)))


class Rows:
    """The arrays a score reads, restricted to some rows of a cluster: a policy whose score of
    a node depends only on that node's free resources and kind (``by_state``) scores one row
    per group of nodes in the same state with the very arithmetic it uses on all rows."""

    def __init__(self, cl: Cluster, rows: np.ndarray):
        self.cpu, self.idle, self.free = cl.cpu[rows], cl.idle[rows], cl.free[rows]
        self.nfull, self.ngpu = cl.nfull[rows], cl.ngpu[rows]


class Policy:
    name = ""
    # the score of a node is a function of its state (kind, free CPU, memory and GPUs) and the
    # pod alone, and ties go to the first row: the Placer may score one node per state
    by_state = False
    needs_measure = False   # reads the cluster's FGD measure

    def __init__(self, rng: random.Random | None = None):
        self.rng = rng or random.Random(0)

    def choose(self, cl: Cluster, pod: PodShape, pid: int, feas: np.ndarray) -> tuple[int, int | None]:
        """(row of the chosen node, free milli of the GPU a share pod should use or None)."""
        j = _pick(self.score(cl, pod, pid, feas), feas)
        return j, None

    def state_scores(self, cl: Cluster, pod: PodShape, pid: int,
                     rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """For ``by_state`` policies: the score of each of ``rows`` (all feasible) and, for share
        pods where the policy picks the GPU, the free milli of the GPU it would use."""
        return self.score(Rows(cl, rows), pod, pid, np.ones(len(rows), dtype=bool)), None  # type: ignore[arg-type]

    def score(self, cl: Cluster, pod: PodShape, pid: int, feas: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class RandomPolicy(Policy):
    name = "Random"

    def choose(self, cl, pod, pid, feas):
        rows = np.flatnonzero(feas)
        # No draw when there is no choice, as in the simulator.
        j = int(rows[self.rng.randrange(len(rows))]) if len(rows) > 1 else int(rows[0])
        if pod.is_share:
            cnt = int((cl.free[j] >= pod.gpu_milli).sum())
            return j, int(cl.free[j, self.rng.randrange(cnt)])
        return j, None


class DotProdPolicy(Policy):
    """Prefers the node whose free (CPU, GPU) vector is least aligned with the pod's demand."""
    name = "DotProd"
    by_state = True

    def score(self, cl, pod, pid, feas):
        d = ((cl.cpu / CPU_SCALE) * (pod.cpu / CPU_SCALE)
             + (cl.idle / GPU_SCALE) * (pod.gpu_total / GPU_SCALE)) / 2
        return (100 * (1 - d)).astype(np.int64)


class BestFitPolicy(Policy):
    """Least leftover CPU and GPU after placement."""
    name = "BestFit"
    by_state = True

    def score(self, cl, pod, pid, feas):
        raw = 0.5 * (cl.cpu - pod.cpu) / CPU_SCALE + 0.5 * (cl.idle - pod.gpu_total) / GPU_SCALE
        return (100 * (1 - raw)).astype(np.int64)


class GpuPackingPolicy(Policy):
    """Partly used GPU > free GPU on a used node > untouched node (smaller nodes first)."""
    name = "GpuPacking"
    by_state = True

    def score(self, cl, pod, pid, feas):
        if not pod.wants_gpu:
            return np.zeros(len(cl.cpu), dtype=np.int64)
        n, m = pod.gpus, pod.gpu_milli
        full = cl.nfull
        case3 = np.maximum(33 - full, full)
        if m == GPU_MILLI:
            # Whole-GPU pods only ever take untouched GPUs: k = n, so case 1 cannot happen.
            return np.where(full == cl.ngpu, case3, max(50 - n, 33))
        free = cl.free
        cnt = (free >= m).sum(axis=1)
        # The n tightest GPUs that fit sit just before position cnt in a descending row.
        idx = np.maximum(cnt[:, None] - n + np.arange(n)[None, :], 0)
        chosen = free[np.arange(len(free))[:, None], idx].astype(np.int64)
        k = (chosen == GPU_MILLI).sum(axis=1)
        case1 = np.maximum(100 - (chosen * 100 // GPU_MILLI).sum(axis=1) // 10, 50)
        case2 = np.maximum(50 - k, 33)
        return np.where(full == cl.ngpu, case3, np.where(k > 0, case2, case1))


class GpuClusteringPolicy(Policy):
    """Keeps pods of one GPU-count class together (share pods with share pods, and so on)."""
    name = "GpuClustering"

    def score(self, cl, pod, pid, feas):
        if not pod.wants_gpu:
            return np.zeros(len(cl.cpu), dtype=np.int64)
        used = 25 * (GPU_SCALE - cl.idle)
        base = np.sign(used) * (np.abs(used) // GPU_SCALE)  # Go's integer division truncates
        a = cl.tag_bit(pod.affinity_tag())
        tags = cl.tags
        bonus = np.where(tags == a, 75, np.where(tags & a, 50, np.where(tags == 0, 25, 0)))
        return base + bonus


# Among GPUs of one node with the same FGD score, use the tightest one; see docs/fragmentation.md.
class FGDPolicy(Policy):
    """Fragmentation Gradient Descent: the placement that grows expected fragmentation least."""
    name = "FGD"
    by_state = True
    needs_measure = True

    def choose(self, cl, pod, pid, feas):
        rows = np.flatnonzero(feas)
        sc = self._scores(cl, pod, pid, rows)
        best = int(np.argmax(sc))
        j = int(rows[best])
        return j, (int(cl.choice[cl.sid[j], pid]) if pod.is_share else None)

    def state_scores(self, cl, pod, pid, rows):
        sc = self._scores(cl, pod, pid, rows)
        return sc, (cl.choice[cl.sid[rows], pid] if pod.is_share else None)

    def _scores(self, cl: Cluster, pod: PodShape, pid: int, rows: np.ndarray) -> np.ndarray:
        sids = cl.sid[rows]
        sc = cl.scores[sids, pid]
        missing = sids[sc < 0]
        if len(missing):
            todo = np.unique(missing)
            score, choice = fgd_scores(cl, pod, todo)
            cl.scores[todo, pid] = score
            cl.choice[todo, pid] = choice
            sc = cl.scores[sids, pid]
        return sc

    def score(self, cl, pod, pid, feas):  # pragma: no cover - choose() is used instead
        raise NotImplementedError


def _gradient_score(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    # int(100 * sigmoid(decrease / 1000)): no change scores 50, any increase less.
    return (100.0 / (1.0 + np.exp(-(before - after) / 1000.0))).astype(np.int64)


def fgd_scores(cl: Cluster, pod: PodShape, sids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """FGD score of placing ``pod`` on each node state, and for share pods the GPU to use."""
    model = cl.model
    if model is None:
        raise ValueError("FGD scores need the cluster's fragmentation measure (Cluster built with typical shapes)")
    cpu = cl.st_cpu[sids] - pod.cpu
    free = cl.st_free[sids]
    kind = cl.st_kind[sids]
    before = cl.st_frag[sids]
    x, w = free.shape
    m, n = pod.gpu_milli, pod.gpus
    if pod.is_share:
        # One hypothetical state per GPU; equal free values give equal states, so keep one.
        valid = free >= m
        valid[:, 1:] &= free[:, 1:] != free[:, :-1]
        post = np.repeat(free[:, None, :], w, axis=1)
        diag = np.arange(w)
        post[:, diag, diag] -= m
        post = -np.sort(-post, axis=2)
        after = model.frag(np.repeat(cpu, w), post.reshape(x * w, w), np.repeat(kind, w)).reshape(x, w)
        score = np.where(valid, _gradient_score(before[:, None], after), -1)
        best = score.max(axis=1)
        # Rows are descending, so the last position reaching the best is the tightest GPU.
        last = w - 1 - np.argmax((score == best[:, None])[:, ::-1], axis=1)
        return best, free[np.arange(x), last]
    post = free
    if pod.wants_gpu:
        cnt = (free >= m).sum(axis=1)
        pos = np.arange(w)[None, :]
        take = (pos >= (cnt - n)[:, None]) & (pos < cnt[:, None])
        post = -np.sort(-(free - m * take), axis=1)
    after = model.frag(cpu, post, kind)
    return _gradient_score(before, after), np.zeros(x, dtype=np.int32)


POLICIES: dict[str, type[Policy]] = {p.name: p for p in (
    RandomPolicy, DotProdPolicy, GpuClusteringPolicy, GpuPackingPolicy, BestFitPolicy, FGDPolicy)}


def policy_class(name: str) -> type[Policy]:
    for known, cls in POLICIES.items():
        if known.lower() == name.lower():
            return cls
    raise InputError(f"unknown policy {name!r} (known: {', '.join(POLICIES)})", field="policy")
