"""``kueue-doctor logs``: scan Kueue controller logs for the signatures of known failures."""
from __future__ import annotations

import json

import click

from ..logs import scan
from ..logs.report import render_text
from ..logs.timeparse import parse_bound


@click.command("logs")
@click.argument("files", nargs=-1, required=True)
@click.option("--since", help="Ignore records before this time (RFC3339, or a duration before now: 30m, 2h).")
@click.option("--until", help="Ignore records after this time (same forms as --since).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--grace", type=float, default=60.0, show_default=True,
              help="Seconds a preemption victim may keep its quota before it counts as slow.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes for large regular files [default: one per CPU]; 1 reads in this process. "
                   "The report is the same either way.")
def command(files: tuple[str, ...], since: str | None, until: str | None, fmt: str, grace: float,
            workers: int | None) -> None:
    """Read Kueue controller logs (zap JSON or console lines, .gz, '-' for stdin).

    Run the controller with --zap-log-level=5 for the full set of signals. Garbage,
    truncated and very long lines are counted and skipped.
    """
    lo = parse_bound(since, option="--since")
    hi = parse_bound(until, option="--until")
    report = scan(list(files), since=lo, until=hi, grace=grace, workers=workers)
    if fmt == "json":
        click.echo(json.dumps(report.to_json(), indent=2))
        return
    from rich.console import Console

    render_text(report, Console(highlight=False, soft_wrap=True))
