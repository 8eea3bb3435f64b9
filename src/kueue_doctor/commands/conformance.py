"""``kueue-doctor conformance``: run upstream Kueue's unit-test cases against the engine."""
from __future__ import annotations

import json
import sys

import click

from ..conformance.runner import FAILED, PASSED, SKIPPED, run_file
from ..conformance.scenario import scenario_files


@click.command("conformance")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--json", "json_out", type=click.Path(allow_dash=True), default=None,
              help="Write the per-case results as JSON to this file ('-' for stdout).")
@click.option("-v", "--verbose", is_flag=True, help="Also list passed and skipped cases.")
def command(paths: tuple[str, ...], json_out: str | None, verbose: bool) -> None:
    """Run conformance scenario files (shared/conformance/FORMAT.md).

    Prints one line per failing case with the difference, then `N passed, M failed`
    (and `, K skipped` for run kinds the engine does not support). Exit 0 only when
    nothing failed.
    """
    results = [run_file(p) for p in scenario_files(list(paths))]
    out = sys.stdout if json_out != "-" else sys.stderr
    for r in results:
        if r.status == FAILED:
            click.echo(f"FAIL {r.case}: {r.name}", file=out)
            for d in r.differences:
                click.echo(f"    {d}", file=out)
        elif verbose:
            click.echo(f"{r.status.upper():4} {r.case}" + (f" ({r.detail})" if r.detail else ""), file=out)
    n = {s: sum(r.status == s for r in results) for s in (PASSED, FAILED, SKIPPED)}
    line = f"{n[PASSED]} passed, {n[FAILED]} failed" + (f", {n[SKIPPED]} skipped" if n[SKIPPED] else "")
    click.echo(line, file=out)
    if json_out:
        payload = json.dumps({"summary": n, "cases": [r.to_json() for r in results]}, indent=2)
        if json_out == "-":
            click.echo(payload)
        else:
            with open(json_out, "w", encoding="utf-8") as fh:
                fh.write(payload + "\n")
    sys.exit(1 if n[FAILED] else 0)
