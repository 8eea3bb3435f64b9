"""``kueue-doctor diagnose``: the six-step recipe over a gathered folder or a live cluster."""
from __future__ import annotations

import os
import sys
from datetime import datetime, timedelta

import click

from ..duration import duration
from ..errors import InputError
from .output import EXIT_FOUND, EXIT_OK, EXIT_UNKNOWN, Output, fail_on_option, output_options, write_file
from .progress import phase
from .source import load_source, source_options

KIND = "Diagnosis"


def parse_min_wait(text: str) -> timedelta:
    return timedelta(seconds=duration(text, "--min-wait"))


def parse_now(text: str | None) -> datetime | None:
    if text is None:
        return None
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"--now: {text!r} is not an RFC 3339 time (e.g. 2026-11-30T12:00:00Z)") from None
    if t.tzinfo is None:
        raise InputError(f"--now: {text!r} has no time zone (add Z or +00:00)")
    return t


min_wait_option = click.option("--min-wait", default="5m", show_default=True, metavar="DURATION",
                               help="How long work that fits the nominal quota may wait (Go duration: 5m, 1h30m).")
now_option = click.option("--now", "now_text", metavar="RFC3339",
                          help="When the objects were gathered (default: manifest.json, else the last log line, "
                               "else the newest object timestamp).")


@click.command("diagnose")
@click.argument("folder", required=False, type=click.Path())
@source_options
@output_options(html=True)
@click.option("--format", "legacy_format", type=click.Choice(["text", "json", "html"]), hidden=True)
@fail_on_option(("never", "violation", "cause"), "cause",
                "Exit 1 when a guarantee violation (violation), or a violation or any cause (cause), is found.")
@click.option("--top", default=12, show_default=True, type=click.IntRange(min=1),
              help="ClusterQueues charted in the HTML report, worst first.")
@click.option("-v", "--verbose", is_flag=True, help="Also print the raw controller log lines behind the evidence.")
@min_wait_option
@now_option
def command(folder: str | None, kubeconfig: str | None, kube_context: str | None, in_cluster: bool, out: Output,
            html: str | None, legacy_format: str | None, fail_on: str, top: int, verbose: bool, min_wait: str,
            now_text: str | None) -> None:
    """Run the six-step diagnosis on a gathered snapshot FOLDER (kubectl get -o yaml dumps and
    controller logs, or `kueue-doctor collect`), or on the live cluster when no FOLDER is given:
    guarantee violations, fragmentation, admission rates, release to Kubernetes, log signatures,
    system health, and the likely causes.

    Exit status: 0 healthy, 1 a violation or a cause found (--fail-on), 2 bad input,
    3 not enough data to decide.
    """
    from ..doctor.diagnose import diagnose
    if legacy_format == "html":
        html = html or out.file or "-"
        out = Output("text", None)
    elif legacy_format:
        out = Output(legacy_format, out.file)
    snap = load_source(folder, kubeconfig, kube_context, in_cluster)
    with phase("diagnosing"):
        d = diagnose(snap, parse_min_wait(min_wait), parse_now(now_text))
    if html:
        from ..report.doctor_html import render
        write_file(html, render(d, top) + "\n")
        if html == "-":
            finish(d, exit_status(d, fail_on))
    from ..report.diagnosis_text import render as render_text
    out.emit(KIND, d.to_json(), lambda con, wide: render_text(con, d, wide, verbose))
    finish(d, exit_status(d, fail_on))


# From this many Workloads on, freeing the snapshot object by object on the way out costs more
# than a second (about 1.2 s of CPU at 100,000 Workloads), for nothing: the process ends.
LARGE = 10_000


def finish(d, status: int) -> None:
    """Exit with ``status``. After a large diagnosis run as the program itself (writing to the
    real stdout, not to a test's runner) the process ends as soon as its output is flushed,
    without tearing its objects down."""
    own_streams = sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__
    if len(d.facts.workloads) >= LARGE and own_streams:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    sys.exit(status)


def exit_status(d, fail_on: str = "cause") -> int:
    """docs/cli.md, "Exit status"."""
    from ..doctor.findings import Verdict
    if d.verdict is Verdict.UNKNOWN:
        click.echo(f"kueue-doctor diagnose: cannot tell: {d.steps[0].summary}", err=True)
        return EXIT_UNKNOWN
    if fail_on == "never":
        return EXIT_OK
    if d.verdict is Verdict.VIOLATION:
        return EXIT_FOUND
    return EXIT_FOUND if fail_on == "cause" and d.causes else EXIT_OK
