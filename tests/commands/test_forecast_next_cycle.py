"""forecast without a runtime model: a workload the engine admits at its next cycle as the
snapshot stands needs none (public issue #12446's folder), one that must wait for others to
finish still says unknown and what to collect (#8309's)."""
from __future__ import annotations

import json

import jsonschema
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.commands.output import EXIT_OK, EXIT_UNKNOWN, schema
from tests.paths import TESTS

ISSUES = TESTS / "data" / "public-issues"


def forecast(workload, folder):
    r = CliRunner().invoke(cli, ["forecast", workload, str(ISSUES / folder), "-r", "4", "-o", "json"],
                           catch_exceptions=False)
    doc = json.loads(r.stdout)
    jsonschema.validate(doc, schema("Forecast"))
    return r.exit_code, doc


def test_admitted_at_the_next_cycle_needs_no_runtime():
    code, doc = forecast("ml/job-batch-eval-4f2a1", "kueue-12446")
    assert code == EXIT_OK and doc["runtimeModel"]["source"] == "none needed"
    assert doc["forecast"]["percentiles"] == {"p10": 0.0, "p50": 0.0, "p90": 0.0}
    assert doc["forecast"]["admittedWithinHorizon"] == 4 and "next scheduling cycle" in doc["note"]


def test_waiting_for_others_without_runtimes_is_unknown():
    code, doc = forecast("ml/job-2", "kueue-8309")
    assert code == EXIT_UNKNOWN and doc["forecast"] is None and "--runtime" in doc["unknown"]
    assert "note" not in doc


def test_only_the_workloads_cohort_tree_is_simulated_and_that_changes_no_admission():
    """Quota trees share nothing: with a fixed runtime (no draws) the forecast of the whole
    cluster and the command's, which simulates the workload's tree alone, admit at the same
    times (the shared head-of-line incident: 4 of its ClusterQueues are in the tree)."""
    from datetime import timedelta

    from kueue_doctor.doctor.gather import build_facts
    from kueue_doctor.keys import WorkloadKey
    from kueue_doctor.sim.forecast import forecast as simulate_forecast
    from kueue_doctor.sim.restart import RuntimeModel
    from kueue_doctor.sources.snapshot import load_folder
    from tests.paths import INCIDENTS
    hol = INCIDENTS / "01-strictfifo-head-of-line-blocking"
    snap = load_folder(str(hol))
    facts = build_facts(snap, timedelta(minutes=5))
    release = {"version": facts.version, "gates": dict(facts.config.gates)}
    assert len(snap.state.cluster_queues) > 4
    for name in ("perception-eval/job-lidar-seg-eval-wpmkd-39152", "perception/job-occnet-ft-v4-06f68"):
        whole = simulate_forecast(snap.state, facts.now, WorkloadKey(*name.split("/")),
                                  RuntimeModel.from_state(snap.state, 7200.0), 2, 0, 7 * 86400, **release)
        r = CliRunner().invoke(cli, ["forecast", name, str(hol), "-r", "2", "--runtime", "2h", "-o", "json"],
                               catch_exceptions=False)
        doc = json.loads(r.stdout)
        assert doc["simulated"] == {"clusterQueues": 4, "workloads": 31, "scope": "its cohort tree"}
        assert [x["admittedAfterSeconds"] for x in doc["forecast"]["replicates"]] == \
            [x["admittedAfterSeconds"] for x in whole["replicates"]]
