"""``kueue-doctor sweep`` as text: what ran, then the Pareto front, one row per configuration."""
from __future__ import annotations

import json
import math
from typing import Any

from rich.console import Console

from ..duration import go
from .text import Column, Table, plain


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, dict | list):
        return json.dumps(v, sort_keys=True)
    return str(v)


def _measure(name: str, v: Any) -> str:
    if not isinstance(v, int | float) or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if name.endswith(("Wait", "Seconds")):
        return go(float(v))
    if name.endswith(("Utilisation", "Percent")):
        return f"{v:.1f}%"
    return f"{v:g}"


def render(con: Console, body: dict[str, Any], wide: bool) -> None:
    plain(con, f"{body['configurations']} configurations x {body['replicates']} replicates: "
               f"{body['ran']} run, {body['skipped']} already in {body['out']}")
    front = body["paretoFront"]
    objectives = [o.lstrip("-+") for o in body["objectives"]]
    if not front:
        plain(con, "no configuration has every objective measured: no Pareto front")
        return
    params = list(front[0]["params"])
    goals = ", ".join(f"{'max' if o.startswith('-') else 'min'} {o.lstrip('-+')}" for o in body["objectives"])
    plain(con, f"\nPareto front ({goals}; mean over replicates):")
    cols = [Column("config", right=True), Column("id", wide=True)]
    cols += [Column(p) for p in params] + [Column(o, right=True) for o in objectives]
    t = Table(cols)
    for e in front:
        t.add(e["config"], e["configId"], *(_value(e["params"][p]) for p in params),
              *(_measure(o, e[o]) for o in objectives))
    t.print(con, wide)
    plain(con, "\nbase: " + ", ".join(f"{k}={_value(v)}" for k, v in body["base"].items()))
    for f in body["files"]:
        plain(con, f"wrote {f}")
