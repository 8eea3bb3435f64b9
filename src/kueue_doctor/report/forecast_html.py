"""``kueue-doctor forecast --html``: one offline page with the forecast band over time (the
share of simulated futures admitted by each moment, the queue position's median and P10-P90),
the percentiles, who is ahead and the runtime model the futures drew from."""
from __future__ import annotations

from html import escape
from typing import Any

from ..duration import go
from .charts import admission_band, figure_html, html_table, page
from .forecast_text import _when


def _head(doc: dict[str, Any]) -> list[str]:
    return [f"<h1>Forecast for {escape(doc['workload'])}</h1>",
            f'<p class="meta">snapshot {escape(doc["snapshotTime"])}, Kueue '
            f"{escape(doc.get('kueueVersion') or 'latest modelled')}</p>"]


def render(doc: dict[str, Any]) -> str:
    body = _head(doc)
    if doc["state"] != "Pending":
        body.append(f"<p>The workload is {escape(doc['state'])}: nothing to forecast.</p>")
        return page(f"forecast {doc['workload']}", body)
    ahead = doc["aheadInQueue"]
    rm = doc["runtimeModel"]
    body.append(f"<p>Pending in ClusterQueue <code>{escape(doc['clusterQueue'] or '-')}</code>, position "
                f"{len(ahead) + 1}. Runtimes from {escape(rm['source'])}.</p>")
    fc = doc.get("forecast")
    if fc is None:
        body.append(f"<p><b>Forecast unknown</b>: {escape(doc.get('unknown', ''))}</p>")
        return page(f"forecast {doc['workload']}", body)
    if doc.get("note"):
        body.append(f"<p><b>Admitted after 0s</b>: {escape(doc['note'])}.</p>")
        return page(f"forecast {doc['workload']}", body)
    n, horizon = doc["replicateCount"], doc["horizonSeconds"]
    body.append(f"<p>Admitted within {escape(go(horizon))} in <b>{fc['admittedWithinHorizon']} of {n}</b> "
                f"simulated futures (seed {doc['seed']}).</p>")
    rows = [(q.upper(), *_when(doc["snapshotTime"], fc["percentiles"][q], horizon)) for q in ("p10", "p50", "p90")]
    body.append(html_table(["percentile", "admitted after", "at"], rows))
    reps = fc["replicates"]
    fig = admission_band([r["admittedAfterSeconds"] for r in reps],
                         [[(t, p) for t, p in r["positions"]] for r in reps], fc["percentiles"], horizon)
    body.append(figure_html(fig, "forecast-band"))
    if ahead:
        body.append(f"<h2>Ahead in the queue ({len(ahead)})</h2>")
        body.append(html_table(["#", "workload"], [(i, k) for i, k in enumerate(ahead, 1)]))
    body.append("<h2>Runtime model</h2>")
    hist = rm.get("historyByClusterQueue") or {}
    body.append(html_table(["source", "fixed runtime", "finished workloads learned from", "Job deadlines"],
                           [(rm["source"], go(rm["fixedSeconds"]) if rm.get("fixedSeconds") else "-",
                             ", ".join(f"{q}: {c}" for q, c in sorted(hist.items())) or "none",
                             rm.get("jobDeadlines", 0))]))
    body.append("<h2>Futures</h2>")
    body.append(html_table(["seed", "admitted after"],
                           [(r["seed"], _when(doc["snapshotTime"], r["admittedAfterSeconds"], horizon)[0])
                            for r in reps]))
    return page(f"forecast {doc['workload']}", body)
