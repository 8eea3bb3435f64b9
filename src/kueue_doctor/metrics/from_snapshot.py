"""A ``View`` from a gathered or live Snapshot: the doctor's own evidence, as numbers."""
from __future__ import annotations

from datetime import timedelta

from ..doctor.diagnose import diagnose
from ..doctor.steps import victims
from ..doctor.violations import not_running_reason, pending_in_order, queue_snapshots
from ..frag.from_state import node_shapes, pod_shape
from ..frag.slots import count_slots
from ..guarantee import DEFAULT_MIN_WAIT, evaluate
from ..sources.snapshot import Snapshot
from .view import MAX_SHAPES, View, covering_flavors, guarantee_rows, pending_rows, shape_label, tree_rows


def view_from_snapshot(snap: Snapshot, min_wait: timedelta = DEFAULT_MIN_WAIT) -> View:
    diag = diagnose(snap, min_wait)
    ctx = diag.context
    view = View(now=ctx.now, causes={c.id for c in diag.causes})
    cqs = queue_snapshots(ctx)
    view.cluster_queues = sorted(cqs)
    waiting = pending_by_queue(ctx, cqs)
    guarantees, pending = {}, []
    for name, cq in sorted(cqs.items()):
        # step 1's evaluation (evaluate_queue), with the pending lists grouped in one pass: the
        # doctor's per-queue scan of every workload is what dominates on 100,000 workloads
        usage_within = all(cq.node.usage.get(fr, 0) <= q.nominal for fr, q in cq.node.quotas.items())
        not_running = []
        view.stuck_targets[name] = view.past_grace[name] = view.not_released[name] = 0
        for key, wi in cq.workloads.items():
            reason = not_running_reason(ctx, key, wi.obj)
            if reason is None:
                continue
            if usage_within:  # only work inside the nominal quota is guaranteed
                not_running.append((wi, ctx.waiting_since(wi.obj)))
            if "gate" not in reason and "suspended" not in reason:
                continue
            cond = wi.obj.condition("Admitted") or wi.obj.condition("QuotaReserved")
            since = cond.last_transition_time if cond is not None and cond.last_transition_time else ctx.now
            if ctx.now - since >= min_wait:  # as step 4: briefly gated work is normal
                view.not_released[name] += 1
        guarantees[name] = evaluate(cq, waiting[name], ctx.now, min_wait, not_running)
        pending += [(name, wi) for wi in waiting[name]]
    guarantee_rows(view, cqs, guarantees)
    pending_rows(view, cqs, pending)
    tree_rows(view, ctx.model.snapshot)
    for v in victims(ctx):
        cq = v["cq"] or ""
        view.stuck_targets[cq] = view.stuck_targets.get(cq, 0) + 1
        if v["past_grace"]:
            view.past_grace[cq] = view.past_grace.get(cq, 0) + 1
    free_slots(view, ctx, cqs, pending)
    return view


def pending_by_queue(ctx, cqs) -> dict[str, list]:
    """Each queue's pending workloads in Kueue's heap order."""
    return {name: pending_in_order(ctx, name) for name in cqs}


def free_slots(view: View, ctx, cqs, pending) -> None:
    """Per flavor and pending pod shape: nodes that could take one more such pod now."""
    state = ctx.state
    if not state.nodes:
        return
    nodes = node_shapes(state)[0]
    shapes: dict[tuple[str, str], object] = {}
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
