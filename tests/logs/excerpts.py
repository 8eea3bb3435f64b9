"""Hand-written log excerpts in the zap JSON shape of shared/reference/kueue-signals.md §D."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

T0 = datetime(2026, 8, 20, 10, 0, tzinfo=UTC)


def ts(seconds: float) -> str:
    return (T0 + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z"


def line(t: float, msg: str, v: int = 3, logger: str = "scheduler", **fields) -> str:
    head = {"level": f"Level(-{v})" if v else "info", "ts": ts(t), "logger": logger,
            "caller": "x/y.go:1", "msg": msg, "replica-role": "leader"}
    return json.dumps({**head, **fields}, separators=(",", ":")) + "\n"


def wl(ns: str, name: str) -> dict:
    return {"name": name, "namespace": ns}


def cq(name: str) -> dict:
    return {"name": name}


def ongoing(t, cycle, preemptor, victim):
    return line(t, "Preemption ongoing", schedulingCycle=cycle, targetWorkload=wl(*victim),
                preemptingWorkload=wl(*preemptor))


def preempted(t, cycle, preemptor, victim, victim_cq):
    return line(t, "Preempted", schedulingCycle=cycle, targetWorkload=wl(*victim),
                preemptingWorkload=wl(*preemptor), reason="InCohortReclamation",
                targetClusterQueue=cq(victim_cq))


def evaluated(t, cycle, workload, queue, status, reason="", preempted=None, borrowing=0):
    assignment = {"PodSets": [{"Name": "main", "Count": 1}], "Borrowing": borrowing}
    return line(t, "Workload evaluated for admission", schedulingCycle=cycle, workload=wl(*workload),
                clusterQueue=cq(queue), status=status, reason=reason, nominatedAssignment=assignment,
                preempted=preempted)


def requeued(t, cycle, workload, queue, reason, status=""):
    return line(t, "Workload re-queued", v=2, schedulingCycle=cycle, workload=wl(*workload),
                clusterQueue=cq(queue), queue=wl(workload[0], "default"), requeueReason=reason,
                added=True, status=status)


def admitted(t, cycle, workload, queue):
    return line(t, "Workload successfully admitted and assigned flavors", v=2, schedulingCycle=cycle,
                workload=wl(*workload), clusterQueue=cq(queue), parentCohort=cq("gpu"),
                rootCohort=cq("gpu"), assignments=[])


def zombie_cycles(n: int, start: float = 0.0, cycle0: int = 100) -> list[str]:
    """Heads of team-a and team-b both target team-c's zombie, taking turns to be first."""
    victim = ("team-c", "zombie")
    a, b = ("team-a", "head-a"), ("team-b", "head-b")
    out = [preempted(start, cycle0, a, victim, "team-c")]
    for i in range(n):
        t, c = start + 1 + i * 2, cycle0 + i
        first, second = (a, b) if i % 2 == 0 else (b, a)
        out.append(ongoing(t, c, first, victim))
        out.append(evaluated(t, c, first, first[0], "nominated", "Pending the preemption of 1 workload(s)",
                             preempted=[wl(*victim)]))
        out.append(requeued(t, c, first, first[0], "PendingPreemption"))
        out.append(evaluated(t + 0.01, c, second, second[0], "skipped",
                             "Workload has overlapping preemption targets with another workload",
                             preempted=[wl(*victim)]))
        out.append(requeued(t + 0.01, c, second, second[0], "", status="skipped"))
    return out
