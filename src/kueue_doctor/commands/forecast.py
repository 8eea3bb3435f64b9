"""``kueue-doctor forecast NAME``: when will this pending workload be admitted?"""
from __future__ import annotations

import os
import sys
from typing import Any

import click

from ..duration import duration
from ..errors import EXIT_UNKNOWN, InputError
from .diagnose import now_option, parse_now
from .explain import resolve
from .output import Output, output_options, write_file
from .progress import phase
from .source import load_source, workload_options

KIND = "Forecast"


@click.command("forecast")
@workload_options
@output_options(html=True)
@click.option("--replicates", "-r", default=20, show_default=True, type=click.IntRange(min=1, max=10_000),
              help="Simulated futures, each drawing the runtimes still to come.")
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0),
              help="Seed of the runtime draws: the same seed gives the same forecast.")
@click.option("--runtime", metavar="DURATION",
              help="Runtime of every workload (e.g. 2h) instead of the finished workloads' durations.")
@click.option("--horizon", default="7d", show_default=True, metavar="DURATION",
              help="How far ahead to simulate; later admissions are reported as beyond it.")
@click.option("-j", "--jobs", default=1, show_default=True, type=click.IntRange(min=0),
              help="Replicates run in this many processes (0: one per CPU); the forecast does not depend on it.")
@now_option
def command(workload: str, folder: str | None, namespace: str | None, all_namespaces: bool,
            kubeconfig: str | None, kube_context: str | None, in_cluster: bool, out: Output, html: str | None,
            replicates: int,
            seed: int, runtime: str | None, horizon: str, jobs: int, now_text: str | None) -> None:
    """When will a pending workload be admitted? Runs the simulator from the snapshot (or the
    live cluster) forward REPLICATES times, each drawing the runtimes still to come (from the
    durations of finished workloads of the same ClusterQueue, a Job's activeDeadlineSeconds, or
    --runtime), and prints P10/P50/P90 of the admission time and who is ahead in the queue."""
    from datetime import timedelta

    from ..doctor.gather import build_facts
    from ..report.forecast_text import render
    from ..sim.forecast import ahead_of, forecast
    from ..sim.restart import RuntimeModel
    end = duration(horizon, "--horizon")
    fixed = duration(runtime, "--runtime") if runtime else None
    if fixed is not None and fixed <= 0:
        raise InputError("must be a positive duration", field="--runtime")
    snap = load_source(folder, kubeconfig, kube_context, in_cluster)
    key = resolve(snap, workload, namespace, all_namespaces, folder is None, kubeconfig, kube_context, in_cluster)
    facts = build_facts(snap, timedelta(minutes=5), parse_now(now_text))
    state, now = snap.state, facts.now
    w = state.workloads[key]
    doc: dict[str, Any] = {"workload": str(key), "snapshotTime": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
                           "kueueVersion": facts.version, "horizonSeconds": end, "seed": seed,
                           "replicateCount": replicates}
    model = RuntimeModel.from_state(state, fixed)

    def emit() -> None:
        if html:
            from ..report.forecast_html import render as render_html
            write_file(html, render_html(doc))
        out.emit(KIND, doc, lambda con, wide: render(con, doc, wide))

    if w.is_true("QuotaReserved") or w.is_true("Finished"):
        doc.update(state="Finished" if w.is_true("Finished") else "Admitted", forecast=None)
        emit()
        return
    release: dict[str, Any] = {"version": facts.version, "gates": dict(facts.config.gates)}
    cq, ahead = ahead_of(facts.model, key)
    doc.update(state="Pending", clusterQueue=cq, aheadInQueue=[str(k) for k in ahead],
               runtimeModel={"source": model.source(key, cq), "fixedSeconds": fixed,
                             "historyByClusterQueue": {q: len(v) for q, v in model.history.items()},
                             "jobDeadlines": len(model.deadlines)})
    if not cq:
        doc["forecast"] = None
        doc["unknown"] = "the workload's LocalQueue or ClusterQueue is not in the snapshot"
        emit()
        sys.exit(EXIT_UNKNOWN)
    # the admitted workloads' remaining runtimes decide when quota frees up
    running = [(k, x.status.admission.cluster_queue) for k, x in state.workloads.items()
               if x.is_true("QuotaReserved") and x.status.admission is not None and not x.is_true("Finished")]
    if not model.known(key, cq) or any(not model.known(k, q) for k, q in running):
        if admits_at_next_cycle(state, facts.config, key, cq, now):
            # no runtime decides it: every future admits it at the first cycle, before anything ends
            from ..sim.perturb import replicate_seed
            zero = dict.fromkeys(("p10", "p50", "p90"), 0.0)
            doc["forecast"] = {"admittedWithinHorizon": replicates, "percentiles": zero,
                               "replicates": [{"seed": replicate_seed(seed, r), "admittedAfterSeconds": 0.0,
                                               "positions": [[0.0, None]]} for r in range(replicates)]}
            doc["runtimeModel"]["source"] = "none needed"
            doc["note"] = ("the engine admits it at its next scheduling cycle as the snapshot stands, without "
                           "preempting or waiting for anything to finish; if Kueue has not admitted it, "
                           "`kueue-doctor explain` and `diagnose` say why")
            emit()
            return
        doc["forecast"] = None
        doc["unknown"] = ("no runtime is known for the workloads that must finish first: the snapshot holds no "
                          "finished Workload to learn durations from and their Jobs set no activeDeadlineSeconds; "
                          "collect a snapshot with finished Workloads (kueue-doctor collect keeps them) or pass "
                          "--runtime DURATION")
        emit()
        sys.exit(EXIT_UNKNOWN)
    # Quota trees share nothing, so only the workload's tree is simulated (with TAS, nodes are
    # shared and ``scoped`` keeps everything). What the rest would change is the controller time
    # each cycle spends on the other trees' heads (sim scenario perHeadCost): a bounded shift of
    # under a second per cycle, against runtimes of hours, for a run that no longer grows with the
    # size of the whole cluster.
    from ..whatif.replay import scoped
    part = scoped(state, cq)
    doc["simulated"] = {"clusterQueues": len(part.cluster_queues), "workloads": len(part.workloads),
                        "scope": "all" if part is state else "its cohort tree"}
    with phase(f"forecasting {key} ({replicates} replicates)"):
        doc["forecast"] = forecast(part, now, key, model, replicates, seed, end,
                                   workers=jobs or (os.cpu_count() or 1), **release)
    emit()


def admits_at_next_cycle(state: Any, config: Any, key: Any, cq: str, now: Any) -> bool:
    """The engine's cycles at the snapshot's instant admit it with nothing preempted on the way
    (whatif's check): then no runtime and no grace period decides when."""
    from ..whatif.replay import replay, scoped
    out = replay(scoped(state, cq), config, key, now)
    return out.admitted and not out.preempted
