"""A ``View`` straight from a running Simulator: its engine model, queues, workloads and nodes.

The simulator keeps Kueue's cache (``sim.model``) and Kubernetes' side (``sim.workloads``,
``sim.pool``) itself, so the guarantee is evaluated on them directly, with the same
``guarantee.Evaluator`` the doctor uses. Causes need the doctor's full recipe on a gathered
folder; the simulator's snapshot writer provides one when it is available, and the same folder
gives the series that need the workloads as Kueue wrote them (pending reasons) and the TAS facts.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from datetime import timedelta

from ..guarantee import DEFAULT_MIN_WAIT, Evaluator
from ..sim.nodes import TERMINATING
from ..sim.observe import observations
from ..sim.simulator import EVICTED
from .topology import topology_rows
from .upstream import sim_upstream, snapshot_upstream
from .view import View, all_queues, cause_queues, free_slot_rows, guarantee_rows, pending_rows, tree_rows


def view_from_sim(sim, min_wait: timedelta = DEFAULT_MIN_WAIT, written: Written | None = None) -> View:
    """The live simulation; the causes, pending reasons and TAS series come from ``written``
    (the last refresh's folder), absent without one."""
    model = sim.model
    esnap = model.snapshot
    now = sim.dt(sim.now)
    cqs = all_queues(esnap)
    view = View(now=now, cluster_queues=sorted(cqs), causes=written.causes if written else None,
                kueue_version=sim.kueue.label)
    guarantees, pending = {}, []
    evaluator = Evaluator(esnap.flavors, sim.config, min_wait)
    observed = observations(sim, include_inactive=True)
    for name in sorted(cqs):
        obs = observed[name]
        pending += [(name, w.workload) for w in obs.pending]
        view.stuck_targets[name] = view.past_grace[name] = view.not_released[name] = 0
        for nr in obs.not_running:
            sw = sim.workloads[nr.workload.key]
            gated = sw.released_at is None or sw.admitted_at is None or sw.released_at < sw.admitted_at
            if gated and sw.admitted_at is not None and now - sim.dt(sw.admitted_at) >= min_wait:
                view.not_released[name] += 1
        guarantees[name] = evaluator.evaluate(obs, now)
    for sw in sim.workloads.values():
        if sw.state == EVICTED and sw.cluster_queue in view.stuck_targets:
            view.stuck_targets[sw.cluster_queue] += 1
            if any(p.phase == TERMINATING and p.deleted_at is not None and p.deleted_at + p.grace < sim.now
                   for p in sw.pods):
                view.past_grace[sw.cluster_queue] += 1
    guarantee_rows(view, cqs, guarantees)
    pending_rows(view, cqs, pending)
    tree_rows(view, esnap)
    if sim.pool:
        free_slot_rows(view, cqs, pending, esnap.flavors, sim.pool.infos)
    view.upstream = sim_upstream(sim, cqs)
    if written is not None:
        view.upstream.unadmitted, view.upstream.lq_unadmitted = written.unadmitted, written.lq_unadmitted
        view.topology_free = dict(written.topology_free)
    return view


@dataclass
class Written:
    """What the exporter reads from the folder the simulator writes at each refresh: the doctor's
    causes, and the series that need Kueue's side as a gathering reads it (the workloads' pending
    reasons, the TAS facts), as of that refresh."""
    causes: dict[str, tuple[str, ...]]
    unadmitted: dict[tuple[str, str, str], int] | None = None
    lq_unadmitted: dict[tuple[str, str, str, str, str], int] | None = None
    topology_free: dict[tuple[str, str, str, str], int] = field(default_factory=dict)


def sim_written(sim, lock, min_wait: timedelta = DEFAULT_MIN_WAIT) -> Written | None:
    """The simulated cluster as it stands, through the folder the simulator can write; None when
    this build has no snapshot writer. Only the writing holds ``lock`` (the simulation waits for
    it); the diagnosis runs on the written copy."""
    try:
        from ..sim.snapshot import write_snapshot
    except ImportError:
        return None
    from ..doctor.diagnose import diagnose
    from ..sources.snapshot import load_folder
    with tempfile.TemporaryDirectory(prefix="kueue-doctor-serve-") as tmp:
        with lock:
            write_snapshot(sim, tmp)
        diag = diagnose(load_folder(tmp), min_wait)
    facts = diag.facts
    esnap = facts.model.snapshot
    rows = snapshot_upstream(facts, {**esnap.cluster_queues, **esnap.inactive})
    view = View(now=facts.now)
    topology_rows(view, facts)
    return Written(cause_queues(diag.causes), rows.unadmitted, rows.lq_unadmitted, view.topology_free)
