"""The gathered folders of tests/data/causes/topology-*: a Topology-Aware Scheduling cluster of
Kueue v0.18.4 (the release of the other cause folders) as `kubectl get -o yaml` Lists.

    python -m tests.doctor.topology_folders     # rewrites tests/data/causes/topology-*/

- ``topology-fragmentation``: 16 H100 nodes (8 GPUs each) in 2 blocks x 2 racks x 4 hosts under a
  v1beta1 Topology; TAS workloads (topologyAssignment in v1beta2 ``slices``, pods with the
  ``podset-required-topology`` annotation Kueue copies from the template) and pods Kueue does not
  manage (notebooks, a burn-in check) leave 68 GPUs free but at most 24 in any rack; training's
  head asks for 8 pods x 4 GPUs in one rack, fits training's unused nominal quota, and waits with
  the message Kueue writes ("couldn't assign flavors to pod set workers: topology ... allows to
  fit only 5 out of 8 pod(s)..."). training may preempt nothing (withinClusterQueue Never) and
  research borrows nothing, so no preemption frees a rack.
- ``topology-rack-free``: the same cluster a moment after research's sweep finished: rack b1-r1
  is free, the head fits there; Kueue's condition still carries the last cycle's message.
- ``topology-healthy-busy``: the racks as fragmented, but the 8 x 4 GPU job waits in research,
  which would have to borrow for it: nothing is owed, no cause.
A second TAS flavor (L40S nodes, a v1beta2 Topology rack / hostname) runs an inference
workload and is healthy in both.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from .cause_folders import NOW, at, deployment, rewrite, zap
from .cluster import cluster_queue, condition, job, local_queue, node, owned_by, workload, write_folder

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
HOST = "kubernetes.io/hostname"
GROUP = "cloud.provider.com/node-group"
GPU = "nvidia.com/gpu"
HEAD = ("training", "job-llm-pretrain-8x4-7c1d2")
# Kueue v0.18.4's QuotaReserved=False message for the head (flavorassigner + notFitMessage)
HEAD_MESSAGE = ('couldn\'t assign flavors to pod set workers: topology "h100-topology" allows to fit only 5 out '
                'of 8 pod(s). Total nodes: 16; excluded: resource "nvidia.com/gpu": 7')


def topology(name: str, levels: list[str], version: str) -> dict[str, Any]:
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "Topology",
            "metadata": {"name": name, "creationTimestamp": at(90 * 24 * 60)},
            "spec": {"levels": [{"nodeLabel": lv} for lv in levels]}}


def tas_flavor(name: str, group: str, topo: str) -> dict[str, Any]:
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name},
            "spec": {"nodeLabels": {GROUP: group}, "topologyName": topo}}


def h100_nodes() -> list[dict[str, Any]]:
    out = []
    for b in (1, 2):
        for r in (1, 2):
            for n in (1, 2, 3, 4):
                name = f"gpu-b{b}-r{r}-n{n}"
                out.append(node(name, {GROUP: "h100", BLOCK: f"b{b}", RACK: f"b{b}-r{r}", HOST: name,
                                       "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}, 8))
    return out


def l40s_nodes() -> list[dict[str, Any]]:
    return [node(f"l40s-r1-n{n}", {GROUP: "l40s", RACK: "l40s-r1", HOST: f"l40s-r1-n{n}",
                                   "nvidia.com/gpu.product": "NVIDIA-L40S"}, 4) for n in (1, 2)]


def tas_pod(ns: str, name: str, wl: str, gpus: int, node_name: str, level: str) -> dict[str, Any]:
    """A running pod of a TAS Job workload as v0.18 leaves it: the topology annotation from the pod
    template, the workload annotation and podset label Kueue puts on the template when it admits
    the Job; the kueue.x-k8s.io/topology scheduling gate is gone once the ungater placed it (the
    kueue.x-k8s.io/tas label is deprecated and no longer added: apis/kueue/v1beta1/topology_types.go)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"namespace": ns, "name": name, "creationTimestamp": at(60),
                         "labels": {"kueue.x-k8s.io/podset": "workers"},
                         "annotations": {"kueue.x-k8s.io/workload": wl,
                                         "kueue.x-k8s.io/podset-required-topology": level}},
            "spec": {"nodeName": node_name, "nodeSelector": {GROUP: "h100" if node_name.startswith("gpu-") else "l40s"},
                     "containers": [{"name": "main", "image": "train:1", "resources": {"requests": {GPU: str(gpus)},
                                                                                     "limits": {GPU: str(gpus)}}}]},
            "status": {"phase": "Running"}}


