"""`kueue-doctor demo`: each simulated incident on its affected and its fixed release."""
from __future__ import annotations

from click.testing import CliRunner

from kueue_doctor.cli import cli


def test_demo_prints_both_releases():
    out = CliRunner().invoke(cli, ["demo"])
    assert out.exit_code == 0, out.output
    for version in ("v0.16.2", "v0.17.0", "v0.13.2", "v0.13.5", "v0.14.0"):
        assert version in out.output
