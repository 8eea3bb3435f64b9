"""``kueue-doctor diff DIR -f proposed.yaml``: what a change of queue objects would do to
scheduling — ``kubectl diff`` for Kueue, to gate quota edits in a GitOps pipeline."""
from __future__ import annotations

import sys
from typing import Any

import click

from .diagnose import min_wait_option, now_option, parse_min_wait, parse_now
from .output import EXIT_FOUND, EXIT_OK, Output, output_options, write_file
from .progress import phase
from .source import load_source, source_options

KIND = "SchedulingDiff"


@click.command("diff")
@click.argument("folder", required=False, type=click.Path())
@click.option("-f", "--filename", "files", multiple=True, required=True, type=click.Path(dir_okay=False),
              metavar="FILE", help="Proposed objects (ClusterQueue, Cohort, ResourceFlavor, LocalQueue, "
                                   "WorkloadPriorityClass), whole as `kubectl apply -f` takes them; repeatable.")
@source_options
@output_options(html=True)
@min_wait_option
@now_option
@click.option("--allow-overcommit", is_flag=True,
              help="Do not fail (exit 1) when the change promises more nominal quota than a flavor's Ready "
                   "nodes hold; the capacity table still shows it.")
def command(folder: str | None, files: tuple[str, ...], kubeconfig: str | None, kube_context: str | None,
            in_cluster: bool, out: Output, html: str | None, min_wait: str, now_text: str | None,
            allow_overcommit: bool) -> None:
    """What would applying these objects change? Workloads newly admitted and newly preempted
    (the engine's cycles run to a fixed point without and with the change), guarantees broken
    or restored per ClusterQueue, head order changes, and nominal quota against the capacity of
    the nodes each flavor selects.

    Exit 0: nothing that holds today breaks; 1: a guarantee that holds today breaks, running
    work would be preempted, or a flavor's nodes would hold less of its nominal quota (unless
    --allow-overcommit); 2: bad input (a -f object that fails the loader's checks).
    """
    from ..doctor.gather import snapshot_time, waiting_since
    from ..report.diff_text import render
    from ..whatif.diff import apply_proposed, breaks, read_proposed, scheduling_diff
    from .whatif import engine_config
    proposed = read_proposed(list(files))
    wait = parse_min_wait(min_wait)
    snap = load_source(folder, kubeconfig, kube_context, in_cluster)
    now = parse_now(now_text) or snapshot_time(snap, None)[0]
    changed, objects = apply_proposed(snap.state, proposed)
    with phase("running the scheduling cycles without and with the change"):
        body, before, after = scheduling_diff(snap.state, changed, engine_config(snap.state), now,
                                              waiting_since, wait)
    body["capacity"] = capacity_changes(snap.state, changed, before.model.snapshot, after.model.snapshot)
    reasons = breaks(body, capacity=not allow_overcommit)
    body.update(breaks=bool(reasons), breakReasons=reasons)
    doc = {"snapshot": snap.origin or "live cluster",
           "proposed": list(files), "objects": objects, **body}
    if html:
        from ..report.diff_html import render as render_html
        write_file(html, render_html(doc))
    out.emit(KIND, doc, lambda con, wide: render(con, doc, wide))
    sys.exit(EXIT_FOUND if doc["breaks"] else EXIT_OK)


def capacity_changes(state: Any, changed: Any, before: Any, after: Any) -> list[dict[str, Any]]:
    """Per (flavor, resource) whose nominal total or selected capacity the change moves: the
    nominal quotas against the Ready nodes the flavor selects (doctor/capacity.py)."""
    from ..api.quantity import format_amount
    from ..doctor.capacity import capacity_facts
    b, a = capacity_facts(state, before), capacity_facts(changed, after)
    out = []
    for fa in a.flavors:
        fb = b.get(fa.flavor, fa.resource)
        if fb is not None and (fb.nominal_total, fb.ready_capacity) == (fa.nominal_total, fa.ready_capacity):
            continue
        r = fa.resource
        out.append({"flavor": fa.flavor, "resource": r,
                    "nominalBefore": format_amount(r, fb.nominal_total if fb else 0),
                    "nominalAfter": format_amount(r, fa.nominal_total),
                    "capacityBefore": format_amount(r, fb.ready_capacity if fb else 0),
                    "capacityAfter": format_amount(r, fa.ready_capacity),
                    "shortBefore": format_amount(r, fb.shortfall if fb else 0),
                    "shortAfter": format_amount(r, fa.shortfall),
                    "shortGrows": fa.shortfall > (fb.shortfall if fb else 0)})
    return out
