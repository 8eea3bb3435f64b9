"""An offline HTML page with inline SVG charts in the style of the FGD paper's figures."""
from __future__ import annotations

import html
from collections.abc import Sequence

from .compare import PolicySummary

COLORS = {"Random": "#7f7f7f", "DotProd": "#9467bd", "GpuClustering": "#8c564b",
          "GpuPacking": "#2ca02c", "BestFit": "#1f77b4", "FGD": "#d62728"}
W, H, PAD_L, PAD_R, PAD_T, PAD_B = 560, 340, 56, 130, 30, 44


def _ticks(lo: float, hi: float, n: int = 6) -> list[float]:
    span = hi - lo or 1.0
    raw = span / n
    step = min((s for s in (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 25, 50) if s >= raw), default=raw)
    first = (lo // step + (lo % step > 1e-9)) * step
    out, v = [], first
    while v <= hi + 1e-9:
        out.append(round(v, 6))
        v += step
    return out


def line_chart(title: str, xlabel: str, ylabel: str,
               series: Sequence[tuple[str, dict[int, float], dict[int, float] | None, dict[int, float] | None]],
               x_range: tuple[int, int]) -> str:
    """One SVG chart; each series is (name, y per x, optional lower band, optional upper band)."""
    x0, x1 = x_range
    pts = [(x, y) for _, ys, lo, hi in series for d in (ys, lo or {}, hi or {}) for x, y in d.items()
           if x0 <= x <= x1]
    if not pts:
        return f"<svg width='{W}' height='{H}'><text x='10' y='20'>{html.escape(title)}: no data</text></svg>"
    y0, y1 = min(y for _, y in pts), max(y for _, y in pts)
    if y1 - y0 < 1e-9:
        y0, y1 = y0 - 1, y1 + 1
    margin = (y1 - y0) * 0.05
    y0, y1 = y0 - margin, y1 + margin
    pw, ph = W - PAD_L - PAD_R, H - PAD_T - PAD_B

    def sx(x: float) -> float:
        return PAD_L + (x - x0) / (x1 - x0) * pw

    def sy(y: float) -> float:
        return PAD_T + (1 - (y - y0) / (y1 - y0)) * ph

    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{W}' height='{H}' font-family='sans-serif' font-size='11'>",
           f"<text x='{W / 2 - PAD_R / 2}' y='18' text-anchor='middle' font-size='13'>{html.escape(title)}</text>",
           f"<rect x='{PAD_L}' y='{PAD_T}' width='{pw}' height='{ph}' fill='none' stroke='#333'/>"]
    for t in _ticks(x0, x1):
        out.append(f"<line x1='{sx(t):.1f}' y1='{PAD_T + ph}' x2='{sx(t):.1f}' y2='{PAD_T + ph + 4}' stroke='#333'/>"
                   f"<text x='{sx(t):.1f}' y='{PAD_T + ph + 16}' text-anchor='middle'>{t:g}</text>")
    for t in _ticks(y0, y1):
        out.append(f"<line x1='{PAD_L}' y1='{sy(t):.1f}' x2='{PAD_L + pw}' y2='{sy(t):.1f}' stroke='#ddd'/>"
                   f"<text x='{PAD_L - 6}' y='{sy(t) + 4:.1f}' text-anchor='end'>{t:g}</text>")
    out.append(f"<text x='{PAD_L + pw / 2}' y='{H - 8}' text-anchor='middle'>{html.escape(xlabel)}</text>"
               f"<text transform='translate(14,{PAD_T + ph / 2}) rotate(-90)' text-anchor='middle'>"
               f"{html.escape(ylabel)}</text>")
    for i, (name, ys, lo, hi) in enumerate(series):
        color = COLORS.get(name, "#000")
        xs = [x for x in sorted(ys) if x0 <= x <= x1]
        if lo and hi:
            band = [x for x in xs if x in lo and x in hi]
            poly = [f"{sx(x):.1f},{sy(hi[x]):.1f}" for x in band] + \
                   [f"{sx(x):.1f},{sy(lo[x]):.1f}" for x in reversed(band)]
            out.append(f"<polygon points='{' '.join(poly)}' fill='{color}' fill-opacity='0.18' stroke='none'/>")
        path = " ".join(f"{sx(x):.1f},{sy(ys[x]):.1f}" for x in xs)
        out.append(f"<polyline points='{path}' fill='none' stroke='{color}' stroke-width='1.6'/>")
        ly = PAD_T + 14 + 16 * i
        out.append(f"<line x1='{W - PAD_R + 10}' y1='{ly - 4}' x2='{W - PAD_R + 30}' y2='{ly - 4}' "
                   f"stroke='{color}' stroke-width='2'/><text x='{W - PAD_R + 34}' y='{ly}'>{html.escape(name)}</text>")
    out.append("</svg>")
    return "".join(out)


def _flip(d: dict[int, float]) -> dict[int, float]:
    return {x: 100 - y for x, y in d.items()}


def html_report(title: str, summaries: Sequence[PolicySummary], table_text: str, note: str = "") -> str:
    order = sorted(summaries, key=lambda s: s.policy)
    unalloc = line_chart("Unallocated GPU (median, 25-75 % band)", "arrived workload (% of GPU capacity)",
                         "unallocated GPU (%)",
                         [(s.policy, _flip(s.alloc_median), _flip(s.alloc_high), _flip(s.alloc_low)) for s in order],
                         (75, 130))
    alloc = line_chart("GPU allocation ratio (median)", "arrived workload (% of GPU capacity)",
                       "allocated GPU (%)", [(s.policy, s.alloc_median, s.alloc_low, s.alloc_high) for s in order],
                       (0, 130))
    frag = line_chart("Fragmented GPU (median)", "arrived workload (% of GPU capacity)",
                      "fragmented / total GPU (%)", [(s.policy, s.frag_median, None, None) for s in order],
                      (0, 130))
    return ("<!DOCTYPE html><html><head><meta charset='utf-8'>"
            f"<title>{html.escape(title)}</title>"
            "<style>body{font-family:sans-serif;margin:20px}pre{background:#f6f6f6;padding:8px}"
            ".charts{display:flex;flex-wrap:wrap;gap:12px}</style></head><body>"
            f"<h2>{html.escape(title)}</h2><p>{html.escape(note)}</p>"
            f"<div class='charts'>{unalloc}{alloc}{frag}</div>"
            f"<pre>{html.escape(table_text)}</pre></body></html>")
