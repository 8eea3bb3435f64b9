"""What a snapshot's history says about runtimes: how long its finished workloads ran, per
ClusterQueue, and the deadlines Jobs set. The forecast's runtime model and whatif's expected
ends both read them."""
from __future__ import annotations

from datetime import datetime

from ..keys import WorkloadKey
from . import objects as o
from .state import ClusterState


def condition_time(w: o.Workload, ctype: str) -> datetime | None:
    """When the condition last became True; None when it is not True."""
    c = w.condition(ctype)
    return c.last_transition_time if c is not None and c.status == "True" else None


def finished_durations(state: ClusterState) -> dict[str, list[float]]:
    """Seconds from admission to Finished of the workloads the snapshot shows finished, per
    ClusterQueue (Kueue keeps a finished workload's admission and conditions)."""
    out: dict[str, list[float]] = {}
    for w in state.workloads.values():
        end = condition_time(w, "Finished")
        start = condition_time(w, "Admitted") or condition_time(w, "QuotaReserved")
        if end is None or start is None or w.status.admission is None:
            continue
        seconds = (end - start).total_seconds()
        if seconds > 0:
            out.setdefault(w.status.admission.cluster_queue, []).append(seconds)
    return {cq: sorted(v) for cq, v in sorted(out.items())}


def job_deadlines(state: ClusterState) -> dict[WorkloadKey, float]:
    """activeDeadlineSeconds of the Job that owns each Workload."""
    out: dict[WorkloadKey, float] = {}
    for key, w in state.workloads.items():
        for ref in w.meta.owner_references:
            if ref.get("kind") != "Job":
                continue
            job = state.jobs.get((key.namespace, str(ref.get("name", ""))))
            if job is not None and job.active_deadline_seconds is not None:
                out[key] = float(job.active_deadline_seconds)
    return out
