"""The HTML report: one self-contained file with a chart per ClusterQueue."""
from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.report.sim_html import violation_bands
from kueue_doctor.report.svg import Series, line_chart, nice_ticks, thin
from kueue_doctor.sim.incidents import incident_path

HERE = Path(__file__).parent


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
                   f"traces: [{{kind: openb, path: {HERE / 'data/openb/openb_pod_list_sample.csv'}, "
                   f"clusterQueues: generate, nodes: generate, tenants: 2}}]\n")
    html = run_html(tmp_path, str(scn))
    assert html.count("<svg") == 2
    assert 'id="cq-tenant-0"' in html
    assert 'id="cq-tenant-1"' in html
    assert "crc32" in html        # the synthetic tenant split is said in the report


def test_violation_bands_merge_consecutive_samples():
    rows = [[0, 0, 8, 0, False], [30, 0, 8, 8, True], [60, 0, 8, 8, True], [90, 8, 8, 0, False],
            [120, 0, 8, 8, True]]
    # a violated sample holds until the next one; the last one has no length yet
    assert violation_bands(rows) == [(30, 90), (120, 120)]


def test_chart_axis_covers_the_data_and_thinning_keeps_extremes():
    ticks = nice_ticks(0, 64)
    assert ticks[0] == 0
    assert ticks[-1] >= 64
    pts = [(float(i), 1.0) for i in range(5000)]
    pts[2500] = (2500.0, 99.0)
    kept = thin(pts, 400)
    assert len(kept) <= 410
    assert (2500.0, 99.0) in kept
    assert kept[-1] == pts[-1]
    svg = line_chart([Series("used", pts)], bands=[(10, 20)], band_label="violated")
    assert svg.startswith("<svg")
    assert svg.endswith("</svg>")
    assert svg.count("<polyline") == 1
