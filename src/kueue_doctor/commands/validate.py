"""``kueue-doctor validate``: read object files and report what they hold."""
from __future__ import annotations

import json

import click

from ..api import load_paths


@click.command("validate")
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def command(paths: tuple[str, ...], as_json: bool) -> None:
    """Read YAML/JSON object files or folders and check every object.

    Prints how many objects of each kind were read and which kinds were skipped.
    Bad input gives one line naming the file, object and field, and exit status 2.
    """
    state = load_paths(paths)
    counts = state.counts()
    if as_json:
        click.echo(json.dumps({"files": len(state.files), "objects": counts,
                               "skipped": dict(state.skipped)}, indent=2, sort_keys=True))
        return
    total = sum(counts.values())
    click.echo(f"{len(state.files)} file(s), {total} object(s) read")
    for kind, n in sorted(counts.items()):
        click.echo(f"  {kind}: {n}")
    if state.skipped:
        click.echo(f"{sum(state.skipped.values())} object(s) skipped (kinds kueue-doctor does not read):")
        for what, n in sorted(state.skipped.items()):
            click.echo(f"  {what}: {n}")
