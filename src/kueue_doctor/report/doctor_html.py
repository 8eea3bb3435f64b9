"""The diagnosis as one offline HTML file: violations, quota charts, causes, the six steps.

Figures come from the Diagnosis's facts as numbers (``QueueGuarantee``: nominal, reserved and
pending-that-fits per flavor and resource), never parsed back from text. The quota charts show
the ``top`` worst ClusterQueues (violating first, longest violated first, then natural name
order); the table lists every ClusterQueue.
"""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from html import escape
from typing import TYPE_CHECKING

from ..api.quantity import format_amount
from .charts import (
    anchor,
    figure_html,
    fmt_duration,
    html_table,
    natural_key,
    natural_sorted,
    not_charted_note,
    page,
    quota_bars,
    resource_unit,
    top_n,
    worst_first,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..doctor.diagnose import Diagnosis
    from ..doctor.facts import QueueFacts

DEFAULT_TOP = 12
FR = tuple[str, str]

CSS = """
td.nw { white-space: nowrap; }
.pass { color: #1a7f37; } .fail { color: #cf222e; } .unknown { color: #9a6700; } .skipped { color: #666; }
.cause { border-left: 4px solid #D55E00; padding: .3em 1em; margin: 1em 0; background: #fafafa; }
table.steps td, table.steps th { text-align: left; }
table.cluster-queues td:nth-child(-n+3), table.cluster-queues th:nth-child(-n+3),
table.cluster-queues td:nth-child(5), table.cluster-queues th:nth-child(5),
table.violations td:nth-child(-n+2), table.violations th:nth-child(-n+2) { text-align: left; }
"""


def _ts(t: datetime | None) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ") if t else "-"


def violated_seconds(q: QueueFacts, now: datetime) -> float:
    """How long the queue's guarantee has been violated at the snapshot (0 when it is not)."""
    g = q.guarantee
    if not g.violated:
        return 0.0
    # a violation whose start is not known still ranks above every queue that is not violated
    return max((now - g.since).total_seconds(), 1e-3) if g.since is not None else 1e-3


def _resource_order(fr: FR) -> tuple:
    res = fr[1]
    rank = 0 if "gpu" in res.lower() else 1 if res == "cpu" else 2 if res == "memory" else 3
    return (rank, natural_key(res), natural_key(fr[0]))


def _quota_charts(d: Diagnosis, charted: list[str]) -> list[str]:
    """One bar chart per resource, the resources a violation is on first (GPUs, cpu, memory,
    the rest): a bar per charted ClusterQueue and flavor that has quota or usage of it."""
    queues = d.facts.queues
    violated = {fr[1] for v in d.violations for fr in v.resources}
    bars: dict[str, list[tuple[str, str]]] = {}      # resource -> [(queue, flavor)] in chart order
    for n in charted:
        g = queues[n].guarantee
        frs = {fr for m in (g.nominal, g.reserved, g.pending_fits) for fr, v in m.items() if v}
        for fr in sorted(frs, key=lambda fr: natural_key(fr[0])):
            bars.setdefault(fr[1], []).append((n, fr[0]))
    out = []
    for res in sorted(bars, key=lambda r: (r not in violated, _resource_order(("", r)))):
        pairs = bars[res]
        several = len({f for _, f in pairs}) > 1
        names = [f"{n} · {f}" if several else n for n, f in pairs]
        div, label = resource_unit(res)

        def col(m: str, pairs: list[tuple[str, str]] = pairs, res: str = res, div: float = div) -> list[float]:
            return [getattr(queues[n].guarantee, m).get((f, res), 0) / div for n, f in pairs]
        flavors = ", ".join(natural_sorted({f for _, f in pairs}))
        fig = quota_bars(names, col("nominal"), col("reserved"), col("pending_fits"),
                         title=f"{res} (flavor{'s' if several else ''} {flavors})", y_label=label,
                         violated=[queues[n].guarantee.violated for n, _ in pairs])
        out.append(figure_html(fig, anchor("quota-", res)))
    return out


def _queue_table(d: Diagnosis) -> str:
    rows: list[tuple] = []
    classes: list[str] = []
    now = d.facts.now
    for name in natural_sorted(d.facts.queues):
        q = d.facts.queues[name]
        g = q.guarantee
        said = ([f"violated for {fmt_duration(violated_seconds(q, now))}" if g.since is not None else "violated"]
                if g.violated else []) + ([f"inactive: {q.inactive_reason}"] if q.inactive_reason else [])
        state = "; ".join(said) or "ok"
        frs = sorted({*g.nominal, *g.reserved, *g.pending_fits}, key=_resource_order)
        amounts: Mapping[str, Mapping[FR, int]] = {"n": g.nominal, "r": g.reserved, "f": g.pending_fits}
        for i, fr in enumerate(frs or [("", "")]):
            cell = {k: format_amount(fr[1], m[fr]) if fr in m else "-" for k, m in amounts.items()}
            first = i == 0
            rows.append((name if first else "", (q.cohort or "-") if first else "", state if first else "",
                         len(q.pending) if first else "", f"{fr[0]}/{fr[1]}" if fr[0] else "-",
                         cell["n"], cell["r"], cell["f"]))
            classes.append("violated" if g.violated else "")
    return html_table(("ClusterQueue", "cohort", "guarantee", "pending", "flavor/resource", "nominal", "reserved",
                       "pending that fits"), rows, classes=classes, css_class="cluster-queues")


def render(diagnosis: Diagnosis, top: int | None = DEFAULT_TOP) -> str:
    """``diagnosis``: a doctor Diagnosis; figures come from its facts as numbers, never re-parsed."""
    d = diagnosis.to_json()
    facts = diagnosis.facts
    out = [f"<h1>kueue-doctor diagnosis</h1><p class='small'>Kueue {escape(d.get('kueueVersion') or 'version unknown')}"
           f", snapshot at {escape(d.get('snapshotTime', ''))}</p>"]
    out.append("<h2>Guarantee violations</h2>")
    if diagnosis.violations:
        rows = []
        for v in diagnosis.violations:
            for fr, x in v.resources.items():
                rows.append((v.cluster_queue, f"{fr[0]}/{fr[1]}", format_amount(fr[1], x.nominal),
                             format_amount(fr[1], x.reserved), format_amount(fr[1], x.pending_that_fits),
                             len(v.pending_workloads), _ts(v.since)))
        out.append(html_table(("ClusterQueue", "flavor/resource", "nominal", "reserved", "pending that fits",
                               "pending workloads", "since"), rows, css_class="violations"))
    elif d["verdict"] == "unknown":
        out.append(f"<p class='unknown'>Unknown: {escape(d['steps'][0]['summary'])}</p>")
    else:
        out.append("<p class='pass'>No guarantee violation.</p>")
    if facts.queues:
        ordered = worst_first(facts.queues, {n: violated_seconds(q, facts.now) for n, q in facts.queues.items()})
        charted, left_out = top_n(ordered, top)
        out.append("<h2>Quota per ClusterQueue</h2><p class='small'>Per flavor and resource, the ClusterQueues "
                   "worst first (violated longest first, names in red): quota reserved by admitted workloads, "
                   "pending work that fits the nominal quota stacked on it, and the nominal quota (black tick, "
                   "drawn on top); hover for values.</p>")
        out += _quota_charts(diagnosis, charted)
        out.append(not_charted_note(left_out))
        out.append("<h3>All ClusterQueues</h3>")
        out.append(_queue_table(diagnosis))
    out.append("<h2>Causes</h2>")
    if not d["causes"]:
        out.append("<p>None: no violation to explain.</p>" if d["verdict"] != "unknown" else
                   "<p class='unknown'>None found: the snapshot does not show whether a guarantee is violated.</p>")
    for i, c in enumerate(d["causes"], 1):
        out.append(f"<div class='cause'><b>{i}. {escape(c['id'])}</b> <span class='small'>({escape(c['confidence'])} "
                   f"confidence; {escape(', '.join(c['clusterQueues']) or 'cluster-wide')})</span>"
                   f"<p>{escape(c['summary'])}</p><ul>"
                   + "".join(f"<li>{escape(e)}</li>" for e in c["evidence"])
                   + f"</ul><p><i>Remedy:</i> {escape(c['remedy'])}</p></div>")
    out.append("<h2>The six steps</h2><table class='steps'><tr><th>step</th><th>status</th><th>summary</th></tr>")
    for s in d["steps"]:
        out.append(f"<tr><td>{s['step']}. {escape(s['name'])}</td><td class='{s['status']}'>{s['status']}</td>"
                   f"<td>{escape(s['summary'])}" + ("<ul>" + "".join(f"<li class='small'>{escape(e)}</li>"
                                                                      for e in s["evidence"][:20]) + "</ul>"
                                                       if s["evidence"] else "") + "</td></tr>")
    out.append("</table>")
    if d.get("warnings"):
        out.append("<h2>Warnings</h2><ul>" + "".join(
            f"<li><b>{escape(w['id'])}</b> ({escape(w['confidence'])}): {escape(w['summary'])}</li>"
            for w in d["warnings"]) + "</ul>")
    if d.get("releaseNotes"):
        out.append("<h2>Release notes</h2><ul>" + "".join(f"<li>{escape(n)}</li>" for n in d["releaseNotes"]) + "</ul>")
    return page("kueue-doctor diagnosis", out, CSS)
