"""``kueue-doctor diff --html``: the verdict with what breaks, then the diff as a before/after
table per ClusterQueue (guarantee, head, pending, quota, workloads admitted or preempted), and the
workloads and flavor capacity that change."""
from __future__ import annotations

from collections import defaultdict
from html import escape
from typing import Any

from .charts import html_table, natural_sorted, page

CSS = ("tr.broken td { background: #fbeaea; } tr.restored td { background: #e9f6ee; }\n"
       "table.lr td, table.lr th { text-align: left; }")


def _arrow(before: Any, after: Any) -> str:
    return str(before) if before == after else f"{before} → {after}"


def _per_queue(doc: dict[str, Any]) -> list[tuple[str, list[Any]]]:
    """One row per ClusterQueue the change touches, with the class that colours it."""
    rows: dict[str, dict[str, Any]] = defaultdict(dict)
    for g in doc["guarantees"]:
        rows[g["clusterQueue"]]["guarantee"] = g
    for h in doc["headOrder"]:
        rows[h["clusterQueue"]]["head"] = h
    for q in doc["quota"]:
        rows[q["clusterQueue"]].setdefault("quota", []).append(q)
    for field in ("admitted", "preempted", "notAdmitted"):
        for w in doc[field]:
            rows[w["clusterQueue"]].setdefault(field, []).append(w["workload"])
    out = []
    for cq in natural_sorted(rows):
        r = rows[cq]
        g, h = r.get("guarantee"), r.get("head")
        same = "(same)"
        quota = "; ".join(f"{q['flavor']}/{q['resource']} {_arrow(q['nominalBefore'], q['nominalAfter'])}"
                          + (" (below usage)" if q["belowUsage"] else "") for q in r.get("quota", [])) or same
        cls = ("broken" if (g and g["change"] == "broken") or r.get("preempted")
               else "restored" if g and g["change"] == "restored" else "")
        out.append((cls, [cq, g["before"] if g else same, g["after"] if g else same,
                          (h["headBefore"] or "-") if h else same, (h["headAfter"] or "-") if h else same,
                          h["pendingBefore"] if h else same, h["pendingAfter"] if h else same, quota,
                          len(r.get("admitted", [])), len(r.get("preempted", [])), len(r.get("notAdmitted", []))]))
    return out


def render(doc: dict[str, Any]) -> str:
    applied = ", ".join(f"{o['kind']} {o['name']} {o['action']}" for o in doc["objects"]) or "nothing"
    body = ["<h1>Scheduling diff</h1>",
            f'<p class="meta">{escape(applied)} on {escape(doc["snapshot"])}, evaluated at '
            f"{escape(doc['evaluatedAt'])}; proposed: {escape(', '.join(doc['proposed']))}</p>"]
    if doc["breaks"]:
        body.append("<p><b>The change breaks what holds today:</b></p><ul>"
                    + "".join(f"<li>{escape(r)}</li>" for r in doc["breakReasons"]) + "</ul>")
    else:
        body.append("<p><b>The change breaks nothing that holds today.</b></p>")
    queues = _per_queue(doc)
    if queues:
        body.append("<h2>Before and after, per ClusterQueue</h2>")
        body.append(html_table(["clusterqueue", "guarantee before", "guarantee after", "head before", "head after",
                                "pending before", "pending after", "nominal quota", "newly admitted",
                                "newly preempted", "no longer admitted"],
                               [r for _, r in queues], classes=[c for c, _ in queues], css_class="lr"))
    else:
        body.append("<p>No scheduling change: the engine admits and preempts the same workloads, every "
                    "guarantee and head stays as it is.</p>")
    for title, field in (("Newly admitted", "admitted"), ("Newly preempted", "preempted"),
                         ("No longer admitted", "notAdmitted")):
        if doc[field]:
            body.append(f"<h2>{title} ({len(doc[field])})</h2>")
            body.append(html_table(["workload", "clusterqueue"],
                                   [(w["workload"], w["clusterQueue"]) for w in doc[field]]))
    if doc["headOrder"]:
        body.append("<h2>Queue order after the change</h2>")
        body.append(html_table(["clusterqueue", "first workloads after"],
                               [(h["clusterQueue"], ", ".join(h["after"])) for h in doc["headOrder"]], css_class="lr"))
    if doc["capacity"]:
        body.append("<h2>Nominal quota against the Ready nodes each flavor selects</h2>")
        body.append(html_table(["flavor", "resource", "nominal total", "ready capacity", "short"],
                               [(c["flavor"], c["resource"], _arrow(c["nominalBefore"], c["nominalAfter"]),
                                 _arrow(c["capacityBefore"], c["capacityAfter"]),
                                 _arrow(c["shortBefore"], c["shortAfter"])) for c in doc["capacity"]],
                               classes=["broken" if c["shortGrows"] else "" for c in doc["capacity"]]))
    return page("scheduling diff", body, CSS, charts=False)
