"""A role that may read nothing: collect finishes with every list in the manifest's failed
list, and diagnose says it cannot tell (exit 4), never that there is no violation."""
from __future__ import annotations

import json

from click.testing import CliRunner

from kueue_doctor.cli import cli


class Forbidden(dict):
    def get(self, key, default=None):
        return ("status", 403, f'forbidden: User "tester" cannot list resource at "{key}"')


def test_all_forbidden_collect_is_unknown(api, kubeconfig, tmp_path):
    api.faults = Forbidden()
    out = tmp_path / "snap"
    res = CliRunner().invoke(cli, ["collect", "--out", str(out), "--kubeconfig", str(kubeconfig)])
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "manifest.json").read_text())
    kinds = {f["kind"] for f in manifest["failed"]}
    assert "Node" in kinds and ("Kueue API group" in kinds or {"ClusterQueue", "Workload"} <= kinds), kinds
    res = CliRunner().invoke(cli, ["diagnose", str(out), "-o", "json"])
    assert res.exit_code == 3
    d = json.loads(res.stdout)
    assert d["verdict"] == "unknown" and d["steps"][0]["status"] == "unknown"
    assert "could not be read" in d["steps"][0]["summary"]
    assert all(s["status"] in ("unknown", "skipped") for s in d["steps"]), d["steps"]
    text = CliRunner().invoke(cli, ["diagnose", str(out)])
    assert text.exit_code == 3 and "no violation" not in text.output
