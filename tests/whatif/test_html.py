"""``--html`` of whatif, forecast and diff: one offline page each with what the JSON holds."""
from __future__ import annotations

import json
import re

import yaml
from click.testing import CliRunner

from kueue_doctor.cli import cli
from tests.paths import INCIDENTS
from tests.whatif.test_diff import queue

HOL = INCIDENTS / "01-strictfifo-head-of-line-blocking"
HEAD = "perception/pytorchjob-bevfusion-pretrain-r12-92dbb"


def invoke(*args):
    r = CliRunner().invoke(cli, [*args, "-o", "json"], catch_exceptions=False)
    return r, json.loads(r.stdout)


def test_whatif_page_lists_every_suggestion_with_its_patch_commands(tmp_path):
    page = tmp_path / "whatif.html"
    _, doc = invoke("whatif", HEAD, str(HOL), "--html", str(page))
    html = page.read_text()
    assert doc["suggestions"]
    for i, sug in enumerate(doc["suggestions"], 1):
        assert f'id="s{i}"' in html
        for pt in sug["patches"]:
            assert f"kubectl patch {pt['kind'].lower()} {pt['name']}" in html
    assert "Plotly" not in html        # tables only: no 4 MB of plotly.js


def test_forecast_page_draws_the_band_from_the_replicates(tmp_path):
    page = tmp_path / "forecast.html"
    _, doc = invoke("forecast", HEAD, str(HOL), "-r", "12", "--html", str(page))
    html = page.read_text()
    assert "Plotly" in html and 'id="forecast-band"' in html
    fc = doc["forecast"]
    assert f"{fc['admittedWithinHorizon']} of 12" in html
    # the step curve's last point: the share admitted within the horizon
    [fig] = re.findall(r'Plotly.newPlot\(\s*"forecast-band",\s*(\[.*?\]),\s*\{', html, re.S)
    traces = json.loads(fig)
    share = traces[0]["y"]
    assert share[0] == 0 and share[-1] == fc["admittedWithinHorizon"] / 12
    assert len(share) == fc["admittedWithinHorizon"] + 2


def test_diff_page_has_a_before_after_row_per_queue_and_the_reasons(tmp_path):
    f, page = tmp_path / "proposed.yaml", tmp_path / "diff.html"
    f.write_text(yaml.safe_dump(queue("planning", nominalQuota_2="24")))
    _, doc = invoke("diff", str(HOL), "-f", str(f), "--html", str(page))
    html = page.read_text()
    assert doc["breaks"]
    for reason in doc["breakReasons"]:
        assert reason.replace("'", "&#x27;") in html
    row = re.search(r'<tr class="broken"><td>planning</td><td>holds</td><td>over-nominal</td>', html)
    assert row, html[:2000]
    assert "Plotly" not in html


def test_the_band_reads_a_position_of_none_as_no_longer_queued():
    from kueue_doctor.report.charts import admission_band
    fig = admission_band([100.0, None], [[(0.0, 2), (60.0, None)], [(0.0, 3), (60.0, 2)]],
                         {"p10": 100.0, "p50": None, "p90": None}, 600.0)
    low = fig.data[1].y          # the band's lower edge: the first future's position, 0 once gone
    assert low[0] == 2 and low[-1] == 0
