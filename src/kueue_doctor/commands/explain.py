"""``kueue-doctor explain NAME``: the chain of reasons for one workload."""
from __future__ import annotations

import click

from .diagnose import min_wait_option, now_option, parse_min_wait, parse_now
from .output import Output, output_options
from .progress import phase
from .source import load_source, workload_options

KIND = "Explanation"


@click.command("explain")
@workload_options
@output_options
@click.option("--format", "legacy_format", type=click.Choice(["text", "json"]), hidden=True)
@click.option("-v", "--verbose", is_flag=True, help="Also print the raw controller log lines.")
@min_wait_option
@now_option
def command(workload: str, folder: str | None, namespace: str | None, all_namespaces: bool,
            kubeconfig: str | None, kube_context: str | None, in_cluster: bool, out: Output,
            legacy_format: str | None, verbose: bool, min_wait: str, now_text: str | None) -> None:
    """Why is a workload pending? Its queues, position, the quota arithmetic up the cohort tree,
    what the flavor assigner and preemption say, free node slots of its shape, release to
    Kubernetes, and the log lines and events that mention it.

    NAME is the Workload's name, or the name of what created it: a Job, JobSet, RayJob,
    PyTorchJob..., a pod group, or a Pod (``job/NAME`` to say which); ``NS/NAME`` is a
    Workload in NS. Read from a snapshot FOLDER, or from the live cluster when none is given.
    """
    from ..doctor.explain import explain
    from ..report.explain_text import render
    if legacy_format:
        out = Output(legacy_format, out.file)
    snap = load_source(folder, kubeconfig, kube_context, in_cluster)
    key = resolve(snap, workload, namespace, all_namespaces, folder is None, kubeconfig, kube_context, in_cluster)
    with phase(f"explaining {key}"):
        doc = explain(snap, key, parse_min_wait(min_wait), parse_now(now_text))
    out.emit(KIND, doc, lambda con, wide: render(con, doc, wide, verbose))


def resolve(snap, ref: str, namespace: str | None, all_namespaces: bool, live: bool,
            kubeconfig: str | None, context: str | None, in_cluster: bool):
    from ..doctor.lookup import find_workload
    default = None
    if live and not namespace and not all_namespaces:
        # as kubectl: the context's namespace, when the user names none
        from ..sources.kubeconfig import context_namespace
        default = context_namespace(kubeconfig, context, in_cluster)
    return find_workload(snap, ref, namespace, all_namespaces, default_namespace=default)
