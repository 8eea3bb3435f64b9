"""``what_if``: for one workload, whether the engine admits it now, and if not the smallest
changes that would, each verified by replaying the cycle on the changed state."""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import datetime
from typing import Any

from ..api.history import finished_durations, job_deadlines
from ..api.state import ClusterState
from ..engine.config import EngineConfig
from ..errors import InputError
from ..keys import WorkloadKey
from . import patches as p
from .bystanders import move_changes
from .replay import scoped
from .search import (
    Search,
    finish_changes,
    flavor_changes,
    flavors_of,
    priority_changes,
    queue_changes,
    quota_changes,
    topology_changes,
)

PENDING, ADMITTED, FINISHED, INACTIVE, NO_QUEUE = "Pending", "Admitted", "Finished", "Inactive", "NoQueue"


def status_of(state: ClusterState, key: WorkloadKey) -> tuple[str, str, str]:
    """(status, ClusterQueue, why) of a workload as the snapshot has it."""
    w = state.workloads[key]
    if w.is_true("Finished"):
        return FINISHED, "", "it has finished"
    if w.is_true("QuotaReserved") and w.status.admission is not None:
        cq = w.status.admission.cluster_queue
        return ADMITTED, cq, f"it already holds quota in ClusterQueue {cq}"
    lq = state.local_queues.get((key.namespace, w.queue_name))
    if lq is None:
        return NO_QUEUE, "", (f"its LocalQueue {key.namespace}/{w.queue_name} does not exist"
                              if w.queue_name else "it names no LocalQueue (spec.queueName)")
    if lq.cluster_queue not in state.cluster_queues:
        return NO_QUEUE, lq.cluster_queue, (f"LocalQueue {key.namespace}/{w.queue_name} points to ClusterQueue "
                                            f"{lq.cluster_queue}, which does not exist")
    if not w.active:
        return INACTIVE, lq.cluster_queue, "it is deactivated (spec.active: false)"
    return PENDING, lq.cluster_queue, ""


def what_if(state: ClusterState, config: EngineConfig, key: WorkloadKey, now: datetime,
            raw: Callable[[str, str, str], dict[str, Any] | None] | None = None) -> dict[str, Any]:
    """``raw(kind, namespace, name)``: the object as written, for patches that must give a list
    in full (a Workload's pod sets); None for a source that keeps none (a live cluster)."""
    if key not in state.workloads:
        raise InputError(f"no Workload {key} in the snapshot")
    state = p.settled(state)
    status, cq, why = status_of(state, key)
    doc: dict[str, Any] = {"workload": str(key), "clusterQueue": cq, "status": status,
                           "evaluatedAt": now.isoformat().replace("+00:00", "Z"),
                           "admitsNow": status == ADMITTED, "preempts": [], "flavors": {},
                           "suggestions": [], "notes": [why] if why else [], "trials": 0}
    if status in (ADMITTED, FINISHED, NO_QUEUE):
        return doc
    api = p.api_versions(state)
    s = Search(scoped(state, cq), config, key, now, cq, api,
               history=finished_durations(state), deadlines=job_deadlines(state))
    if status == INACTIVE:
        changed = p.with_workloads(s.state, {key: dataclasses.replace(s.workload, active=True)})
        out = s.admits(changed)
        if out.admitted:
            doc["suggestions"].append({
                "kind": "activate", "summary": "reactivate it (spec.active: true)",
                "patches": [p.patch(api, "Workload", key.name, key.namespace, {"spec": {"active": True}})],
                "preempts": [str(k) for k in out.victims], "flavors": flavors_of(out)})
        doc["trials"] = s.trials
        return doc
    base = s.admits(s.state)
    if base.admitted:
        doc.update(admitsNow=True, preempts=[str(k) for k in base.victims], flavors=flavors_of(base))
        doc["notes"].append("the engine admits it at its next cycle as the snapshot stands"
                            + (" once its preemptions complete" if base.victims else "")
                            + "; if Kueue has not, `kueue-doctor explain` and `diagnose` say why")
        doc["trials"] = s.trials
        return doc
    suggestions = list(queue_changes(s))
    inactive = bool(suggestions) or s.notes
    if not inactive:
        suggestions += list(finish_changes(s))
        suggestions += quota_changes(s)
        suggestions += list(priority_changes(s))
        suggestions += list(flavor_changes(s, raw))
        suggestions += list(topology_changes(s, raw))
        suggestions += list(move_changes(s))
    doc["suggestions"] = suggestions
    doc["notes"] += s.notes
    if s.budget_spent:
        doc["notes"].append(f"the search stopped after {s.trials} engine runs: a finish set may not be the fewest")
    if not suggestions:
        doc["notes"].append("no change of finish, quota, priority, flavor, topology or pod placement admits it now")
    doc["trials"] = s.trials
    return doc
