"""simulate --seed --jitter: seeded perturbation of a scenario's workloads (sim/perturb.py)."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.errors import InputError
from kueue_doctor.sim.perturb import parse_jitter

from ..paths import REPO

SCENARIO = str(REPO / "examples" / "afs" / "two-teams.yaml")


def _run(*extra: str) -> dict:
    res = CliRunner().invoke(cli, ["simulate", SCENARIO, "-o", "json", "--omit-wall-time", *extra])
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


def test_same_seed_same_run_other_seed_other_run():
    a = _run("--seed", "3", "--jitter", "runtime=0.2")
    assert a == _run("--seed", "3", "--jitter", "runtime=0.2")
    assert a["classes"] != _run("--seed", "4", "--jitter", "runtime=0.2")["classes"]
    # without --jitter the seed draws nothing: the scenario's own run
    assert _run("--seed", "3") == _run()
    assert a["classes"] != _run()["classes"]


@pytest.mark.parametrize("text", ["runtime=1", "speed=0.1", "runtime", "runtime=x"])
def test_bad_jitter(text):
    with pytest.raises(InputError, match="--jitter"):
        parse_jitter(text)
