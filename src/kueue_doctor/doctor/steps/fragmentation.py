"""Step 2: rule out fragmentation (free node slots of each pending shape, frag/)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..background import Background
from ..facts import Facts, NotRunningKind
from ..findings import Cause, CauseId, Confidence, Step, StepStatus, Violation

if TYPE_CHECKING:  # pragma: no cover
    from ...frag.diagnose import ShapeFinding


def step2(facts: Facts, found: list[Violation]) -> tuple[Step, list[Cause]]:
    return begin_step2(facts, found)()


def begin_step2(facts: Facts, found: list[Violation]) -> Callable[[], tuple[Step, list[Cause]]]:
    """Step 2 up to the FGD replay, which runs on the other core: what is returned finishes the
    step (waits for that replay), so that the caller can take the other steps meanwhile."""
    state = facts.state
    step = Step(2, "Rule out fragmentation", read={"Node": len(state.nodes), "Pod": len(state.pods)})
    if state.topologies:
        step.read["Topology"] = len(state.topologies)
    if not state.nodes or not state.pods or not found:
        if not state.nodes or not state.pods:
            step.summary = ("cannot tell: no Nodes and Pods in the snapshot: collect "
                            "`kubectl get nodes,pods -A -o yaml`")
        else:
            step.status = StepStatus.SKIPPED
            step.summary = "no violation to explain"
        return lambda: (step, [])
    from ...frag.diagnose import FRAGMENTATION, Demand
    from ...frag.diagnose import diagnose as frag_diagnose
    from ...frag.from_state import NeedsMemo, node_shapes, queue_demands
    # node shapes once, then only slot counting per queue; the costly placement-policy what-if
    # runs once, for the shapes fragmentation strands. Pods and pending templates of equal
    # content get their shape worked out once.
    memo = NeedsMemo()
    now, empty, running = node_shapes(state, memo)
    cache: dict = {}
    infos = facts.model.infos
    per_queue = [(v, frag_diagnose(now, queue_demands(state, v.cluster_queue, now,
                                                      [infos[k].obj for k in facts.queues[v.cluster_queue].pending],
                                                      cache, memo), slot_cache=cache))
                 for v in found]
    fragmented = [f for _, fs in per_queue for f in fs if f.cause == FRAGMENTATION]
    if fragmented:
        # one demand per shape, its pods summed: the policies' slots and refusals depend on the
        # shape alone and FGD's typical shapes on the multiset of pending pods, so each finding
        # gets what it got when every violating queue's demand was counted on every re-placed
        # cluster (100 violating queues of four shapes: 200 slot counts over 5,000 nodes, 14 s)
        merged: dict = {}
        for f in fragmented:
            d = merged.get(f.demand.shape)
            merged[f.demand.shape] = f.demand if d is None else Demand(d.shape, d.pods + f.demand.pods, d.source)
        demands = list(merged.values())

        def replay(policy: str) -> list[tuple[dict[str, int], dict[str, int]]]:
            return [(r.policy_slots, r.policy_refused) for r in frag_diagnose(
                now, demands, running, empty, policies=(policy,), slot_cache=cache)]
        # each policy re-places the running pods on its own (its own seeded order and state):
        # FGD on the other core while BestFit runs here
        fgd = Background(lambda: replay("FGD"))
        best_fit = replay("BestFit")

    def finish() -> tuple[Step, list[Cause]]:
        if fragmented:
            redo = dict(zip(merged, zip(best_fit, fgd.result(), strict=True), strict=True))
            for f in fragmented:
                (slots, refused), (slots_fgd, refused_fgd) = redo[f.demand.shape]
                f.policy_slots, f.policy_refused = {**slots, **slots_fgd}, {**refused, **refused_fgd}
        return step, step2_causes(facts, found, step, per_queue)
    return finish


def step2_causes(facts: Facts, found: list[Violation], step: Step,
                 per_queue: list[tuple[Violation, list[ShapeFinding]]]) -> list[Cause]:
    """The step's evidence, status and summary, and its causes, from each violating queue's
    shape findings (their policy comparison made)."""
    from ...frag.diagnose import FRAGMENTATION
    state = facts.state
    causes = []
    for v, findings in per_queue:
        unsched = [k for k, r in facts.queues[v.cluster_queue].not_running.items()
                   if r.kind is NotRunningKind.UNSCHEDULABLE]
        for f in findings:
            step.evidence.append(f"{v.cluster_queue}: {f.summary()}")
            if f.cause != FRAGMENTATION:
                continue
            gains = ", ".join(f"{p} +{g}" for p, g in f.policy_gain().items() if g > 0)
            causes.append(Cause(
                CauseId.FRAGMENTATION, Confidence.HIGH if unsched else Confidence.MEDIUM, [v.cluster_queue],
                v.pending_workloads,
                f"{v.cluster_queue}: enough free resources in total but no node has room for "
                f"{f.demand.shape.describe()}.",
                [f"{v.cluster_queue}: {f.summary()}"] + ([f"placement policies would have fit more: {gains}"]
                                                          if gains else []),
                "Pack GPU pods (MostAllocated / bin-packing scoring), drain and defragment nodes, or size "
                "workloads to the free node shapes.", weight=len(v.pending_workloads)))
        for k in unsched:
            step.evidence.append(f"{v.cluster_queue}: admitted workload {k} has unschedulable pods")
    stranded, unknown = topology_evidence(facts, found, step)
    step.status = StepStatus.FAIL if causes or stranded else StepStatus.UNKNOWN if unknown else StepStatus.PASS
    if causes or stranded:
        step.summary = "; ".join(
            (["free capacity is stranded on nodes that cannot take the pending shapes"] if causes else [])
            + ([f"no topology domain has room for the head of {', '.join(stranded)}"] if stranded else []))
    elif unknown:
        step.summary = (f"cannot tell for the topology requests of {', '.join(unknown)}'s head(s): collect "
                        + " and ".join(sorted({m for v in found if (h := facts.queues[v.cluster_queue].head)
                                               and h.topology for m in h.topology.missing})))
    else:
        step.summary = f"no violating queue is blocked by fragmentation ({len(state.nodes)} nodes checked)"
    return causes


def topology_evidence(facts: Facts, found: list[Violation], step: Step) -> tuple[list[str], list[str]]:
    """Topology domains: for each violating queue whose head asks for a topology, whether a
    domain at its level has room (the engine's TAS placement, ``doctor/tas.py``). Returns the
    queues where none has, and those where it cannot be told."""
    from ..causes.topology import need_text
    from .words import level_name
    stranded, unknown = [], []
    for v in found:
        h = facts.queues[v.cluster_queue].head
        if h is None or h.topology is None:
            continue
        t = h.topology
        if t.missing:
            unknown.append(v.cluster_queue)
            step.evidence.append(f"{v.cluster_queue}: head {h.key} asks for a topology: unknown without "
                                 + " and ".join(t.missing))
            continue
        for p in t.pod_sets:
            lv = level_name(p.level)
            if p.failure:
                step.evidence.append(f"{v.cluster_queue}: head {h.key} pod set {p.pod_set}: no {lv} of {p.flavor} has "
                                     f"room: {need_text(p)}")
            else:
                step.evidence.append(f"{v.cluster_queue}: head {h.key} pod set {p.pod_set}: a {lv} of {p.flavor} has "
                                     f"room ({p.domains[0].pods if p.domains else 0} of {p.count} pods fit in the "
                                     f"best one): topology does not explain the wait")
        if t.failing:
            stranded.append(v.cluster_queue)
    return stranded, unknown
