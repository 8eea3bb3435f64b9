"""Small gathered folders built in code: the objects a test needs, written the way `kubectl get
-o yaml` and `kueue-doctor collect` write them (Lists, manifest.json)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

T = "2026-11-30T12:00:00Z"          # the snapshot's time (manifest collectedAt)
EARLIER = "2026-11-30T11:30:00Z"    # 30 minutes before: past the 5-minute threshold
API = "kueue.x-k8s.io/v1beta2"


def flavor(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {"nodeLabels": labels}}


def cluster_queue(name: str, quotas: dict[str, int], strategy: str = "StrictFIFO", cohort: str = "",
                  resource: str = "nvidia.com/gpu") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "queueingStrategy": strategy, "namespaceSelector": {},
        "resourceGroups": [{"coveredResources": [resource],
                            "flavors": [{"name": f, "resources": [{"name": resource, "nominalQuota": str(q)}]}
                                        for f, q in quotas.items()]}]}
    if cohort:
        spec["cohortName"] = cohort
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def local_queue(ns: str, name: str, cq: str) -> dict[str, Any]:
    return {"apiVersion": API, "kind": "LocalQueue", "metadata": {"namespace": ns, "name": name},
            "spec": {"clusterQueue": cq}}


def workload(ns: str, name: str, queue: str, gpus: int, created: str = EARLIER,
             node_selector: dict[str, str] | None = None, admitted_to: tuple[str, str] | None = None,
             resource: str = "nvidia.com/gpu", count: int = 1) -> dict[str, Any]:
    pod: dict[str, Any] = {"containers": [{"name": "main", "image": "train:1",
                                           "resources": {"requests": {resource: str(gpus)}}}]}
    if node_selector:
        pod["nodeSelector"] = node_selector
    w: dict[str, Any] = {
        "apiVersion": API, "kind": "Workload",
        "metadata": {"namespace": ns, "name": name, "creationTimestamp": created, "uid": f"uid-{ns}-{name}"},
        "spec": {"queueName": queue, "podSets": [{"name": "main", "count": count, "template": {"spec": pod}}]},
        "status": {}}
    if admitted_to is not None:
        cq, fl = admitted_to
        w["status"] = {
            "admission": {"clusterQueue": cq, "podSetAssignments": [
                {"name": "main", "count": count, "flavors": {resource: fl},
                 "resourceUsage": {resource: str(gpus * count)}}]},
            "conditions": [{"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": created}
                           for t in ("QuotaReserved", "Admitted")]}
    return w


def node(name: str, labels: dict[str, str], gpus: int, ready: bool = True, resource: str = "nvidia.com/gpu",
         unschedulable: bool = False) -> dict[str, Any]:
    n: dict[str, Any] = {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
        "spec": {},
        "status": {"allocatable": {resource: str(gpus), "cpu": "64", "memory": "512Gi", "pods": "110"},
                   "capacity": {resource: str(gpus), "cpu": "64", "memory": "512Gi", "pods": "110"},
                   "conditions": [{"type": "Ready", "status": "True" if ready else "False",
                                   "lastTransitionTime": EARLIER}]}}
    if unschedulable:
        n["spec"]["unschedulable"] = True
    return n


def write_folder(root: Path, objects: list[dict[str, Any]], collected_at: str | None = T,
                 failed: list[dict[str, Any]] | None = None) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    kueue = [o for o in objects if o["apiVersion"].startswith("kueue.x-k8s.io")]
    nodes = [o for o in objects if o["kind"] == "Node"]
    rest = [o for o in objects if o not in kueue and o not in nodes]
    for fname, items in (("kueue.yaml", kueue), ("nodes.yaml", nodes), ("other.yaml", rest)):
        if items:
            (root / fname).write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    if collected_at is not None:
        (root / "manifest.json").write_text(json.dumps({"collectedAt": collected_at, "failed": failed or []}))
    return root


def pod(ns: str, name: str, workload_name: str, gpus: int, node_name: str = "", phase: str = "Running",
        resource: str = "nvidia.com/gpu", labels: dict[str, str] | None = None) -> dict[str, Any]:
    """A pod; ``workload_name`` is its kueue.x-k8s.io/workload annotation ("" for none)."""
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "train:1",
                                            "resources": {"requests": {resource: str(gpus)}}}]}
    if node_name:
        spec["nodeName"] = node_name
    meta: dict[str, Any] = {"namespace": ns, "name": name, "creationTimestamp": EARLIER,
                            "annotations": {"kueue.x-k8s.io/workload": workload_name} if workload_name else {}}
    if labels:
        meta["labels"] = dict(labels)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": phase}}


def job(ns: str, name: str, uid: str = "", queue: str | None = None, suspend: bool = True) -> dict[str, Any]:
    """A batch/v1 Job; ``queue`` is its kueue.x-k8s.io/queue-name label (None for none)."""
    meta: dict[str, Any] = {"namespace": ns, "name": name, "creationTimestamp": EARLIER}
    if uid:
        meta["uid"] = uid
    if queue is not None:
        meta["labels"] = {"kueue.x-k8s.io/queue-name": queue}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"suspend": suspend, "template": {"spec": {"containers": [{"name": "main", "image": "train:1"}]}}},
            "status": {}}


def owned_by(obj: dict[str, Any], kind: str, name: str, uid: str = "", api_version: str = "batch/v1",
             controller: bool = True) -> dict[str, Any]:
    """``obj`` with one more metadata.ownerReferences entry (as Kueue and the job controllers write them)."""
    ref: dict[str, Any] = {"apiVersion": api_version, "kind": kind, "name": name, "controller": controller,
                           "blockOwnerDeletion": True}
    if uid:
        ref["uid"] = uid
    obj["metadata"].setdefault("ownerReferences", []).append(ref)
    return obj


def facts_of(root: Path, objects: list[dict[str, Any]], log: str | None = None, **kw: Any) -> Any:
    """The doctor's facts of a folder written from ``objects`` (and a controller log)."""
    from datetime import timedelta

    from kueue_doctor.doctor.diagnose import scan_logs
    from kueue_doctor.doctor.gather import build_facts
    from kueue_doctor.sources.snapshot import load_folder
    folder = write_folder(root, objects, **kw)
    if log is not None:
        (folder / "kueue-controller-manager.log").write_text(log)
    snap = load_folder(str(folder))
    return build_facts(snap, timedelta(minutes=5), None, scan_logs(snap))


def condition(obj: dict[str, Any], ctype: str, status: str, at: str, reason: str = "", message: str = "") -> None:
    obj.setdefault("status", {}).setdefault("conditions", []).append(
        {"type": ctype, "status": status, "reason": reason or ctype, "message": message, "lastTransitionTime": at})
