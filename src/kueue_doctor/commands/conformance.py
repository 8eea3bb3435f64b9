"""``kueue-doctor conformance``: run upstream Kueue's unit-test cases against the engine."""
from __future__ import annotations

import sys

import click

from ..conformance.runner import FAILED, PASSED, SKIPPED, run_file
from ..conformance.scenario import scenario_files
from .output import EXIT_FOUND, EXIT_OK, Output, output_options
from .progress import bar

KIND = "ConformanceResults"


@click.command("conformance")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@output_options
@click.option("--json", "json_out", type=click.Path(allow_dash=True), default=None, hidden=True,
              help="Same as -o json --output-file FILE.")
@click.option("-v", "--verbose", is_flag=True, help="Also list passed and skipped cases.")
def command(paths: tuple[str, ...], out: Output, json_out: str | None, verbose: bool) -> None:
    """Run conformance scenario files (tests/conformance/FORMAT.md).

    Prints one line per failing case with the difference, then `N passed, M failed`
    (and `, K skipped` for run kinds the engine does not support).

    Exit status: 0 nothing failed, 1 a case failed, 2 bad input.
    """
    if json_out:
        out = Output("json", json_out)
    files = scenario_files(list(paths))
    results = []
    with bar("running cases", len(files)) as advance:
        for i, p in enumerate(files, 1):
            results.append(run_file(p))
            advance(i)
    n = {s: sum(r.status == s for r in results) for s in (PASSED, FAILED, SKIPPED)}
    line = f"{n[PASSED]} passed, {n[FAILED]} failed" + (f", {n[SKIPPED]} skipped" if n[SKIPPED] else "")

    def text(con, wide: bool) -> None:
        for r in results:
            if r.status == FAILED:
                con.print(f"FAIL {r.case}: {r.name}", markup=False)
                for d in r.differences:
                    con.print(f"    {d}", markup=False)
            elif verbose or wide:
                con.print(f"{r.status.upper():4} {r.case}" + (f" ({r.detail})" if r.detail else ""), markup=False)
        con.print(line)
    out.emit(KIND, {"summary": n, "cases": [r.to_json() for r in results]}, text)
    if out.structured and out.file not in (None, "-"):
        click.echo(line, err=True)
    sys.exit(EXIT_FOUND if n[FAILED] else EXIT_OK)
