"""The SVG charts: axes that cover the data, thinning that keeps the extremes."""
from __future__ import annotations

from kueue_doctor.report.svg import Series, line_chart, nice_ticks, thin


def test_chart_axis_covers_the_data_and_thinning_keeps_extremes():
    ticks = nice_ticks(0, 64)
    assert ticks[0] == 0 and ticks[-1] >= 64
    pts = [(float(i), 1.0) for i in range(5000)]
    pts[2500] = (2500.0, 99.0)
    kept = thin(pts, 400)
    assert len(kept) <= 410 and (2500.0, 99.0) in kept and kept[-1] == pts[-1]
    svg = line_chart([Series("used", pts)], bands=[(10, 20)], band_label="violated")
    assert svg.startswith("<svg") and svg.endswith("</svg>") and svg.count("<polyline") == 1
