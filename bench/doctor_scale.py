"""Benchmark: `diagnose` on a large gathered folder (run by hand).

    python bench/doctor_scale.py /tmp/big --nodes 5000 --workloads 100000 [--format yaml|json]
    python bench/doctor_scale.py /tmp/big --time      # then time load + diagnose on it
    python bench/doctor_scale.py /tmp/big --compare   # YAML vs JSON, fast vs PyYAML, in one run

--compare writes /tmp/big/yaml and /tmp/big/json (unless there) and runs, each in a process of its
own so that its peak RSS is its own: PyYAML's C loader alone reading the YAML files (the anchor),
then load + diagnose on the YAML folder with the fast decoder, with PyYAML only, and on the JSON
folder. It prints wall seconds, peak RSS, the ratio to the anchor and the CPU seconds (its own and its
forked children's: the decoding workers and diagnose's background replay, whose peak RSS is mostly
pages shared with the parent; on a loaded machine the CPU says more than the wall).

Writes a folder like `kueue-doctor collect` does (kind: List files): 50 cohorts x 20
ClusterQueues of 8-GPU nodes' worth of quota, 5,000 nodes, 100,000 Workloads (60% admitted
with one running pod each, the rest pending), so the doctor has real work: every queue is
evaluated, the violating ones are explained. The queues of the last tenth of the cohorts
(``--violating``) hold half their quota while pending work that fits waits: 100 queues in
violation; the others are full, as every queue was before that option (``--violating 0``).
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

API = "kueue.x-k8s.io/v1beta2"


def lst(items):
    return {"apiVersion": "v1", "kind": "List", "items": items}


def generate(out: Path, nodes: int, workloads: int, fmt: str, seed: int = 7, violating: float = 0.1) -> None:
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    cohorts, per = 50, 20
    cqs = [f"cq-{c}-{i}" for c in range(cohorts) for i in range(per)]
    gpus_per_cq = nodes * 8 // len(cqs)
    # the last cohorts' queues hold half their quota while work that fits waits: guarantee
    # violations for the doctor to explain (the first cohorts, which the other benches use, are full)
    stalled = {f"co-{c}" for c in range(cohorts - round(cohorts * violating), cohorts)}
    kueue = [{"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": "gpu"}}]
    for name in cqs:
        c = name.split("-")[1]
        kueue.append({"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name},
                      "spec": {"cohortName": f"co-{c}", "namespaceSelector": {},
                               "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
                               "resourceGroups": [{"coveredResources": ["nvidia.com/gpu", "cpu"], "flavors": [
                                   {"name": "gpu", "resources": [
                                       {"name": "nvidia.com/gpu", "nominalQuota": str(gpus_per_cq)},
                                       {"name": "cpu", "nominalQuota": str(gpus_per_cq * 12)}]}]}]}})
        kueue.append({"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "main", "namespace": name},
                      "spec": {"clusterQueue": name}})
    pods = []
    used = dict.fromkeys(cqs, 0)
    t0 = "2026-01-01T00:00:00Z"
    for k in range(workloads):
        name = cqs[k % len(cqs)]
        g = rng.choice([1, 2, 4, 8])
        wl = {"apiVersion": API, "kind": "Workload",
              "metadata": {"name": f"w{k}", "namespace": name, "uid": f"u{k}", "resourceVersion": str(1000 + k),
                           "creationTimestamp": f"2026-01-01T00:{(k // 1000) % 60:02d}:{k % 60:02d}Z"},
              "spec": {"queueName": "main", "priority": rng.randint(0, 3), "podSets": [
                  {"name": "main", "count": 1, "template": {"spec": {"containers": [
                      {"name": "c", "resources": {"requests": {"nvidia.com/gpu": str(g), "cpu": str(g * 12)}}}]}}}]}}
        cap = gpus_per_cq // 2 if f"co-{name.split('-')[1]}" in stalled else gpus_per_cq
        if rng.random() < 0.6 and used[name] + g <= cap:
            used[name] += g
            wl["status"] = {"admission": {"clusterQueue": name, "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": {"nvidia.com/gpu": "gpu", "cpu": "gpu"},
                 "resourceUsage": {"nvidia.com/gpu": str(g), "cpu": str(g * 12)}}]},
                "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved",
                                "message": f"Quota reserved in ClusterQueue {name}", "lastTransitionTime": t0},
                               {"type": "Admitted", "status": "True", "reason": "Admitted",
                                "message": "The workload is admitted", "lastTransitionTime": t0}]}
            pods.append({"apiVersion": "v1", "kind": "Pod",
                         "metadata": {"name": f"w{k}-0", "namespace": name,
                                      "annotations": {"kueue.x-k8s.io/workload": f"w{k}"}},
                         "spec": {"nodeName": f"node-{len(pods) % nodes}", "containers": [
                             {"name": "c", "resources": {"requests": {"nvidia.com/gpu": str(g), "cpu": str(g * 12)}}}]},
                         "status": {"phase": "Running"}})
        kueue.append(wl)
    node_objs = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{i}"},
                  "status": {"allocatable": {"nvidia.com/gpu": "8", "cpu": "96", "memory": "1Ti"},
                             "capacity": {"nvidia.com/gpu": "8", "cpu": "96", "memory": "1Ti"},
                             "conditions": [{"type": "Ready", "status": "True"}]}} for i in range(nodes)]
    for fname, items in (("kueue", kueue), ("nodes", node_objs), ("pods", pods)):
        if fmt == "json":  # as collect writes it
            (out / f"{fname}.json").write_text(json.dumps(lst(items), indent=4, sort_keys=True))
        else:
            dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
            (out / f"{fname}.yaml").write_text(yaml.dump(lst(items), Dumper=dumper))
    (out / "manifest.json").write_text(json.dumps({"collectedAt": "2026-01-01T02:00:00Z"}))


def time_it(folder: Path) -> None:
    import gc
    gc.set_threshold(50_000, 50, 100)  # as `kueue-doctor` sets it (cli.main)
    from kueue_doctor.api import load_paths
    from kueue_doctor.doctor.diagnose import diagnose
    from kueue_doctor.sources.snapshot import load_folder
    t = time.perf_counter()
    load_paths([folder])
    load = time.perf_counter() - t
    t = time.perf_counter()
    d = diagnose(load_folder(str(folder)))
    total = time.perf_counter() - t
    print(f"load only: {load:.1f} s; load + diagnose: {total:.1f} s; "
          f"{len(d.violations)} violating queue(s), causes {[str(c.id) for c in d.causes]}")


def _child(mode: str, folder: Path) -> None:
    """One measured run (in its own process): prints its wall seconds."""
    t = time.perf_counter()
    if mode == "pyyaml-alone":
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        for f in sorted(folder.glob("*.yaml")):
            list(yaml.load_all(f.read_text(), Loader=loader))
    else:
        if mode == "pyyaml":
            from kueue_doctor.api import yamlfast
            yamlfast._fast = None  # every text to PyYAML: the decoder of before
        import gc
        gc.set_threshold(50_000, 50, 100)  # as `kueue-doctor` sets it (cli.main)
        from kueue_doctor.doctor.diagnose import diagnose
        from kueue_doctor.sources.snapshot import load_folder
        diagnose(load_folder(str(folder)))
    import resource
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)  # the decoding workers and background replay, if any
    print(f"{workers.ru_maxrss / 1024:.0f} {time.process_time():.2f} {workers.ru_utime + workers.ru_stime:.2f} "
          f"{time.perf_counter() - t:.2f}")


def compare(root: Path, nodes: int, workloads: int) -> None:
    import os
    import subprocess
    for fmt in ("yaml", "json"):
        if not (root / fmt / "manifest.json").exists():
            # in a process of its own: a child forked from a parent holding the generated objects
            # would have their pages in its peak RSS (ru_maxrss counts the moment before exec)
            subprocess.run([sys.executable, __file__, str(root / fmt), "--nodes", str(nodes), "--workloads",
                            str(workloads), "--format", fmt, "--generate-only"], check=True)
    size = sum(f.stat().st_size for f in (root / "yaml").glob("*.yaml")) / 1e6
    print(f"{root}: YAML {size:.0f} MB, JSON "
          f"{sum(f.stat().st_size for f in (root / 'json').glob('*.json')) / 1e6:.0f} MB")
    runs = (("PyYAML C loader alone (YAML)", "pyyaml-alone", "yaml"),
            ("diagnose, YAML, fast decoder", "fast", "yaml"),
            ("diagnose, YAML, PyYAML only", "pyyaml", "yaml"),
            ("diagnose, JSON", "fast", "json"))
    anchor = None
    for label, mode, fmt in runs:
        child = subprocess.Popen([sys.executable, __file__, str(root / fmt), "--child", mode],
                                 stdout=subprocess.PIPE, text=True)
        assert child.stdout is not None
        out = child.stdout.read()
        _, status, usage = os.wait4(child.pid, 0)  # this child's own peak RSS (KiB)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode:
            raise SystemExit(f"{label}: exit {child.returncode}")
        workers_rss, cpu, workers_cpu, wall = (float(x) for x in out.split()[-4:])
        anchor = anchor or wall
        # on a loaded machine wall time is inflated: the CPU seconds say what the run costs
        print(f"{label:32} {wall:7.1f} s  peak RSS {usage.ru_maxrss / 1024:6.0f} MB  "
              f"{wall / anchor:5.2f}x the PyYAML loader  CPU {cpu:.1f} s + {workers_cpu:.1f} s in workers"
              + (f" (peak RSS {workers_rss:.0f} MB)" if workers_cpu else "")
              + (f"  ({size / wall:.1f} MB/s)" if mode == "pyyaml-alone" else ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--workloads", type=int, default=100_000)
    ap.add_argument("--format", choices=("yaml", "json"), default="yaml")
    ap.add_argument("--violating", type=float, default=0.1,
                    help="share of cohorts whose queues hold half their quota while work that fits waits")
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--generate-only", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    folder = Path(args.folder)
    if args.child:
        return _child(args.child, folder)
    if args.compare:
        return compare(folder, args.nodes, args.workloads)
    if not args.time:
        t = time.perf_counter()
        generate(folder, args.nodes, args.workloads, args.format, violating=args.violating)
        print(f"wrote {folder} in {time.perf_counter() - t:.1f} s")
        if args.generate_only:
            return
    time_it(folder)


if __name__ == "__main__":
    main()
