"""A ``View`` from a ``GatheredSnapshot`` (a folder or a live cluster): the doctor's facts and causes, as numbers."""
from __future__ import annotations

from datetime import timedelta

from ..doctor.diagnose import diagnose
from ..doctor.facts import Facts
from ..engine.nodes import node_infos
from ..guarantee import DEFAULT_MIN_WAIT
from ..sources.snapshot import GatheredSnapshot
from .topology import topology_rows
from .upstream import snapshot_upstream
from .view import View, cause_queues, free_slot_rows, guarantee_rows, pending_rows, tree_rows


def view_from_snapshot(snap: GatheredSnapshot, min_wait: timedelta = DEFAULT_MIN_WAIT) -> View:
    diag = diagnose(snap, min_wait)
    facts = diag.facts
    view = View(now=facts.now, causes=cause_queues(diag.causes), kueue_version=facts.version or "")
    esnap = facts.model.snapshot
    cqs = {**esnap.cluster_queues, **esnap.inactive}
    view.cluster_queues = sorted(cqs)
    infos = facts.model.infos
    for name, q in facts.queues.items():
        view.not_released[name] = len(q.not_released)
        view.stuck_targets[name] = view.past_grace[name] = 0
    guarantee_rows(view, cqs, {name: q.guarantee for name, q in facts.queues.items()})
    pending = [(name, infos[k]) for name, q in sorted(facts.queues.items()) for k in q.pending]
    pending_rows(view, cqs, pending)
    tree_rows(view, esnap)
    for v in facts.victims:
        cq = v.cluster_queue
        view.stuck_targets[cq] = view.stuck_targets.get(cq, 0) + 1
        if v.past_grace:
            view.past_grace[cq] = view.past_grace.get(cq, 0) + 1
    free_slots(view, facts, cqs, pending)
    view.upstream = snapshot_upstream(facts, cqs)
    topology_rows(view, facts)
    return view


def free_slots(view: View, facts: Facts, cqs, pending) -> None:
    """Per flavor and pending pod shape: nodes that could take one more such pod now."""
    state = facts.state
    if not state.nodes:
        return
    free_slot_rows(view, cqs, pending, state.resource_flavors, node_infos(state))
