"""The measures of one simulated configuration, as one flat row.

Waits count every workload that arrived: one still waiting at the end counts with the time it
has waited so far, so a configuration that starves a queue cannot look good by admitting
nothing (the figure is then a lower bound, and ``unadmitted`` says how many)."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..sim.nodes import amounts
from ..sim.simulator import Simulator

GPU_MARKERS = ("gpu",)


def _r(x: float) -> float:
    return round(float(x), 6) if math.isfinite(x) else math.nan


def _percentile(waits: list[float], q: float) -> float:
    return _r(float(np.percentile(waits, q, method="linear"))) if waits else math.nan


def waits_by_queue(sim: Simulator) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    end = sim.now
    for sw in sim.workloads.values():
        if sw.parent is not None or not sw.cluster_queue:
            continue
        admitted = sw.first_admitted_at if sw.first_admitted_at is not None else end
        out.setdefault(sw.cluster_queue, []).append(max(0.0, admitted - sw.spec.at))
    return out


def _gpu_utilisation(sim: Simulator) -> float:
    """Quota-held GPU-seconds over the GPUs the nodes offer (their nominal quota without nodes)."""
    rec = sim.recorder
    t = sim.now
    used = capacity = 0.0
    for cq in sim.model.snapshot.cluster_queues:
        res, nominal = rec.primary(cq)
        if not any(m in res for m in GPU_MARKERS):
            continue
        used += rec.usage_area[cq] + rec.usage_level[cq] * (t - rec.usage_t.get(cq, t))
        capacity += nominal
    node_gpus = sum(q for n in sim.scn.nodes for r, q in amounts(n.allocatable).items()
                    if any(m in r for m in GPU_MARKERS))
    if node_gpus:
        capacity = node_gpus
    return _r(used / (capacity * t) * 100.0) if capacity and t > 0 else math.nan


def measure(sim: Simulator, focus: list[str], cluster: dict[str, Any] | None = None) -> dict[str, Any]:
    """The row's measures; ``cluster`` adds measures of the whole cluster taken during the run
    (the fragmentation probe's), placed after ``gpuUtilisation``."""
    rec = sim.recorder
    queues = sorted(focus or sim.model.snapshot.cluster_queues)
    waits = waits_by_queue(sim)
    row: dict[str, Any] = {}
    pooled: list[float] = []
    unadmitted = 0
    for cq in queues:
        w = waits.get(cq, [])
        pooled += w
        row[f"{cq}.p50Wait"] = _percentile(w, 50)
        row[f"{cq}.p90Wait"] = _percentile(w, 90)
        row[f"{cq}.violationSeconds"] = _r(rec.violation_seconds.get(cq, 0.0))
        row[f"{cq}.usagePercent"] = _r(rec.avg_usage_percent(cq)) if cq in sim.model.snapshot.cluster_queues \
            else math.nan
        row[f"{cq}.preemptions"] = rec.preemptions.get(cq, 0)
        row[f"{cq}.admissions"] = rec.admissions.get(cq, 0)
    for sw in sim.workloads.values():
        if sw.parent is None and sw.cluster_queue in queues and sw.first_admitted_at is None:
            unadmitted += 1
    totals = {
        "p50Wait": _percentile(pooled, 50), "p90Wait": _percentile(pooled, 90),
        "violationSeconds": _r(sum(rec.violation_seconds.get(cq, 0.0) for cq in queues)),
        "usagePercent": _r(float(np.mean([row[f"{cq}.usagePercent"] for cq in queues]))) if queues else math.nan,
        "preemptions": sum(rec.preemptions.get(cq, 0) for cq in queues),
        "admissions": sum(rec.admissions.get(cq, 0) for cq in queues),
        "unadmitted": unadmitted,
        "gpuUtilisation": _gpu_utilisation(sim),
        **(cluster or {}),
        "admitted": sum(1 for sw in sim.workloads.values() if sw.first_admitted_at is not None),
        "preempted": sum(1 for sw in sim.workloads.values() if sw.preemptions),
        "finished": sum(1 for sw in sim.workloads.values() if sw.finished_at is not None),
        "simulatedSeconds": _r(sim.now),
    }
    return {**totals, **row}
