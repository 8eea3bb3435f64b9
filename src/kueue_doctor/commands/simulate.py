"""``kueue-doctor simulate``: run a scenario or Kueue's perf-test config through time."""
from __future__ import annotations

import click

from ..duration import duration
from ..errors import InputError
from ..sim.perturb import parse_jitter, perturb
from ..sim.scenario import load_with
from ..sim.simulator import Simulator
from .output import Output, output_options
from .progress import bar, phase

KIND = "SimulationSummary"


def parse_gates(items: tuple[str, ...]) -> dict[str, bool]:
    gates = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or value.lower() not in ("true", "false"):
            raise InputError(f"--gate {item!r}: expected NAME=true or NAME=false")
        gates[name] = value.lower() == "true"
    return gates


def run_scenario(path: str, version: str | None = None, gates: dict | None = None,
                 until: str | None = None, seed: int | None = None,
                 jitter: dict[str, float] | None = None) -> Simulator:
    with phase(f"loading {path}"):
        scn = load_with(path, version, gates)
        randomise(scn, seed, jitter)
    end = duration(until, "--until") if until else None
    total = end or scn.settings.duration or max([w.at for w in scn.workloads] or [0]) or 1.0
    with bar("simulating", total) as advance:
        return Simulator(scn, advance).run(end)


def randomise(scn, seed: int | None, jitter: dict[str, float] | None) -> None:
    """--seed replaces the scenario's seed; --jitter perturbs its workloads with it (sim/perturb.py)."""
    if seed is not None:
        scn.seed = seed
    if jitter:
        perturb(scn, jitter, scn.seed)


@click.command("simulate")
@click.argument("scenario", type=click.Path())
@output_options(html=True, legacy_json=True)
@click.option("--timeseries", is_flag=True, help="Include the per-ClusterQueue time series in -o json/yaml.")
@click.option("--top", default=12, show_default=True, type=click.IntRange(min=1),
              help="ClusterQueues charted in the HTML report, worst first.")
@click.option("--until", metavar="DURATION", help="Stop at this simulated time (e.g. 6h, 1h30m).")
@click.option("--kueue-version", "version", help="Override the scenario's Kueue release (e.g. 0.13.2).")
@click.option("--gate", "gates", multiple=True, help="Feature gate override NAME=true|false (repeatable).")
@click.option("--omit-wall-time", is_flag=True, help="Leave wallSeconds out, for byte-identical reruns.")
@click.option("--snapshot-at", help="Write the cluster as it stands at this simulated time (e.g. 2h).")
@click.option("--snapshot-dir", type=click.Path(file_okay=False), help="Folder for --snapshot-at.")
@click.option("--force", is_flag=True, help="Overwrite a non-empty --snapshot-dir.")
@click.option("--seed", type=click.IntRange(min=0), help="Seed of --jitter's draws (default: the scenario's seed).")
@click.option("--jitter", metavar="runtime=F,arrival=F",
              help="Perturb runtimes by up to ±F of themselves and arrivals by up to F of the mean gap, seeded.")
def command(scenario: str, out: Output, html: str | None, timeseries: bool, top: int, until: str | None,
            version: str | None, gates: tuple[str, ...], omit_wall_time: bool, snapshot_at: str | None,
            snapshot_dir: str | None, force: bool, seed: int | None, jitter: str | None) -> None:
    """Run a simulation SCENARIO (kind: Simulation, docs/simulator.md) or Kueue's
    performance-test generator config, and report admissions, time to admission,
    usage and guarantee violations per ClusterQueue."""
    if snapshot_at and not snapshot_dir:
        raise InputError("--snapshot-at needs --snapshot-dir")
    if snapshot_dir and not snapshot_at:
        raise InputError("--snapshot-dir needs --snapshot-at")
    overrides = parse_gates(gates)
    spread = parse_jitter(jitter) if jitter else None
    if snapshot_at:
        at = duration(snapshot_at, "--snapshot-at")
        if until and at > duration(until, "--until"):
            raise InputError("--snapshot-at is after --until")
        from ..sim.snapshot import snapshot_at as write_at
        scn = load_with(scenario, version, overrides)
        randomise(scn, seed, spread)
        write_at(scn, at, snapshot_dir, force)
    # the summary covers the whole run, so after a snapshot it comes from a second, identical run
    sim = run_scenario(scenario, version, overrides, until, seed, spread)
    summary = sim.recorder.summary()
    if omit_wall_time:
        summary.pop("wallSeconds")
    if html:
        from ..report.sim_html import write_report
        write_report(sim, summary, html, top)
    body = dict(summary)
    if timeseries and out.structured:
        body["timeseries"] = sim.recorder.timeseries()
    from ..report.simulation_text import summary as render
    out.emit(KIND, dict(sorted(body.items())), lambda con, wide: render(con, summary, wide))
