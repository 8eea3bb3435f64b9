"""``kueue-doctor whatif NAME``: the smallest changes that would admit a pending workload now."""
from __future__ import annotations

import sys

import click

from .diagnose import now_option, parse_now
from .explain import resolve
from .output import EXIT_FOUND, EXIT_OK, Output, output_options, write_file
from .progress import phase
from .source import load_source, workload_options

KIND = "WhatIf"


@click.command("whatif")
@workload_options
@output_options(html=True)
@now_option
def command(workload: str, folder: str | None, namespace: str | None, all_namespaces: bool,
            kubeconfig: str | None, kube_context: str | None, in_cluster: bool, out: Output,
            html: str | None, now_text: str | None) -> None:
    """What would admit a pending workload now? The fewest running workloads that must end,
    the smallest quota raise (its own ClusterQueue's, a Cohort's, or another queue lending
    more), the lowest priority that preempts its way in, another flavor of its queue with
    room, or a queue to reactivate; each one checked by running Kueue's scheduling cycle on
    the changed state, each with the ``kubectl patch --type merge`` patches that make it.

    NAME is found as `explain` finds it. Exit 0: it is admitted, the engine admits it as it
    stands, or a change was found; 1: nothing of these admits it; 2: no such workload.
    """
    from ..doctor.gather import snapshot_time
    from ..report.whatif_text import render
    from ..whatif.apply import RawObjects
    from ..whatif.whatif import what_if
    snap = load_source(folder, kubeconfig, kube_context, in_cluster)
    key = resolve(snap, workload, namespace, all_namespaces, folder is None, kubeconfig, kube_context, in_cluster)
    now = parse_now(now_text) or snapshot_time(snap, None)[0]
    with phase(f"searching what admits {key}"):
        raw = RawObjects(snap.state.files).get if folder else None
        doc = what_if(snap.state, engine_config(snap.state), key, now, raw)
    if html:
        from ..report.whatif_html import render as render_html
        write_file(html, render_html(doc))
    out.emit(KIND, doc, lambda con, wide: render(con, doc, wide))
    sys.exit(exit_status(doc))


def exit_status(doc: dict) -> int:
    return EXIT_OK if doc["admitsNow"] or doc["suggestions"] else EXIT_FOUND


def engine_config(state):
    """The engine settings of the snapshot's release and Configuration, as ``diagnose`` runs the engine."""
    from ..doctor.gather import engine_config as of_snapshot
    return of_snapshot(state)
