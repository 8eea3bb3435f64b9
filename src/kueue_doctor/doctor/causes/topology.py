"""topology-fragmentation: a violating queue's head is owed its quota, asks for a topology
(Topology-Aware Scheduling), and no domain at the level it asks for has room on its flavor,
although the cluster has the resources in total.

The reading is the engine's (``doctor/tas.py``: the TAS snapshot a cycle would build, the
placement and the preemption with TAS victims of the head computed outside a cycle), so the
capacity rules are those of admission. Kueue's own word is the evidence when it wrote one: the
QuotaReserved=False message ``notFitMessage`` produces (pkg/cache/scheduler/tas_flavor_snapshot.go)
or the reason ``TopologyPlacementFailed`` (KEP-10852).
"""
from __future__ import annotations

from ...engine.tas.snapshot import HOSTNAME
from ..facts import Facts, HeadFacts, QueueFacts
from ..findings import Cause, CauseId, Confidence, Violation
from ..steps.words import amount, level_name, plural
from ..tas import HeadTopology, LevelFree, PodSetTopology

OCCUPANTS_SHOWN = 4


def domain_label(values: tuple[str, ...] | str, level: str) -> str:
    """A domain as people name it: a node by its name, a higher domain by its path of values."""
    if isinstance(values, str):
        values = tuple(values.split(","))
    return values[-1] if level == HOSTNAME else "/".join(values)


def largest_text(levels: tuple[LevelFree, ...]) -> str:
    return "; ".join(f"{level_name(lf.level)} {domain_label(lf.domain, lf.level)}: "
                     f"{amount(lf.resource, lf.free)} (of {plural(lf.domains, level_name(lf.level))})"
                     for lf in levels)


def need_text(p: PodSetTopology) -> str:
    """``largest free rack: 24 GPUs (b2/b2-r1, room for 5 of 8 pods); needs 32 GPUs (8 pods x 4 GPUs)
    in one rack``; the domain with room for most pods is named too when it is another one."""
    lv = level_name(p.level)
    where = "in one" if p.mode == "required" else "preferably in one"
    needs = (f"needs {amount(p.resource, p.needs)} ({p.count} pods x "
             f"{amount(p.resource, p.single_pod.get(p.resource, 0))}) {where} {lv}")
    if not p.domains:
        return f"no {lv} at all; {needs}"
    largest = min(p.domains, key=lambda d: (-d.free.get(p.resource, 0), d.id))
    text = (f"largest free {lv}: {amount(p.resource, largest.free.get(p.resource, 0))} "
            f"({domain_label(largest.values, p.level)}, room for {largest.pods} of {p.count} pods)")
    most = p.domains[0]
    if most.id != largest.id and most.pods > largest.pods:
        text += f", most room: {domain_label(most.values, p.level)} ({most.pods} of {p.count} pods)"
    return f"{text}; {needs}"


def occupant_lines(p: PodSetTopology) -> list[str]:
    out = []
    lv = level_name(p.level)
    for c in p.candidates:
        d = c.free
        parts = []
        wls = [o for o in c.occupants if o.kind == "workload"]
        pods = [o for o in c.occupants if o.kind == "pod"]
        if wls:
            parts.append("TAS workloads " + ", ".join(f"{o.name} ({o.cluster_queue}, {plural(o.pods, 'pod')}, "
                                                      f"{amount(p.resource, o.usage.get(p.resource, 0))})"
                                                      for o in wls[:OCCUPANTS_SHOWN])
                         + (f" and {len(wls) - OCCUPANTS_SHOWN} more" if len(wls) > OCCUPANTS_SHOWN else ""))
        if pods:
            parts.append("pods Kueue does not manage " + ", ".join(
                f"{o.name} ({amount(p.resource, o.usage.get(p.resource, 0))})" for o in pods[:OCCUPANTS_SHOWN])
                + (f" and {len(pods) - OCCUPANTS_SHOWN} more" if len(pods) > OCCUPANTS_SHOWN else ""))
        out.append(f"{lv} {domain_label(d.values, p.level)} ({amount(p.resource, d.free.get(p.resource, 0))} free, "
                   f"takes {d.pods} of {p.count} pods) is used by " + ("; ".join(parts) if parts else "nothing"))
    return out


