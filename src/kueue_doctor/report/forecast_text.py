"""``kueue-doctor forecast`` as text: the band of admission times, the runtime model, who is ahead."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from rich.console import Console

from ..duration import go
from .text import Column, Table, plain

AHEAD_SHOWN = 10


def _when(snapshot: str, seconds: float | None, horizon: float) -> tuple[str, str]:
    if seconds is None:
        return f"> {go(horizon)}", "-"
    t = datetime.fromisoformat(snapshot.replace("Z", "+00:00")) + timedelta(seconds=seconds)
    return go(seconds), t.strftime("%Y-%m-%dT%H:%M:%SZ")


def render(con: Console, doc: dict[str, Any], wide: bool) -> None:
    key = doc["workload"]
    if doc["state"] != "Pending":
        plain(con, f"{key} is {doc['state']}: nothing to forecast")
        return
    ahead = doc["aheadInQueue"]
    plain(con, f"{key} is pending in ClusterQueue {doc['clusterQueue']}, position {len(ahead) + 1}"
               + (f" (ahead: {', '.join(ahead[:AHEAD_SHOWN])}" + (f" and {len(ahead) - AHEAD_SHOWN} more" if
                                                                    len(ahead) > AHEAD_SHOWN else "") + ")"
                  if ahead else ""))
    rm = doc["runtimeModel"]
    plain(con, f"runtimes from {rm['source']}")
    fc = doc.get("forecast")
    if fc is None:
        plain(con, f"forecast unknown: {doc.get('unknown', '')}")
        return
    if doc.get("note"):
        plain(con, f"admitted after 0s: {doc['note']}")
        return
    n = doc["replicateCount"]
    plain(con, f"admitted within {go(doc['horizonSeconds'])} in {fc['admittedWithinHorizon']} of {n} simulated "
               f"futures (seed {doc['seed']}, Kueue {doc['kueueVersion'] or 'latest modelled'}):")
    t = Table([Column("percentile"), Column("after", right=True), Column("at")])
    for q in ("p10", "p50", "p90"):
        after, at = _when(doc["snapshotTime"], fc["percentiles"][q], doc["horizonSeconds"])
        t.add(q.upper(), after, at)
    t.print(con, wide)
    if wide:
        r = Table([Column("seed", right=True), Column("admitted after", right=True)])
        for rep in fc["replicates"]:
            r.add(rep["seed"], _when(doc["snapshotTime"], rep["admittedAfterSeconds"], doc["horizonSeconds"])[0])
        plain(con, "")
        r.print(con, wide)
