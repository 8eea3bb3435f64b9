"""``kueue-doctor whatif --html``: the verdict, the suggested changes side by side, and for each
its workloads, whom it preempts and its patches (as ``kubectl patch`` commands and as YAML)."""
from __future__ import annotations

from html import escape
from typing import Any

import yaml

from .charts import html_table, page
from .whatif_text import POD_COLUMNS, ends, kubectl_patch, pod_rows

# a command wraps on the page and still copies as one line
CSS = ("table.lr td, table.lr th { text-align: left; }\n"
       "pre { white-space: pre-wrap; overflow-wrap: anywhere; }")


def _verdict(doc: dict[str, Any]) -> str:
    n = len(doc["suggestions"])
    if doc["admitsNow"]:
        pre = f", preempting {', '.join(doc['preempts'])}" if doc["preempts"] else ""
        return f"It admits now{pre}."
    if doc["status"] != "Pending":
        return f"It is {doc['status']}."
    return (f"It does not admit now; {n} change{'s' if n != 1 else ''} would, each checked by running the "
            "scheduling cycle on the changed state.")


def _suggestion(i: int, sug: dict[str, Any]) -> list[str]:
    out = [f'<h3 id="s{i}">{i}. {escape(sug["kind"])}: {escape(sug["summary"])}</h3>']
    if sug.get("workloads"):
        out.append(html_table(
            ["workload", "clusterqueue", "expected end", "latest end", "usage"],
            [(w["workload"], w["clusterQueue"], *ends(w),
              ", ".join(f"{u['flavor']}/{u['resource']}={u['amount']}" for u in w["usage"]))
             for w in sug["workloads"]], css_class="lr"))
    if sug.get("pods"):
        out.append(html_table(list(POD_COLUMNS), pod_rows(sug), css_class="lr"))
    if sug.get("changes"):
        out.append(html_table(["resource", "from", "to", "step"],
                              [(c["resource"], c["from"], c["to"], c.get("step")) for c in sug["changes"]]))
    if sug.get("preempts"):
        out.append(f"<p>preempts: {escape(', '.join(sug['preempts']))}</p>")
    if sug["patches"]:
        cmds = "\n".join(kubectl_patch(pt) for pt in sug["patches"])
        out.append(f"<pre>{escape(cmds)}</pre>")
        out.append("<details><summary>merge patches as YAML</summary><pre>"
                   f"{escape(yaml.safe_dump(sug['patches'], sort_keys=False))}</pre></details>")
    return out


def render(doc: dict[str, Any]) -> str:
    cq = doc["clusterQueue"]
    body = [f"<h1>What would admit {escape(doc['workload'])}</h1>",
            f'<p class="meta">ClusterQueue {escape(cq or "-")}, {escape(doc["status"])}, evaluated at '
            f"{escape(doc['evaluatedAt'])}</p>", f"<p><b>{escape(_verdict(doc))}</b></p>"]
    if doc["suggestions"]:
        body.append(html_table(["#", "kind", "change"],
                               [(f'<a href="#s{i}">{i}</a>', escape(s["kind"]), escape(s["summary"]))
                                for i, s in enumerate(doc["suggestions"], 1)],
                               raw_columns=frozenset({0, 1, 2}), css_class="lr"))
        for i, sug in enumerate(doc["suggestions"], 1):
            body += _suggestion(i, sug)
    if doc.get("notes"):
        body.append("<h2>Notes</h2><ul class=\"notes\">"
                    + "".join(f"<li>{escape(n)}</li>" for n in doc["notes"]) + "</ul>")
    return page(f"whatif {doc['workload']}", body, CSS, charts=False)