def plain_pod(ns: str, name: str, gpus: int, node_name: str) -> dict[str, Any]:
    """A pod Kueue does not manage (no queue): non-TAS usage on its node."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"namespace": ns, "name": name, "creationTimestamp": at(3 * 60)},
            "spec": {"nodeName": node_name,
                     "containers": [{"name": "main", "image": "jupyter:4", "resources": {"requests": {GPU: str(gpus)},
                                                                                       "limits": {GPU: str(gpus)}}}]},
            "status": {"phase": "Running"}}


def slices(hosts: list[str], per_host: int) -> dict[str, Any]:
    """A v1beta2 topologyAssignment on a hostname-lowest topology (only the hostname level is
    written), in the compact slice encoding."""
    return {"levels": [HOST], "slices": [{"domainCount": len(hosts),
                                          "valuesPerLevel": [{"individual": {"roots": hosts}}],
                                          "podCounts": {"universal": per_host}}]}


def tas_running(ns: str, name: str, lq: str, cq: str, flv: str, gpus: int, hosts: list[str], level: str,
                minutes: float) -> list[dict[str, Any]]:
    """An admitted TAS Job workload, one pod of ``gpus`` per host in ``hosts``."""
    count = len(hosts)
    w = workload(ns, name, lq, gpus, created=at(minutes + 1), admitted_to=(cq, flv), count=count)
    ps = w["spec"]["podSets"][0]
    ps["name"] = "workers"
    ps["topologyRequest"] = {"required": level}
    psa = w["status"]["admission"]["podSetAssignments"][0]
    psa["name"] = "workers"
    psa["topologyAssignment"] = slices(hosts, 1)
    for c in w["status"]["conditions"]:
        c["lastTransitionTime"] = at(minutes)
        c["message"] = (f"Quota reserved in ClusterQueue {cq}" if c["type"] == "QuotaReserved"
                        else "The workload is admitted")
    uid = f"uid-job-{name}"
    owned_by(w, "Job", name.removeprefix("job-").rsplit("-", 1)[0], uid)
    w["metadata"]["labels"] = {"kueue.x-k8s.io/job-uid": uid}
    j = job(ns, name.removeprefix("job-").rsplit("-", 1)[0], uid=uid, queue=lq, suspend=False)
    pods = [tas_pod(ns, f"{j['metadata']['name']}-{i}", name, gpus, h, level) for i, h in enumerate(hosts)]
    return [w, j, *pods]


def head(ns: str = HEAD[0], name: str = HEAD[1]) -> list[dict[str, Any]]:
    w = workload(ns, name, ns, 4, created=at(45), count=8)
    ps = w["spec"]["podSets"][0]
    ps["name"] = "workers"
    ps["topologyRequest"] = {"required": RACK}
    ps["template"]["metadata"] = {"annotations": {"kueue.x-k8s.io/podset-required-topology": RACK}}
    job_name = name.removeprefix("job-").rsplit("-", 1)[0]
    uid = f"uid-job-{job_name}"
    owned_by(w, "Job", job_name, uid)
    w["metadata"]["labels"] = {"kueue.x-k8s.io/job-uid": uid}
    condition(w, "QuotaReserved", "False", at(44), reason="Pending", message=HEAD_MESSAGE)
    w["status"]["resourceRequests"] = [{"name": "workers", "resources": {GPU: "32"}}]
    return [w, job(ns, job_name, uid=uid, queue=ns, suspend=True)]


def cluster(rack_free: bool, busy: bool = False) -> list[dict[str, Any]]:
    """``busy``: the 8 x 4 GPU job waits in research instead, which has 8 GPUs of nominal quota
    left: it would have to borrow, so nothing is owed (a healthy, busy TAS cluster)."""
    training = cluster_queue("training", {"h100-tas": 64}, strategy="BestEffortFIFO", cohort="ml")
    research = cluster_queue("research", {"h100-tas": 32}, strategy="BestEffortFIFO", cohort="ml")
    inference = cluster_queue("inference", {"l40s-tas": 8}, strategy="BestEffortFIFO")
    for c in (training, research):
        c["spec"]["preemption"] = {"withinClusterQueue": "Never", "reclaimWithinCohort": "Any"}
    objs: list[dict[str, Any]] = [
        topology("h100-topology", [BLOCK, RACK, HOST], "v1beta1"),
        topology("l40s-topology", [RACK, HOST], "v1beta2"),
        tas_flavor("h100-tas", "h100", "h100-topology"), tas_flavor("l40s-tas", "l40s", "l40s-topology"),
        *h100_nodes(), *l40s_nodes(), training, research, inference,
        local_queue("training", "training", "training"), local_queue("research", "research", "research"),
        local_queue("inference", "inference", "inference")]
    if not rack_free:
        objs += tas_running("research", "job-sweep-lr-3-9f2a1", "research", "research", "h100-tas", 8,
                            ["gpu-b1-r1-n1", "gpu-b1-r1-n2"], RACK, 4 * 60)
    objs += tas_running("training", "job-finetune-7b-41c7e", "training", "training", "h100-tas", 8,
                        ["gpu-b1-r2-n1", "gpu-b1-r2-n2", "gpu-b1-r2-n3"], RACK, 2 * 60)
    objs += tas_running("research", "job-eval-suite-0b3d5", "research", "research", "h100-tas", 8,
                        ["gpu-b2-r2-n1"], RACK, 90)
    objs += tas_running("inference", "job-serve-batch-5e6f7", "inference", "inference", "l40s-tas", 4,
                        ["l40s-r1-n1"], RACK, 5 * 60)
    objs += [plain_pod("notebooks", "jupyter-alice", 2, "gpu-b2-r1-n1"),
             plain_pod("notebooks", "jupyter-bob", 6, "gpu-b2-r1-n2"),
             plain_pod("gpu-ops", "gpu-burn-check", 4, "gpu-b2-r2-n2")]
    objs += head("research", "job-hparam-grid-8x4-2b9c4") if busy else head()
    return objs


def log() -> str:
    """The scheduler evaluating the head every 30 s for the last 10 minutes."""
    from datetime import timedelta
    out = []
    for i in range(20):
        t = NOW - timedelta(minutes=10) + timedelta(seconds=30 * i)
        out.append(zap(t, "Level(-3)", "scheduler", "scheduler/logging.go:42", "Workload evaluated for admission",
                       schedulingCycle=7000 + i, workload={"name": HEAD[1], "namespace": HEAD[0]},
                       clusterQueue={"name": "training"}, status="", reason=HEAD_MESSAGE))
    return "".join(out)


FOLDERS = {"topology-fragmentation": lambda: cluster(False), "topology-rack-free": lambda: cluster(True),
           "topology-healthy-busy": lambda: cluster(False, busy=True)}


def write(root: Path, name: str) -> Path:
    folder = write_folder(root / name, FOLDERS[name](), collected_at=NOW.strftime("%Y-%m-%dT%H:%M:%SZ"))
    (folder / "deployment.yaml").write_text(deployment())
    (folder / "kueue-controller-manager.log").write_text(log())
    return folder


def main() -> None:
    rewrite(FOLDERS, write)


if __name__ == "__main__":
    main()
