"""The shared chart module: names, units, order of small multiples, the figures, the page."""
from __future__ import annotations

from kueue_doctor.report.charts import (
    NOMINAL,
    PENDING_FITS,
    USED,
    VIOLATION,
    Mark,
    fmt_duration,
    natural_sorted,
    page,
    quota_bars,
    quota_timeline,
    resource_unit,
    time_unit,
    top_n,
    worst_first,
)
from tests.report.pages import figures, offline_problems


def test_natural_sort_orders_numbers_by_value():
    names = ["cq-10", "cq-2", "cq-1", "cq-11", "b", "A", "cohort-1-cq-3", "cohort-0-cq-12"]
    assert natural_sorted(names) == ["A", "b", "cohort-0-cq-12", "cohort-1-cq-3", "cq-1", "cq-2", "cq-10", "cq-11"]


def test_worst_first_then_natural_and_top():
    names = ["cq-10", "cq-2", "cq-1", "cq-3"]
    ordered = worst_first(names, {"cq-3": 60.0, "cq-10": 600.0})
    assert ordered == ["cq-10", "cq-3", "cq-1", "cq-2"]
    assert top_n(ordered, 2) == (["cq-10", "cq-3"], 2)
    assert top_n(ordered, None) == (ordered, 0)
    assert top_n(ordered, 10) == (ordered, 0)


def test_units():
    assert time_unit(90) == (1.0, "s") and time_unit(3600) == (60.0, "min")
    assert time_unit(10 * 3600) == (3600.0, "h") and time_unit(9 * 86400) == (86400.0, "d")
    assert fmt_duration(3725) == "1h 02m 05s" and fmt_duration(200) == "3m 20s" and fmt_duration(5) == "5s"
    assert fmt_duration(2 * 86400 + 4 * 3600) == "2d 04h"
    assert resource_unit("cpu") == (1000.0, "CPUs")
    assert resource_unit("memory") == (2.0 ** 30, "memory (GiB)")
    assert resource_unit("nvidia.com/gpu") == (1.0, "nvidia.com/gpu")


def test_palette_roles_do_not_collide():
    assert len({USED, NOMINAL, PENDING_FITS, VIOLATION}) == 4


def test_timeline_draws_nominal_last_shades_bands_and_marks_events():
    t = [0.0, 600.0, 1200.0, 3600.0]
    fig = quota_timeline(t, [0, 8, 8, 16], [16, 16, 16, 16], [0, 8, 8, 0], bands=[(600.0, 3600.0)],
                         marks=[Mark(900.0, "fault", "nodeNotReady n1"), Mark(1000.0, "eviction", "a/b evicted")],
                         title="team-a", y_label="nvidia.com/gpu")
    names = [tr.name for tr in fig.data]
    plot = [tr for tr in fig.data if tr.xaxis in (None, "x")]
    # the nominal line is the last trace of the plot: drawn over the filled areas
    assert [tr.name for tr in plot][-1] == "nominal quota" and plot[-1].line.color == NOMINAL
    assert [tr.fill for tr in plot] == ["tozeroy", "tonexty", None]
    stacked = next(tr for tr in plot if tr.name.startswith("pending that fits"))
    assert list(stacked.y) == [0, 16, 16, 16] and list(stacked.customdata) == [0, 8, 8, 0]  # hover: own value
    assert "guarantee violated" in names and "fault" in names and "eviction" in names
    rects = [s for s in fig.layout.shapes if s.type == "rect"]
    assert rects and all(s.fillcolor == VIOLATION for s in rects)
    assert (rects[0].x0, rects[0].x1) == (10.0, 60.0)          # minutes: the span is an hour
    assert any(s.type == "line" for s in fig.layout.shapes)     # the fault's line across the plot
    assert fig.layout.xaxis2.title.text == "simulated time (min)"
    no_events = quota_timeline(t, [0, 0, 0, 0], [4, 4, 4, 4], [0, 0, 0, 0])
    assert len(no_events.data) == 3 and not no_events.layout.shapes


def test_bars_stack_and_draw_nominal_over_them():
    fig = quota_bars(["a", "b"], [16, 8], [8, 8], [8, 0], title="gpu", y_label="nvidia.com/gpu",
                     violated=[True, False])
    assert fig.layout.barmode == "stack"
    assert [tr.name for tr in fig.data] == ["reserved", "pending that fits nominal", "nominal quota"]
    assert list(fig.data[2].y) == [16, 8]
    assert VIOLATION in fig.layout.xaxis.ticktext[0] and VIOLATION not in fig.layout.xaxis.ticktext[1]


def test_page_inlines_plotly_once_and_parses_back():
    from kueue_doctor.report.charts import figure_html
    fig = quota_bars(["a"], [1], [1], [0], title="t", y_label="y")
    html = page("title <x>", [figure_html(fig, "one"), figure_html(fig, "two")])
    assert html.startswith("<!doctype html>") and "<title>title &lt;x&gt;</title>" in html
    assert offline_problems(html) == []
    assert list(figures(html)) == ["one", "two"]
    assert figures(html)["one"]["data"][2]["name"] == "nominal quota"
    assert offline_problems(html.replace("</body>", '<script src="https://cdn.plot.ly/p.js"></script></body>'))
