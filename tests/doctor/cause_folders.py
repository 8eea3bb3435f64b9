"""The gathered folders of tests/data/causes/: one per cause kueue-doctor names since issue 14
(quota-held-without-pods, preemption-retry-storm, head-exceeds-max-quota) and a healthy busy
cluster of the same release (Kueue v0.18.4). Objects are `kubectl get -o yaml` Lists, logs zap
JSON as `kubectl logs` prints them at --zap-log-level=5.

    python -m tests.doctor.cause_folders     # rewrites tests/data/causes/

Each folder's PROVENANCE.md says which public issue it is modelled on; test_cause_folders.py
checks the committed folders are what this module writes.
"""
from __future__ import annotations

import gzip
import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.paths import INCIDENTS, TESTS

from .cluster import cluster_queue, condition, flavor, job, local_queue, node, owned_by, pod, workload, write_folder

DATA = TESTS / "data" / "causes"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
H100 = {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}


def at(minutes_before: float) -> str:
    return (NOW - timedelta(minutes=minutes_before)).strftime("%Y-%m-%dT%H:%M:%SZ")


def zts(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z"


def zap(t: datetime, level: str, logger: str, caller: str, msg: str, **fields: Any) -> str:
    """One line as Kueue's zap JSON encoder writes it (key order: level, ts, logger, caller, msg)."""
    head = {"level": level, "ts": zts(t), "logger": logger, "caller": caller, "msg": msg}
    return json.dumps({**head, **fields}, separators=(",", ":")) + "\n"


def ref(ns: str, name: str) -> dict[str, str]:
    return {"name": name, "namespace": ns}


def admitted_line(t: datetime, cycle: int, ns: str, name: str, cq: str, cohort: str, gpus: int, flv: str) -> str:
    return zap(t, "Level(-2)", "scheduler", "scheduler/scheduler.go:712",
               "Workload successfully admitted and assigned flavors", schedulingCycle=cycle,
               workload=ref(ns, name), clusterQueue={"name": cq}, parentCohort={"name": cohort},
               rootCohort={"name": cohort}, assignments=[{"name": "main", "flavors": {"nvidia.com/gpu": flv},
                                                          "resourceUsage": {"nvidia.com/gpu": str(gpus)},
                                                          "count": 1}])


def requeued_line(t: datetime, cycle: int, ns: str, name: str, cq: str, lq: str, reason: str) -> str:
    return zap(t, "Level(-2)", "scheduler", "scheduler/scheduler.go:790", "Workload re-queued",
               schedulingCycle=cycle, workload=ref(ns, name), clusterQueue={"name": cq},
               queue={"name": lq, "namespace": ns}, requeueReason=reason, added=True, status="")


def deployment() -> str:
    (folder,) = INCIDENTS.glob("01-*")
    return (folder / "deployment.yaml").read_text()   # the Kueue v0.18.4 manager Deployment


def nodes(prefix: str, n: int, gpus: int = 8) -> list[dict[str, Any]]:
    return [node(f"{prefix}-{i}", {**H100, "pool": prefix}, gpus) for i in range(n)]


def running(ns: str, name: str, lq: str, cq: str, flv: str, gpus: int, node_name: str, minutes: float,
            pods: int = 1) -> list[dict[str, Any]]:
    """An admitted Job workload with its Job and running pods, admitted ``minutes`` ago."""
    w = workload(ns, name, lq, gpus, created=at(minutes + 1), admitted_to=(cq, flv), count=pods)
    for c in w["status"]["conditions"]:
        c["lastTransitionTime"] = at(minutes)
    uid = f"uid-job-{name}"
    owned_by(w, "Job", name.removeprefix("job-"), uid)
    w["metadata"]["labels"] = {"kueue.x-k8s.io/job-uid": uid}
    j = job(ns, name.removeprefix("job-"), uid=uid, queue=lq, suspend=False)
    ps = [pod(ns, f"{name.removeprefix('job-')}-{i}", name, gpus, node_name=node_name) for i in range(pods)]
    return [w, j, *ps]


def pending(ns: str, name: str, lq: str, gpus: int, minutes: float, count: int = 1) -> dict[str, Any]:
    return workload(ns, name, lq, gpus, created=at(minutes), count=count)


def cq_with(name: str, quotas: dict[str, int], cohort: str, strategy: str = "BestEffortFIFO",
            borrowing_limit: int | None = None, lending_limit: int | None = None,
            preemption: dict[str, Any] | None = None) -> dict[str, Any]:
    c = cluster_queue(name, quotas, strategy=strategy, cohort=cohort)
    for f in c["spec"]["resourceGroups"][0]["flavors"]:
        for r in f["resources"]:
            if borrowing_limit is not None:
                r["borrowingLimit"] = str(borrowing_limit)
            if lending_limit is not None:
                r["lendingLimit"] = str(lending_limit)
    if preemption:
        c["spec"]["preemption"] = preemption
    return c


# --- quota-held-without-pods -------------------------------------------------------------------

def held_without_pods() -> tuple[list[dict[str, Any]], str]:
    """kubernetes-sigs/kueue#14811: a JobSet running for ~20h, recreated by its failurePolicy;
    WaitForPodsReady's recovery timeout evicts it (PodsReadyTimeout), Kueue deletes its pods and
    suspends it, but the Workload keeps QuotaReserved=True, Admitted=True, Evicted=True and its
    status.admission: it holds 16 GPUs (8 borrowed from research's nominal quota) for hours with
    no pod, and research's own work, within its nominal quota, waits."""
    objs: list[dict[str, Any]] = [flavor("h100", H100), *nodes("h100", 4),
                                  cq_with("training", {"h100": 8}, "gpu"), cq_with("research", {"h100": 24}, "gpu"),
                                  local_queue("llm", "training", "training"), local_queue("vision", "research",
                                                                                          "research")]
    w = workload("llm", "jobset-pretrain-7b-5c2e1", "training", 8, created=at(22 * 60), admitted_to=("training", "h100"),
                 count=2)
    owned_by(w, "JobSet", "pretrain-7b", "uid-jobset-pretrain-7b", api_version="jobset.x-k8s.io/v1alpha2")
    w["metadata"]["labels"] = {"kueue.x-k8s.io/job-uid": "uid-jobset-pretrain-7b"}
    for c in w["status"]["conditions"]:
        c["lastTransitionTime"] = at(21 * 60)
        c["message"] = ("Quota reserved in ClusterQueue training" if c["type"] == "QuotaReserved"
                        else "The workload is admitted")
    condition(w, "PodsReady", "False", at(3 * 60 + 10), reason="WaitForRecovery",
              message="At least one pod has failed, waiting for recovery")
    condition(w, "Evicted", "True", at(3 * 60), reason="PodsReadyTimeout",
              message="Exceeded the PodsReady timeout llm/jobset-pretrain-7b-5c2e1")
    w["status"]["requeueState"] = {"count": 1, "requeueAt": at(3 * 60 - 1)}
    w["status"]["schedulingStats"] = {"evictions": [{"reason": "PodsReadyTimeout", "underlyingCause": "WaitForRecovery",
                                                     "count": 1}]}
    objs.append(w)
    # research: 8 of its 24 GPUs in use by a running job; two 8-GPU jobs wait for 2 hours
    objs += running("vision", "job-detector-a1", "research", "research", "h100", 8, "h100-2", 5 * 60)
    objs += [pending("vision", "job-segment-b2", "research", 8, 2 * 60),
             pending("vision", "job-segment-c3", "research", 8, 2 * 60 - 5)]
    log = _quiet_log([("vision", "job-segment-b2", "research", "research"),
                                                ("vision", "job-segment-c3", "research", "research")],
                     reason="Generic")
    return objs, log


def _quiet_log(heads: list[tuple[str, str, str, str]], reason: str, minutes: int = 10) -> str:
    """What the scheduler logs while heads wait: one evaluation and re-queue every 30 s each."""
    out = []
    t0 = NOW - timedelta(minutes=minutes)
    for i in range(minutes * 2):
        t = t0 + timedelta(seconds=30 * i)
        for k, (ns, name, cq, lq) in enumerate(heads):
            out.append(zap(t + timedelta(milliseconds=k), "Level(-3)", "scheduler", "scheduler/logging.go:42",
                           "Workload evaluated for admission", schedulingCycle=9000 + i, workload=ref(ns, name),
                           clusterQueue={"name": cq}, status="", reason="couldn't assign flavors to pod set main: "
                           "insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed"))
            out.append(requeued_line(t + timedelta(milliseconds=k, microseconds=300), 9000 + i, ns, name, cq, lq,
                                     "" if reason == "Generic" else reason))
    return "".join(out)


# --- preemption-retry-storm ----------------------------------------------------------------------

STORM_SECONDS = 45
STORM_PER_SECOND = 40


def retry_storm() -> tuple[list[dict[str, Any]], str]:
    """kubernetes-sigs/kueue#8064: the scheduler logs "Attempting to schedule workload", "Workload
    requires preemption, but there are no candidate workloads allowed for preemption" and its
    re-queue ~40 times a second for one workload (research-modeling, cohort research under root
    snowflake; preemption reclaimWithinCohort Any, borrowWithinCohort Never, withinClusterQueue
    Never); meanwhile nothing else is admitted, even in ClusterQueues with free nodes and quota."""
    preemption = {"reclaimWithinCohort": "Any", "borrowWithinCohort": {"policy": "Never"},
                  "withinClusterQueue": "Never"}
    objs: list[dict[str, Any]] = [
        flavor("b200", {"pool": "b200"}), flavor("h100", H100),
        *[node(f"b200-{i}", {"pool": "b200"}, 8) for i in range(4)], *nodes("h100", 4),
        cq_with("research-modeling", {"b200": 16}, "research", preemption=preemption),
        cq_with("research-infra", {"b200": 16}, "research", lending_limit=0),
        cq_with("perception", {"h100": 32}, "autonomy"),
        local_queue("mltraining-dev", "research-modeling", "research-modeling"),
        local_queue("infra", "research-infra", "research-infra"),
        local_queue("perception", "perception", "perception")]
    # research-modeling uses its 16 B200 GPUs; its head asks 16 more (borrowing): infra lends nothing
    objs += running("mltraining-dev", "job-xc-b200-base-7d1f0", "research-modeling", "research-modeling", "b200", 8,
                    "b200-0", 4 * 60, pods=2)
    objs += running("infra", "job-infra-eval-2a", "research-infra", "research-infra", "b200", 8, "b200-2", 3 * 60,
                    pods=2)
    objs.append(pending("mltraining-dev", "job-xc-b200-a204b", "research-modeling", 8, 90, count=2))
    # perception: 8 of 32 H100 GPUs in use, nodes free, two jobs that fit wait (starved)
    objs += running("perception", "job-occflow-train-1", "perception", "perception", "h100", 8, "h100-0", 3 * 60)
    objs += [pending("perception", "job-occflow-ft-gc8ql", "perception", 8, 40),
             pending("perception", "job-lidar-seg-9k2", "perception", 8, 35)]
    out = []
    t0 = NOW - timedelta(seconds=STORM_SECONDS + 5)
    cycle = 245_000
    wl = ref("mltraining-dev", "job-xc-b200-a204b")
    base = {"workload": wl, "clusterQueue": {"name": "research-modeling"}, "parentCohort": {"name": "research"},
            "rootCohort": {"name": "snowflake"}}
    for i in range(STORM_SECONDS * STORM_PER_SECOND):
        t = t0 + timedelta(microseconds=i * 1_000_000 // STORM_PER_SECOND)
        cycle += 1
        out.append(zap(t, "Level(-2)", "scheduler", "scheduler/scheduler.go:254", "Attempting to schedule workload",
                       schedulingCycle=cycle, **base))
        out.append(zap(t + timedelta(microseconds=24), "Level(-2)", "scheduler", "scheduler/scheduler.go:257",
                       "Workload requires preemption, but there are no candidate workloads allowed for preemption",
                       schedulingCycle=cycle, **base, preemption=preemption))
        out.append(zap(t + timedelta(microseconds=61), "Level(-2)", "scheduler", "scheduler/scheduler.go:790",
                       "Workload re-queued", schedulingCycle=cycle, workload=wl,
                       clusterQueue={"name": "research-modeling"},
                       queue={"name": "research-modeling", "namespace": "mltraining-dev"},
                       requeueReason="PreemptionNoCandidates", added=True, status=""))
    return objs, "".join(out)


# --- head-exceeds-max-quota -----------------------------------------------------------------------

def head_exceeds() -> tuple[list[dict[str, Any]], str]:
    """A StrictFIFO ClusterQueue (as in kubernetes-sigs/kueue#8309) whose head asks for 64 GPUs,
    while the most the queue can ever get is 48: its nominal 32 plus a borrowing limit of 16
    (its cohort holds more, but the limit caps it). Kueue's flavor assigner says "insufficient
    quota for nvidia.com/gpu in flavor h100, previously considered podsets requests (0) + current
    podset request (64) > maximum capacity (48)" every cycle; two 8-GPU jobs that fit wait behind."""
    objs: list[dict[str, Any]] = [flavor("h100", H100), *nodes("h100", 12),
                                  cq_with("foundation", {"h100": 32}, "ml", strategy="StrictFIFO", borrowing_limit=16),
                                  cq_with("platform", {"h100": 64}, "ml"),
                                  local_queue("fm", "foundation", "foundation"),
                                  local_queue("platform", "platform", "platform")]
    objs += running("fm", "job-sft-run-3", "foundation", "foundation", "h100", 8, "h100-0", 6 * 60)
    objs += running("platform", "job-batch-infer-1", "platform", "platform", "h100", 8, "h100-4", 2 * 60, pods=2)
    objs += [pending("fm", "job-pretrain-70b-x9", "foundation", 8, 3 * 60, count=8),
             pending("fm", "job-sft-run-4", "foundation", 8, 2 * 60),
             pending("fm", "job-eval-suite-5", "foundation", 8, 100)]
    out = []
    t0 = NOW - timedelta(minutes=15)
    for i in range(15 * 6):   # the head, every 10 s
        t = t0 + timedelta(seconds=10 * i)
        out.append(zap(t, "Level(-3)", "scheduler", "scheduler/logging.go:42", "Workload evaluated for admission",
                       schedulingCycle=31_000 + i, workload=ref("fm", "job-pretrain-70b-x9"),
                       clusterQueue={"name": "foundation"}, status="",
                       reason="couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in "
                              "flavor h100, previously considered podsets requests (0) + current podset request "
                              "(64) > maximum capacity (48)"))
        out.append(requeued_line(t + timedelta(microseconds=400), 31_000 + i, "fm", "job-pretrain-70b-x9",
                                 "foundation", "foundation", ""))
    return objs, "".join(out)


# --- a healthy busy cluster of the same release ------------------------------------------------------

def healthy_busy() -> tuple[list[dict[str, Any]], str]:
    """Busy and healthy: every queue runs work near its nominal quota, the only pending work
    needs to borrow (not guaranteed), a Job whose pods just succeeded, a StrictFIFO queue whose
    oversized head is in a queue with nothing behind it, and a few no-candidate lines at the
    rate Kueue normally retries (once a minute): no cause."""
    objs: list[dict[str, Any]] = [flavor("h100", H100), *nodes("h100", 8),
                                  cq_with("foundation", {"h100": 32}, "ml", strategy="StrictFIFO", borrowing_limit=0),
                                  cq_with("platform", {"h100": 32}, "ml", lending_limit=0),
                                  local_queue("fm", "foundation", "foundation"),
                                  local_queue("platform", "platform", "platform")]
    for i in range(4):
        objs += running("fm", f"job-sft-{i}", "foundation", "foundation", "h100", 8, f"h100-{i}", 30 + 20 * i)
    for i in range(4):
        objs += running("platform", f"job-infer-{i}", "platform", "platform", "h100", 8, f"h100-{4 + i}", 10 + 15 * i)
    done = running("platform", "job-infer-done", "platform", "platform", "h100", 0, "h100-7", 1)
    for p in done:
        if p["kind"] == "Pod":
            p["status"]["phase"] = "Succeeded"
    objs += done
    objs += [pending("platform", "job-infer-extra", "platform", 8, 20)]      # over platform's nominal: no guarantee
    out = []
    t0 = NOW - timedelta(minutes=30)
    for i in range(30):
        t = t0 + timedelta(minutes=i)
        out.append(admitted_line(t, 50_000 + i * 30, "platform", f"job-infer-r{i}", "platform", "ml", 8, "h100"))
        out.append(zap(t + timedelta(seconds=5), "Level(-2)", "scheduler", "scheduler/scheduler.go:257",
                       "Workload requires preemption, but there are no candidate workloads allowed for preemption",
                       schedulingCycle=50_000 + i * 30 + 1, workload=ref("platform", "job-infer-extra"),
                       clusterQueue={"name": "platform"}, parentCohort={"name": "ml"}, rootCohort={"name": "ml"}))
        out.append(requeued_line(t + timedelta(seconds=5, microseconds=50), 50_000 + i * 30 + 1, "platform",
                                 "job-infer-extra", "platform", "platform", "PreemptionNoCandidates"))
    return objs, "".join(out)


FOLDERS = {"quota-held-without-pods": held_without_pods, "preemption-retry-storm": retry_storm,
           "head-exceeds-max-quota": head_exceeds, "healthy-busy": healthy_busy}


def write(root: Path, name: str) -> Path:
    objs, log = FOLDERS[name]()
    folder = write_folder(root / name, objs, collected_at=NOW.strftime("%Y-%m-%dT%H:%M:%SZ"))
    (folder / "deployment.yaml").write_text(deployment())
    data = log.encode()
    if len(data) > 256 << 10:
        (folder / "kueue-controller-manager.log.gz").write_bytes(gzip.compress(data, mtime=0))
    else:
        (folder / "kueue-controller-manager.log").write_bytes(data)
    return folder


def rewrite(names: Any, writer: Any) -> None:
    """Write each folder afresh under DATA, keeping its PROVENANCE.md."""
    for name in names:
        target = DATA / name
        keep = (target / "PROVENANCE.md").read_text() if (target / "PROVENANCE.md").exists() else None
        if target.exists():
            shutil.rmtree(target)
        writer(DATA, name)
        if keep is not None:
            (target / "PROVENANCE.md").write_text(keep)


def main() -> None:
    rewrite(FOLDERS, write)


if __name__ == "__main__":
    main()
