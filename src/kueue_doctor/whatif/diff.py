"""``scheduling_diff``: what applying proposed queue objects to a snapshot changes in what the
engine does — ``kubectl diff`` for scheduling.

Each proposed object replaces the snapshot's object of the same kind and name, as ``kubectl
apply`` of a whole object does (its ``status`` is the cluster's, so an object written without one
keeps the snapshot's). Both states, without and with the change, are run to the engine's fixed
point at the same instant (``replay.replay`` with no target); what differs between the two fixed
points is the diff. Kueue evicts nothing when a quota changes (upstream
pkg/controller/core/clusterqueue_controller.go ``Update`` only refreshes the cache and the queue
manager; only ``stopPolicy: HoldAndDrain`` evicts, in workload_controller.go): a cut below
running usage leaves the work running beyond nominal, where the cohort may reclaim it, and the
preemptions reported are those the scheduler's own cycles then make.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ..api.load import decode_documents, raw_objects, read_text
from ..api.parse import UnknownKind, object_ref, parse_object
from ..api.quantity import format_amount
from ..api.state import ClusterState
from ..engine.config import EngineConfig
from ..engine.model import AdmissionModel
from ..engine.quota import FR
from ..errors import InputError
from ..guarantee import Evaluator, QueueGuarantee, QueueObservation, Waiting
from ..keys import WorkloadKey
from ..kueue.constants import WORKLOAD_PRIORITY_CLASS_SOURCE
from ..kueue.version import Version, parse_version
from .replay import Outcome, replay

# kind -> ClusterState attribute: the objects that shape scheduling and nothing else
KINDS = {"ClusterQueue": "cluster_queues", "Cohort": "cohorts", "ResourceFlavor": "resource_flavors",
         "LocalQueue": "local_queues", "WorkloadPriorityClass": "priority_classes"}
# the head order shown per ClusterQueue: the first workloads, as a user reads a queue
HEAD_ORDER_LIMIT = 10
PRIORITY_VALUE_PROPAGATES_SINCE = Version(0, 16, 0)

Since = Callable[[Any, datetime], datetime]     # (Workload, now) -> since when its tenant waits


@dataclass(frozen=True)
class Proposed:
    obj: Any
    has_status: bool
    file: str
    ref: str


def read_proposed(paths: Iterable[str]) -> list[Proposed]:
    """The objects of the ``-f`` files (several documents or a List each). A problem is an
    InputError naming file, object and field: the loader's checks, and a kind ``diff`` does
    not apply."""
    out: list[Proposed] = []
    for path in paths:
        docs = decode_documents(read_text(Path(path)), path)
        for doc in docs:
            try:
                raws = list(raw_objects(doc))
            except InputError as e:
                raise e.located(file=path) from None
            for raw in raws:
                ref = object_ref(raw)
                kind = raw.get("kind") if isinstance(raw, dict) else None
                if isinstance(kind, str) and kind and kind not in KINDS:
                    raise InputError(f"kind {kind} is not one diff applies (it takes {', '.join(KINDS)})",
                                     file=path, obj=ref, field="kind")
                try:
                    obj = parse_object(raw)
                except InputError as e:
                    raise e.located(file=path, obj=ref) from None
                except UnknownKind as e:  # an apiVersion the kind is not served in
                    raise InputError(f"not a Kueue object diff applies ({e})", file=path, obj=ref,
                                     field="apiVersion") from None
                out.append(Proposed(obj, "status" in raw, path, ref))
    if not out:
        raise InputError("holds no object to apply", file=", ".join(paths))
    return out


def _key(obj: Any) -> Any:
    return (obj.meta.namespace, obj.meta.name) if obj.kind == "LocalQueue" else obj.meta.name


def apply_proposed(state: ClusterState, proposed: list[Proposed]) -> tuple[ClusterState, list[dict[str, Any]]]:
    """``state`` with each object replaced (or created), and per object what applying it did."""
    tables: dict[str, Any] = {attr: dict(getattr(state, attr)) for attr in KINDS.values()}
    report = []
    for p in proposed:
        table = tables[KINDS[p.obj.kind]]
        old = table.get(_key(p.obj))
        new = p.obj
        if old is not None and not p.has_status and hasattr(old, "status"):
            new = dataclasses.replace(new, status=old.status)   # kubectl apply leaves status alone
        action = "created" if old is None else ("unchanged" if _same(old, new) else "configured")
        table[_key(p.obj)] = new
        report.append({"kind": p.obj.kind, "name": p.obj.meta.name, "namespace": p.obj.meta.namespace,
                       "file": p.file, "action": action})
    out = dataclasses.replace(state, **tables)
    return _with_priority_values(out, state), report


def _propagates(state: ClusterState) -> bool:
    """Kueue v0.16.0 and later copy a WorkloadPriorityClass's new value into ``spec.priority`` of
    every Workload that names it (upstream pkg/controller/core/workloadpriorityclass_controller.go
    ``Reconcile``, kubernetes-sigs/kueue#8442); before, a Workload keeps the value it was created
    with. An unknown release is taken as the newest."""
    dep = state.kueue_deployment()
    text = dep.kueue_version() if dep is not None else None
    if not text:
        return True
    try:
        return parse_version(text) >= PRIORITY_VALUE_PROPAGATES_SINCE
    except InputError:      # a dev build's tag: the newest behaviour
        return True


def _with_priority_values(changed: ClusterState, state: ClusterState) -> ClusterState:
    moved = {n: c.value for n, c in changed.priority_classes.items()
             if n in state.priority_classes and state.priority_classes[n].value != c.value}
    if not moved or not _propagates(state):
        return changed
    workloads = dict(changed.workloads)
    for k, w in changed.workloads.items():
        if w.priority_class_source == WORKLOAD_PRIORITY_CLASS_SOURCE and w.priority_class_name in moved:
            workloads[k] = dataclasses.replace(w, priority=moved[w.priority_class_name])
    return dataclasses.replace(changed, workloads=workloads)


def _same(old: Any, new: Any) -> bool:
    """Equal but for the metadata the API server keeps (uid, resourceVersion, generation, creation)."""
    kept = {"uid": new.meta.uid, "resource_version": new.meta.resource_version, "generation": new.meta.generation,
            "creation_timestamp": new.meta.creation_timestamp}
    return bool(dataclasses.replace(old, meta=dataclasses.replace(old.meta, **kept)) == new)


@dataclass
class Settled:
    """One state run to the engine's fixed point."""
    model: AdmissionModel
    outcome: Outcome
    holding: dict[WorkloadKey, str]                  # workload -> ClusterQueue it holds quota in
    order: dict[str, list[WorkloadKey]]              # ClusterQueue -> pending, in queue order
    guarantees: dict[str, QueueGuarantee]
    over_nominal: dict[str, list[FR]]                # ClusterQueue -> (flavor, resource) used beyond nominal


def settle(state: ClusterState, config: EngineConfig, now: datetime, since: Since,
           min_wait: timedelta) -> Settled:
    model = AdmissionModel(state, config)
    outcome = replay(state, config, None, now, model=model)
    snap = model.snapshot
    queues = {**snap.cluster_queues, **snap.inactive}
    requeued = set(outcome.preempted)
    evaluator = Evaluator(snap.flavors, config, min_wait)
    holding: dict[WorkloadKey, str] = {}
    order: dict[str, list[WorkloadKey]] = {}
    guarantees: dict[str, QueueGuarantee] = {}
    over: dict[str, list[FR]] = {}
    for name, cq in sorted(queues.items()):
        for k in cq.workloads:
            holding[k] = name
        pending = model.queues.pending_in_order(name)
        order[name] = [wi.key for wi in pending]
        # a workload the cycles preempted queues again now: its tenant's wait starts over
        waits = [Waiting(wi, now if wi.key in requeued else since(wi.obj, now)) for wi in pending]
        guarantees[name] = evaluator.evaluate(QueueObservation(cq, waits), now)
        node = cq.node
        over[name] = sorted(fr for fr, q in node.quotas.items() if node.usage.get(fr, 0) > q.nominal)
    return Settled(model, outcome, holding, order, guarantees, over)


def _fr(fr: FR) -> str:
    return f"{fr[0]}/{fr[1]}"


def _guarantee_changes(before: Settled, after: Settled) -> list[dict[str, Any]]:
    out = []
    for name in sorted(set(before.guarantees) | set(after.guarantees)):
        b, a = before.guarantees.get(name), after.guarantees.get(name)
        was, now_ = bool(b and b.violated), bool(a and a.violated)
        over_b = set(before.over_nominal.get(name, []))
        over_a = [fr for fr in after.over_nominal.get(name, []) if fr not in over_b]
        running = any(q == name for q in after.holding.values())
        if not was and now_:
            change, why = "broken", (f"{len(a.violating) if a else 0} pending workload(s) fit its nominal quota "
                                     f"and waited past the threshold")
        elif not was and over_a and running:
            change, why = "broken", ("its admitted work uses more than its nominal quota of "
                                     + ", ".join(_fr(fr) for fr in over_a)
                                     + ": no longer guaranteed, reclaimable by its cohort")
        elif was and not now_:
            change, why = "restored", "no pending workload that fits its nominal quota waits past the threshold"
        else:
            continue
        out.append({"clusterQueue": name, "change": change, "before": "violated" if was else "holds",
                    "after": "violated" if now_ else ("over-nominal" if change == "broken" else "holds"),
                    "violating": [str(k) for k in (a.violating if a else ())],
                    "overNominal": [_fr(fr) for fr in over_a], "reason": why})
    return out


def _head_order(before: Settled, after: Settled) -> list[dict[str, Any]]:
    out = []
    for name in sorted(set(before.order) | set(after.order)):
        b, a = before.order.get(name, []), after.order.get(name, [])
        both = set(b) & set(a)
        if (b[:1] == a[:1]) and [k for k in b if k in both] == [k for k in a if k in both]:
            continue
        out.append({"clusterQueue": name, "headBefore": str(b[0]) if b else "", "headAfter": str(a[0]) if a else "",
                    "before": [str(k) for k in b[:HEAD_ORDER_LIMIT]], "after": [str(k) for k in a[:HEAD_ORDER_LIMIT]],
                    "pendingBefore": len(b), "pendingAfter": len(a)})
    return out


def _quota_changes(before: Settled, after: Settled) -> list[dict[str, Any]]:
    """Per ClusterQueue and (flavor, resource) whose nominal quota changed: from, to, and the usage
    it is cut against (at the fixed point without the change)."""
    out = []
    bq = {**before.model.snapshot.cluster_queues, **before.model.snapshot.inactive}
    aq = {**after.model.snapshot.cluster_queues, **after.model.snapshot.inactive}
    for name in sorted(set(bq) | set(aq)):
        bn = {fr: q.nominal for fr, q in bq[name].node.quotas.items()} if name in bq else {}
        an = {fr: q.nominal for fr, q in aq[name].node.quotas.items()} if name in aq else {}
        usage = bq[name].node.usage if name in bq else {}
        for fr in sorted(set(bn) | set(an)):
            if bn.get(fr) == an.get(fr):
                continue
            r = fr[1]
            out.append({"clusterQueue": name, "flavor": fr[0], "resource": r,
                        "nominalBefore": format_amount(r, bn.get(fr, 0)),
                        "nominalAfter": format_amount(r, an.get(fr, 0)),
                        "usage": format_amount(r, usage.get(fr, 0)),
                        "belowUsage": an.get(fr, 0) < usage.get(fr, 0)})
    return out


def scheduling_diff(state: ClusterState, changed: ClusterState, config: EngineConfig, now: datetime,
                    since: Since, min_wait: timedelta) -> tuple[dict[str, Any], Settled, Settled]:
    """The diff document's scheduling part, and both fixed points (for the caller's capacity view)."""
    before = settle(state, config, now, since, min_wait)
    after = settle(changed, config, now, since, min_wait)
    admitted = [{"workload": str(k), "clusterQueue": cq}
                for k, cq in sorted(after.holding.items(), key=lambda x: str(x[0])) if before.holding.get(k) != cq]
    newly = [k for k in dict.fromkeys(after.outcome.preempted) if k not in set(before.outcome.preempted)]
    cq_of = {**before.holding, **before.model.snapshot.workload_cq}
    preempted = [{"workload": str(k), "clusterQueue": cq_of.get(k, ""), "readmitted": k in after.holding}
                 for k in newly]
    gone = sorted((k for k, cq in before.holding.items() if k not in after.holding and k not in newly), key=str)
    doc = {"evaluatedAt": now.isoformat().replace("+00:00", "Z"),
           "admitted": admitted, "preempted": preempted,
           "notAdmitted": [{"workload": str(k), "clusterQueue": before.holding[k]} for k in gone],
           "guarantees": _guarantee_changes(before, after), "headOrder": _head_order(before, after),
           "quota": _quota_changes(before, after),
           "cycles": {"before": before.outcome.cycles, "after": after.outcome.cycles}}
    return doc, before, after


def breaks(doc: dict[str, Any], *, capacity: bool = True) -> list[str]:
    """What the change breaks of what holds today, one line each (empty: nothing): a guarantee,
    running work it preempts, and (unless ``capacity`` is off) nominal quota the Ready nodes of a
    flavor can honour less of than today (``capacity``, when the caller adds it: the guarantees on
    that flavor then cannot all be kept once the queues use their quota)."""
    out = [f"the guarantee of ClusterQueue {g['clusterQueue']} holds today and would not: {g['reason']}"
           for g in doc["guarantees"] if g["change"] == "broken"]
    if doc["preempted"]:
        n = len(doc["preempted"])
        out.append(f"{n} running workload{'s' if n != 1 else ''} would be preempted: "
                   + ", ".join(p["workload"] for p in doc["preempted"]))
    if capacity:
        out += [f"flavor {c['flavor']} would promise {c['shortAfter']} {c['resource']} more than its Ready nodes "
                f"hold (nominal total {c['nominalAfter']}, capacity {c['capacityAfter']}; short by "
                f"{c['shortBefore']} today), so its queues' guarantees could not all be kept at once"
                for c in doc.get("capacity", []) if c["shortGrows"]]
    return out
