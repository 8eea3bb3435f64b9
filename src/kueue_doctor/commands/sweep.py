"""``kueue-doctor sweep``: many quota and fairness configurations x one scenario or trace."""
from __future__ import annotations

import os
from typing import Any

import click

from ..errors import InputError
from .output import Output, output_options
from .progress import bar, phase

KIND = "SweepResults"


def _body(outcome: Any, out_dir: str) -> dict[str, Any]:
    spec = outcome.spec
    best = [e for e in outcome.summary if e["config"] in outcome.front]
    return {
        "spec": spec.file, "scenario": spec.scenario, "out": out_dir,
        "configurations": len(outcome.configurations), "replicates": spec.replicates,
        "rows": len(outcome.rows), "ran": outcome.ran, "skipped": outcome.skipped,
        "objectives": spec.objectives, "base": outcome.base_values,
        "paretoFront": best, "files": [str(p) for p in outcome.files],
    }


def _text(con: Any, body: dict[str, Any], wide: bool) -> None:
    from ..report.sweep_text import render
    render(con, body, wide)


@click.command("sweep")
@click.argument("spec_path", metavar="SPEC", type=click.Path(dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Results folder: results.parquet, results.csv, a journal for resuming, report.html.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local: worker processes on this machine; ray: one Ray task per run.")
@click.option("--workers", "-j", type=click.IntRange(min=0), default=0,
              help="Local worker processes, or CPUs of a local Ray instance (0: one per core).")
@click.option("--ray-address", metavar="ADDRESS",
              help="Ray cluster to join (auto, ray://HOST:10001); none starts a local instance.")
@click.option("--restart", is_flag=True, help="Discard the results already in --out instead of resuming.")
@output_options(html=True)
def command(spec_path: str, out_dir: str, executor: str, workers: int, ray_address: str | None,
            restart: bool, out: Output, html: str | None) -> None:
    """Run every configuration of a sweep SPEC (kind: Sweep, docs/sweeps.md) with its replicates,
    resuming from the rows already in --out, and write the result tables and the Pareto front."""
    from ..sweep import run_sweep
    from ..sweep.spec import load_spec
    if ray_address and executor != "ray":
        raise InputError("--ray-address needs --executor ray")
    with phase(f"loading {spec_path}"):
        spec = load_spec(spec_path)
    n = (len(spec.configurations())) * spec.replicates
    workers = workers or os.cpu_count() or 1
    with bar("sweeping", n) as advance:
        outcome = run_sweep(spec, out_dir, executor, workers, ray_address, restart, progress=advance)
    body = _body(outcome, out_dir)
    from ..report.sweep_html import write_report
    report = html or os.path.join(out_dir, "report.html")
    write_report(outcome, report)
    body["files"].append(report)
    out.emit(KIND, body, lambda con, wide: _text(con, body, wide))
