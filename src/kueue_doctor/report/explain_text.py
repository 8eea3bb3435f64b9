"""``explain`` for people: one line per link of the chain of reasons, the quota arithmetic up
the cohort tree as a table that fits 80 columns (limits and the subtree under ``-o wide``), log
lines as one short line each (the raw line under ``-v``)."""
from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from ..api.quantity import Quantity, human_amount, human_unit
from ..logs.brief import brief
from .text import Column, Table, plain

TOPIC_WIDTH = 10
AMOUNTS = ("nominal", "subtreeQuota", "used", "borrowingLimit", "lendingLimit", "available", "maxAvailable")


def render(con: Console, out: dict[str, Any], wide: bool = False, verbose: bool = False) -> None:
    con.print(f"[bold]{escape(out['workload'])}[/bold] (Kueue {escape(out['kueueVersion'] or 'version unknown')}, "
              f"snapshot at {out['snapshotTime']})")
    pad = " " * (TOPIC_WIDTH + 2)
    for item in out["chain"]:
        topic, data = item["topic"], item.get("data") or {}
        con.print(f"[cyan]{topic:>{TOPIC_WIDTH}}[/cyan]  {escape(item['text'])}")
        if topic == "quota" and data.get("rows"):
            quota_table(data["rows"]).print(con, wide, indent="  ")
        elif topic == "topology" and wide and data.get("domains"):
            domain_table(data).print(con, wide, indent="  ")
        elif topic == "logs":
            for line in data.get("lines", []):
                plain(con, pad + brief(line, omit=("workload",)))
                if verbose:
                    plain(con, pad + "  raw: " + line, style="dim")


def quota_table(rows: list[dict[str, Any]]) -> Table:
    t = Table([Column("quota node"), Column("flavor/resource"), Column("nominal", right=True),
               Column("subtree", right=True, wide=True), Column("used", right=True),
               Column("borrowing limit", right=True, wide=True), Column("lending limit", right=True, wide=True),
               Column("available", right=True), Column("max", right=True, wide=True)])
    # amounts of one resource read in one unit, whatever the node
    seen: dict[str, list[int]] = {}
    parsed = []
    for r in rows:
        amounts = {k: (None if r.get(k) is None else Quantity.parse(r[k]).amount(r["resource"])) for k in AMOUNTS}
        parsed.append(amounts)
        seen.setdefault(r["resource"], []).extend(a for a in amounts.values() if a is not None)
    for r, amounts in zip(rows, parsed, strict=True):
        unit = human_unit(r["resource"], seen[r["resource"]])
        cells = [None if a is None else human_amount(r["resource"], a, unit) for a in amounts.values()]
        t.add(r["node"], f"{r['flavor']}/{r['resource']}", *cells)
    return t


def domain_table(data: dict[str, Any]) -> Table:
    """``-o wide``: the free capacity of the domains with most room at the pod set's level, exact."""
    resources = sorted({r for d in data["domains"] for r in d["free"]})
    t = Table([Column("domain"), Column("pods", right=True),
               *[Column(f"free {r}", right=True) for r in resources]])
    for d in data["domains"]:
        t.add(d["domain"], f"{d['pods']}/{data['count']}", *[d["free"].get(r, "0") for r in resources])
    return t
