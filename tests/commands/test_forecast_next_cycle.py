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
