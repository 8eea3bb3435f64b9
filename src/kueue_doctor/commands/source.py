"""Where a command reads the cluster from: a gathered FOLDER, or the live cluster kubectl would
talk to (``--kubeconfig``, ``--context``, ``$KUBECONFIG``, ``~/.kube/config``, or the pod's
service account with ``--in-cluster``), read-only."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

from ..errors import InputError
from .progress import phase


def source_options(f: Callable[..., Any]) -> Any:
    f = click.option("--in-cluster", is_flag=True,
                     help="Read the cluster this pod runs in, with its service account (read-only).")(f)
    f = click.option("--context", "kube_context", metavar="NAME",
                     help="kubeconfig context (reads the live cluster; default: the current-context).")(f)
    f = click.option("--kubeconfig", type=click.Path(dir_okay=False), metavar="FILE",
                     help="kubeconfig file (default: $KUBECONFIG, merged like kubectl, then ~/.kube/config).")(f)
    return f


def workload_options(f: Callable[..., Any]) -> Any:
    """``[KIND/]NAME [FOLDER]``, ``-n``, ``-A`` and the live-cluster options: how explain, whatif
    and forecast name one workload in a snapshot folder or the live cluster."""
    f = source_options(f)
    f = click.option("-A", "--all-namespaces", is_flag=True, help="Look for NAME in every namespace.")(f)
    f = click.option("-n", "--namespace", metavar="NS",
                     help="Namespace of the workload (default: the one it is found in).")(f)
    f = click.argument("folder", required=False, type=click.Path())(f)
    return click.argument("workload", metavar="[KIND/]NAME")(f)


def live_wanted(folder: str | None, kubeconfig: str | None, context: str | None, in_cluster: bool) -> bool:
    """No folder means the live cluster, as kubectl would: with neither a folder nor any
    kubeconfig to find, the caller asks for one or the other."""
    if folder and (kubeconfig or context or in_cluster):
        raise InputError("give a snapshot folder or a cluster (--kubeconfig, --context, --in-cluster), not both")
    return not folder


def load_source(folder: str | None, kubeconfig: str | None, context: str | None = None,
                in_cluster: bool = False):
    if live_wanted(folder, kubeconfig, context, in_cluster):
        from ..sources.live import snapshot_from_cluster
        with phase("reading the cluster (read-only)"):
            return snapshot_from_cluster(kubeconfig, context, in_cluster=in_cluster)
    from ..sources.snapshot import load_folder
    assert folder
    with phase(f"reading {folder}"):
        return load_folder(folder)
