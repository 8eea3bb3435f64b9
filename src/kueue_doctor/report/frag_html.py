"""``frag compare --html``: one offline page with the FGD paper's curves, on Plotly.

The unallocated-GPU curve (Fig. 9(a) style: median over seeds and the 25-75 % band), the
allocation ratio and the fragmented GPU share, per placement policy; then the summary table.
(Here and not in ``frag/``: ``frag`` is a lower layer than the reports.)
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape

from ..frag.compare import PolicySummary
from .charts import (
    BLACK,
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    PURPLE,
    QUALITATIVE,
    SKY,
    VERMILLION,
    Curve,
    curves,
    figure_html,
    natural_sorted,
    page,
)

# fixed per policy, so a policy keeps its colour whichever others are compared with it
COLOURS = {"FGD": VERMILLION, "BestFit": BLUE, "GpuPacking": GREEN, "GpuClustering": PURPLE,
           "DotProd": ORANGE, "Random": GREY}
X_LABEL = "arrived workload (% of GPU capacity)"


def colour(policy: str, i: int) -> str:
    spare = [c for c in QUALITATIVE if c not in COLOURS.values()] or [BLACK, SKY]
    return COLOURS.get(policy) or spare[i % len(spare)]


def _flip(d: dict[int, float]) -> dict[int, float]:
    return {x: 100 - y for x, y in d.items()}


def html_report(title: str, summaries: Sequence[PolicySummary], table_text: str, note: str = "") -> str:
    by_name = {s.policy: s for s in summaries}
    order = [by_name[n] for n in natural_sorted(by_name)]
    cs = [colour(s.policy, i) for i, s in enumerate(order)]
    unalloc = curves("Unallocated GPU (median, 25-75 % band)", X_LABEL, "unallocated GPU (%)",
                     [Curve(s.policy, _flip(s.alloc_median), _flip(s.alloc_high), _flip(s.alloc_low), c)
                      for s, c in zip(order, cs, strict=True)], (75, 130))
    alloc = curves("GPU allocation ratio (median, 25-75 % band)", X_LABEL, "allocated GPU (%)",
                   [Curve(s.policy, s.alloc_median, s.alloc_low, s.alloc_high, c)
                    for s, c in zip(order, cs, strict=True)], (0, 130))
    frag = curves("Fragmented GPU (median)", X_LABEL, "fragmented / total GPU (%)",
                  [Curve(s.policy, s.frag_median, colour=c) for s, c in zip(order, cs, strict=True)], (0, 130))
    body = [f"<h1>{escape(title)}</h1><p class=\"meta\">{escape(note)}</p>",
            figure_html(unalloc, "frag-unallocated"), figure_html(alloc, "frag-allocation"),
            figure_html(frag, "frag-fragmentation"),
            f"<h2>Summary</h2><pre>{escape(table_text)}</pre>"]
    return page(title, body, "pre { background: #f6f6f6; padding: 8px; overflow-x: auto; }")
