"""``kueue-doctor demo``: the three production failures, on the affected and the fixed release, and
the incidents fixed by a remedy (same release, changed configuration)."""
from __future__ import annotations

import click

from ..sim.incidents import INCIDENTS, REMEDIES, apply_fix, incident_path
from ..sim.scenario import load_scenario
from ..sim.simulator import Simulator
from .output import Output, output_options
from .progress import phase

KIND = "DemoResults"


def run_pair(name: str) -> dict:
    path = str(incident_path(name))
    runs: dict = {}
    for label in ("affected", "fixed"):
        scn = load_scenario(path)
        remedy = apply_fix(scn) if label == "fixed" else None
        sim = Simulator(scn).run()
        summary = sim.recorder.summary()
        runs[label] = {"version": summary["kueue"]["version"], "featureGates": summary["kueue"]["featureGates"],
                       "clusterQueues": {cq: {k: v[k] for k in ("admissions", "admissionsPerPendingHour",
                                                                 "violationSeconds")}
                                         for cq, v in summary["clusterQueues"].items()}}
        if remedy:
            runs[label]["remedy"] = remedy
    scn = load_scenario(path)
    return {"incident": name, "title": scn.name, "cause": scn.demo.get("cause"),
            "focus": list(scn.demo.get("focus") or []), **runs}


@click.command("demo")
@output_options(legacy_json=True)
def command(out: Output) -> None:
    """Reproduce the three production failures (slow preemption release, zombie pod,
    DRS rounding) on the affected Kueue release and on the fixed one, side by side, and
    topology fragmentation with and without its remedy (preferred instead of required rack):
    time in guarantee violation and admissions per ClusterQueue."""
    from ..report.simulation_text import demo
    with phase("simulating the incidents, affected and fixed"):
        results = [run_pair(name) for name in INCIDENTS + REMEDIES]
    out.emit(KIND, {"items": results}, lambda con, wide: demo(con, results, wide))
