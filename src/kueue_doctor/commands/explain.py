"""``kueue-doctor explain NAMESPACE/NAME``: the chain of reasons for one workload."""
from __future__ import annotations

import json

import click

from .diagnose import load_source, parse_min_wait, parse_now


def render_text(out: dict) -> None:
    from rich.console import Console
    from rich.table import Table
    console = Console()
    console.print(f"[bold]{out['workload']}[/bold] (Kueue {out['kueueVersion'] or 'version unknown'}, "
                  f"snapshot at {out['snapshotTime']})")
    for item in out["chain"]:
        console.print(f"[cyan]{item['topic']:>10}[/cyan]  {item['text']}", soft_wrap=True, highlight=False)
        data = item.get("data") or {}
        if item["topic"] == "quota" and data.get("rows"):
            t = Table("node", "flavor/resource", "nominal", "subtree", "used", "borrowing limit", "lending limit",
                      "available", "max")
            for r in data["rows"]:
                t.add_row(r["node"], f"{r['flavor']}/{r['resource']}", r["nominal"], r["subtreeQuota"], r["used"],
                          r["borrowingLimit"] or "-", r["lendingLimit"] or "-", r["available"] or "-",
                          r["maxAvailable"] or "-")
            console.print(t)
        if item["topic"] == "logs":
            for line in data.get("lines", []):
                console.print(f"            {line}", highlight=False, soft_wrap=True)


@click.command("explain")
@click.argument("workload")
@click.argument("folder", required=False, type=click.Path())
@click.option("--kubeconfig", type=click.Path(), help="Read a live cluster (read-only).")
@click.option("--context", "kube_context", help="kubeconfig context.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.option("--min-wait", default="5m", show_default=True)
@click.option("--now", "now_text", metavar="RFC3339", help="When the objects were gathered (as for diagnose).")
def command(workload: str, folder: str | None, kubeconfig: str | None, kube_context: str | None,
            fmt: str, min_wait: str, now_text: str | None) -> None:
    """Why is WORKLOAD (NAMESPACE/NAME) pending? Its queues, position, the quota arithmetic up
    the cohort tree, what the flavor assigner and preemption say, free node slots of its shape,
    release to Kubernetes, and the log lines and events that mention it."""
    from ..doctor.explain import explain
    out = explain(load_source(folder, kubeconfig, kube_context), workload, parse_min_wait(min_wait),
                  parse_now(now_text))
    if fmt == "json":
        click.echo(json.dumps(out, indent=2, default=str))
    else:
        render_text(out)
