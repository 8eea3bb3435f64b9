"""Kueue's scheduler performance-test generator config as a simulation scenario.

Semantics (shared/data/README.md, kueue-perf/): one ResourceFlavor; for each cohort class,
``count`` cohorts; in each, for each queue set, ``count`` ClusterQueues with cpu
``nominalQuota`` / ``borrowingLimit`` and the preemption policies, one LocalQueue each; for
each workload set, ``count`` rounds, one every ``creationIntervalMs``, each round creating one
workload of each template per ClusterQueue, running ``runtimeMs`` once admitted. Upstream runs
it against an API server with no nodes, so workloads run as soon as they are admitted.
"""
from __future__ import annotations

from ..api import build
from ..api.fields import Fields
from ..api.state import ClusterState
from ..engine.scheduler import CycleResult
from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue.logvocab import STATUS_NOT_NOMINATED, STATUS_PREEMPTION_GATED, STATUS_SKIPPED
from .scenario import JOB, Scenario, Settings, WorkloadSpec

# The controller-cost model (docs/simulator.md, "Kueue's perf configs"): where each value comes from.
QPS, BURST = 50.0, 100.0     # minimalkueue/main.go: kubeConfig.QPS / Burst of Kueue's client
# pkg/cache/queue/inadmissible_workloads.go requeueBatchPeriod: a capacity event moves a cohort's
# parked workloads back to the heap one second later (workqueue AddAfter, one pending per cohort)
REQUEUE_BATCH = 1.0
CYCLE_COST, PER_HEAD_COST = 0.002, 0.0005   # our estimate of the scheduler's own work per cycle / head

# requeueAndUpdate patches the Workload's status for these entry statuses
PATCHED = (STATUS_NOT_NOMINATED, STATUS_SKIPPED, STATUS_PREEMPTION_GATED)


def scenario_from_generator(doc: dict, file: str) -> Scenario:
    try:
        return _build(Fields(doc), file)
    except InputError as e:
        raise e.located(file=file) from None


def _build(f: Fields, file: str) -> Scenario:
    state = ClusterState()
    state.add(build.flavor("default"))
    workloads: list[WorkloadSpec] = []
    for cc in f.objs("cohorts", required=True):
        for ci in range(cc.int("count", 1, minimum=0)):
            cohort = f"{cc.str('className', 'cohort')}-{ci}"
            for qs in cc.objs("queuesSets"):
                for qi in range(qs.int("count", 1, minimum=0)):
                    name = f"{cohort}-{qs.str('className', 'cq')}-{qi}"
                    quota = (str(qs.data.get("nominalQuota", 0)),
                             str(qs.data["borrowingLimit"]) if qs.has("borrowingLimit") else None)
                    state.add(build.cluster_queue(
                        name, {"default": {"cpu": quota}}, cohort=cohort,
                        within=qs.str("withinClusterQueue", "Never"), reclaim=qs.str("reclaimWithinCohort", "Never")))
                    state.add(build.local_queue("default", name, name))
                    for si, ws in enumerate(qs.objs("workloadsSets")):
                        interval = (ws.int("creationIntervalMs", 0, minimum=0) or 0) / 1000.0
                        templates = ws.objs("workloads")
                        for r in range(ws.int("count", 1, minimum=0)):
                            for tmpl in templates:
                                klass = tmpl.str("className", "default")
                                # generator.go generateWlSet waits the interval before each
                                # round's Create, so round r is created at (r + 1) intervals
                                workloads.append(WorkloadSpec(
                                    at=(r + 1) * interval, namespace="default", name=f"{name}-{klass}-{si}-{r}",
                                    queue=name, requests={"cpu": str(tmpl.data.get("request", 1))},
                                    priority=tmpl.int("priority", 0),
                                    runtime=(tmpl.int("runtimeMs", 0, minimum=0) or 0) / 1000.0, kind=JOB,
                                    klass=klass))
    # Upstream's measured admission latencies come from a real API server: every admission is a
    # status patch. These costs are our calibration of that controller time, not upstream figures.
    settings = Settings(cycle_cost=CYCLE_COST, per_head_cost=PER_HEAD_COST, admission_cost=0.0,
                        release_latency=0.0, quota_release_latency=0.0, sample_interval=30.0,
                        api_writes=(QPS, BURST, REQUEUE_BATCH))
    return Scenario(name=f"kueue-perf {file}", state=state, workloads=workloads, settings=settings, source=file,
                    notes=["Kueue scheduler performance-test generator config; no nodes (workloads run on admission)"])


class ApiWrites:
    """Kueue's API client as the perf test runs it: one token bucket shared by every write
    (client-go's ``flowcontrol`` limiter, minimalkueue/main.go sets QPS 50, burst 100), served in
    call order. GCRA form of a token bucket: ``tat`` is the theoretical arrival time.

    Which writes wait for the bucket and who waits for them (pkg/scheduler/scheduler.go):
    - an admission's status patch is issued asynchronously (``admit`` runs it in
      ``admissionRoutineWrapper``): the cycle goes on, and the runner
      (runner/controller/controller.go) starts the workload's ``runtimeMs`` only when it sees the
      patch, so its quota is held from the cycle until the write lands plus the runtime;
    - an eviction (``IssuePreemptions``) is synchronous: the cycle waits for it, and the victim's
      quota goes when it lands (the runner then clears the reservation at once);
    - a head left pending (``requeueAndUpdate``, status notNominated / skipped / preemptionGated)
      patches QuotaReserved=False synchronously when the condition changed (its reason or
      message), so the cycle ends only when that write, queued behind every pending one, is served.
    """

    def __init__(self, qps: float, burst: float, requeue_batch: float):
        self.interval = 1.0 / qps               # seconds of bucket per write
        self.tolerance = max(0.0, burst - 1.0) / qps   # a full bucket: ``burst`` at once
        self.tat = 0.0
        self.requeue_batch = requeue_batch
        self.written: dict[WorkloadKey, tuple[str, str]] = {}   # the QuotaReserved=False a head carries
        self.sync_until = 0.0                   # when this cycle's last synchronous write lands
        self.writes = 0

    def write(self, now: float) -> float:
        """Seconds from ``now`` until a write issued now is served."""
        served = max(now, self.tat - self.tolerance)
        self.tat = max(self.tat, served) + self.interval
        self.writes += 1
        return served - now

    def sync(self, now: float) -> float:
        """A write the cycle waits for: seconds until it is served."""
        wait = self.write(now)
        self.sync_until = max(self.sync_until, now + wait)
        return wait

    def admitted(self, key: WorkloadKey) -> None:
        self.written.pop(key, None)   # QuotaReserved=True replaces the pending condition

    def end_cycle(self, now: float, compute: float, res: CycleResult) -> float:
        """When the next cycle may start, after a cycle at ``now`` costing ``compute`` seconds:
        the pending heads' status patches are issued, and the cycle waits for its synchronous writes."""
        for e in (*res.entries, *res.inadmissible):
            if e.status in PATCHED:
                cond = (e.reason, e.inadmissible_msg)
                if self.written.get(e.key) != cond:
                    self.written[e.key] = cond
                    self.sync(now)
        done = max(now + compute, self.sync_until)
        self.sync_until = 0.0
        return done
