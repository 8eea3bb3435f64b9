"""``kueue-doctor sweep``'s offline page: the Pareto front over the spec's first two
objectives (colour: the third), the front as a table, and each front configuration's changes
against the base scenario as YAML."""
from __future__ import annotations

import math
from html import escape
from pathlib import Path
from typing import Any

import yaml

from .charts import Point, figure_html, html_table, page, pareto_scatter


def _num(v: Any) -> float | None:
    return None if not isinstance(v, int | float) or (isinstance(v, float) and math.isnan(v)) else float(v)


def _scatter(outcome: Any) -> str:
    objectives = outcome.spec.objectives
    if len(objectives) < 2:
        return ""
    names = [o.lstrip("-+") for o in objectives[:3]]
    goals = ["max" if o.startswith("-") else "min" for o in objectives[:3]]
    points = [Point(e["config"], ", ".join(f"{k}={v}" for k, v in e["params"].items()),
                    [_num(e[n]) for n in names], e["config"] in outcome.front)
              for e in outcome.summary]
    return figure_html(pareto_scatter(names, goals, points), "pareto")


def _diff(outcome: Any, entry: dict[str, Any]) -> str:
    changes = []
    for p in outcome.spec.parameters:
        value, base = entry["params"][p.name], outcome.base_values[p.name]
        if value == base:
            continue
        change: dict[str, Any] = {"path": p.knob.path}
        if p.scale:
            change["scale"] = value
        else:
            change.update({"from": base, "to": value})
        changes.append(change)
    return yaml.safe_dump(changes or [{"unchanged": "the base scenario"}], sort_keys=False)


def write_report(outcome: Any, path: str) -> None:
    spec = outcome.spec
    objectives = [o.lstrip("-+") for o in spec.objectives]
    front = [e for e in outcome.summary if e["config"] in outcome.front]
    params = [p.name for p in spec.parameters]
    table = html_table(["config", *params, *objectives],
                       [[e["config"], *(e["params"][p] for p in params), *(e[o] for o in objectives)]
                        for e in front])
    diffs = "".join(f"<h3>config {e['config']} ({escape(e['configId'])})</h3><pre>{escape(_diff(outcome, e))}</pre>"
                    for e in front)
    body = [f"<h1>Sweep {escape(spec.name)}</h1>",
            f"<p>{len(outcome.configurations)} configurations x {spec.replicates} replicates of "
            f"<code>{escape(spec.scenario)}</code>; seed {spec.seed}. Objectives: "
            + ", ".join(f"{'maximise' if o.startswith('-') else 'minimise'} {escape(o.lstrip('-+'))}"
                        for o in spec.objectives) + ".</p>",
            _scatter(outcome), "<h2>Pareto front</h2>", table,
            "<h2>Changes against the base scenario</h2>", diffs]
    Path(path).write_text(page(f"sweep {spec.name}", body))
