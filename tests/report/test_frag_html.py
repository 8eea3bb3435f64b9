"""The fragmentation report: three curves per policy, fixed colours, bands where there are seeds."""
from __future__ import annotations

from kueue_doctor.frag.compare import PolicySummary
from kueue_doctor.report.charts import VERMILLION
from kueue_doctor.report.frag_html import html_report
from tests.report.pages import figures, offline_problems


def summary(policy: str, base: float) -> PolicySummary:
    xs = range(0, 131, 10)
    return PolicySummary(policy, 3, {x: base + x / 2 for x in xs}, {x: base + x / 2 for x in xs},
                         {x: base + x / 2 - 1 for x in xs}, {x: base + x / 2 + 1 for x in xs},
                         {x: 30 - x / 10 for x in xs}, 0.1, 2.0)


def test_three_charts_a_band_per_policy_and_fixed_colours():
    html = html_report("frag <policies>", [summary("Random", 0), summary("FGD", 5)], "policy runs\nFGD 3", "a note")
    assert offline_problems(html) == [] and "frag &lt;policies&gt;" in html and "FGD 3" in html
    figs = figures(html)
    assert list(figs) == ["frag-unallocated", "frag-allocation", "frag-fragmentation"]
    unalloc = figs["frag-unallocated"]["data"]
    lines = [tr for tr in unalloc if tr.get("showlegend", True)]
    assert [tr["name"] for tr in lines] == ["FGD", "Random"]          # natural order
    assert lines[0]["line"]["color"] == VERMILLION                    # FGD's colour whatever it is compared with
    assert len(unalloc) == 6                                          # each: band low, band high, median
    fgd = lines[0]
    assert fgd["x"][0] == 80 and fgd["y"][0] == 100 - (5 + 40)        # 75..130: unallocated = 100 - allocated
    assert len(figs["frag-fragmentation"]["data"]) == 2               # no band
    only_fgd = figures(html_report("t", [summary("FGD", 5)], ""))["frag-allocation"]["data"]
    assert only_fgd[-1]["line"]["color"] == VERMILLION
