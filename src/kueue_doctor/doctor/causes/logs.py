"""Causes the controller log shows on its own (medium confidence), while they are current."""
from __future__ import annotations

from ..facts import Facts
from ..findings import Cause, CauseId, Confidence, Violation

LOG_STALE_AFTER = 15 * 60  # seconds

# log finding ids the doctor counts as causes (the others are evidence only)
LOG_CAUSES = {CauseId.STUCK_PREEMPTION_TARGET, CauseId.SLOW_PREEMPTION_RELEASE, CauseId.DRS_ROUNDING,
              CauseId.HEAD_OF_LINE_BLOCKING, CauseId.INACTIVE_QUEUE, CauseId.CONTROLLER_UNHEALTHY,
              CauseId.PREEMPTION_RETRY_STORM}
# the flavor assigner's words for a request over the most the queue can ever get
MAX_CAPACITY = "> maximum capacity"


def log_causes(facts: Facts, found: list[Violation]) -> list[Cause]:
    if facts.logs is None:
        return []
    from ...logs.brief import brief  # the log reader (numpy and all) only where there is a log
    violating = {v.cluster_queue for v in found}
    now = facts.now.timestamp()
    out = []
    for f in facts.logs.findings:
        if f.id not in {str(c) for c in LOG_CAUSES}:
            continue
        cid = CauseId(f.id)
        # A signature that stopped long before the snapshot describes the past (the queue was
        # fixed, the controller recovered): it is evidence of nothing now.
        if f.last is not None and now - f.last > LOG_STALE_AFTER:
            continue
        j = f.to_json()
        cqs = [c for c in j.get("clusterQueues", []) if c in violating]
        if cid is CauseId.PREEMPTION_RETRY_STORM:
            out += retry_storm(facts, f, violating)
            continue
        if cid is CauseId.HEAD_OF_LINE_BLOCKING:
            # only a StrictFIFO queue re-heads a workload that cannot fit
            cqs = [c for c in cqs if c in facts.queues and facts.queues[c].strategy == "StrictFIFO"]
            heads = (j.get("detail") or {}).get("heads") or {}
            if heads and all(MAX_CAPACITY in str(h.get("reason", "")) for h in heads.values()):
                # its own words say it asks for more than the queue can ever get
                cid = CauseId.HEAD_EXCEEDS_MAX_QUOTA
        if not cqs and cid is not CauseId.CONTROLLER_UNHEALTHY:
            continue
        out.append(Cause(cid, Confidence.MEDIUM, cqs, f.workloads[:20], j.get("summary", ""),
                         [f"log: {j.get('summary', '')}"]
                         + [f"log: {brief(e)}" for e in (j.get("examples") or [])[:2] if isinstance(e, str)],
                         cluster_wide=cid is CauseId.CONTROLLER_UNHEALTHY))
    return out


def retry_storm(facts: Facts, f, violating: set[str]) -> list[Cause]:
    """A head retried many times a second with no preemption candidates keeps the scheduler
    busy: its own queue and the queues whose heads get no turn are starved
    (kubernetes-sigs/kueue#8064). Named for the violating queues among them, and for violating
    queues that admitted nothing in the last hour while it went on."""
    from ...logs.brief import brief
    d = f.detail
    heads = d.get("heads") or {}
    own = {h["clusterQueue"] for h in heads.values()}
    starved = set(d.get("starvedClusterQueues") or [])
    idle = {n for n in violating if facts.queues[n].admissions_last_hour == 0}
    cqs = sorted((own | starved | idle) & violating)
    if not cqs:
        return []
    meanwhile = int(d.get("admittedMeanwhile") or 0)
    first = next(iter(heads.items()))
    name, h = first
    evidence = [f"log: {wl} ({x['clusterQueue']}) retried {x['attempts']} times between {x['first']} and "
                f"{x['last']} ({x['perSecond']}/s): 'Workload requires preemption, but there are no candidate "
                f"workloads allowed for preemption' ({x['noCandidateLines']} lines), PreemptionNoCandidates "
                f"re-queues ({x['preemptionNoCandidatesRequeues']})" for wl, x in list(heads.items())[:3]]
    evidence.append(f"log: {meanwhile} admission(s) in any ClusterQueue meanwhile"
                    + (f"; starved ClusterQueues: {', '.join(sorted(starved))}" if starved else ""))
    if idle - own - starved:
        evidence.append(f"violating ClusterQueue(s) with no admission in the last hour: {', '.join(sorted(idle))}")
    evidence += [f"log: {brief(e)}" for e in f.examples[:1] if isinstance(e, str)]
    return [Cause(
        CauseId.PREEMPTION_RETRY_STORM, Confidence.HIGH if meanwhile == 0 else Confidence.MEDIUM, cqs,
        list(f.workloads[:20]),
        f"The scheduler retries {name} ({h['clusterQueue']}) about {h['perSecond']} times a second, each time "
        f"finding no candidate workloads allowed for preemption; {meanwhile} workload(s) were admitted meanwhile, "
        f"so the work of {', '.join(cqs)} waits.",
        evidence,
        f"Take {name} out of the loop: deactivate it (`kubectl patch workload -n {name.split('/')[0]} "
        f"{name.split('/', 1)[-1]} --type merge -p '{{\"spec\":{{\"active\":false}}}}'`) or change what it "
        f"needs preemption for (its ClusterQueue's preemption policy, its priority, or its request); then report "
        f"the loop upstream with these log lines (kubernetes-sigs/kueue#8064).")]
