"""TAS: the pods Kueue does not manage that hold the room a pending pod set needs.

A TAS flavor's capacity is per node, and the scheduler's TAS snapshot subtracts every pod bound
there that no Kueue workload accounts for (upstream pkg/cache/scheduler/tas_flavor_snapshot.go,
the non-TAS usage of a node). Such a pod has no Workload to deactivate and no quota to change: the
only change that frees its room is the pod running elsewhere. The search asks, domain by domain
at the pod set's required (else preferred) level, which of these pods must leave for the cycle to
admit the workload, fewest pods first, each answer checked by the engine like every other change.
DaemonSet pods are never candidates: they run on every node they may.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..api import objects as o
from ..api.quantity import format_amount
from ..api.state import ClusterState
from ..engine.nodes import DONE_PHASES, pod_needs
from .replay import Outcome
from .search import TRIAL_BUDGET, Search, _victims, flavors_of, resource_order, selected_nodes

PodKey = tuple[str, str]   # (namespace, name)
# domains tried, fewest such pods first: with TAS every trial is a cycle over the whole cluster
MAX_DOMAINS = 16


@dataclass(frozen=True)
class Bystander:
    key: PodKey
    node: str
    owner: str                          # Kind/name of its controller, "" when it has none
    requests: tuple[tuple[str, int], ...]   # the resources the workload asks for, > 0 only

    def size(self) -> tuple[int, ...]:
        return tuple(v for _, v in self.requests)


def _controller(pod: o.Pod) -> tuple[str, str]:
    for ref in pod.meta.owner_references:
        if ref.get("controller"):
            return str(ref.get("kind") or ""), str(ref.get("name") or "")
    return "", ""


def tas_level(s: Search) -> str | None:
    """The level the search groups nodes by: the first TAS pod set's required level, else its
    preferred one; None for an unconstrained pod set (any node is as good as another)."""
    for ps in s.workload.pod_sets:
        if ps.topology is not None and (ps.topology.required or ps.topology.preferred):
            return str(ps.topology.required or ps.topology.preferred)
    return None


def tas_nodes(state: ClusterState, cq: str) -> dict[str, o.Topology]:
    """Node -> Topology, for the nodes the queue's TAS flavors select."""
    out: dict[str, o.Topology] = {}
    for g in state.cluster_queues[cq].resource_groups:
        for f in g.flavors:
            rf = state.resource_flavors.get(f.name)
            if rf is None or not rf.topology_name or rf.topology_name not in state.topologies:
                continue
            topo = state.topologies[rf.topology_name]
            for name in sorted(selected_nodes(state, rf)):
                out.setdefault(name, topo)
    return out


def bystanders(s: Search, nodes: dict[str, o.Topology]) -> list[Bystander]:
    """The candidates on ``nodes`` (``tas_nodes``)."""
    # a pod naming a Workload that no longer exists is nobody's to finish either
    managed = {(pod.meta.namespace, pod.meta.name) for k, pods in s.owned.items() if k in s.state.workloads
               for pod in pods}
    wanted = sorted(s.requests(), key=resource_order)
    out = []
    for pk, pod in sorted(s.state.pods.items()):
        if pk in managed or pod.spec.node_name not in nodes or pod.phase in DONE_PHASES:
            continue
        kind, name = _controller(pod)
        if kind == "DaemonSet":
            continue
        needs = pod_needs(pod.spec, pod.meta)
        requests = tuple((r, needs.request(r)) for r in wanted if needs.request(r) > 0)
        if requests:
            out.append(Bystander(pk, pod.spec.node_name, f"{kind}/{name}" if kind else "", requests))
    return out


def _domains(s: Search, cands: list[Bystander], level: str,
             topo: dict[str, o.Topology]) -> dict[tuple[str, ...], list[Bystander]]:
    """Candidates per domain of ``level``: a domain is named by its nodes' values of every level
    down to it (a rack is the same rack only within its block)."""
    out: dict[tuple[str, ...], list[Bystander]] = {}
    for b in cands:
        t = topo[b.node]
        if level not in t.levels:
            continue
        labels = s.state.nodes[b.node].meta.labels
        key = tuple(labels.get(lvl, "") for lvl in t.levels[:t.levels.index(level) + 1])
        out.setdefault(key, []).append(b)
    return out


