"""Time one openb replay per placement policy (issue 7's speed aim: FGD < 10 s, others < 2 s).

    python bench/frag_replay.py [--trace default] [--seed 42] [--policies all] [--repeat 1]

Reports wall and CPU seconds of the replay alone (CSV reading excluded) and the final
milli-GPU allocation. CPU seconds are the steadier figure on a shared 2-core machine.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from kueue_doctor.frag.policies import POLICIES
from kueue_doctor.frag.replay import replay
from kueue_doctor.frag.trace import read_nodes, read_pods

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "openb"
AIM = {"FGD": 10.0}
AIM_OTHERS = 2.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(DATA), help="folder with the openb CSVs")
    ap.add_argument("--trace", default="default", help="pod list variant: default, multigpu50, ...")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--policies", default="all")
    ap.add_argument("--repeat", type=int, default=1, help="runs per policy; the best is kept")
    args = ap.parse_args()
    data = Path(args.data)
    nodes = read_nodes(str(data / "openb_node_list_gpu_node.csv"))
    pods = read_pods(str(data / f"openb_pod_list_{args.trace}.csv"))
    names = list(POLICIES) if args.policies == "all" else args.policies.split(",")
    print(f"openb {args.trace}, seed {args.seed}, {len(nodes)} nodes, {len(pods)} trace pods")
    print(f"{'policy':<14}{'wall s':>8}{'cpu s':>8}{'aim s':>7}{'final alloc %':>15}")
    slow = 0
    for name in names:
        best_wall = best_cpu = float("inf")
        for _ in range(args.repeat):
            w0, c0 = time.perf_counter(), time.process_time()
            r = replay(nodes, pods, name, args.seed)
            best_wall = min(best_wall, time.perf_counter() - w0)
            best_cpu = min(best_cpu, time.process_time() - c0)
        aim = AIM.get(r.policy, AIM_OTHERS)
        slow += best_cpu > aim
        print(f"{r.policy:<14}{best_wall:>8.2f}{best_cpu:>8.2f}{aim:>7.0f}{r.final_allocation:>15.2f}")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
