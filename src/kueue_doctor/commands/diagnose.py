"""``kueue-doctor diagnose``: the six-step recipe over a gathered folder."""
from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta

import click

from ..duration import duration
from ..errors import InputError

EXIT_VIOLATION = 3
EXIT_UNKNOWN = 4


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


def load_source(folder: str | None, kubeconfig: str | None, context: str | None):
    if folder and kubeconfig:
        raise InputError("give a snapshot folder or --kubeconfig, not both")
    if kubeconfig:
        from ..sources.live import snapshot_from_cluster
        return snapshot_from_cluster(kubeconfig, context)
    if not folder:
        raise InputError("give a snapshot folder (see `kueue-doctor collect`) or --kubeconfig")
    from ..sources.snapshot import load_folder
    return load_folder(folder)


def render_text(d) -> None:
    from rich.console import Console
    from rich.table import Table
    console = Console()
    j = d.to_json()
    console.print(f"[bold]Kueue {j['kueueVersion'] or '(version unknown)'}[/bold], snapshot at {j['snapshotTime']}")
    if j["violations"]:
        t = Table("ClusterQueue", "resource", "nominal", "reserved", "pending that fits", "waiting", "since",
                  title="Guarantee violations", title_justify="left")
        for v in j["violations"]:
            for r, q in v["resources"].items():
                t.add_row(v["clusterQueue"], r, q["nominal"], q["reserved"], q["pendingThatFits"],
                          str(len(v["pendingWorkloads"])), v["since"] or "-")
        console.print(t)
    elif j["verdict"] == "unknown":
        console.print(f"[yellow]Guarantee violations: unknown[/yellow] - {j['steps'][0]['summary']}",
                      highlight=False, soft_wrap=True)
    else:
        console.print("[green]No guarantee violation.[/green]")
    for s in j["steps"]:
        color = {"pass": "green", "fail": "red", "unknown": "yellow", "skipped": "dim"}[s["status"]]
        console.print(f"[{color}]{s['step']}. {s['name']}: {s['status'].upper()}[/{color}] - {s['summary']}")
        for e in s["evidence"][:8]:
            console.print(f"     {e}", highlight=False, soft_wrap=True)
        if len(s["evidence"]) > 8:
            console.print(f"     ... {len(s['evidence']) - 8} more")
    for i, c in enumerate(j["causes"], 1):
        console.print(f"[bold]Cause {i}: {c['id']}[/bold] ({c['confidence']} confidence; "
                      f"{', '.join(c['clusterQueues']) or 'cluster-wide'})")
        console.print(f"   {c['summary']}", soft_wrap=True)
        for e in c["evidence"][:5]:
            console.print(f"   - {e}", highlight=False, soft_wrap=True)
        if c["remedy"]:
            console.print(f"   [italic]Remedy:[/italic] {c['remedy']}", soft_wrap=True)
    for w in j.get("warnings", []):
        console.print(f"[yellow]Warning: {w['id']}[/yellow] ({w['confidence']} confidence) {w['summary']}",
                      soft_wrap=True, highlight=False)
    for n in j["releaseNotes"]:
        console.print(f"[yellow]Note:[/yellow] {n}", soft_wrap=True)
    for n in j.get("collectionGaps", []):
        console.print(f"[yellow]Not collected:[/yellow] {n}", soft_wrap=True, highlight=False)


@click.command("diagnose")
@click.argument("folder", required=False, type=click.Path())
@click.option("--kubeconfig", type=click.Path(), help="Diagnose a live cluster (read-only).")
@click.option("--context", "kube_context", help="kubeconfig context.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text")
@click.option("--output", "-o", type=click.Path(), help="Write the report here (html defaults to stdout).")
@click.option("--min-wait", default="5m", show_default=True, help="How long fitting work may wait.")
@click.option("--now", "now_text", metavar="RFC3339",
              help="When the objects were gathered (default: manifest.json, else the last log line, else the "
                   "newest object timestamp).")
def command(folder: str | None, kubeconfig: str | None, kube_context: str | None, fmt: str,
            output: str | None, min_wait: str, now_text: str | None) -> None:
    """Run the six-step diagnosis on a gathered snapshot FOLDER (kubectl get -o yaml dumps and
    controller logs, or `kueue-doctor collect`): guarantee violations, fragmentation, admission
    rates, release to Kubernetes, log signatures, system health, and the likely causes."""
    from ..doctor.diagnose import diagnose
    snap = load_source(folder, kubeconfig, kube_context)
    d = diagnose(snap, parse_min_wait(min_wait), parse_now(now_text))
    emit(d, fmt, output)
    sys.exit(exit_status(d))


def exit_status(d) -> int:
    """0 no violation, 3 a guarantee violation, 4 cannot tell (docs/doctor.md, "Exit status")."""
    from ..doctor.findings import Verdict
    if d.verdict is Verdict.UNKNOWN:
        click.echo(f"kueue-doctor diagnose: {d.steps[0].summary}", err=True)
        return EXIT_UNKNOWN
    return EXIT_VIOLATION if d.verdict is Verdict.VIOLATION else 0


def emit(d, fmt: str, output: str | None) -> None:
    if fmt == "json":
        text = json.dumps(d.to_json(), indent=2)
    elif fmt == "html":
        from ..report.doctor_html import render
        text = render(d)
    else:
        render_text(d)
        return
    if output:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    else:
        click.echo(text)
