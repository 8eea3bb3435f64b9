"""``simulate --html``: one offline HTML file (inline CSS and plotly.js, nothing fetched).

Tables of the run's summary (every ClusterQueue, in natural name order), then the quota use
over time of the ``top`` worst ClusterQueues (most violation seconds first): used vs nominal vs
the pending work nominal quota would hold, the intervals in which the queue's guarantee was
violated shaded (see kueue_doctor.guarantee), and faults, evictions and preemptions marked on
the time axis (``Recorder.marks``).
"""
from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..sim.metrics import primary_resource
from .charts import (
    Mark,
    anchor,
    figure_html,
    html_table,
    not_charted_note,
    page,
    quota_timeline,
    resource_unit,
    top_n,
    worst_first,
)
from .charts import natural_sorted as natural

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.simulator import Simulator

DEFAULT_TOP = 12


def violation_bands(rows: Sequence[Sequence[Any]]) -> list[tuple[float, float]]:
    """[start, end) intervals in which the queue was violated: a sample's state holds until the
    next sample, as the recorder counts violation seconds."""
    bands: list[tuple[float, float]] = []
    for i, row in enumerate(rows):
        if not row[4]:
            continue
        end = rows[i + 1][0] if i + 1 < len(rows) else row[0]
        if bands and bands[-1][1] == row[0]:
            bands[-1] = (bands[-1][0], end)
        else:
            bands.append((row[0], end))
    return bands


def changes(rows: Sequence[Sequence[Any]]) -> list[Sequence[Any]]:
    """The samples a step line needs: the first, each that differs from the one before, and the
    last (a step line through these is the same as through all of them)."""
    out = [r for i, r in enumerate(rows) if i == 0 or i == len(rows) - 1 or list(r[1:]) != list(rows[i - 1][1:])]
    return out


def _resource(sim: Simulator, cq: str) -> str:
    snap = sim.model.snapshot.cluster_queues.get(cq)
    return primary_resource(sorted({fr[1] for fr in snap.node.quotas})) if snap is not None else ""


def queue_chart(sim: Simulator, cq: str, data: dict, span: tuple[float, float]) -> str:
    rows = data["rows"]
    res = _resource(sim, cq)
    div, label = resource_unit(res)
    kept = changes(rows)
    marks = [Mark(m.t, m.kind, m.text) for m in sim.recorder.marks if m.cluster_queue in ("", cq)]
    fig = quota_timeline([r[0] for r in kept], [r[1] / div for r in kept], [r[2] / div for r in kept],
                         [r[3] / div for r in kept], bands=violation_bands(rows), marks=marks,
                         title=cq, y_label=label, span=span)
    return figure_html(fig, anchor("chart-", cq))


def render(sim: Simulator, summary: dict, top: int | None = DEFAULT_TOP) -> str:
    k = summary["kueue"]
    gates = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in k.get("featureGates", {}).items()) or "defaults"
    w = summary["workloads"]
    wall = summary.get("wallSeconds")
    parts = [f"<h1>{escape(summary['scenario'])}</h1>",
             f"<p class=\"meta\">Kueue {escape(k['version'])} (feature gates: {escape(gates)}); "
             f"{summary['simulatedSeconds'] / 3600:.2f} simulated hours, {summary['cycles']} scheduling cycles"
             + (f", {wall:.2f} s wall" if wall is not None else "") + f". Scenario: {escape(sim.scn.source)}</p>"]
    if sim.scn.notes:
        parts.append("<ul class=\"notes\">" + "".join(f"<li>{escape(n)}</li>" for n in sim.scn.notes) + "</ul>")
    parts.append("<h2>Workloads</h2>")
    parts.append(html_table(("created", "admitted", "finished", "preempted"),
                            [(w["created"], w["admitted"], w["finished"], w["preempted"])]))
    parts.append("<h2>Classes</h2>")
    parts.append(html_table(("class", "workloads", "avg time to admission (s)"),
                            [(name, c["count"], None if c["avgTimeToAdmissionMs"] is None
                              else f"{c['avgTimeToAdmissionMs'] / 1000:.1f}")
                             for name, c in summary["classes"].items()]))
    cqs = summary["clusterQueues"]
    series = sim.recorder.timeseries()
    ordered = worst_first((n for n in cqs if n in series), {n: v["violationSeconds"] for n, v in cqs.items()})
    charted, left_out = top_n(ordered, top)
    shown = set(charted)
    parts.append("<h2>Quota over time</h2><p class=\"meta\">Per ClusterQueue, worst first (most violation "
                 "seconds), in its GPUs (else CPUs): quota reserved by admitted workloads (used), the pending "
                 "work that nominal quota would hold stacked on it, and the nominal quota (dashed, drawn on top); "
                 "shaded: the queue's guarantee was violated, i.e. such work, or work admitted but not yet running "
                 f"(no node), waited longer than {sim.settings.min_wait:.0f} s. Under each chart: faults, evictions "
                 "of the queue's workloads (preempted) and preemptions its workloads made; hover for values.</p>")
    span = (0.0, max(float(summary["simulatedSeconds"]), 1.0))
    for cq in charted:
        parts.append(queue_chart(sim, cq, series[cq], span))
    parts.append(not_charted_note(left_out))
    parts.append("<h2>All ClusterQueues</h2>")
    parts.append(html_table(
        ("ClusterQueue", "avg usage % of nominal", "violation s", "admissions/h", "preemptions/h",
         "pending h", "admissions per pending h"),
        [(f'<a href="#{anchor("chart-", name)}">{escape(name)}</a>' if name in shown else escape(name),
          f"{v['avgUsagePercent']:.1f}", f"{v['violationSeconds']:.0f}", f"{v['admissionsPerHour']:.2f}",
          f"{v['preemptionsPerHour']:.2f}", f"{v['pendingHours']:.2f}",
          None if v["admissionsPerPendingHour"] is None else f"{v['admissionsPerPendingHour']:.2f}")
         for name, v in ((n, cqs[n]) for n in natural(cqs))],
        row_class=lambda r: "violated" if float(r[2]) > 0 else "", raw_columns=frozenset({0}),
        css_class="cluster-queues"))
    return page(summary["scenario"], parts)


def write_report(sim: Simulator, summary: dict, path: str, top: int | None = DEFAULT_TOP) -> None:
    try:
        Path(path).write_text(render(sim, summary, top), encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write the report: {e.strerror or e}", file=path) from None
