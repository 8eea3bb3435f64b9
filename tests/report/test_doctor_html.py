"""The diagnosis report: the violations, causes and steps as text; quota charts from the facts."""
from __future__ import annotations

from kueue_doctor.doctor.diagnose import diagnose
from kueue_doctor.report.doctor_html import render
from kueue_doctor.sources.snapshot import load_folder
from tests.paths import INCIDENTS
from tests.report.pages import figures, offline_problems


def diagnosis(name: str = "01-strictfifo-head-of-line-blocking"):
    return diagnose(load_folder(str(INCIDENTS / name)))


def test_report_keeps_violations_causes_steps_and_charts_quota_per_resource():
    d = diagnosis()
    html = render(d)
    assert html.startswith("<!doctype html>") and offline_problems(html) == []
    assert "head-of-line-blocking" in html and "Remedy:" in html and "The six steps" in html
    assert html.count("<tr><td>perception</td><td>h200/") == 3      # the violation, per resource
    figs = figures(html)
    # the resources the violation is on, GPUs first
    assert list(figs) == ["quota-nvidia.com_gpu", "quota-cpu", "quota-memory"]
    gpu = figs["quota-nvidia.com_gpu"]
    reserved, fits, nominal = gpu["data"]
    assert (reserved["name"], fits["name"], nominal["name"]) == ("reserved", "pending that fits nominal",
                                                                 "nominal quota")
    # the violated queue first, then natural name order; a queue per flavor it has quota in
    assert reserved["x"][0] == "perception · h200"
    assert reserved["x"][1:] == ["data-labeling · l40s", "foundation-models · h200", "planning · h200",
                                 "simulation · h200"]
    # the numbers are the facts' own, in GPUs (cpu in CPUs, memory in GiB)
    g = d.facts.queues["perception"].guarantee
    assert (reserved["y"][0], fits["y"][0], nominal["y"][0]) == (
        g.reserved[("h200", "nvidia.com/gpu")], g.pending_fits[("h200", "nvidia.com/gpu")],
        g.nominal[("h200", "nvidia.com/gpu")]) == (8, 16, 24)
    cpu = figs["quota-cpu"]["data"]
    assert cpu[2]["y"][0] == g.nominal[("h200", "cpu")] / 1000 == 576
    assert figs["quota-memory"]["data"][2]["y"][0] == g.nominal[("h200", "memory")] / 2 ** 30
    # every ClusterQueue in the table, natural order, the violated one marked
    table = html.split('<table class="cluster-queues">', 1)[1].split("</table>", 1)[0]
    assert '<tr class="violated"><td>perception</td>' in table and "violated for 52m 59s" in table


def test_top_limits_the_charted_queues():
    d = diagnosis()
    html = render(d, top=2)
    gpu = figures(html)["quota-nvidia.com_gpu"]["data"][0]
    assert gpu["x"] == ["perception · h200", "data-labeling · l40s"]
    assert "3 more ClusterQueues not charted (--top)" in html
    table = html.split('<table class="cluster-queues">', 1)[1]
    assert all(f"<td>{n}</td>" in table for n in d.facts.queues)
    assert "not charted" not in render(d, top=None)


def test_inactive_queue_is_said_in_the_table():
    html = render(diagnosis("02-inactive-queue-missing-flavor"))
    table = html.split('<table class="cluster-queues">', 1)[1].split("</table>", 1)[0]
    voice = table.split('<tr class="violated"><td>voice</td>', 1)[1].split("</tr>", 1)[0]
    assert "violated for" in voice and "inactive: FlavorNotFound: a100-80gb" in voice
    figs = figures(html)
    assert figs["quota-nvidia.com_gpu"]["data"][0]["x"][0] == "voice"     # one flavor: no flavor in the name
