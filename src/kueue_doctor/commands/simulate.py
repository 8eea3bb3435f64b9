"""``kueue-doctor simulate``: run a scenario or Kueue's perf-test config through time."""
from __future__ import annotations

import json
import sys

import click

from ..duration import duration
from ..errors import InputError
from ..sim.scenario import load_with
from ..sim.simulator import Simulator


def parse_gates(items: tuple[str, ...]) -> dict[str, bool]:
    gates = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise InputError(f"--gate {item!r}: expected NAME=true or NAME=false")
        gates[name] = value.lower() == "true"
    return gates


def run_scenario(path: str, version: str | None = None, gates: dict | None = None,
                 until: str | None = None, show_progress: bool = True) -> Simulator:
    scn = load_with(path, version, gates)
    end = duration(until, "--until") if until else None
    progress = None
    if show_progress and sys.stderr.isatty():
        from rich.progress import Progress
        total = end or scn.settings.duration or max([w.at for w in scn.workloads] or [0]) or 1.0
        bar = Progress(transient=True)
        task = bar.add_task("simulating", total=total)
        bar.start()
        progress = lambda t: bar.update(task, completed=min(t, total))  # noqa: E731
        try:
            return Simulator(scn, progress).run(end)
        finally:
            bar.stop()
    return Simulator(scn).run(end)


def summary_table(summary: dict) -> None:
    from rich.console import Console
    from rich.table import Table
    console = Console()
    w = summary["workloads"]
    console.print(f"[bold]{summary['scenario']}[/bold] on Kueue {summary['kueue']['version']}: "
                  f"{summary['simulatedSeconds']:.0f} simulated s in {summary['wallSeconds']:.2f} s wall, "
                  f"{summary['cycles']} cycles")
    console.print(f"workloads: {w['created']} created, {w['admitted']} admitted, {w['finished']} finished, "
                  f"{w['preempted']} preempted")
    t = Table("class", "count", "avg time to admission (s)")
    for k, v in summary["classes"].items():
        ms = v["avgTimeToAdmissionMs"]
        t.add_row(k, str(v["count"]), "-" if ms is None else f"{ms / 1000:.1f}")
    console.print(t)
    t = Table("ClusterQueue", "avg usage %", "violation s", "admissions/h", "preemptions/h")
    for name, v in summary["clusterQueues"].items():
        t.add_row(name, f"{v['avgUsagePercent']:.1f}", f"{v['violationSeconds']:.0f}",
                  f"{v['admissionsPerHour']:.1f}", f"{v['preemptionsPerHour']:.1f}")
    console.print(t)


@click.command("simulate")
@click.argument("scenario", type=click.Path())
@click.option("--json", "as_json", is_flag=True, help="Print the summary (and time series) as JSON.")
@click.option("--timeseries", is_flag=True, help="Include the per-ClusterQueue time series in the JSON.")
@click.option("--html", "html_out", type=click.Path(), help="Write a single-file HTML report with plots.")
@click.option("--until", help="Stop at this simulated time (e.g. 6h).")
@click.option("--kueue-version", "version", help="Override the scenario's Kueue release (e.g. 0.13.2).")
@click.option("--gate", "gates", multiple=True, help="Feature gate override NAME=true|false (repeatable).")
@click.option("--omit-wall-time", is_flag=True, help="Leave wallSeconds out, for byte-identical reruns.")
@click.option("--snapshot-at", help="Write the cluster as it stands at this simulated time (e.g. 2h).")
@click.option("--snapshot-dir", type=click.Path(file_okay=False), help="Folder for --snapshot-at.")
@click.option("--force", is_flag=True, help="Overwrite a non-empty --snapshot-dir.")
def command(scenario: str, as_json: bool, timeseries: bool, html_out: str | None, until: str | None,
            version: str | None, gates: tuple[str, ...], omit_wall_time: bool, snapshot_at: str | None,
            snapshot_dir: str | None, force: bool) -> None:
    """Run a simulation SCENARIO (kind: Simulation, docs/simulator.md) or Kueue's
    performance-test generator config, and report admissions, time to admission,
    usage and guarantee violations per ClusterQueue."""
    if snapshot_at and not snapshot_dir:
        raise InputError("--snapshot-at needs --snapshot-dir")
    if snapshot_dir and not snapshot_at:
        raise InputError("--snapshot-dir needs --snapshot-at")
    overrides = parse_gates(gates)
    if snapshot_at:
        at = duration(snapshot_at, "--snapshot-at")
        if until and at > duration(until, "--until"):
            raise InputError("--snapshot-at is after --until")
        from ..sim.snapshot import snapshot_at as write_at
        write_at(load_with(scenario, version, overrides), at, snapshot_dir, force)
    # the summary covers the whole run, so after a snapshot it comes from a second, identical run
    sim = run_scenario(scenario, version, overrides, until)
    summary = sim.recorder.summary()
    if omit_wall_time:
        summary.pop("wallSeconds")
    if html_out:
        from ..report.sim_html import write_report
        write_report(sim, summary, html_out)
    if as_json:
        out = dict(summary)
        if timeseries:
            out["timeseries"] = sim.recorder.timeseries()
        click.echo(json.dumps(out, indent=2, sort_keys=True))
    else:
        if omit_wall_time:
            summary["wallSeconds"] = 0.0
        summary_table(summary)