def _without(s: Search, pods: list[Bystander]) -> ClusterState:
    gone = {b.key for b in pods}
    return dataclasses.replace(s.state, pods={k: v for k, v in s.state.pods.items() if k not in gone})


def _one_minimal(s: Search, chosen: list[Bystander], out: Outcome) -> tuple[list[Bystander], Outcome]:
    """Each pod, smallest first, left where it is when the workload still admits without it;
    ``out`` is the cycle's outcome without all of ``chosen``, and the last one that admitted is
    returned with the pods that must still go."""
    for b in sorted(chosen, key=lambda b: (b.size(), b.key)):
        if s.trials >= TRIAL_BUDGET:
            s.budget_spent = True
            break
        rest = [c for c in chosen if c is not b]
        if rest:
            trial = s.admits(_without(s, rest))
            if trial.admitted:
                chosen, out = rest, trial
    return chosen, out


def move_changes(s: Search) -> Iterator[dict[str, Any]]:
    if not any(ps.topology is not None for ps in s.workload.pod_sets) or not s.state.pods:
        return
    topo = tas_nodes(s.state, s.cq)
    cands = bystanders(s, topo)
    if not cands:
        return
    level = tas_level(s)
    groups = sorted(_domains(s, cands, level, topo).items(), key=lambda kv: (len(kv[1]), kv[0])) if level else []
    found: tuple[list[Bystander], Outcome] | None = None
    domain: dict[str, str] | None = None
    if len(groups) > MAX_DOMAINS:
        s.notes.append(f"move: {len(groups) - MAX_DOMAINS} of the {len(groups)} domains {level} holding pods "
                       f"Kueue does not manage were not tried (the {MAX_DOMAINS} with the fewest were)")
        groups = groups[:MAX_DOMAINS]
    for key, members in groups:
        if s.trials >= TRIAL_BUDGET:
            s.budget_spent = True
            return
        out = s.admits(_without(s, members))
        if out.admitted:
            found = (members, out)
            domain = dict(zip(topo[members[0].node].levels, key, strict=False))
            break
    if found is None:
        # no one domain's pods free enough (a preferred level spreads, or the room is split)
        out = s.admits(_without(s, cands))
        if not out.admitted:
            return
        found = (cands, out)
    chosen, out = _one_minimal(s, *found)
    yield _suggestion(s, chosen, out, domain, level)


def _suggestion(s: Search, chosen: list[Bystander], out: Outcome, domain: dict[str, str] | None,
                level: str | None) -> dict[str, Any]:
    n = len(chosen)
    where = ""
    if domain and level:
        where = f" of {level} {domain[level]}" + "".join(
            f" ({lvl} {v})" for lvl, v in domain.items() if lvl != level)
    listed = ""   # more than two are listed in ``pods`` only (a table in text)
    if n <= 2:
        listed = ": " + ", ".join(f"{b.key[0]}/{b.key[1]}" + (f" ({b.owner})" if b.owner else "") + f" on {b.node}"
                                  for b in chosen)
    return {"kind": "move",
            "summary": f"{n} pod{'s' if n != 1 else ''} Kueue does not manage must run off the nodes{where}{listed}; "
                       f"they move by their own controllers, so no patch is given (a node affinity away from "
                       f"these nodes, then their deletion)",
            "pods": [{"pod": f"{b.key[0]}/{b.key[1]}", "node": b.node, "owner": b.owner,
                      "requests": {r: format_amount(r, v) for r, v in b.requests}} for b in chosen],
            **({"domain": domain} if domain else {}),
            "minimal": "no-one-less", "patches": [], "preempts": _victims(out),
            "flavors": flavors_of(out)}
