"""Scrape cost of `kueue-doctor serve` on a big snapshot folder (issue 8).

Generates a folder with N Workloads (default 100,000) spread over C ClusterQueues of one
cohort, a third admitted and the rest pending, plus GPU nodes; loads it the way
`serve FOLDER` does, then times scrapes (the exposition text a Prometheus GET receives) and
reports peak memory. Measures, asserts nothing.

    python bench/exporter_scrape.py [--workloads 100000] [--queues 20] [--nodes 500] [--scrapes 5]
"""
from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

import yaml

API = "kueue.x-k8s.io/v1beta2"
T0 = "2026-08-06T10:00:00Z"


def workload(i: int, ns: str, cq: str, admitted: bool) -> dict:
    gpus = (1, 2, 4, 8)[i % 4]
    req = {"cpu": str(16 * gpus), "memory": f"{180 * gpus}Gi", "nvidia.com/gpu": str(gpus)}
    w = {"apiVersion": API, "kind": "Workload",
         "metadata": {"name": f"job-{i:06d}", "namespace": ns, "uid": f"00000000-0000-0000-0000-{i:012d}",
                      "creationTimestamp": T0},
         "spec": {"active": True, "queueName": "main", "priority": i % 3,
                  "podSets": [{"name": "main", "count": 1, "template": {"spec": {
                      "restartPolicy": "Never",
                      "containers": [{"name": "main", "image": "x", "resources": {"requests": req}}]}}}]}}
    if admitted:
        w["status"] = {"admission": {"clusterQueue": cq, "podSetAssignments": [
            {"name": "main", "count": 1, "flavors": dict.fromkeys(req, "h100"), "resourceUsage": req}]},
            "conditions": [{"type": t, "status": "True", "reason": t, "message": "",
                            "lastTransitionTime": T0} for t in ("QuotaReserved", "Admitted")]}
    return w


def generate(folder: Path, n: int, queues: int, nodes: int) -> None:
    items: list[dict] = [{"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": "h100"},
                          "spec": {"nodeLabels": {"gpu": "h100"}}},
                         {"apiVersion": API, "kind": "Cohort", "metadata": {"name": "all"}, "spec": {}}]
    for q in range(queues):
        items.append({"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": f"team-{q:02d}"},
                      "spec": {"cohortName": "all", "namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                               "resourceGroups": [{"coveredResources": ["cpu", "memory", "nvidia.com/gpu"],
                                                   "flavors": [{"name": "h100", "resources": [
                                                       {"name": "cpu", "nominalQuota": "20000"},
                                                       {"name": "memory", "nominalQuota": "200Ti"},
                                                       {"name": "nvidia.com/gpu", "nominalQuota": "1000"}]}]}]}})
        items.append({"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "main", "namespace": f"ns-{q:02d}"},
                      "spec": {"clusterQueue": f"team-{q:02d}"}})
    for i in range(n):
        q = i % queues
        items.append(workload(i, f"ns-{q:02d}", f"team-{q:02d}", admitted=i % 3 == 0))
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    (folder / "kueue.yaml").write_text(yaml.dump({"apiVersion": "v1", "kind": "List", "items": items}, Dumper=dumper))
    node_items = [{"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": f"node-{k:04d}", "labels": {"gpu": "h100"}},
                   "status": {"allocatable": {"cpu": "192", "memory": "2Ti", "nvidia.com/gpu": "8", "pods": "110"},
                              "capacity": {"cpu": "192", "memory": "2Ti", "nvidia.com/gpu": "8", "pods": "110"},
                              "conditions": [{"type": "Ready", "status": "True"}]}} for k in range(nodes)]
    (folder / "nodes.yaml").write_text(yaml.dump({"apiVersion": "v1", "kind": "List", "items": node_items},
                                                 Dumper=dumper))
    (folder / "manifest.json").write_text('{"collectedAt": "2026-08-06T12:00:00Z"}')


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", type=int, default=100_000)
    ap.add_argument("--queues", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--scrapes", type=int, default=5)
    ap.add_argument("--folder", help="Reuse or keep the generated folder here.")
    a = ap.parse_args()
    from prometheus_client import CollectorRegistry, generate_latest

    from kueue_doctor.metrics.collector import DoctorCollector
    from kueue_doctor.metrics.sources import FolderSource
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(a.folder or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if not (folder / "kueue.yaml").exists():
            t = time.perf_counter()
            generate(folder, a.workloads, a.queues, a.nodes)
            print(f"generated {a.workloads} workloads in {time.perf_counter() - t:.1f} s "
                  f"({(folder / 'kueue.yaml').stat().st_size / 1e6:.0f} MB)")
        t = time.perf_counter()
        source = FolderSource(str(folder), timedelta(minutes=5), 30.0)
        print(f"load + diagnose (once per folder change): {time.perf_counter() - t:.1f} s")
        reg = CollectorRegistry(auto_describe=False)
        reg.register(DoctorCollector(source))
        times, size = [], 0
        for _ in range(a.scrapes):
            t = time.perf_counter()
            size = len(generate_latest(reg))
            times.append(time.perf_counter() - t)
        print(f"scrape: min {min(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms over {a.scrapes} "
              f"({size} bytes)")
        t = time.perf_counter()
        source.tick()   # the refresh thread's poll when nothing changed
        print(f"unchanged-folder poll: {(time.perf_counter() - t) * 1000:.1f} ms")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"peak RSS: {peak / (1024 if sys.platform != 'darwin' else 1024 * 1024):.0f} MB")


if __name__ == "__main__":
    main()
