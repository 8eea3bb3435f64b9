"""``simulate --html``: one self-contained HTML file (inline CSS and SVG, nothing fetched).

Tables of the run's summary, then per ClusterQueue its quota use over time: used vs nominal
vs the pending work nominal quota would hold, with the intervals in which the queue's
guarantee was violated shaded (see kueue_doctor.guarantee).
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from ..sim.metrics import primary_resource
from .svg import CSS as SVG_CSS
from .svg import Series, line_chart

if TYPE_CHECKING:  # pragma: no cover
    from ..sim.simulator import Simulator

PAGE_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1040px; color: #222; }
h1 { font-size: 20px; margin-bottom: 4px; } h2 { font-size: 16px; margin-top: 28px; }
h3 { font-size: 14px; margin: 18px 0 2px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f4f4f4; font-weight: 600; }
.meta { color: #555; } .notes li { color: #555; }
.violated td { background: #fbeaea; }
"""


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


def _table(head: Sequence[str], rows: Iterable[Sequence[Any]], row_class=lambda r: "") -> str:
    out = ["<table><tr>", *(f"<th>{escape(h)}</th>" for h in head), "</tr>"]
    for r in rows:
        cls = row_class(r)
        out.append(f'<tr class="{cls}">' if cls else "<tr>")
        out += [f"<td>{escape('-' if v is None else str(v))}</td>" for v in r]
        out.append("</tr>")
    out.append("</table>")
    return "".join(out)


def _unit(sim: Simulator, cq: str) -> tuple[str, float]:
    """The resource a queue is plotted in and the divisor from Kueue's integer amount."""
    snap = sim.model.snapshot.cluster_queues.get(cq)
    res = primary_resource(sorted({fr[1] for fr in snap.node.quotas})) if snap is not None else ""
    return (res, 1000.0) if res == "cpu" else (res, 1.0)


def queue_chart(sim: Simulator, cq: str, data: dict) -> str:
    rows = data["rows"]
    res, div = _unit(sim, cq)
    col = lambda i: [(r[0], r[i] / div) for r in rows]  # noqa: E731
    series = [Series("nominal", col(2), "#555", dash="6 4"),
              Series("pending that fits nominal", col(3), "#ff7f0e"),
              Series("used", col(1), "#1f77b4", width=2.0)]
    return line_chart(series, bands=violation_bands(rows), band_label="guarantee violated",
                      y_label=res or "quota")


def render(sim: Simulator, summary: dict) -> str:
    k = summary["kueue"]
    gates = ", ".join(f"{g}={'true' if v else 'false'}" for g, v in k.get("featureGates", {}).items()) or "defaults"
    w = summary["workloads"]
    wall = summary.get("wallSeconds")
    parts = [f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{escape(summary['scenario'])}</title>",
             f"<style>{PAGE_CSS}{SVG_CSS}</style></head><body>",
             f"<h1>{escape(summary['scenario'])}</h1>",
             f"<p class=\"meta\">Kueue {escape(k['version'])} (feature gates: {escape(gates)}); "
             f"{summary['simulatedSeconds'] / 3600:.2f} simulated hours, {summary['cycles']} scheduling cycles"
             + (f", {wall:.2f} s wall" if wall is not None else "") + f". Scenario: {escape(sim.scn.source)}</p>"]
    if sim.scn.notes:
        parts.append("<ul class=\"notes\">" + "".join(f"<li>{escape(n)}</li>" for n in sim.scn.notes) + "</ul>")
    parts.append("<h2>Workloads</h2>")
    parts.append(_table(("created", "admitted", "finished", "preempted"),
                        [(w["created"], w["admitted"], w["finished"], w["preempted"])]))
    parts.append("<h2>Classes</h2>")
    parts.append(_table(("class", "workloads", "avg time to admission (s)"),
                        [(name, c["count"], None if c["avgTimeToAdmissionMs"] is None
                          else f"{c['avgTimeToAdmissionMs'] / 1000:.1f}") for name, c in summary["classes"].items()]))
    parts.append("<h2>ClusterQueues</h2>")
    cqs = summary["clusterQueues"]
    parts.append(_table(
        ("ClusterQueue", "avg usage % of nominal", "violation s", "admissions/h", "preemptions/h",
         "pending h", "admissions per pending h"),
        [(name, f"{v['avgUsagePercent']:.1f}", f"{v['violationSeconds']:.0f}", f"{v['admissionsPerHour']:.2f}",
          f"{v['preemptionsPerHour']:.2f}", f"{v['pendingHours']:.2f}",
          None if v["admissionsPerPendingHour"] is None else f"{v['admissionsPerPendingHour']:.2f}")
         for name, v in cqs.items()],
        row_class=lambda r: "violated" if float(r[2]) > 0 else ""))
    parts.append("<h2>Quota over time</h2><p class=\"meta\">Per ClusterQueue, in its GPUs (else CPUs): "
                 "quota reserved by admitted workloads (used), its nominal quota, and the pending work that "
                 "nominal quota would hold; shaded: the queue's guarantee was violated, i.e. such work, or work "
                 "admitted but not yet running (no node), waited longer than "
                 f"{sim.settings.min_wait:.0f} s.</p>")
    for cq, data in sim.recorder.timeseries().items():
        parts.append(f"<h3 id=\"cq-{escape(cq)}\">{escape(cq)}</h3>{queue_chart(sim, cq, data)}")
    parts.append("</body></html>\n")
    return "".join(parts)


def write_report(sim: Simulator, summary: dict, path: str) -> None:
    try:
        Path(path).write_text(render(sim, summary), encoding="utf-8")
    except OSError as e:
        raise InputError(f"cannot write the report: {e.strerror or e}", file=path) from None
