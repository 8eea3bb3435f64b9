"""``kueue-doctor logs``: scan Kueue controller logs for the signatures of known failures."""
from __future__ import annotations

import sys

import click

from ..logs import scan
from ..logs.timeparse import parse_bound
from .output import EXIT_FOUND, EXIT_OK, EXIT_UNKNOWN, Output, fail_on_option, output_options
from .progress import phase

KIND = "LogReport"


@click.command("logs")
@click.argument("files", nargs=-1, required=True)
@click.option("--since", help="Ignore records before this time (RFC3339, or a duration before now: 30m, 2h).")
@click.option("--until", help="Ignore records after this time (same forms as --since).")
@output_options
@click.option("--format", "legacy_format", type=click.Choice(["text", "json"]), hidden=True)
@fail_on_option(("never", "finding"), "finding", "Exit 1 when a failure signature is found.")
@click.option("-v", "--verbose", is_flag=True, help="Also print the raw log lines behind each finding.")
@click.option("--grace", type=float, default=60.0, show_default=True,
              help="Seconds a preemption victim may keep its quota before it counts as slow.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Threads for large regular files (processes with --since/--until or a container "
                   "runtime's log) [default: one per CPU]; 1 reads in this one. "
                   "The report is the same either way.")
def command(files: tuple[str, ...], since: str | None, until: str | None, out: Output, legacy_format: str | None,
            fail_on: str, verbose: bool, grace: float, workers: int | None) -> None:
    """Read Kueue controller logs (zap JSON or console lines, .gz, '-' for stdin).

    Run the controller with --zap-log-level=5 for the full set of signals. Garbage,
    truncated and very long lines are counted and skipped. Lines as container runtimes store
    them (CRI, Docker json-file) are read too.

    Exit status: 0 no failure signature, 1 one found (--fail-on), 2 bad input, 3 no line of a
    form it reads (nothing could be checked).
    """
    if legacy_format:
        out = Output(legacy_format, out.file)
    lo = parse_bound(since, option="--since")
    hi = parse_bound(until, option="--until")
    with phase("scanning " + ", ".join(files)):
        report = scan(list(files), since=lo, until=hi, grace=grace, workers=workers)

    def text(con, wide: bool) -> None:
        from ..report.logs_text import render  # (rich: not imported for a document)

        render(con, report, wide, verbose)

    out.emit(KIND, report.to_json(), text)
    if report.findings and fail_on == "finding":
        sys.exit(EXIT_FOUND)
    if report.lines and not report.parsed:
        # nothing could be read, so nothing could have been found: not a pass
        click.echo("kueue-doctor logs: cannot tell: no line is of a form kueue-doctor reads", err=True)
        sys.exit(EXIT_UNKNOWN)
    sys.exit(EXIT_OK)
