"""The one chart module of the HTML reports, on Plotly.

Every report is one offline file: ``page()`` inlines plotly.js once, in the head, and each
figure is a ``<div>`` with the script that draws it (``figure_html``); nothing is fetched when
the page is viewed. Shared here: the palette (Okabe-Ito, colour-blind safe; one colour per
role, never reused for another role), human units for time and quantities, natural sort of
names, the worst-first order of small multiples, the HTML skeleton and tables.

Only this module imports plotly.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

import numpy as np
import plotly.graph_objects as go  # type: ignore[import-untyped]
from plotly.offline import get_plotlyjs  # type: ignore[import-untyped]
from plotly.subplots import make_subplots  # type: ignore[import-untyped]

# Okabe & Ito's qualitative palette (https://jfly.uni-koeln.de/color/), by role.
BLACK, ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILLION, PURPLE = (
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
GREY = "#7f7f7f"
USED = BLUE                 # quota reserved by admitted work
NOMINAL = BLACK             # the nominal quota line
PENDING_FITS = ORANGE       # pending work the nominal quota would hold
VIOLATION = VERMILLION      # periods in which the guarantee is violated
FAULT = GREEN
EVICTION = PURPLE
PREEMPTION = SKY
# the rest of the palette, in order, for series named by the data (policies, ...)
QUALITATIVE = (VERMILLION, BLUE, GREEN, PURPLE, ORANGE, SKY, GREY, BLACK)

PLOT_CONFIG = {"displaylogo": False, "responsive": True,
               "modeBarButtonsToRemove": ["lasso2d", "select2d"]}
FONT = "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"

BASE_CSS = """
body { font: 14px/1.45 system-ui, -apple-system, Segoe UI, Roboto, sans-serif; margin: 24px auto;
       max-width: 1200px; padding: 0 16px; color: #222; }
h1 { font-size: 20px; margin-bottom: 4px; } h2 { font-size: 16px; margin-top: 28px; border-bottom: 1px solid #ddd; }
h3 { font-size: 14px; margin: 18px 0 2px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 3px 10px; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
td.l, th.l { text-align: left; }
th { background: #f4f4f4; font-weight: 600; }
tr.violated td { background: #fbeaea; }
.meta, .notes li, .small { color: #555; } .small { font-size: .9em; }
.note { color: #555; font-style: italic; }
.chart { margin: 4px 0 14px; }
code { background: #f3f3f3; padding: 0 3px; }
"""


# -- names -------------------------------------------------------------------------------
_DIGITS = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders the digit runs of a name by value: cq-2 before cq-10."""
    return tuple((0, int(p)) if p.isdigit() else (1, p.lower()) for p in _DIGITS.split(name) if p)


def natural_sorted(names: Iterable[str]) -> list[str]:
    return sorted(names, key=natural_key)


def worst_first(names: Iterable[str], badness: Mapping[str, float]) -> list[str]:
    """Most ``badness`` first (violation seconds), ties and the rest in natural name order."""
    return sorted(names, key=lambda n: (-badness.get(n, 0.0), natural_key(n)))


def top_n(ordered: Sequence[str], top: int | None) -> tuple[list[str], int]:
    """The first ``top`` names (all when ``top`` is None) and how many are left out."""
    if top is None or top < 0:
        return list(ordered), 0
    return list(ordered[:top]), max(len(ordered) - top, 0)


def not_charted_note(left_out: int) -> str:
    if not left_out:
        return ""
    s = "" if left_out == 1 else "s"
    return (f'<p class="note not-charted">{left_out} more ClusterQueue{s} not charted (--top); '
            "the table below lists all.</p>")



# -- units -------------------------------------------------------------------------------
def time_unit(span_seconds: float) -> tuple[float, str]:
    """The unit a time axis is counted in, for a span of seconds: (seconds per unit, name)."""
    if span_seconds <= 3 * 60:
        return 1.0, "s"
    if span_seconds <= 3 * 3600:
        return 60.0, "min"
    if span_seconds <= 4 * 86400:
        return 3600.0, "h"
    return 86400.0, "d"


def fmt_duration(seconds: float) -> str:
    """1h 02m 05s, 3m 20s, 45s, 2d 04h."""
    s = round(seconds)
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    if d:
        return f"{d}d {h:02d}h"
    if h:
        return f"{h}h {m:02d}m {s:02d}s"
    if m:
        return f"{m}m {s:02d}s"
    return f"{s}s"


BINARY = ("memory", "ephemeral-storage")


def resource_unit(resource: str) -> tuple[float, str]:
    """From Kueue's integer amount to the unit shown: (divisor, axis label)."""
    if resource == "cpu":
        return 1000.0, "CPUs"
    if resource in BINARY or resource.startswith("hugepages-"):
        return float(2 ** 30), f"{resource} (GiB)"
    return 1.0, resource or "quota"


def fmt_number(v: float | None) -> str:
    """A number for a table cell or hover: integers without decimals, else 3 significant digits."""
    if v is None:
        return "-"
    if abs(v - round(v)) < 1e-9:
        return f"{round(v):,}"
    return f"{v:,.3g}" if abs(v) < 1000 else f"{v:,.0f}"


def _value_axis(values: Iterable[float]) -> dict[str, Any]:
    big = max((abs(v) for v in values), default=0.0) >= 10_000
    return {"tickformat": "~s" if big else ",~g", "hoverformat": ",.4~g", "rangemode": "tozero",
            "gridcolor": "#e6e6e6", "zerolinecolor": "#bbb"}


def _layout(fig: Any, *, title: str, height: int) -> None:
    fig.update_layout(
        title={"text": escape(title), "x": 0.0, "xanchor": "left", "font": {"size": 14}},
        height=height, margin={"l": 100, "r": 16, "t": 64, "b": 44},
        font={"family": FONT, "size": 12, "color": "#222"},
        plot_bgcolor="white", paper_bgcolor="white",
        legend={"orientation": "h", "x": 0.0, "xanchor": "left", "y": 1.0, "yanchor": "bottom",
                "traceorder": "normal"},
        hoverlabel={"namelength": -1})


def _rgba(hex_colour: str, alpha: float) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"


# -- figures -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Mark:
    """An event put on the time axis: its time (seconds), kind (fault, eviction, preemption)
    and the text shown on hover."""
    t: float
    kind: str
    text: str


MARK_STYLE: dict[str, tuple[str, str]] = {   # kind -> (colour, marker symbol)
    "fault": (FAULT, "x"), "eviction": (EVICTION, "triangle-down"), "preemption": (PREEMPTION, "triangle-up")}


def quota_timeline(t: Sequence[float], used: Sequence[float], nominal: Sequence[float],
                   fits: Sequence[float], *, bands: Sequence[tuple[float, float]] = (),
                   marks: Sequence[Mark] = (), title: str = "", y_label: str = "quota",
                   span: tuple[float, float] | None = None, plot_height: int = 230) -> Any:
    """A queue's quota over time, as step lines (a sample's state holds until the next one).

    Filled: ``used`` from zero, and the pending work that fits the nominal quota stacked on it;
    the ``nominal`` line is the last trace of the plot, so it is drawn over both areas. ``bands``
    ([start, end) seconds, the violation periods) are shaded behind the plot and drawn as bars
    on the strip under it; ``marks`` go on that strip too, one row per kind, sharing the time
    axis. Times are seconds, shown in the unit that suits the span."""
    x0, x1 = span if span is not None else ((t[0], t[-1]) if t else (0.0, 1.0))
    unit, uname = time_unit(max(x1 - x0, 1.0))
    xs = [v / unit for v in t]
    kinds = [k for k in MARK_STYLE if any(m.kind == k for m in marks)]
    strip = (["violated"] if bands else []) + kinds
    strip_height = 22 * len(strip) + 12 if strip else 0
    rows = 2 if strip else 1
    fig = make_subplots(rows=rows, cols=1, shared_xaxes=True, vertical_spacing=0.04 if strip else 0.0,
                        row_heights=[plot_height, strip_height] if strip else [1.0])
    when = [fmt_duration(v) for v in t]
    stacked = [u + f for u, f in zip(used, fits, strict=True)]
    fig.add_trace(go.Scatter(
        x=xs, y=list(used), name="used (reserved)", mode="lines", line={"shape": "hv", "color": USED, "width": 1.5},
        fill="tozeroy", fillcolor=_rgba(USED, 0.30), customdata=when,
        hovertemplate="used %{y}<extra>%{customdata}</extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=xs, y=stacked, name="pending that fits nominal (stacked on used)", mode="lines",
        line={"shape": "hv", "color": PENDING_FITS, "width": 0}, fill="tonexty",   # the area only
        fillcolor=_rgba(PENDING_FITS, 0.35), customdata=list(fits),
        hovertemplate="pending that fits %{customdata:,.4~g}<extra></extra>"), row=1, col=1)
    fig.add_trace(go.Scatter(
        x=xs, y=list(nominal), name="nominal quota", mode="lines",
        line={"shape": "hv", "color": NOMINAL, "width": 2.5, "dash": "dash"},
        hovertemplate="nominal %{y}<extra></extra>"), row=1, col=1)
    for a, b in bands:
        fig.add_vrect(x0=a / unit, x1=max(b, a + unit * 1e-3) / unit, fillcolor=VIOLATION, opacity=0.12,
                      line_width=0, layer="below", row="all", col=1)
    if bands:
        bx: list[float | None] = []
        text: list[str] = []
        for a, b in bands:
            label = f"guarantee violated {fmt_duration(a)} to {fmt_duration(b)} ({fmt_duration(b - a)})"
            bx += [a / unit, b / unit, None]
            text += [label, label, ""]
        fig.add_trace(go.Scatter(
            x=bx, y=["violated" if v is not None else None for v in bx], mode="lines", name="guarantee violated",
            line={"color": VIOLATION, "width": 9}, text=text, hovertemplate="%{text}<extra></extra>"),
            row=2, col=1)
    for k in kinds:
        colour, symbol = MARK_STYLE[k]
        ms = [m for m in marks if m.kind == k]
        fig.add_trace(go.Scatter(
            x=[m.t / unit for m in ms], y=[k] * len(ms), mode="markers", name=k,
            marker={"symbol": symbol, "size": 9, "color": colour, "line": {"width": 0.5, "color": "#333"}},
            text=[f"{fmt_duration(m.t)}: {escape(m.text)}" for m in ms],
            hovertemplate="%{text}<extra>" + k + "</extra>"), row=2, col=1)
        if k == "fault":
            for m in ms:
                fig.add_vline(x=m.t / unit, line={"color": FAULT, "width": 1.2, "dash": "dot"}, row=1, col=1)
    _layout(fig, title=title, height=plot_height + strip_height + 120)
    fig.update_layout(hovermode="x")
    fig.update_xaxes(range=[x0 / unit, x1 / unit], gridcolor="#eee", showline=True, linecolor="#888",
                     hoverformat=".2f", ticksuffix=f" {uname}")
    fig.update_xaxes(title_text=f"simulated time ({uname})", row=rows, col=1)
    fig.update_yaxes(automargin=False)   # the same left margin in every chart: small multiples line up
    fig.update_yaxes(title_text=escape(y_label), row=1, col=1, **_value_axis([*nominal, *stacked]))
    if strip:
        fig.update_yaxes(type="category", categoryorder="array", categoryarray=list(reversed(strip)),
                         range=[-0.6, len(strip) - 0.4], showgrid=False, fixedrange=True, row=2, col=1)
    return fig


def quota_bars(names: Sequence[str], nominal: Sequence[float], reserved: Sequence[float],
               fits: Sequence[float], *, title: str, y_label: str,
               violated: Sequence[bool] = (), height: int = 340) -> Any:
    """Per ClusterQueue (in the given order): reserved and pending-that-fits stacked bars, the
    nominal quota a black tick drawn over them; violated queues' names in the violation colour."""
    fig = go.Figure()
    fig.add_trace(go.Bar(x=list(names), y=list(reserved), name="reserved", marker_color=USED,
                         hovertemplate="%{x}<br>reserved %{y:,.4~g}<extra></extra>"))
    fig.add_trace(go.Bar(x=list(names), y=list(fits), name="pending that fits nominal", marker_color=PENDING_FITS,
                         hovertemplate="%{x}<br>pending that fits %{y:,.4~g}<extra></extra>"))
    fig.add_trace(go.Scatter(
        x=list(names), y=list(nominal), name="nominal quota", mode="markers",
        marker={"symbol": "line-ew", "size": max(12, min(60, 700 // max(len(names), 1))),
                "line": {"width": 3, "color": NOMINAL}},
        hovertemplate="%{x}<br>nominal %{y:,.4~g}<extra></extra>"))
    _layout(fig, title=title, height=height)
    ticks = [f'<span style="color:{VIOLATION}">{escape(n)}</span>' if i < len(violated) and violated[i]
             else escape(n) for i, n in enumerate(names)]
    fig.update_layout(barmode="stack", bargap=0.35, hovermode="closest")
    fig.update_xaxes(type="category", tickmode="array", tickvals=list(names), ticktext=ticks)
    fig.update_yaxes(title_text=escape(y_label), **_value_axis([*nominal, *(r + f for r, f in zip(reserved, fits,
                                                                                                    strict=True))]))
    return fig


@dataclass(frozen=True, slots=True)
class Curve:
    name: str
    ys: Mapping[int, float]
    low: Mapping[int, float] | None = None     # a band drawn around the curve, when both given
    high: Mapping[int, float] | None = None
    colour: str = BLACK


def curves(title: str, x_label: str, y_label: str, series: Sequence[Curve],
           x_range: tuple[int, int], height: int = 400) -> Any:
    """Lines over an integer x (e.g. % arrived load), each with an optional shaded band."""
    x0, x1 = x_range
    fig = go.Figure()
    for c in series:
        xs = [x for x in sorted(c.ys) if x0 <= x <= x1]
        if c.low is not None and c.high is not None:
            low, high = c.low, c.high
            band = [x for x in xs if x in low and x in high]
            fig.add_trace(go.Scatter(x=band, y=[low[x] for x in band], mode="lines", line={"width": 0},
                                     legendgroup=c.name, showlegend=False, hoverinfo="skip"))
            fig.add_trace(go.Scatter(x=band, y=[high[x] for x in band], mode="lines", line={"width": 0},
                                     fill="tonexty", fillcolor=_rgba(c.colour, 0.18), legendgroup=c.name,
                                     showlegend=False, hoverinfo="skip"))
        fig.add_trace(go.Scatter(x=xs, y=[c.ys[x] for x in xs], mode="lines", name=c.name, legendgroup=c.name,
                                 line={"color": c.colour, "width": 2},
                                 hovertemplate=f"{escape(c.name)}: %{{y:.2f}}<extra></extra>"))
    _layout(fig, title=title, height=height)
    fig.update_layout(hovermode="x unified", legend={"orientation": "v", "x": 1.02, "xanchor": "left",
                                                     "y": 1.0, "yanchor": "top"},
                      margin={"l": 64, "r": 130, "t": 48, "b": 48})
    fig.update_xaxes(range=[x0, x1], title_text=escape(x_label), gridcolor="#eee", showline=True, linecolor="#888")
    fig.update_yaxes(title_text=escape(y_label), gridcolor="#e6e6e6", showline=True, linecolor="#888",
                     hoverformat=".2f")
    return fig


@dataclass(frozen=True)
class Point:
    """One configuration of a sweep: its measures (None: not measured) and whether it is on the front."""
    id: int
    label: str
    values: list[float | None]
    on_front: bool


def pareto_scatter(names: Sequence[str], goals: Sequence[str], points: Sequence[Point]) -> Any:
    """The first two measures as x and y, the Pareto front highlighted and coloured by the third."""
    fig = go.Figure()
    for on_front in (False, True):
        pts = [p for p in points if p.on_front == on_front and p.values[0] is not None and p.values[1] is not None]
        if not pts:
            continue
        marker: dict[str, Any] = {"size": 11 if on_front else 8, "color": VERMILLION if on_front else BLUE,
                                  "opacity": 1.0 if on_front else 0.45, "line": {"width": 1, "color": "#333"}}
        if on_front and len(names) > 2:
            marker.update(color=[p.values[2] for p in pts], colorscale="Viridis", showscale=True,
                          colorbar={"title": {"text": escape(f"{names[2]} ({goals[2]})")}})
        fig.add_trace(go.Scatter(
            x=[p.values[0] for p in pts], y=[p.values[1] for p in pts], mode="markers",
            name="Pareto front" if on_front else "dominated", marker=marker, text=[escape(p.label) for p in pts],
            customdata=[p.id for p in pts],
            hovertemplate=f"config %{{customdata}}<br>%{{text}}<br>{escape(names[0])}=%{{x}}"
                          f"<br>{escape(names[1])}=%{{y}}<extra></extra>"))
    _layout(fig, title=f"{names[1]} against {names[0]}", height=520)
    fig.update_xaxes(title_text=escape(f"{names[0]} ({goals[0]})"), gridcolor="#e6e6e6", showline=True,
                     linecolor="#888")
    fig.update_yaxes(title_text=escape(f"{names[1]} ({goals[1]})"), gridcolor="#e6e6e6", showline=True,
                     linecolor="#888")
    return fig


def admission_band(admitted_after: Sequence[float | None], positions: Sequence[Sequence[tuple[float, int]]],
                   percentiles: Mapping[str, float | None], horizon: float) -> Any:
    """A forecast over time since the snapshot: above, the share of simulated futures in which the
    workload is admitted by then (a step curve, P10/P50/P90 marked); below, its position in its
    queue, the median future as a line inside the P10-P90 band of futures (0 once admitted)."""
    done = sorted(a for a in admitted_after if a is not None)
    last = max([*done, *(t for rep in positions for t, _ in rep)], default=0.0)
    span = min(horizon, last * 1.1) if last > 0 else horizon
    div, unit = time_unit(span)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08, row_heights=[0.55, 0.45])
    n = len(admitted_after)
    xs = [0.0, *done, span]
    ys = [0.0, *((i + 1) / n for i in range(len(done))), len(done) / n]
    fig.add_trace(go.Scatter(x=[x / div for x in xs], y=ys, mode="lines", line={"shape": "hv", "color": USED,
                                                                                "width": 2},
                             name="admitted by then", hovertemplate="%{y:.0%} of futures<extra></extra>"), 1, 1)
    marks: dict[float, list[str]] = {}     # equal percentiles share one line and one label
    for q in ("p10", "p50", "p90"):
        v = percentiles.get(q)
        if v is not None:
            marks.setdefault(v, []).append(q.upper())
    for v, names in marks.items():
        fig.add_vline(x=v / div, line={"color": VIOLATION, "dash": "dash" if "P50" in names else "dot", "width": 1},
                      row=1, col=1, annotation_text="=".join(names), annotation_position="top")
    grid = np.arange(0.0, span + 1e-9, max(span / 200, 1.0))
    if positions:
        table = np.zeros((len(positions), len(grid)))
        for i, rep in enumerate(positions):
            if rep:
                ts = np.array([t for t, _ in rep])
                ps = np.array([p or 0 for _, p in rep], dtype=float)   # None: no longer queued
                at = np.searchsorted(ts, grid, side="right") - 1
                row = np.where(at >= 0, ps[np.clip(at, 0, None)], ps[0])
                a = admitted_after[i]
                table[i] = np.where(grid >= a, 0.0, row) if a is not None else row
        # an observed position (inverted CDF), never a fraction between two futures'
        low, mid, high = np.percentile(table, [10, 50, 90], axis=0, method="inverted_cdf")
        gx = (grid / div).tolist()
        fig.add_trace(go.Scatter(x=gx, y=low.tolist(), mode="lines", line={"width": 0, "shape": "hv"},
                                 showlegend=False, hoverinfo="skip"), 2, 1)
        fig.add_trace(go.Scatter(x=gx, y=high.tolist(), mode="lines", line={"width": 0, "shape": "hv"},
                                 fill="tonexty", fillcolor=_rgba(PENDING_FITS, 0.25), name="P10-P90 of futures",
                                 hoverinfo="skip"), 2, 1)
        fig.add_trace(go.Scatter(x=gx, y=mid.tolist(), mode="lines", line={"color": PENDING_FITS, "width": 2,
                                                                              "shape": "hv"},
                                 name="median position", hovertemplate="position %{y:.0f}<extra></extra>"), 2, 1)
    _layout(fig, title="When it is admitted, and its place in the queue until then", height=560)
    fig.update_layout(legend={"orientation": "v", "x": 1.02, "xanchor": "left", "y": 1.0, "yanchor": "top"},
                      margin={"l": 80, "r": 170, "t": 64, "b": 48})
    fig.update_xaxes(gridcolor="#eee", showline=True, linecolor="#888", range=[0, span / div])
    fig.update_xaxes(title_text=f"time after the snapshot ({unit})", row=2, col=1)
    fig.update_yaxes(title_text="futures admitted", tickformat=".0%", range=[0, 1.05], gridcolor="#e6e6e6", row=1,
                     col=1)
    top = max((p or 0 for rep in positions for _, p in rep), default=1)
    fig.update_yaxes(title_text="position in queue", rangemode="tozero", tickformat="d", gridcolor="#e6e6e6",
                     dtick=1 if top <= 10 else None, row=2, col=1)
    return fig


# -- HTML --------------------------------------------------------------------------------
def figure_html(fig: Any, div_id: str) -> str:
    """A figure as a ``<div>`` and the script drawing it, for a page made by ``page()``."""
    inner = fig.to_html(full_html=False, include_plotlyjs=False, config=PLOT_CONFIG, div_id=div_id)
    return f'<div class="chart">{inner}</div>'


def page(title: str, body: Iterable[str], css: str = "", charts: bool = True) -> str:
    """The HTML skeleton: one file, plotly.js inline in the head (once; left out of a page
    without ``charts``), nothing fetched."""
    return "".join([
        "<!doctype html><html><head><meta charset=\"utf-8\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<title>{escape(title)}</title><style>{BASE_CSS}{css}</style>",
        f"<script type=\"text/javascript\">{get_plotlyjs()}</script>" if charts else "",
        "</head><body>",
        *body,
        "</body></html>\n"])


def html_table(head: Sequence[str], rows: Iterable[Sequence[Any]],
               row_class: Callable[[Sequence[Any]], str] = lambda r: "", raw_columns: frozenset[int] = frozenset(),
               css_class: str = "", classes: Sequence[str] = ()) -> str:
    """A table; cells are escaped text (None as "-"), except the ``raw_columns`` (trusted HTML).
    A row's class is ``classes[i]`` when given, else ``row_class(row)``."""
    cls = f' class="{css_class}"' if css_class else ""
    out = [f"<table{cls}><tr>", *(f"<th>{escape(h)}</th>" for h in head), "</tr>"]
    for i, r in enumerate(rows):
        rc = classes[i] if i < len(classes) else row_class(r)
        out.append(f'<tr class="{rc}">' if rc else "<tr>")
        out += [f"<td>{v if j in raw_columns else escape('-' if v is None else str(v))}</td>"
                for j, v in enumerate(r)]
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def anchor(prefix: str, name: str) -> str:
    """An element id for a name (ids in links and charts)."""
    return prefix + re.sub(r"[^A-Za-z0-9_.-]", "_", name)
