"""The simulation's HTML report: one self-contained file with a chart per ClusterQueue."""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.report.sim_html import violation_bands
from kueue_doctor.sim.incidents import incident_path
from tests.paths import TESTS

OPENB_SAMPLE = TESTS / "sim" / "data" / "openb" / "openb_pod_list_sample.csv"


def run_html(tmp_path: Path, scenario: str) -> str:
    out = tmp_path / "report.html"
    res = CliRunner().invoke(cli, ["simulate", scenario, "--json", "--html", str(out)])
    assert res.exit_code == 0, res.output
    return out.read_text(encoding="utf-8")


def test_report_has_a_chart_per_cluster_queue_and_nothing_external(tmp_path):
    html = run_html(tmp_path, str(incident_path("slow-preemption-release")))
    import yaml
    doc = yaml.safe_load(incident_path("slow-preemption-release").read_text())
    cqs = [o["metadata"]["name"] for o in doc["objects"] if o["kind"] == "ClusterQueue"]
    assert html.count("<svg") == len(cqs)
    for cq in cqs:
        # each queue's heading is followed by its own chart
        assert re.search(rf'<h3 id="cq-{cq}">{cq}</h3><svg', html)
    assert not re.search(r"https?://|<script|<link|\bsrc=|@import|url\(", html, re.I)
    # the affected release violates team-a's guarantee: its chart shades the interval
    team_a = html.split('id="cq-team-a"')[1].split("</svg>")[0]
    assert 'class="band"' in team_a


def test_report_for_a_generated_trace_scenario(tmp_path):
    scn = tmp_path / "t.yaml"
    scn.write_text(f"kind: Simulation\nscheduler: {{sampleInterval: 1h}}\n"
                   f"traces: [{{kind: openb, path: {OPENB_SAMPLE}, "
                   f"clusterQueues: generate, nodes: generate, tenants: 2}}]\n")
    html = run_html(tmp_path, str(scn))
    assert html.count("<svg") == 2 and 'id="cq-tenant-0"' in html and 'id="cq-tenant-1"' in html
    assert "crc32" in html        # the synthetic tenant split is said in the report


def test_violation_bands_merge_consecutive_samples():
    rows = [[0, 0, 8, 0, False], [30, 0, 8, 8, True], [60, 0, 8, 8, True], [90, 8, 8, 0, False],
            [120, 0, 8, 8, True]]
    # a violated sample holds until the next one; the last one has no length yet
    assert violation_bands(rows) == [(30, 90), (120, 120)]
