"""``whatif`` for people: the verdict, then one block per suggested change with its patches
as ``kubectl patch`` commands."""
from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from ..duration import go
from .text import Column, Table, plain

# kubectl's resource names for the kinds whatif patches
RESOURCE = {"ClusterQueue": "clusterqueue", "Cohort": "cohort", "LocalQueue": "localqueue", "Workload": "workload"}


def kubectl_patch(pt: dict[str, Any]) -> str:
    ns = f" -n {pt['namespace']}" if pt.get("namespace") else ""
    body = json.dumps(pt["mergePatch"], separators=(",", ":"))
    return f"kubectl patch {RESOURCE.get(pt['kind'], pt['kind'].lower())} {pt['name']}{ns} --type merge -p '{body}'"


def ends(w: dict[str, Any]) -> tuple[str, str]:
    """When a workload that must finish is expected to end (median of the history), and at the latest."""
    typical = w.get("expectedEndIn")
    return ("unknown" if typical is None else go(round(typical)),
            w["endsIn"] if isinstance(w["endsIn"], str) else go(round(w["endsIn"])))


POD_COLUMNS = ("pod", "node", "owner", "requests")


def pod_rows(sug: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """move: the pods that must run elsewhere, a row each."""
    return [(b["pod"], b["node"], b["owner"] or "-", ", ".join(f"{r}={v}" for r, v in b["requests"].items()))
            for b in sug.get("pods", [])]


def render(con: Console, doc: dict[str, Any], wide: bool = False) -> None:
    name, cq = doc["workload"], doc["clusterQueue"]
    where = f" (ClusterQueue {cq})" if cq else ""
    if doc["status"] != "Pending" and not doc["suggestions"]:
        plain(con, f"Workload {name}{where}: {doc['status']}: {'; '.join(doc['notes'])}")
        return
    if doc["admitsNow"]:
        plain(con, f"Workload {name}{where} admits now" + (f", preempting {', '.join(doc['preempts'])}"
                                                          if doc["preempts"] else ""))
    else:
        plain(con, f"Workload {name}{where} does not admit now; "
                   f"{len(doc['suggestions'])} change{'s' if len(doc['suggestions']) != 1 else ''} would "
                   f"(each checked by running the scheduling cycle on the changed state)")
    if doc["suggestions"]:
        plain(con, "")
        t = Table([Column("#", right=True), Column("kind"), Column("change")])
        for i, sug in enumerate(doc["suggestions"], 1):
            t.add(i, sug["kind"], sug["summary"])
        t.print(con, wide)
    for i, sug in enumerate(doc["suggestions"], 1):
        plain(con, "")
        plain(con, f"{i}. {sug['kind']}: {sug['summary']}")
        if sug.get("workloads"):
            t = Table([Column("workload"), Column("clusterqueue"), Column("expected end", right=True),
                       Column("latest end", right=True), Column("usage", wide=True)])
            for w in sug["workloads"]:
                t.add(w["workload"], w["clusterQueue"], *ends(w),
                      ", ".join(f"{u['flavor']}/{u['resource']}={u['amount']}" for u in w["usage"]))
            t.print(con, wide, indent="   ")
        if sug.get("pods"):
            t = Table([Column(c) for c in POD_COLUMNS])
            for row in pod_rows(sug):
                t.add(*row)
            t.print(con, wide, indent="   ")
        if sug.get("preempts"):
            plain(con, f"   preempts: {', '.join(sug['preempts'])}")
        for pt in sug["patches"]:
            plain(con, f"   {kubectl_patch(pt)}")
    for note in doc["notes"] if wide or doc["status"] == "Pending" else []:
        plain(con, f"note: {note}")
