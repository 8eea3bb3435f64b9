"""The simulation's HTML report: one offline file, a chart per ClusterQueue, worst first, at most ``top``."""
from __future__ import annotations

import re
from pathlib import Path

import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.report.sim_html import changes, render, violation_bands, write_report
from kueue_doctor.sim.incidents import incident_path
from kueue_doctor.sim.scenario import load_scenario
from kueue_doctor.sim.simulator import Simulator
from tests.paths import TESTS
from tests.report.pages import figures, offline_problems

OPENB_SAMPLE = TESTS / "sim" / "data" / "openb" / "openb_pod_list_sample.csv"


def run_html(tmp_path: Path, scenario: str) -> str:
    out = tmp_path / "report.html"
    res = CliRunner().invoke(cli, ["simulate", scenario, "--json", "--html", str(out)])
    assert res.exit_code == 0, res.output
    return out.read_text(encoding="utf-8")


def plot_traces(fig: dict) -> list[dict]:
    return [tr for tr in fig["data"] if tr.get("yaxis", "y") == "y"]


def test_report_has_a_chart_per_cluster_queue_worst_first_and_nothing_external(tmp_path):
    html = run_html(tmp_path, str(incident_path("slow-preemption-release")))
    doc = yaml.safe_load(incident_path("slow-preemption-release").read_text())
    cqs = [o["metadata"]["name"] for o in doc["objects"] if o["kind"] == "ClusterQueue"]
    figs = figures(html)
    # team-a's guarantee is violated on the affected release: its chart comes first
    assert list(figs) == ["chart-team-a", "chart-team-b"] and sorted(cqs) == ["team-a", "team-b"]
    assert offline_problems(html) == []
    for div_id, fig in figs.items():
        traces = plot_traces(fig)
        assert traces[-1]["name"] == "nominal quota"          # drawn over the filled areas
        assert fig["layout"]["title"]["text"] == div_id.removeprefix("chart-")
    team_a, team_b = figs["chart-team-a"], figs["chart-team-b"]
    shaded = [s for s in team_a["layout"].get("shapes", []) if s["type"] == "rect"]
    assert shaded and not [s for s in team_b["layout"].get("shapes", []) if s["type"] == "rect"]
    # the preemptions team-a's workloads made and the evictions of team-b's, on the time strip
    names_a = {tr["name"] for tr in team_a["data"]}
    names_b = {tr["name"] for tr in team_b["data"]}
    assert {"preemption", "guarantee violated"} <= names_a and "eviction" not in names_a
    assert "eviction" in names_b and "guarantee violated" not in names_b
    evictions = next(tr for tr in team_b["data"] if tr["name"] == "eviction")
    assert len(evictions["x"]) == 8 and all("evicted" in t for t in evictions["text"])   # 8 preempted
    # GPUs, as they are: team-a's nominal quota is 64
    assert set(plot_traces(team_a)[-1]["y"]) == {64}


def test_top_charts_the_worst_and_the_table_lists_all(tmp_path):
    sim = Simulator(load_scenario(str(incident_path("zombie-pod")))).run()
    summary = sim.recorder.summary()
    html = render(sim, summary, top=2)
    figs = figures(html)
    # team-a, b and c are violated equally long: natural name order among them; team-d never
    assert list(figs) == ["chart-team-a", "chart-team-b"]
    assert "2 more ClusterQueues not charted (--top)" in html
    table = html.split('<table class="cluster-queues">', 1)[1].split("</table>", 1)[0]
    assert re.findall(r"<td>(?:<a [^>]*>)?(team-[a-d])", table) == ["team-a", "team-b", "team-c", "team-d"]
    assert table.count("<a href=") == 2
    assert len(figures(render(sim, summary, top=None))) == 4
    assert "not charted" not in render(sim, summary, top=None)
    out = tmp_path / "r.html"
    write_report(sim, summary, str(out), top=1)
    assert len(figures(out.read_text())) == 1 and "3 more ClusterQueues not charted" in out.read_text()


def test_the_fault_is_marked_on_its_queue_only(tmp_path):
    sim = Simulator(load_scenario(str(incident_path("zombie-pod")))).run()
    figs = figures(render(sim, sim.recorder.summary(), top=None))
    with_fault = [k for k, f in figs.items() if any(tr["name"] == "fault" for tr in f["data"])]
    assert with_fault == ["chart-team-d"]     # the zombie pod is team-d's
    fault = next(tr for tr in figs["chart-team-d"]["data"] if tr["name"] == "fault")
    assert fault["x"] == [30.0] and "zombie team-d/train-lp" in fault["text"][0]   # at 30 min


def test_queues_sort_naturally_in_the_table(tmp_path):
    scn = tmp_path / "t.yaml"
    scn.write_text(f"kind: Simulation\nscheduler: {{sampleInterval: 1h}}\n"
                   f"traces: [{{kind: openb, path: {OPENB_SAMPLE}, "
                   f"clusterQueues: generate, nodes: generate, tenants: 12}}]\n")
    html = run_html(tmp_path, str(scn))
    table = html.split('<table class="cluster-queues">', 1)[1]
    names = re.findall(r"<td>(?:<a [^>]*>)?(tenant-\d+)", table)
    assert names == [f"tenant-{i}" for i in range(12)]
    assert "crc32" in html        # the synthetic tenant split is said in the report


def test_violation_bands_merge_consecutive_samples():
    rows = [[0, 0, 8, 0, False], [30, 0, 8, 8, True], [60, 0, 8, 8, True], [90, 8, 8, 0, False],
            [120, 0, 8, 8, True]]
    # a violated sample holds until the next one; the last one has no length yet
    assert violation_bands(rows) == [(30, 90), (120, 120)]


def test_changes_keep_the_step_line():
    rows = [[0, 0, 8, 0, False], [30, 0, 8, 0, False], [60, 4, 8, 0, False], [90, 4, 8, 0, False],
            [120, 4, 8, 0, True], [150, 4, 8, 0, True]]
    assert changes(rows) == [rows[0], rows[2], rows[4], rows[5]]
    assert changes(rows[:1]) == rows[:1] and changes([]) == []
