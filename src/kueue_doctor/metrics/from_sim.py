"""A ``View`` straight from a running Simulator: its engine model, queues, workloads and nodes.

The simulator keeps Kueue's cache (``sim.model``) and Kubernetes' side (``sim.workloads``,
``sim.pool``) itself, so the guarantee is evaluated on them directly, with the same
``guarantee.evaluate`` the doctor uses. Causes need the doctor's full recipe on a gathered
folder; the simulator's snapshot writer provides one when it is available.
"""
from __future__ import annotations

import tempfile
from datetime import timedelta
from typing import Optional

from ..guarantee import DEFAULT_MIN_WAIT, evaluate
from ..sim.nodes import TERMINATING
from ..sim.simulator import EVICTED, RESERVED
from .view import (GPU_RESOURCES, MAX_SHAPES, View, all_queues, covering_flavors, guarantee_rows, pending_rows,
                   shape_label, tree_rows)

MIB = 1 << 20


def view_from_sim(sim, min_wait: timedelta = DEFAULT_MIN_WAIT, causes: Optional[set[str]] = None) -> View:
    model = sim.model
    esnap = model.snapshot
    now = sim.dt(sim.now)
    cqs = all_queues(esnap)
    view = View(now=now, cluster_queues=sorted(cqs), causes=causes)
    guarantees, pending = {}, []
    by_cq: dict[str, list] = {name: [] for name in cqs}
    for sw in sim.workloads.values():
        if sw.cluster_queue in by_cq:
            by_cq[sw.cluster_queue].append(sw)
    for name, cq in sorted(cqs.items()):
        q = model.queues.queues.get(name)
        waiting = []
        if q is not None:
            waiting = q.active() + list(q.inadmissible.values())
        # Kueue's heap order, as the doctor's pending_in_order
        waiting.sort(key=lambda wi: (-wi.priority, wi.queue_order_timestamp(), wi.uid))
        pending += [(name, wi) for wi in waiting]
        usage_within = all(cq.node.usage.get(fr, 0) <= qt.nominal for fr, qt in cq.node.quotas.items())
        not_running = []
        view.stuck_targets[name] = view.past_grace[name] = view.not_released[name] = 0
        for sw in by_cq[name]:
            if sw.state == RESERVED and sw.key in cq.workloads and sw.admitted_at is not None:
                since = sim.dt(sw.admitted_at)
                if usage_within:  # only work inside the nominal quota is guaranteed
                    not_running.append((cq.workloads[sw.key], since))
                gated = sw.released_at is None or sw.released_at < sw.admitted_at
                if gated and now - since >= min_wait:
                    view.not_released[name] += 1
            elif sw.state == EVICTED:
                view.stuck_targets[name] += 1
                if any(p.phase == TERMINATING and p.deleted_at is not None and p.deleted_at + p.grace < sim.now
                       for p in sw.pods):
                    view.past_grace[name] += 1
        guarantees[name] = evaluate(cq, waiting, now, min_wait, not_running)
    guarantee_rows(view, cqs, guarantees)
    pending_rows(view, cqs, pending)
    tree_rows(view, esnap)
    if sim.pool:
        seen = 0
        for name, wi in pending:
            for ps in wi.pod_sets:
                req = ps.per_pod
                gpus = sum(req.get(r, 0) for r in GPU_RESOURCES)
                label = shape_label(gpus, 1000 if gpus else 0, req.get("cpu", 0), -(-req.get("memory", 0) // MIB))
                for fname in covering_flavors(cqs[name], bool(gpus)):
                    if (fname, label) in view.free_slots or seen >= MAX_SHAPES:
                        continue
                    flavor = esnap.flavors.get(fname)
                    view.free_slots[(fname, label)] = sim.pool.free_slots(
                        {r: v for r, v in req.items() if v}, dict(flavor.node_labels) if flavor else {})
                    seen += 1
    return view


def sim_causes(sim, lock, min_wait: timedelta = DEFAULT_MIN_WAIT) -> Optional[set[str]]:
    """The doctor's causes for the simulated cluster as it stands, through the folder the
    simulator can write; None when this build has no snapshot writer. Only the writing holds
    ``lock`` (the simulation waits for it); the diagnosis runs on the written copy."""
    try:
        from ..sim.snapshot import write_snapshot
    except ImportError:
        return None
    from ..doctor.diagnose import diagnose
    from ..sources.snapshot import load_folder
    with tempfile.TemporaryDirectory(prefix="kueue-doctor-serve-") as tmp:
        with lock:
            write_snapshot(sim, tmp)
        return {c.id for c in diagnose(load_folder(tmp), min_wait).causes}
