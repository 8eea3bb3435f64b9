"""How often one exporter refresh re-derives each concept (guarantee evaluation, pending order,
not-running reasons, victims) on a folder: `python bench/recompute.py FOLDER`. Each should run
once per queue or per workload; before issue 11 the exporter ran the doctor, then step 1 again."""
from __future__ import annotations

import collections
import sys

from kueue_doctor.metrics.from_snapshot import view_from_snapshot
from kueue_doctor.sources.snapshot import load_folder

CONCEPTS = {"evaluate", "_fit_within", "pending_in_order", "waiting_since", "not_running_reason", "victims",
            "find_victims", "index_pods", "build_context", "build_facts", "diagnose"}


def main() -> None:
    calls: collections.Counter[str] = collections.Counter()

    def prof(frame, event, arg):
        if event == "call" and frame.f_code.co_name in CONCEPTS:
            f = frame.f_code.co_filename.split("kueue_doctor/")[-1]
            calls[f"{f}:{frame.f_code.co_name}"] += 1

    snap = load_folder(sys.argv[1])
    sys.setprofile(prof)
    view_from_snapshot(snap)
    sys.setprofile(None)
    for k, v in sorted(calls.items()):
        print(f"  {k:45s} {v}")


if __name__ == "__main__":
    main()
