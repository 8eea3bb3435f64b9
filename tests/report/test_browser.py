"""Every report kind, opened in headless Chromium: it loads offline, logs nothing to the console,
asks the network for nothing, and draws its charts (Plotly's SVG in the DOM after load)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from kueue_doctor.cli import cli
from kueue_doctor.doctor.diagnose import diagnose
from kueue_doctor.report.doctor_html import render as render_diagnosis
from kueue_doctor.sim.incidents import incident_path
from kueue_doctor.sources.snapshot import load_folder
from tests.paths import INCIDENTS
from tests.report.pages import CHROMIUM, figures, load, needs_chromium, offline_problems


def simulate_report(tmp_path: Path) -> Path:
    out = tmp_path / "simulate.html"
    res = CliRunner().invoke(cli, ["simulate", str(incident_path("zombie-pod")), "--html", str(out)])
    assert res.exit_code == 0, res.output
    return out


def diagnose_report(tmp_path: Path) -> Path:
    out = tmp_path / "diagnose.html"
    d = diagnose(load_folder(str(INCIDENTS / "01-strictfifo-head-of-line-blocking")))
    out.write_text(render_diagnosis(d), encoding="utf-8")
    return out


def frag_report(tmp_path: Path, sample_paths: tuple[str, str]) -> Path:
    out = tmp_path / "frag.html"
    nodes, pods = sample_paths
    res = CliRunner().invoke(cli, ["frag", "compare", "--nodes", nodes, "--pods", pods, "--policies", "Random,FGD",
                                   "--seeds", "1-2", "--jobs", "1", "--html", str(out)])
    assert res.exit_code == 0, res.output
    return out


@needs_chromium
@pytest.mark.parametrize("kind", ["simulate", "diagnose", "frag"])
def test_report_loads_offline_in_chromium_and_draws_its_charts(kind, tmp_path, sample_paths):
    path = {"simulate": lambda: simulate_report(tmp_path), "diagnose": lambda: diagnose_report(tmp_path),
            "frag": lambda: frag_report(tmp_path, sample_paths)}[kind]()
    html = path.read_text(encoding="utf-8")
    assert offline_problems(html) == []
    figs = figures(html)
    expected = {"simulate": 4, "diagnose": 3, "frag": 3}[kind]   # 4 ClusterQueues; gpu, cpu, memory; 3 curves
    assert len(figs) == expected
    page = load(path)
    assert page.console == [], page.console
    assert page.requests == [], page.requests
    # every figure's div became a drawn plot, each with its SVG, and one trace group per trace
    assert page.count("js-plotly-plot") == expected
    assert page.count("main-svg") >= expected
    for div_id, fig in figs.items():
        drawn = page.dom.split(f'id="{div_id}"', 1)[1].split('<div class="chart">', 1)[0]
        assert "main-svg" in drawn, div_id
        traces = len(re.findall(r'class="trace (?:scatter|bars)', drawn))
        assert traces == len(fig["data"]), (div_id, traces, len(fig["data"]))
    if kind == "simulate":
        # the violated queues' shading is drawn (shapes), and the fault of team-d is on its time strip
        team_a = page.dom.split('id="chart-team-a"', 1)[1].split('<div class="chart">', 1)[0]
        assert 'class="shapelayer"' in team_a and "<path" in team_a.split('class="shapelayer"', 1)[1]
        team_d = page.dom.split('id="chart-team-d"', 1)[1].split('<div class="chart">', 1)[0]
        assert ">fault<" in team_d and ">eviction<" in team_d


@needs_chromium
def test_the_browser_check_sees_console_errors_and_fetches(tmp_path):
    """The checks above can fail: a page that logs an error and fetches a URL is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text('<!doctype html><html><body><img src="http://example.invalid/x.png">'
                   '<script>console.error("broken"); missing();</script></body></html>')
    page = load(bad)
    assert any("broken" in line for line in page.console)
    assert any("missing is not defined" in line for line in page.console)
    assert page.requests == ["http://example.invalid/x.png"]
    assert offline_problems(bad.read_text()) != []


def test_chromium_path_is_the_debian_package():
    assert str(CHROMIUM) == "/usr/bin/chromium"
