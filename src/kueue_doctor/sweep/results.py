"""The results folder: a journal of finished rows (what makes a sweep resumable), the tables
(``results.parquet``, ``results.csv``, one row per configuration x replicate, sorted), and the
Pareto front over the spec's objectives."""
from __future__ import annotations

import csv
import hashlib
import json
import math
from pathlib import Path
from typing import Any

from ..errors import InputError
from .spec import SweepSpec

JOURNAL = "journal.jsonl"
MANIFEST = "sweep.json"


def fingerprint(spec: SweepSpec) -> str:
    """What the rows depend on besides the configuration: the base scenario's bytes and every
    spec setting but the parameter list (a configuration's id covers its own values)."""
    h = hashlib.sha256(Path(spec.scenario).read_bytes())
    settings = {"replicates": spec.replicates, "seed": spec.seed, "until": spec.until, "jitter": spec.jitter,
                "focus": spec.focus, "samples": spec.samples}
    h.update(json.dumps(settings, sort_keys=True).encode())
    return h.hexdigest()[:16]


class ResultsDir:
    def __init__(self, path: str, spec: SweepSpec, fresh: bool = False):
        self.path = Path(path)
        self.spec = spec
        self.path.mkdir(parents=True, exist_ok=True)
        manifest = self.path / MANIFEST
        fp = fingerprint(spec)
        if manifest.exists() and not fresh:
            try:
                old = json.loads(manifest.read_text()).get("fingerprint")
            except (OSError, ValueError):
                old = None
            if old != fp:
                raise InputError(f"{self.path} holds results of another spec or base scenario: use another --out "
                                 "or --restart to discard them")
        if fresh:
            (self.path / JOURNAL).unlink(missing_ok=True)
        manifest.write_text(json.dumps({"spec": spec.file, "scenario": spec.scenario, "fingerprint": fp},
                                       indent=2) + "\n")

    def done(self) -> dict[tuple[str, int], dict[str, Any]]:
        """Rows already journalled, by (configuration id, replicate); a torn last line is dropped."""
        rows: dict[tuple[str, int], dict[str, Any]] = {}
        journal = self.path / JOURNAL
        if not journal.exists():
            return rows
        for line in journal.read_text().splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            rows[(row["configId"], row["replicate"])] = row
        return rows

    def append(self, row: dict[str, Any]) -> None:
        with (self.path / JOURNAL).open("a") as f:
            f.write(json.dumps(row, sort_keys=True, allow_nan=True) + "\n")

    def write_tables(self, rows: list[dict[str, Any]]) -> list[Path]:
        rows = sorted(rows, key=lambda r: (r["config"], r["replicate"]))
        columns = _columns(rows)
        csv_path = self.path / "results.csv"
        with csv_path.open("w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(columns)
            for r in rows:
                w.writerow([_cell(r.get(c)) for c in columns])
        paths = [csv_path]
        import pyarrow as pa
        import pyarrow.parquet as pq
        table = pa.Table.from_pylist([{c: _arrow(r.get(c)) for c in columns} for r in rows])
        parquet = self.path / "results.parquet"
        pq.write_table(table, parquet)
        paths.append(parquet)
        return paths


def _columns(rows: list[dict[str, Any]]) -> list[str]:
    keys = sorted({k for r in rows for k in r})
    head = ["config", "configId", "replicate", "seed"]
    # parameters in the spec's order (each row holds them in that order)
    params = [k for k in (rows[0] if rows else {}) if k.startswith("param.")]
    totals = [k for k in keys if k not in head and "." not in k]
    queues = [k for k in keys if "." in k and not k.startswith("param.")]
    return head + params + totals + queues


def _cell(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    if isinstance(v, dict | list):
        return json.dumps(v, sort_keys=True)
    return str(v)


def _arrow(v: Any) -> Any:
    if isinstance(v, dict | list):
        return json.dumps(v, sort_keys=True)
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def summarise(rows: list[dict[str, Any]], objectives: list[str]) -> list[dict[str, Any]]:
    """One entry per configuration: its parameters and the mean of each objective over replicates."""
    by: dict[int, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["config"], []).append(r)
    out = []
    for index in sorted(by):
        reps = by[index]
        entry: dict[str, Any] = {"config": index, "configId": reps[0]["configId"],
                                 "params": {k.removeprefix("param."): v for k, v in reps[0].items()
                                            if k.startswith("param.")},
                                 "replicates": len(reps)}
        for o in objectives:
            col = o.lstrip("-+")
            vals = [float(r[col]) for r in reps if isinstance(r.get(col), int | float) and not math.isnan(r[col])]
            entry[col] = round(sum(vals) / len(vals), 6) if vals else math.nan
        out.append(entry)
    return out


def pareto_front(entries: list[dict[str, Any]], objectives: list[str]) -> list[int]:
    """Indices (``config``) of the configurations no other one dominates; an objective named
    ``-x`` is maximised, others minimised; a configuration with a missing objective is never on it."""
    def vec(e: dict[str, Any]) -> list[float] | None:
        v = []
        for o in objectives:
            x = e[o.lstrip("-+")]
            if isinstance(x, float) and math.isnan(x):
                return None
            v.append(-x if o.startswith("-") else x)
        return v
    vecs = {e["config"]: vec(e) for e in entries}
    front = []
    for i, a in vecs.items():
        if a is None:
            continue
        dominated = any(b is not None and j != i and all(y <= x for x, y in zip(a, b, strict=True))
                        and any(y < x for x, y in zip(a, b, strict=True)) for j, b in vecs.items())
        if not dominated:
            front.append(i)
    return sorted(front)
