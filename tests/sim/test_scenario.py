"""Bad scenario files: exit status 2 and one line naming the file and the field."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli

CLUSTER = """kind: Simulation
objects:
- {apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {name: f}}
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata: {name: cq}
  spec:
    resourceGroups:
    - coveredResources: [cpu]
      flavors: [{name: f, resources: [{name: cpu, nominalQuota: 4}]}]
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: LocalQueue
  metadata: {name: main, namespace: default}
  spec: {clusterQueue: cq}
"""

CASES = {
    "missing-queue": (CLUSTER + "workloads:\n- {name: w, requests: {cpu: 1}}\n", "workloads[0].queue"),
    "bad-duration": ("kind: Simulation\nduration: 5 minutes\n", "duration"),
    "bad-scheduler-duration": ("kind: Simulation\nscheduler: {releaseLatency: soon}\n", "scheduler.releaseLatency"),
    "unknown-fault": (CLUSTER + "faults:\n- {kind: meteor, at: 1m, node: n}\n", "faults[0].kind"),
    "zombie-not-a-workload-key": (CLUSTER + "faults:\n- {kind: zombie, at: 1m, workload: w}\n", "faults[0].workload"),
    "missing-trace-file": ("kind: Simulation\ntraces:\n- {kind: philly, path: no/such/dir}\n", "traces[0].path"),
    "unknown-trace-kind": ("kind: Simulation\ntraces:\n- {kind: helios, path: .}\n", "traces[0].kind"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_scenario_exits_2_with_one_line(tmp_path, name):
    text, field = CASES[name]
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    res = CliRunner().invoke(cli, ["simulate", str(path)])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith(f"{path}: "), lines[0]
    assert f": {field}: " in lines[0], lines[0]
    assert res.stdout == ""


def test_bad_trace_row_names_the_trace_file_and_line(tmp_path):
    (tmp_path / "vc1.trace").write_text("ResNet-18 (batch size 32)\tcmd\t-n\t1\tmany\t0.0\t1\n")
    (tmp_path / "gavel_simulation_throughputs.json").write_text('{"v100": {}}')
    (tmp_path / "philly_vc.csv").write_text("vc,node num\n")
    path = tmp_path / "s.yaml"
    path.write_text("kind: Simulation\ntraces:\n- {kind: philly, path: .}\n")
    res = CliRunner().invoke(cli, ["simulate", str(path)])
    assert res.exit_code == 2
    assert res.stderr.strip().startswith(f"{tmp_path / 'vc1.trace'}:1: "), res.stderr
