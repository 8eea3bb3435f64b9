"""Step 6: system health: node readiness, controller replicas and restarts, log health."""
from __future__ import annotations

from ..facts import Facts
from ..findings import Cause, CauseId, Confidence, Step, StepStatus

RESTARTS_UNHEALTHY = 3


def step6(facts: Facts) -> tuple[Step, list[Cause]]:
    state = facts.state
    nodes, ctl = facts.nodes, facts.controller
    step = Step(6, "System health", read={"Node": len(state.nodes), "Deployment": int(ctl.deployment is not None),
                                          "logLinesParsed": facts.read.log_parsed})
    if not state.nodes and ctl.deployment is None and facts.logs is None:
        step.summary = ("cannot tell: no Nodes, Kueue Deployment or logs in the snapshot: collect "
                        "`kubectl get nodes -o yaml`, the kueue-controller-manager Deployment and its logs")
        return step, []
    causes = []
    for n in nodes.not_ready:
        step.evidence.append(f"node {n} is NotReady")
    for n in nodes.cordoned:
        step.evidence.append(f"node {n} is cordoned")
    unhealthy = False
    if ctl.deployment is not None and ctl.ready_replicas < ctl.replicas:
        unhealthy = True
        step.evidence.append(f"kueue-controller-manager: {ctl.ready_replicas}/{ctl.replicas} replicas ready")
    for pod, restarts in ctl.restarts.items():
        if restarts:
            step.evidence.append(f"controller pod {pod} restarted {restarts} time(s)")
            unhealthy = unhealthy or restarts >= RESTARTS_UNHEALTHY
    f = facts.logs.finding("controller-unhealthy") if facts.logs is not None else None
    if f is not None:
        unhealthy = True
        step.evidence.append(f"logs: {f.to_json().get('summary', '')}")
    if unhealthy:
        causes.append(Cause(CauseId.CONTROLLER_UNHEALTHY, Confidence.MEDIUM, [], [],
                            "The Kueue controller is not healthy.",
                            [e for e in step.evidence if "controller" in e or "logs:" in e],
                            "Check the controller's restarts, leader election and API errors.", cluster_wide=True))
    if nodes.not_ready:
        causes.append(Cause(CauseId.NODE_UNHEALTHY, Confidence.MEDIUM, [], [],
                            f"{len(nodes.not_ready)} node(s) NotReady: {', '.join(nodes.not_ready[:5])}.",
                            [f"node {n} is NotReady" for n in nodes.not_ready],
                            "Recover or replace the nodes; pods on them cannot terminate or run.", cluster_wide=True))
    controller_read = ctl.deployment is not None or bool(ctl.restarts)
    if nodes.not_ready or unhealthy:
        step.status = StepStatus.FAIL
    elif state.nodes and controller_read:
        step.status = StepStatus.PASS
    # else: what could have failed it was not all read, so it stays unknown
    seen = []
    seen.append(f"{nodes.ready} of {len(state.nodes)} node(s) Ready" if state.nodes else "no Nodes read")
    seen.append("controller unhealthy" if unhealthy else "controller healthy" if controller_read else
                "no controller Deployment or pod read")
    step.summary = "; ".join(seen)
    if step.status is StepStatus.UNKNOWN:
        step.summary = "cannot tell everything: " + step.summary + (
            "; collect `kubectl get nodes -o yaml`" if not state.nodes else "") + (
            "; collect the kueue-controller-manager Deployment and pods" if not controller_read else "")
    return step, causes
