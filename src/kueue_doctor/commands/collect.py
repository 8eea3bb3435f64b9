"""``kueue-doctor collect``: gather a snapshot folder from a live cluster (read-only)."""
from __future__ import annotations

from pathlib import Path

import click

from ..duration import duration
from ..kueue import layout as lay
from .output import Output, output_options
from .source import source_options

KIND = "CollectResult"


@click.command("collect")
@click.option("--out", "out_dir", required=True, type=click.Path(), help="Folder to write (must be empty or new).")
@source_options
@click.option("--since", default="6h", show_default=True, help="Window of controller logs to fetch.")
@click.option("--namespace-label-filter", "ns_selector", default="", metavar="SELECTOR",
              help="Only read Pods, Jobs, Events and LimitRanges of namespaces matching this label selector "
                   "(Kueue objects and Nodes are always cluster-wide).")
@click.option("--kueue-pods-only", is_flag=True,
              help="Only read Pods carrying Kueue labels (large clusters; node usage by other pods is then unknown).")
@click.option("--request-timeout", default=30.0, show_default=True, type=float, help="Seconds per API request.")
@click.option("--force", is_flag=True, help="Replace the files of a previous collect in a non-empty --out.")
@output_options
def command(out_dir: str, kubeconfig: str | None, kube_context: str | None, in_cluster: bool, since: str,
            ns_selector: str, kueue_pods_only: bool, request_timeout: float, force: bool, out: Output) -> None:
    """Gather Kueue objects, nodes, pods, jobs, events, the Kueue controller (Deployment, config,
    logs, metrics) into a folder `kueue-doctor diagnose` reads, plus manifest.json saying what
    could not be read and why. Only get/list is ever sent: see deploy/rbac.yaml.

    The cluster is the one kubectl would use: --kubeconfig alone, else $KUBECONFIG (merged), else
    ~/.kube/config, else (in a pod, or with --in-cluster) the pod's service account."""
    from ..sources.kube_collect import Options, collect
    from ..sources.kubeconfig import resolve
    since_s = int(duration(since, "--since"))
    cluster = resolve(kubeconfig, kube_context, in_cluster)
    target = Path(out_dir)
    manifest = collect(cluster, target,
                       Options(since_seconds=since_s, kueue_pods_only=kueue_pods_only, namespace_selector=ns_selector),
                       timeout=request_timeout, force=force)
    n = sum(c.get(lay.E_COUNT, 0) for c in manifest[lay.COLLECTED])

    def text(con, wide: bool) -> None:
        con.print(f"{target}: {n} objects, Kueue {manifest[lay.KUEUE_VERSION] or '(version unknown)'} "
                  f"({manifest[lay.KUEUE_API_VERSION] or 'Kueue API not read'}), "
                  f"collected at {manifest[lay.COLLECTED_AT]}", markup=False)
        for f in manifest[lay.FAILED]:
            tag = " (optional)" if f.get(lay.E_OPTIONAL) else ""
            click.echo(f"  not collected{tag}: {f[lay.E_KIND]}: {f[lay.E_REASON]}: {f[lay.E_MESSAGE]}", err=True)
    out.emit(KIND, {"folder": str(target), "manifest": manifest}, text)
