"""``kueue-doctor validate``: read object files, check every object, report what they hold.

Like ``kubectl apply --validate``: every problem of every file is reported (not only the
first), one line each on stderr, ``FILE: Kind/namespace/name: field: problem``. Fields the
Kueue CRDs do not declare are warnings (``unknown field "spec.resourceGroup"``), errors with
``--strict`` (``kubectl --validate=strict``). Exit status 0 (warnings allowed), 2 on any error.
"""
from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

import click
from rich.console import Console

from ..api.load import ERROR, WARNING, Collector, Problem, load_paths
from ..api.state import ClusterState
from ..report.text import Column, Table, plain
from .output import EXIT_BAD_INPUT, EXIT_OK, Output, output_options

KIND = "ValidationReport"


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--strict", is_flag=True,
              help="Fields the Kueue CRDs do not declare are errors (exit status 2), as with "
                   "kubectl --validate=strict; without it they are warnings.")
@output_options(legacy_json=True)
def command(paths: tuple[str, ...], strict: bool, out: Output) -> None:
    """Read YAML/JSON object files or folders and check every object.

    Prints how many objects of each kind were read, which kinds were skipped, and the files
    that are not Kubernetes objects (dashboards, rule groups...) or a gathered folder's
    metadata (manifest.json). Every problem is one line on stderr naming the file, object and
    field; unknown fields of Kueue objects are warnings (errors with --strict). Exit status 2
    when any file or object is broken.
    """
    collect = Collector(unknown_fields=True)
    state = load_paths(paths, collect=collect)
    problems = [replace(p, severity=ERROR) if strict and p.severity == WARNING else p for p in collect.problems]
    out.emit(KIND, report(state, problems), lambda con, wide: render_text(con, wide, state, problems, collect))
    for p in problems:
        click.echo(str(p), err=True)
    sys.exit(EXIT_BAD_INPUT if any(p.severity == ERROR for p in problems) else EXIT_OK)


def report(state: ClusterState, problems: list[Problem]) -> dict[str, Any]:
    """The ValidationReport document's body (data/schemas/ValidationReport.schema.json)."""
    return {"files": len(state.files), "objects": state.counts(), "skipped": dict(state.skipped),
            "problems": [p.to_json() for p in problems], "notObjects": list(state.not_objects),
            "metadataFiles": list(state.metadata_files)}


def render_text(con: Console, wide: bool, state: ClusterState, problems: list[Problem],
                collect: Collector) -> None:
    counts = state.counts()
    plain(con, f"{len(state.files)} file(s), {sum(counts.values())} object(s) read")
    for kind, n in sorted(counts.items()):
        plain(con, f"  {kind}: {n}")
    if state.skipped:
        plain(con, f"{sum(state.skipped.values())} object(s) skipped (kinds kueue-doctor does not read):")
        for what, n in sorted(state.skipped.items()):
            plain(con, f"  {what}: {n}")
    if state.not_objects:
        plain(con, f"{len(state.not_objects)} file(s) not Kubernetes objects (skipped):")
        for f in state.not_objects:
            plain(con, f"  {f}")
    if state.metadata_files:
        plain(con, f"{len(state.metadata_files)} metadata file(s) of a gathered folder (not objects):")
        for f in state.metadata_files:
            plain(con, f"  {f}")
    if wide and collect.per_file:
        per_file_problems: dict[str, int] = {}
        for p in problems:
            per_file_problems[p.file] = per_file_problems.get(p.file, 0) + 1
        table = Table([Column("file"), Column("objects", right=True), Column("skipped", right=True),
                       Column("problems", right=True)])
        for f, (read, skipped) in collect.per_file.items():
            table.add(f, read, skipped, per_file_problems.get(f, 0))
        table.print(con, wide=True)
    if problems:
        errors = sum(p.severity == ERROR for p in problems)
        plain(con, f"{errors} error(s), {len(problems) - errors} warning(s) (one line each on stderr)")
