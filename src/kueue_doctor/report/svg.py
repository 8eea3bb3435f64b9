"""A tiny inline-SVG line chart: no JavaScript, no fonts or files fetched, one string out.

Shared by the HTML reports (simulator now, the doctor later). Values hold until the next
sample (step lines) because the series are samples of a state, not measurements between.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

Point = tuple[float, float]


@dataclass
class Series:
    name: str
    points: Sequence[Point]
    color: str = "#1f77b4"
    dash: str = ""           # SVG stroke-dasharray, e.g. "6 3"
    width: float = 1.6
    step: bool = True


def nice_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """About ``target`` round tick values covering [lo, hi] (steps of 1, 2 or 5 x 10^k)."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first, last = math.floor(lo / step), math.ceil(hi / step - 1e-9)
    return [round(i * step, 10) for i in range(first, last + 1)]


def time_axis(span_seconds: float) -> tuple[float, str]:
    """The unit ticks are counted in, for a span of simulated seconds: (seconds per unit, suffix)."""
    if span_seconds <= 2 * 3600:
        return 60.0, "min"
    if span_seconds <= 4 * 86400:
        return 3600.0, "h"
    return 86400.0, "d"


def thin(points: Sequence[Point], most: int) -> list[Point]:
    """At most about ``most`` points; each dropped run keeps its lowest and highest value so
    that spikes and dips stay visible."""
    if len(points) <= most:
        return list(points)
    per = math.ceil(len(points) / (most / 2))
    out: list[Point] = []
    for i in range(0, len(points), per):
        run = points[i:i + per]
        lo = min(run, key=lambda p: p[1])
        hi = max(run, key=lambda p: p[1])
        out += sorted({lo, hi})
    if out[-1] != points[-1]:
        out.append(points[-1])
    return out


def _fmt(v: float) -> str:
    return f"{v:.0f}" if abs(v - round(v)) < 1e-9 else f"{v:g}"


def line_chart(series: Sequence[Series], *, bands: Sequence[tuple[float, float]] = (), band_label: str = "",
               title: str = "", y_label: str = "", x_unit: tuple[float, str] | None = None,
               width: int = 760, height: int = 240, most_points: int = 1200,
               y_format: Callable[[float], str] = _fmt) -> str:
    """An ``<svg>`` element; x in seconds (shown in ``x_unit``), ``bands`` shaded x intervals."""
    xs = [p[0] for s in series for p in s.points] + [x for b in bands for x in b]
    ys = [p[1] for s in series for p in s.points]
    x0, x1 = (min(xs), max(xs)) if xs else (0.0, 1.0)
    if x1 <= x0:
        x1 = x0 + 1.0
    unit, suffix = x_unit or time_axis(x1 - x0)
    yt = nice_ticks(0.0, max([*ys, 0.0]) or 1.0)
    y1 = yt[-1]
    left, right, bottom = 56, 12, 34
    top = 44 if title else 26   # title row, then the legend row, above the plot
    pw, ph = width - left - right, height - top - bottom
    sx = lambda x: left + (x - x0) / (x1 - x0) * pw  # noqa: E731
    sy = lambda y: top + ph - (y / y1) * ph  # noqa: E731
    out = [f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
           f'role="img" aria-label="{escape(title)}">']
    if title:
        out.append(f'<text x="{left}" y="16" class="title">{escape(title)}</text>')
    for a, b in bands:
        out.append(f'<rect x="{sx(a):.1f}" y="{top}" width="{max(sx(b) - sx(a), 0.8):.1f}" height="{ph}" '
                   f'class="band"><title>{escape(band_label)}</title></rect>')
    for v in yt:
        y = sy(v)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>'
                   f'<text x="{left - 6}" y="{y + 4:.1f}" class="ytick">{escape(y_format(v))}</text>')
    for v in nice_ticks(x0 / unit, x1 / unit, 8):
        if v * unit < x0 - 1e-9:
            continue
        x = sx(v * unit)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top + ph}" y2="{top + ph + 4}" class="axis"/>'
                   f'<text x="{x:.1f}" y="{top + ph + 16}" class="xtick">{_fmt(v)}{suffix}</text>')
    out.append(f'<line x1="{left}" x2="{left + pw}" y1="{top + ph}" y2="{top + ph}" class="axis"/>'
               f'<line x1="{left}" x2="{left}" y1="{top}" y2="{top + ph}" class="axis"/>')
    if y_label:
        out.append(f'<text transform="translate(12 {top + ph / 2:.0f}) rotate(-90)" class="ylabel">'
                   f'{escape(y_label)}</text>')
    for s in series:
        pts = thin(s.points, most_points)
        if not pts:
            continue
        coords, prev = [], None
        for x, y in pts:
            if s.step and prev is not None:
                coords.append(f"{sx(x):.1f},{sy(prev):.1f}")
            coords.append(f"{sx(x):.1f},{sy(y):.1f}")
            prev = y
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        out.append(f'<polyline fill="none" stroke="{s.color}" stroke-width="{s.width}"{dash} '
                   f'points="{" ".join(coords)}"><title>{escape(s.name)}</title></polyline>')
    lx: float = left
    ly = top - 10
    for s in series:
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        out.append(f'<line x1="{lx}" x2="{lx + 18}" y1="{ly - 4}" y2="{ly - 4}" stroke="{s.color}" '
                   f'stroke-width="{s.width + 0.6}"{dash}/><text x="{lx + 22}" y="{ly}" class="legend">'
                   f'{escape(s.name)}</text>')
        lx += 30 + 6.5 * len(s.name)
    if bands and band_label:
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="14" height="12" class="band"/>'
                   f'<text x="{lx + 18}" y="{ly}" class="legend">{escape(band_label)}</text>')
    out.append("</svg>")
    return "".join(out)


CSS = """
svg.chart text { font: 11px system-ui, sans-serif; fill: #333; }
svg.chart .title { font-weight: 600; font-size: 12px; }
svg.chart .ytick { text-anchor: end; }
svg.chart .xtick { text-anchor: middle; }
svg.chart .ylabel { text-anchor: middle; }
svg.chart .grid { stroke: #e6e6e6; }
svg.chart .axis { stroke: #888; }
svg.chart .band { fill: #d62728; fill-opacity: 0.16; }
svg.chart .legend { font-size: 11px; }
"""
