"""Which pods and Jobs belong to which Workload, as Kueue links them: the pod's
``kueue.x-k8s.io/workload`` annotation, its pod-group label, or the uid of the Job that owns
both (its controller-uid labels, or its ownerReferences)."""
from __future__ import annotations

from collections import defaultdict

from ..keys import WorkloadKey
from ..kueue.constants import JOB_CONTROLLER_UID_LABELS as JOB_UID_LABELS
from ..kueue.constants import JOB_UID_LABEL, WORKLOAD_ANNOTATION
from ..kueue.constants import POD_GROUP_NAME_LABEL as POD_GROUP_LABEL
from . import objects as o
from .state import ClusterState


def index_pods(state: ClusterState) -> tuple[dict[WorkloadKey, list[o.Pod]], dict[WorkloadKey, o.Job]]:
    """Pods and Jobs per workload (annotation, pod-group label, or owning Job's uid)."""
    by_owner: dict[str, WorkloadKey] = {}
    for k, w in state.workloads.items():
        for ref in w.meta.owner_references:
            if ref.get("uid"):
                by_owner[str(ref["uid"])] = k
        job_uid = w.meta.labels.get(JOB_UID_LABEL)
        if job_uid:
            by_owner[job_uid] = k
    pods: dict[WorkloadKey, list[o.Pod]] = defaultdict(list)
    for (ns, _), p in sorted(state.pods.items()):
        key: WorkloadKey | None = None
        ann = p.meta.annotations.get(WORKLOAD_ANNOTATION)
        if ann:
            key = WorkloadKey(ns, ann)
        elif p.meta.labels.get(POD_GROUP_LABEL):
            key = WorkloadKey(ns, p.meta.labels[POD_GROUP_LABEL])
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
    for j in state.jobs.values():
        if j.meta.uid in by_owner:
            jobs[by_owner[j.meta.uid]] = j
    return dict(pods), jobs
