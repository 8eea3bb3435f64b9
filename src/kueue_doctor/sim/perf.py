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
from ..errors import InputError
from .scenario import JOB, Scenario, Settings, WorkloadSpec


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
                                workloads.append(WorkloadSpec(
                                    at=r * interval, namespace="default", name=f"{name}-{klass}-{si}-{r}",
                                    queue=name, requests={"cpu": str(tmpl.data.get("request", 1))},
                                    priority=tmpl.int("priority", 0),
                                    runtime=(tmpl.int("runtimeMs", 0, minimum=0) or 0) / 1000.0, kind=JOB,
                                    klass=klass))
    # Upstream's measured admission latencies come from a real API server: every admission is a
    # status patch. These costs are our calibration of that controller time, not upstream figures.
    settings = Settings(cycle_cost=0.002, per_head_cost=0.0005, admission_cost=0.02, release_latency=0.0,
                        quota_release_latency=0.0, sample_interval=30.0)
    return Scenario(name=f"kueue-perf {file}", state=state, workloads=workloads, settings=settings, source=file,
                    notes=["Kueue scheduler performance-test generator config; no nodes (workloads run on admission)"])
