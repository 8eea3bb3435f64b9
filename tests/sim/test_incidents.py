"""The three production failures happen on the affected release and not on the fixed one."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.commands.demo import run_pair
from kueue_doctor.sim.incidents import INCIDENTS, incident_path


@pytest.fixture(scope="module")
def pairs():
    return {name: run_pair(name) for name in INCIDENTS}


def test_slow_preemption_release_serialises_admissions(pairs):
    r = pairs["slow-preemption-release"]
    a, f = r["affected"]["clusterQueues"]["team-a"], r["fixed"]["clusterQueues"]["team-a"]
    # one admission per 15-minute grace period: about 4 an hour while team-a waits
    assert 3.0 <= a["admissionsPerPendingHour"] <= 5.0
    assert f["admissionsPerPendingHour"] > 100
    assert a["admissions"] == f["admissions"] == 8
    # the fix releases quota at once; the GPUs stay busy until the old pods are gone,
    # so some violation remains, but far less
    assert a["violationSeconds"] > 5 * f["violationSeconds"] > 0


def test_zombie_pod_stalls_three_queues_until_fixed(pairs):
    r = pairs["zombie-pod"]
    for cq in ("team-a", "team-b", "team-c"):
        a, f = r["affected"]["clusterQueues"][cq], r["fixed"]["clusterQueues"][cq]
        assert a["admissions"] == 0, cq
        assert a["violationSeconds"] >= 3600, cq
        assert f["admissions"] == 2, cq
        assert f["violationSeconds"] <= 120, cq


def test_drs_rounding_blocks_reclaim_until_fixed(pairs):
    r = pairs["drs-rounding"]
    a, f = r["affected"]["clusterQueues"]["team-a"], r["fixed"]["clusterQueues"]["team-a"]
    assert a["admissions"] == 4       # only what was free; the reclaim never happens
    assert f["admissions"] == 8
    assert a["violationSeconds"] >= 3600
    assert f["violationSeconds"] == 0
    assert r["affected"]["version"] == "v0.13.2"
    assert r["fixed"]["version"] == "v0.14.0"


@pytest.mark.parametrize("name", INCIDENTS)
def test_same_scenario_gives_byte_identical_json(name):
    runner = CliRunner()
    args = ["simulate", str(incident_path(name)), "--json", "--timeseries", "--omit-wall-time"]
    first = runner.invoke(cli, args)
    second = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    assert first.output == second.output
    doc = json.loads(first.output)
    assert set(doc["workloads"]) == {"created", "admitted", "finished", "preempted", "deactivated"}
    for cq in doc["clusterQueues"].values():
        assert {"avgUsagePercent", "violationSeconds", "admissionsPerHour", "preemptionsPerHour"} <= set(cq)
