"""``kueue-doctor frag``: replay a GPU trace under placement policies and compare them."""
from __future__ import annotations

import os

import click

from ..errors import InputError
from ..frag.compare import run_grid, summarise, table
from ..frag.policies import POLICIES, policy_class
from ..frag.replay import DEFAULT_TUNE, replay
from ..frag.trace import read_nodes, read_pods
from ..report.frag_html import html_report
from ..report.text import Column, Table
from .output import Output, output_options
from .progress import bar, phase

DEFAULT_COMPARE = "Random,GpuPacking,BestFit,FGD"


def parse_seeds(text: str) -> list[int]:
    """``42-51``, ``42,43`` or a mix of both."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part[1:]:
                lo, hi = part.split("-", 1)
                seeds.extend(range(int(lo), int(hi) + 1))
            elif part:
                seeds.append(int(part))
    except ValueError:
        raise InputError(f"not a seed list: {text!r} (use e.g. 42-51 or 42,43)", field="--seeds") from None
    if not seeds:
        raise InputError("no seeds", field="--seeds")
    return seeds


def _tune(value: float) -> float | None:
    if value < 0:
        raise InputError(f"must be >= 0: {value}", field="--tune")
    return value or None  # 0 replays the trace as it is


nodes_option = click.option("--nodes", "nodes_path", required=True, type=click.Path(dir_okay=False),
                            help="Node list CSV (sn,cpu_milli,memory_mib,gpu,model).")
pods_option = click.option("--pods", "pods_path", required=True, type=click.Path(dir_okay=False),
                           help="Pod list CSV (name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec]).")
tune_option = click.option("--tune", default=DEFAULT_TUNE, show_default=True, type=float,
                           help="Top up or thin the trace to this multiple of GPU capacity (0: as is).")


@click.group("frag")
def command() -> None:
    """GPU fragmentation: replay traces under placement policies (FGD paper's simulator)."""


@command.command("replay")
@nodes_option
@pods_option
@click.option("--policy", required=True, help=f"One of {', '.join(POLICIES)}.")
@click.option("--seed", default=42, show_default=True, type=int)
@tune_option
@output_options(legacy_json=True)
def replay_cmd(nodes_path: str, pods_path: str, policy: str, seed: int, tune: float, out: Output) -> None:
    """Place every pod of a trace, in a seeded order, and report GPU allocation and fragmentation.

    Columns are arrived load as % of GPU capacity (0..130); allocation is the milli-GPU
    allocation ratio (%), fragmentation the FGD-fragmented GPU as % of capacity.
    """
    policy_class(policy)  # reject an unknown name before reading anything
    with phase(f"replaying {os.path.basename(pods_path)} with {policy}"):
        nodes, pods = read_nodes(nodes_path), read_pods(pods_path)
        r = replay(nodes, pods, policy, seed, _tune(tune))
    alloc, frag = r.allocation_curve(), r.fragmentation_curve()
    body = {"policy": r.policy, "seed": seed, "pods": r.pods, "failed": r.failed,
            "finalAllocation": round(r.final_allocation, 2),
            "allocation": {str(k): v for k, v in alloc.items()},
            "fragmentation": {str(k): v for k, v in frag.items()}}

    def text(con, wide: bool) -> None:
        con.print(f"{r.policy}, seed {seed}: {r.pods} pods, {r.failed} failed, "
                  f"final GPU allocation {r.final_allocation:.2f}%")
        t = Table([Column("arrived", right=True), Column("allocated", right=True), Column("fragmented", right=True)])
        for x in sorted(alloc):
            if wide or x % 10 == 0:
                f = frag.get(x)
                t.add(f"{x}%", f"{alloc[x]:.2f}%", "-" if f is None else f"{f:.2f}%")
        t.print(con, wide)
    out.emit("FragReplay", body, text)


@command.command("compare")
@nodes_option
@pods_option
@click.option("--policies", default=DEFAULT_COMPARE, show_default=True,
              help=f"Comma-separated, from {', '.join(POLICIES)}; 'all' for the six.")
@click.option("--seeds", default="42-51", show_default=True, help="Seeds, e.g. 42-51 or 42,43.")
@tune_option
@click.option("--jobs", default=0, type=int, help="Worker processes (default: one per core).")
@output_options(html=True, legacy_json=True)
def compare_cmd(nodes_path: str, pods_path: str, policies: str, seeds: str, tune: float, jobs: int,
                html: str | None, out: Output) -> None:
    """Run policies x seeds in parallel; print mean allocation at 90/100/130 % arrived load."""
    names = list(POLICIES) if policies.strip().lower() == "all" else \
        [p.strip() for p in policies.split(",") if p.strip()]
    if not names:
        raise InputError("no policies", field="--policies")
    seed_list = parse_seeds(seeds)
    with bar("replaying", len(names) * len(seed_list)) as advance:
        runs = run_grid(nodes_path, pods_path, names, seed_list, _tune(tune), jobs, advance)
    summaries = summarise(runs)
    text = table(summaries)
    if html:
        note = (f"{os.path.basename(pods_path)} on {os.path.basename(nodes_path)}, seeds {seeds}, tune {tune}. "
                "Allocation is on the milli-GPU basis; fragmentation is the FGD measure.")
        try:
            with open(html, "w", encoding="utf-8") as f:
                f.write(html_report("GPU fragmentation: placement policies", summaries, text, note))
        except OSError as e:
            raise InputError(f"cannot write: {e.strerror or e}", file=html) from None
    body = {"policies": {s.policy: {"runs": s.runs,
                                    "allocation_mean": {str(k): round(v, 2) for k, v in s.alloc_mean.items()},
                                    "fragmentation_median": {str(k): v for k, v in s.frag_median.items()},
                                    "seconds_mean": round(s.seconds_mean, 3)} for s in summaries}}
    out.emit("FragComparison", body, lambda con, wide: con.print(text, markup=False))
