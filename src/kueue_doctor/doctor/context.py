"""What every diagnosis step reads: the cluster, the engine's view of it, the logs, the clock."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Optional

from .. import heap
from ..api import objects as o
from ..api.state import ClusterState
from ..engine.config import EngineConfig
from ..engine.model import AdmissionModel
from ..engine.workload import WorkloadInfo
from ..kueue.releases import KueueRelease as KueueBehaviour
from ..kueue.releases import release_for as behaviour
from ..kueue.version import parse_version
from ..sources.snapshot import Snapshot, latest_timestamp, utc

ADMISSION_GATE = "kueue.x-k8s.io/admission"
WORKLOAD_ANNOTATION = "kueue.x-k8s.io/workload"
POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
JOB_UID_LABELS = ("controller-uid", "batch.kubernetes.io/controller-uid")


@dataclass
class Context:
    snapshot: Snapshot
    now: datetime
    min_wait: timedelta
    version: Optional[str]
    release: Optional[KueueBehaviour]
    config: EngineConfig
    model: AdmissionModel
    logs: object = None                     # LogReport, when logs were collected
    lq_to_cq: dict[tuple[str, str], str] = field(default_factory=dict)
    pods_of: dict[str, list[o.Pod]] = field(default_factory=dict)      # workload key -> pods
    jobs_of: dict[str, o.Job] = field(default_factory=dict)            # workload key -> batch Job
    infos: dict[str, WorkloadInfo] = field(default_factory=dict)        # every workload's engine view
    pending_by_cq: Optional[dict[str, list[WorkloadInfo]]] = None       # filled once, on first use

    @property
    def state(self) -> ClusterState:
        return self.snapshot.state

    def cluster_queue_of(self, w: o.Workload) -> str:
        if w.status.admission is not None and w.is_true("QuotaReserved"):
            return w.status.admission.cluster_queue
        return self.lq_to_cq.get((w.meta.namespace, w.queue_name), "")

    def pending(self, w: o.Workload) -> bool:
        return not w.is_true("QuotaReserved") and not w.is_true("Finished") and w.active

    def waiting_since(self, w: o.Workload) -> datetime:
        """Since when the tenant waits: creation, or the last requeue after an eviction."""
        t = w.meta.creation_timestamp or self.now
        rq = w.condition("Requeued")
        if rq is not None and rq.last_transition_time and w.is_true("Evicted") is False:
            t = max(t, rq.last_transition_time)
        ev = w.condition("Evicted")
        if ev is not None and ev.last_transition_time and not w.is_true("QuotaReserved") and ev.status == "False":
            t = max(t, ev.last_transition_time)
        return t

    def fast_pod_release(self) -> bool:
        return bool(self.release and self.release.fast_pod_release)


def index_pods(state: ClusterState) -> tuple[dict[str, list[o.Pod]], dict[str, o.Job]]:
    """Pods and Jobs per workload (annotation, pod-group label, or owning Job's uid)."""
    by_owner: dict[str, str] = {}
    for key, w in state.workloads.items():
        k = f"{key[0]}/{key[1]}"
        for ref in w.meta.owner_references:
            if ref.get("uid"):
                by_owner[str(ref["uid"])] = k
        job_uid = w.meta.labels.get("kueue.x-k8s.io/job-uid")
        if job_uid:
            by_owner[job_uid] = k
    pods: dict[str, list[o.Pod]] = defaultdict(list)
    for (ns, _), p in sorted(state.pods.items()):
        key = None
        ann = p.meta.annotations.get(WORKLOAD_ANNOTATION)
        if ann:
            key = f"{ns}/{ann}"
        elif p.meta.labels.get(POD_GROUP_LABEL):
            key = f"{ns}/{p.meta.labels[POD_GROUP_LABEL]}"
        else:
            for lbl in JOB_UID_LABELS:
                if p.meta.labels.get(lbl) in by_owner:
                    key = by_owner[p.meta.labels[lbl]]
                    break
            else:
                for ref in p.meta.owner_references:
                    if str(ref.get("uid")) in by_owner:
                        key = by_owner[str(ref["uid"])]
                        break
        if key is not None:
            pods[key].append(p)
    jobs = {}
    for (ns, _), j in state.jobs.items():
        if j.meta.uid in by_owner:
            jobs[by_owner[j.meta.uid]] = j
    return dict(pods), jobs


def build_context(snap: Snapshot, min_wait: timedelta, now: Optional[datetime] = None,
                  logs=None) -> Context:
    state = snap.state
    dep = state.kueue_deployment()
    version = dep.kueue_version() if dep else None
    gates = dict(dep.feature_gates()) if dep else {}
    if state.configuration is not None:
        gates.update(state.configuration.feature_gates)
    release = None
    if version:
        try:
            parse_version(version)
            release = behaviour(version, gates)
        except Exception:  # an unparsable tag (a dev build): use the engine's defaults
            release = None
    cfg = EngineConfig.from_kueue(state.configuration, release.gates if release else gates)
    if release is not None:
        cfg.drs_mode = release.drs_mode
    if now is None:
        now = snap.taken_at
    if now is None and logs is not None and getattr(logs, "last", None):
        now = utc(logs.last)
    if now is None:
        now = latest_timestamp(state)
    if now is None:
        now = datetime.now().astimezone()
    model = AdmissionModel(state, cfg)
    pods, jobs = index_pods(state)
    ctx = Context(snapshot=snap, now=now, min_wait=min_wait, version=version, release=release, config=cfg,
                  model=model, logs=logs, pods_of=pods, jobs_of=jobs)
    ctx.lq_to_cq = {key: lq.cluster_queue for key, lq in state.local_queues.items()}
    for (ns, name), w in state.workloads.items():
        ctx.infos[f"{ns}/{name}"] = model.info(w)
    heap.settle()
    return ctx