def preemption_text(facts: Facts, q: QueueFacts, h: HeadFacts, p: PodSetTopology) -> tuple[str, bool | None]:
    """Whether preemption (the engine's, with TAS victims) could free a domain: (words, verdict)."""
    lv = level_name(p.level)
    if not p.fits_empty:
        return (f"preemption cannot help: no {lv} of {p.flavor} holds it even with every TAS workload gone", False)
    if h.mode == "Preempt" and h.targets:
        names = ", ".join(f"{t.key} ({t.reason}, in {t.cluster_queue})" for t in h.targets)
        return f"preemption can free a {lv}: Kueue's preemption would evict {names}", True
    if h.mode == "Preempt":
        cq = facts.model.snapshot.cluster_queues.get(q.name)
        pol = (f"withinClusterQueue {cq.preemption.within_cluster_queue or 'Never'}, reclaimWithinCohort "
               f"{cq.preemption.reclaim_within_cohort or 'Never'}") if cq is not None else "its preemption policy"
        return (f"preemption cannot free a {lv}: nothing {q.name} may evict ({pol}) makes room for it in one {lv}",
                False)
    return "whether preemption could free one is unknown (the engine's assignment does not say)", None


def topology_causes(facts: Facts, found: list[Violation]) -> list[Cause]:
    out: list[Cause] = []
    for v in found:
        q = facts.queues.get(v.cluster_queue)
        h = q.head if q is not None else None
        if q is None or h is None or h.topology is None or h.key not in v.pending_workloads:
            continue
        cause = head_cause(facts, q, h, h.topology, v)
        if cause is not None:
            out.append(cause)
    return out


def kueue_line(t: HeadTopology) -> str:
    return f"Kueue: QuotaReserved=False, reason {t.kueue_reason}: {t.kueue_message}" if t.kueue_message else ""


def head_cause(facts: Facts, q: QueueFacts, h: HeadFacts, t: HeadTopology, v: Violation) -> Cause | None:
    if t.missing:
        # without Topologies or Nodes nothing can be checked; say so only where Kueue itself
        # reports a topology failure (step 2 says what to collect in any case)
        if not t.kueue_says_topology:
            return None
        collect = " and ".join(t.missing)
        return Cause(
            CauseId.TOPOLOGY_FRAGMENTATION, Confidence.MEDIUM, [q.name], [h.key],
            f"{q.name}'s head {h.key} fits the nominal quota {q.name} leaves unused, and Kueue says its topology "
            f"request does not fit; whether a domain has room, and whether preemption could free one, is unknown: "
            f"collect {collect}.",
            [kueue_line(t), f"missing from the snapshot: {collect}"],
            f"Collect {collect} and diagnose again.", weight=len(v.pending_workloads))
    failing = t.failing
    if not failing:
        return None   # a domain has room: the head waits for another reason
    p = failing[0]
    lv = level_name(p.level)
    pre, _ = preemption_text(facts, q, h, p)
    # a preferred level falls back to the levels above it (upstream's level search), so only a
    # required one fails for want of a single domain
    where = (f"no {lv} ({p.level}) of flavor {p.flavor} has room for pod set {p.pod_set}" if p.mode == "required"
             else f"flavor {p.flavor} has no room for pod set {p.pod_set} even spread above the {lv} it prefers")
    summary = (f"{q.name}'s head {h.key} fits the nominal quota {q.name} leaves unused, but {where}: {need_text(p)}. "
               f"{pre[0].upper()}{pre[1:]}.")
    evidence = [f"pod set {p.pod_set}: {p.count} pod(s) of {amount(p.resource, p.single_pod.get(p.resource, 0))}, "
                f"{p.mode} {p.level} on flavor {p.flavor} (Topology {p.topology})",
                f"engine's TAS placement now: {p.failure}"]
    if t.kueue_message:
        evidence.append(kueue_line(t))
    evidence.append(f"largest free domain per level on {p.flavor}: {largest_text(p.largest)}")
    evidence += occupant_lines(p)
    evidence.append(pre)
    for other in failing[1:]:
        evidence.append(f"pod set {other.pod_set} does not fit either: {need_text(other)}")
    confidence = Confidence.HIGH if (t.kueue_says_topology or not t.kueue_message) else Confidence.MEDIUM
    remedy = (f"Let {h.key} spread: ask for `preferred` instead of `required` {lv} (the "
              f"`kueue.x-k8s.io/podset-preferred-topology` annotation or `topologyRequest.preferred`), or shrink it to "
              f"what one {lv} holds; or free a {lv}: move the pods Kueue does not manage off the {lv}s listed, or "
              f"let {q.name} preempt lower-priority work (`preemption.withinClusterQueue: LowerPriority`); "
              f"packing TAS workloads (Kueue's default BestFit profile) keeps {lv}s whole.")
    return Cause(CauseId.TOPOLOGY_FRAGMENTATION, confidence, [q.name], [h.key], summary, evidence, remedy,
                 weight=len(v.pending_workloads))
