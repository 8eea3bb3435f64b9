"""A ``View`` from a ``GatheredSnapshot`` (a folder or a live cluster): the doctor's facts and causes, as numbers."""
from __future__ import annotations

from datetime import timedelta

from ..doctor.diagnose import diagnose
from ..doctor.facts import Facts
from ..frag.from_state import node_shapes, pod_shape
from ..frag.shapes import PodShape
from ..frag.slots import count_slots
from ..guarantee import DEFAULT_MIN_WAIT
from ..sources.snapshot import GatheredSnapshot
from .view import MAX_SHAPES, View, covering_flavors, guarantee_rows, pending_rows, shape_label, tree_rows


def view_from_snapshot(snap: GatheredSnapshot, min_wait: timedelta = DEFAULT_MIN_WAIT) -> View:
    diag = diagnose(snap, min_wait)
    facts = diag.facts
    view = View(now=facts.now, causes={str(c.id) for c in diag.causes})
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
    return view


def free_slots(view: View, facts: Facts, cqs, pending) -> None:
    """Per flavor and pending pod shape: nodes that could take one more such pod now."""
    state = facts.state
    if not state.nodes:
        return
    nodes = node_shapes(state)[0]
    shapes: dict[tuple[str, str], PodShape] = {}
    for name, wi in pending:
        cq = cqs[name]
        for ps in wi.obj.pod_sets:
            base = pod_shape(ps.template)
            for fname in covering_flavors(cq, base.wants_gpu):
                label = shape_label(base.gpus, base.gpu_milli, base.cpu, base.mem)
                if (fname, label) in shapes:
                    continue
                if len(shapes) >= MAX_SHAPES:
                    break
                flavor = state.resource_flavors.get(fname)
                shapes[(fname, label)] = pod_shape(ps.template, None, flavor.node_labels if flavor else {},
                                                   flavor.tolerations if flavor else ())
    for key, shape in shapes.items():
        view.free_slots[key] = count_slots(nodes, shape).nodes_with_slot
