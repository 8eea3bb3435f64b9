"""``diff`` for people: the verdict, then one table per kind of change, kubectl-style."""
from __future__ import annotations

from typing import Any

from rich.console import Console

from .text import Column, Table, plain


def _changed(doc: dict[str, Any]) -> bool:
    return any(doc[k] for k in ("admitted", "preempted", "notAdmitted", "guarantees", "headOrder", "quota",
                                "capacity"))


def render(con: Console, doc: dict[str, Any], wide: bool = False) -> None:
    configured = [o for o in doc["objects"] if o["action"] != "unchanged"]
    plain(con, f"{len(doc['objects'])} object(s) applied to {doc['snapshot']}: "
               + (", ".join(f"{o['kind']} {o['name']} {o['action']}" for o in configured) or "all unchanged"))
    if not _changed(doc):
        plain(con, "no scheduling change: the engine admits and preempts the same workloads, every guarantee "
                   "and head stays as it is")
        return
    verdict = "BREAKS what holds today" if doc["breaks"] else "breaks nothing that holds today"
    plain(con, f"Scheduling diff: {verdict}")
    for reason in doc["breakReasons"]:
        plain(con, f"  - {reason}")
    if doc["guarantees"]:
        plain(con, "")
        t = Table([Column("clusterqueue"), Column("guarantee"), Column("before"), Column("after"), Column("why")])
        for g in doc["guarantees"]:
            t.add(g["clusterQueue"], g["change"], g["before"], g["after"], g["reason"])
        t.print(con, wide)
    for title, rows, extra in (("newly admitted", doc["admitted"], None),
                               ("newly preempted", doc["preempted"], "readmitted"),
                               ("no longer admitted", doc["notAdmitted"], None)):
        if not rows:
            continue
        plain(con, "")
        plain(con, f"{title}: {len(rows)}")
        cols = [Column("workload"), Column("clusterqueue")] + ([Column(extra)] if extra else [])
        t = Table(cols)
        for r in rows:
            t.add(r["workload"], r["clusterQueue"], *(["yes" if r[extra] else "no"] if extra else []))
        t.print(con, wide, indent="  ")
    if doc["headOrder"]:
        plain(con, "")
        t = Table([Column("clusterqueue"), Column("head before"), Column("head after"),
                   Column("pending", right=True), Column("order after", wide=True)])
        for h in doc["headOrder"]:
            t.add(h["clusterQueue"], h["headBefore"] or "-", h["headAfter"] or "-",
                  f"{h['pendingBefore']} -> {h['pendingAfter']}", ", ".join(h["after"]))
        t.print(con, wide)
    if doc["quota"]:
        plain(con, "")
        t = Table([Column("clusterqueue"), Column("flavor"), Column("resource"), Column("nominal"),
                   Column("usage", right=True), Column("below usage")])
        for q in doc["quota"]:
            t.add(q["clusterQueue"], q["flavor"], q["resource"], f"{q['nominalBefore']} -> {q['nominalAfter']}",
                  q["usage"], "yes" if q["belowUsage"] else "no")
        t.print(con, wide)
    if doc["capacity"]:
        plain(con, "")
        t = Table([Column("flavor"), Column("resource"), Column("nominal total"), Column("ready capacity"),
                   Column("short")])
        for c in doc["capacity"]:
            t.add(c["flavor"], c["resource"], f"{c['nominalBefore']} -> {c['nominalAfter']}",
                  f"{c['capacityBefore']} -> {c['capacityAfter']}", f"{c['shortBefore']} -> {c['shortAfter']}")
        t.print(con, wide)
