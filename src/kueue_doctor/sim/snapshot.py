"""A simulated cluster at time T, written as the folder a real gathering produces.

Layout (kueue/layout.py) and shapes follow shared/examples/incidents/*/; conditions, reasons,
events and pod gates follow shared/reference/kueue-signals.md §A and §E. Output is
deterministic: names, UIDs and resourceVersions are derived from the scenario, never random.
"""
from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from ..api.quantity import Quantity, format_amount
from ..engine.drs import dominant_resource_share
from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue import constants as kc
from ..kueue import layout
from ..kueue.eviction import preempted_workload_message
from .nodes import GONE, PENDING, TERMINATING, with_pods
from .scenario import CRASH_LOOP_BACKOFF, ERR_IMAGE_PULL, IMAGE_PULL_BACKOFF, JOB, POD_GROUP, READY, Scenario
from .scenario import UNSCHEDULABLE as POD_UNSCHEDULABLE
from .simulator import DEACTIVATED, EVICTED, FINISHED, QUEUED, RESERVED, RUNNING_W, WAITING, Simulator
from .tas import encode_assignment, pod_marks, request_annotations
from .zaplog import WINDOW, controller_log, eviction_message, hex_id, uid, with_retries, workload_name

if TYPE_CHECKING:
    _SafeDumper = yaml.SafeDumper
else:  # the C dumper when libyaml is there: several times faster on large folders
    _SafeDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_SafeDumper):
    # kubectl never writes YAML anchors; shared dicts must be printed in full
    def ignore_aliases(self, data) -> bool:
        return True

def by_text(workloads: dict[WorkloadKey, Any]) -> list[Any]:
    """The simulated workloads in the order of their ``ns/name`` text, the order the folder lists them in."""
    return [workloads[k] for k in sorted(workloads, key=str)]


_V1BETA1_FUNGIBILITY = {"MayStopSearch": "Borrow", "TryNextFlavor": "TryNextFlavor", "Preempt": "Preempt"}


def _dump(obj) -> str:
    return yaml.dump(obj, Dumper=_Dumper, sort_keys=True, default_flow_style=False, allow_unicode=True, width=80)


def _list(items: list) -> dict:
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


class SnapshotWriter:
    """Writes a simulation as it stands at ``sim.now`` as the objects, events and controller log
    a gathering of the cluster would have read (``write_snapshot`` puts them in a folder)."""

    def __init__(self, sim, window: float = WINDOW):
        self.sim = sim
        self.at = sim.now
        self.window = window
        self.v = sim.kueue.version
        self.kueue_api = "kueue.x-k8s.io/v1beta2" if self.v >= (0, 15, 0) else "kueue.x-k8s.io/v1beta1"
        self.rv = 183400000
        self.granular = bool(sim.kueue.gates.get("UnadmittedWorkloadsObservability"))
        self.history: dict[WorkloadKey, list] = defaultdict(list)
        for t, event, f in sim.log:
            if "workload" in f and t <= self.at:
                self.history[f["workload"]].append((t, event, f))

    # -- small helpers -------------------------------------------------------------------------
    def time(self, t: float | None) -> str | None:
        if t is None:
            return None
        return self.sim.dt(int(t)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def resource_version(self) -> str:
        self.rv += 7
        return str(self.rv)

    def meta(self, kind: str, name: str, namespace: str = "", created: float = 0.0, **extra) -> dict:
        m = {"creationTimestamp": self.time(created) if created >= 0 else self.time_before(-created),
             "name": name, "resourceVersion": self.resource_version(),
             "uid": uid(kind, namespace, name), "generation": 1}
        if namespace:
            m["namespace"] = namespace
        m.update(extra)
        return m

    def time_before(self, seconds: float) -> str:
        # cluster objects were created before the simulated clock started
        from datetime import timedelta
        return (self.sim.dt(0) - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")

    # -- Kueue objects --------------------------------------------------------------------------
    def kueue_objects(self) -> list:
        st = self.sim.scn.state
        items = [self.cluster_queue(cq) for _, cq in sorted(st.cluster_queues.items())]
        items += [self.cohort(c) for _, c in sorted(st.cohorts.items())]
        items += [self.local_queue(lq) for _, lq in sorted(st.local_queues.items())]
        items += [self.flavor(rf) for _, rf in sorted(st.resource_flavors.items())]
        items += [self.topology(t) for _, t in sorted(st.topologies.items())]
        items += [{"apiVersion": self.kueue_api, "kind": "WorkloadPriorityClass", "value": pc.value,
                   "metadata": self.meta("WorkloadPriorityClass", name, created=-86400)}
                  for name, pc in sorted(st.priority_classes.items())]
        items += [self.admission_check(ac) for _, ac in sorted(st.admission_checks.items())]
        items += [self.provisioning_config(c) for _, c in sorted(st.provisioning_request_configs.items())]
        items += [self.workload(sw) for sw in by_text(self.sim.workloads)]
        items += [pr for sw in by_text(self.sim.workloads) for pr in self.provisioning_requests(sw)]
        return items

    # -- admission checks ---------------------------------------------------------------------
    def admission_check(self, ac) -> dict:
        spec: dict = {"controllerName": ac.controller_name}
        if ac.parameters:
            spec["parameters"] = dict(ac.parameters)
        if self.kueue_api.endswith("v1beta1"):
            spec["retryDelayMinutes"] = 15
        return {"apiVersion": self.kueue_api, "kind": "AdmissionCheck",
                "metadata": self.meta("AdmissionCheck", ac.meta.name, created=-86400),
                "spec": spec,
                "status": {"conditions": [{"lastTransitionTime": self.time_before(86400 - 3),
                                           "message": "The admission check is active", "observedGeneration": 1,
                                           "reason": "Active", "status": "True",
                                           "type": kc.ADMISSION_CHECK_ACTIVE}]}}

    def provisioning_config(self, c) -> dict:
        rs = c.retry_strategy
        spec: dict = {"provisioningClassName": c.provisioning_class_name,
                      "retryStrategy": {"backoffBaseSeconds": rs.backoff_base_seconds,
                                        "backoffLimitCount": rs.backoff_limit_count,
                                        "backoffMaxSeconds": rs.backoff_max_seconds}}
        if c.managed_resources:
            spec["managedResources"] = list(c.managed_resources)
        if c.parameters:
            spec["parameters"] = dict(c.parameters)
        return {"apiVersion": self.kueue_api, "kind": "ProvisioningRequestConfig",
                "metadata": self.meta("ProvisioningRequestConfig", c.meta.name, created=-86400), "spec": spec}

    def provisioning_requests(self, sw) -> list:
        """The requests of the workload's current admission (Kueue deletes a failed attempt's once
        it creates the next; the last one stays while the workload is pending)."""
        out = []
        latest: dict[str, Any] = {}
        for pr in sw.requests:
            if pr.created <= self.at:
                latest[pr.check] = pr
        for check, pr in sorted(latest.items()):
            klass, _ = self.sim._provisioning_class(check)
            wl = workload_name(sw)
            conds = []
            for ctype, t, msg in pr.conditions:
                if t <= self.at:
                    conds.append({"lastTransitionTime": self.time(t), "message": msg, "observedGeneration": 1,
                                  "reason": ctype, "status": "True", "type": ctype})
            out.append({"apiVersion": "autoscaling.x-k8s.io/v1", "kind": "ProvisioningRequest",
                        "metadata": {**self.meta("ProvisioningRequest", pr.name, sw.spec.namespace,
                                                 created=pr.created),
                                     "labels": {f"{kc.GROUP}/managed": "true"},
                                     "ownerReferences": [{"apiVersion": self.kueue_api, "blockOwnerDeletion": True,
                                                          "controller": True, "kind": "Workload", "name": wl,
                                                          "uid": uid("Workload", str(sw.key))}]},
                        "spec": {"provisioningClassName": klass,
                                 "podSets": [{"count": sw.spec.pods,
                                              "podTemplateRef": {"name": f"ppt-{pr.name}-main"}}]},
                        "status": {"conditions": conds} if conds else {}})
        return out

    def check_states(self, sw) -> list:
        out = []
        for c in sw.checks:
            d: dict = {"lastTransitionTime": self.time((c.last_transition_time - self.sim.dt(0)).total_seconds())
                       if c.last_transition_time else None, "message": c.message, "name": c.name, "state": c.state}
            if c.pod_set_updates:
                d["podSetUpdates"] = [{"annotations": dict(u.annotations), "name": u.name} for u in c.pod_set_updates]
            if c.retry_count is not None:
                d["retryCount"] = c.retry_count
            if c.requeue_after_seconds is not None:
                d["requeueAfterSeconds"] = c.requeue_after_seconds
            out.append(d)
        return out

    def _groups(self, groups) -> list:
        return [{"coveredResources": list(g.covered_resources),
                 "flavors": [{"name": fq.name, "resources": [self._quota(r) for r in fq.resources]}
                             for fq in g.flavors]} for g in groups]

    def _quota(self, r) -> dict:
        out = {"name": r.name, "nominalQuota": str(r.nominal_quota)}
        if r.borrowing_limit is not None:
            out["borrowingLimit"] = str(r.borrowing_limit)
        if r.lending_limit is not None:
            out["lendingLimit"] = str(r.lending_limit)
        return out

    def cluster_queue(self, cq) -> dict:
        sim = self.sim
        ff = cq.flavor_fungibility
        fung = {"whenCanBorrow": ff.when_can_borrow, "whenCanPreempt": ff.when_can_preempt}
        if self.kueue_api.endswith("v1beta1"):
            fung = {k: _V1BETA1_FUNGIBILITY.get(v, v) for k, v in fung.items()}
        pre = cq.preemption
        spec = {"flavorFungibility": fung, "namespaceSelector": {},
                "preemption": {"borrowWithinCohort": {"policy": pre.borrow_within_cohort.policy
                                                      if pre.borrow_within_cohort else "Never"},
                               "reclaimWithinCohort": pre.reclaim_within_cohort,
                               "withinClusterQueue": pre.within_cluster_queue},
                "queueingStrategy": cq.queueing_strategy, "resourceGroups": self._groups(cq.resource_groups),
                "stopPolicy": cq.stop_policy or "None"}
        if cq.cohort:
            spec["cohortName" if self.kueue_api.endswith("v1beta2") else "cohort"] = cq.cohort
        if cq.fair_sharing_weight is not None:
            spec["fairSharing"] = {"weight": str(cq.fair_sharing_weight)}
        if cq.admission_mode:
            spec["admissionScope"] = {"admissionMode": cq.admission_mode}
        cap = cq.concurrent_admission_policy
        if cap is not None and self.kueue_api.endswith("v1beta2"):
            mig: dict = {"mode": cap.migration_mode}
            if cap.last_acceptable_flavor is not None:
                mig["constraints"] = {"lastAcceptableFlavorName": cap.last_acceptable_flavor}
            spec["concurrentAdmissionPolicy"] = {"migration": mig}
        if cq.admission_checks:
            if self.kueue_api.endswith("v1beta2"):
                spec["admissionChecksStrategy"] = {"admissionChecks": [
                    {"name": n, **({"onFlavors": cq.admission_check_flavors[n]}
                                   if cq.admission_check_flavors.get(n) else {})} for n in cq.admission_checks]}
            else:
                spec["admissionChecks"] = list(cq.admission_checks)
        name = cq.meta.name
        snap = sim.model.snapshot.cluster_queues.get(name)
        q = sim.model.queues.queues.get(name)
        pending = q.pending_count() if q is not None else 0
        status = {"conditions": [{"lastTransitionTime": self.time_before(86400 - 2),
                                  "message": "Can admit new workloads", "observedGeneration": 1, "reason": "Ready",
                                  "status": "True", "type": "Active"}],
                  "pendingWorkloads": pending}
        if snap is not None:
            n = len(snap.workloads)
            status.update(reservingWorkloads=n, admittedWorkloads=n)
            usage = []
            for g in cq.resource_groups:
                for fq in g.flavors:
                    res = []
                    for r in g.covered_resources:
                        used = snap.node.usage.get((fq.name, r), 0)
                        borrowed = max(0, used - snap.node.nominal((fq.name, r)))
                        res.append({"borrowed": format_amount(r, borrowed), "name": r, "total": format_amount(r, used)})
                    usage.append({"name": fq.name, "resources": res})
            status["flavorsReservation"] = usage
            status["flavorsUsage"] = usage
            if sim.config.fair_sharing:
                # the release's own arithmetic: 0 for a borrowing queue is Bug 3's contradiction
                drs = dominant_resource_share(snap.node, None, sim.kueue.drs_mode)
                status["fairSharing"] = {"weightedShare": drs.rounded()}
        return {"apiVersion": self.kueue_api, "kind": "ClusterQueue",
                "metadata": self.meta("ClusterQueue", name, created=-86400,
                                      finalizers=[kc.RESOURCE_IN_USE_FINALIZER]),
                "spec": spec, "status": status}

    def cohort(self, c) -> dict:
        spec: dict = {}
        if c.parent:
            spec["parentName" if self.kueue_api.endswith("v1beta2") else "parent"] = c.parent
        if c.resource_groups:
            spec["resourceGroups"] = self._groups(c.resource_groups)
        api = self.kueue_api if self.kueue_api.endswith("v1beta2") else "kueue.x-k8s.io/v1alpha1"
        return {"apiVersion": api, "kind": "Cohort", "metadata": self.meta("Cohort", c.meta.name, created=-86400),
                "spec": spec}

    def local_queue(self, lq) -> dict:
        ns, name = lq.meta.namespace, lq.meta.name
        mine = [sw for sw in self.sim.workloads.values() if sw.spec.namespace == ns and sw.spec.queue == name]
        reserving = sum(1 for sw in mine if sw.state in (RESERVED, RUNNING_W, EVICTED))
        pending = sum(1 for sw in mine if sw.state in (QUEUED, WAITING))
        spec: dict[str, Any] = {"clusterQueue": lq.cluster_queue, "stopPolicy": lq.stop_policy or "None"}
        if lq.fair_sharing_weight is not None:
            spec["fairSharing"] = {"weight": str(lq.fair_sharing_weight)}
        status: dict[str, Any] = {
            "admittedWorkloads": reserving, "reservingWorkloads": reserving, "pendingWorkloads": pending,
            "conditions": [{"lastTransitionTime": self.time_before(86400 - 1),
                            "message": "Can submit new workloads to localQueue",
                            "observedGeneration": 1, "reason": "Ready", "status": "True", "type": "Active"}]}
        afs = self.sim.afs_ledger.status((ns, name)) if self.sim.afs_ledger is not None else None
        if afs is not None:
            # what the LocalQueue reconciler persisted at its last sample (penalties stay in memory)
            status["fairSharing"] = {"weightedShare": 0, "admissionFairSharingStatus": {
                "consumedResources": {r: str(q) for r, q in afs.consumed_resources.items()},
                "lastUpdate": afs.last_update.strftime("%Y-%m-%dT%H:%M:%SZ") if afs.last_update else self.time(0)}}
        return {"apiVersion": self.kueue_api, "kind": "LocalQueue",
                "metadata": self.meta("LocalQueue", name, ns, created=-86400), "spec": spec, "status": status}

    def flavor(self, rf) -> dict:
        spec: dict = {}
        if rf.node_labels:
            spec["nodeLabels"] = dict(rf.node_labels)
        if rf.topology_name:
            spec["topologyName"] = rf.topology_name
        return {"apiVersion": self.kueue_api, "kind": "ResourceFlavor",
                "metadata": self.meta("ResourceFlavor", rf.meta.name, created=-86400,
                                      finalizers=[kc.RESOURCE_IN_USE_FINALIZER]),
                "spec": spec}

    def topology(self, t) -> dict:
        return {"apiVersion": self.kueue_api, "kind": "Topology",
                "metadata": self.meta("Topology", t.meta.name, created=-86400),
                "spec": {"levels": [{"nodeLabel": lv} for lv in t.levels]}}

    # -- Workloads ----------------------------------------------------------------------------
    def _requests(self, sw) -> dict:
        return {r: str(Quantity.parse(str(v))) for r, v in sw.spec.requests.items()}

    def eviction_message(self, f: dict) -> str:
        return eviction_message(self.sim, f["preemptor"], f["reason"], f.get("clusterQueue", ""))

    def qr_reason(self, reason: str | None) -> str:
        """The QuotaReserved=False reason the release writes for the scheduler's decision: the
        KEP-10852 reason, or the legacy fallback (Waiting for blockAdmission, else Pending)."""
        if self.granular:
            return reason or kc.PENDING
        return kc.WAITING_LEGACY if reason == kc.WAITING_FOR_PODS_READY else kc.PENDING

    def _cond(self, ctype: str, status: str, reason: str, message: str, t: float) -> dict:
        return {"lastTransitionTime": self.time(t), "message": message, "observedGeneration": 1, "reason": reason,
                "status": status, "type": ctype}

    def workload_conditions(self, sw) -> list:
        if sw.eviction is not None and sw.eviction[0] != kc.EVICTED_BY_PREEMPTION and sw.state in (
                QUEUED, EVICTED, DEACTIVATED, WAITING):
            return self.kueue_evicted_conditions(sw)
        conds = self._base_conditions(sw)
        if sw.state in (RESERVED, RUNNING_W):
            adm = next((c for c in conds if c["type"] == kc.ADMITTED), None)
            if adm is not None and sw.admitted_true_at is None and sw.checks:
                reason = kc.UNSATISFIED_ADMISSION_CHECKS if self.granular else kc.UNSATISFIED_CHECKS_LEGACY
                adm.update(status="False", reason=reason, message=kc.UNSATISFIED_CHECKS_MESSAGE)
            elif adm is not None and sw.admitted_true_at is not None:
                adm["lastTransitionTime"] = self.time(sw.admitted_true_at)
            if sw.eviction is not None:
                reason, msg, t = sw.eviction
                if reason != kc.EVICTED_BY_PREEMPTION:
                    conds.append(self._cond(kc.EVICTED, "False", kc.QUOTA_RESERVED_REASON, f"Previously: {msg}",
                                            sw.admitted_at or t))
                    if sw.backoff_finished_at is not None:
                        conds.append(self._cond(kc.REQUEUED, "True", kc.BACKOFF_FINISHED,
                                                "The workload backoff was finished", sw.backoff_finished_at))
            if self.sim.pods_ready is not None and sw.admitted_true_at is not None:
                conds.append(self.pods_ready_condition(sw))
        return conds

    def pods_ready_condition(self, sw) -> dict:
        if sw.pods_ready_at is not None:
            reason = kc.PODS_READY_RECOVERED if any(h[1] == "pod_failed" for h in self.history[sw.key]
                                                     if h[0] >= (sw.admitted_true_at or 0)) else kc.PODS_READY_STARTED
            return self._cond(kc.PODS_READY, "True", reason, kc.PODS_READY_MESSAGE, sw.pods_ready_at)
        if sw.recovery_since is not None:
            return self._cond(kc.PODS_READY, "False", kc.WAIT_FOR_RECOVERY, kc.PODS_RECOVERY_MESSAGE, sw.recovery_since)
        return self._cond(kc.PODS_READY, "False", kc.WAIT_FOR_START, kc.PODS_NOT_READY_MESSAGE,
                          sw.admitted_true_at if sw.admitted_true_at is not None else sw.spec.at)

    def kueue_evicted_conditions(self, sw) -> list:
        """A workload Kueue evicted itself (PodsReadyTimeout, AdmissionCheck, deactivation), as it
        stands while stopping, waiting for its backoff, or deactivated."""
        hist = self.history[sw.key]
        reason, msg, t = sw.eviction
        released = [h for h in hist if h[1] == "quota_released" and h[0] >= t]
        admitted = [h for h in hist if h[1] == "admitted"]
        conds = []
        if sw.state == EVICTED or not released:
            if admitted:
                at, _, f = admitted[-1]
                conds.append(self._cond(kc.QUOTA_RESERVED, "True", kc.QUOTA_RESERVED_REASON,
                                        f"Quota reserved in ClusterQueue {f['clusterQueue']}", at))
                if sw.quota_held:   # quotaHeldAfterEviction: as kubernetes-sigs/kueue#14811 shows it
                    conds.append(self._cond(kc.ADMITTED, "True", kc.ADMITTED_REASON, "The workload is admitted", at))
            conds.append(self._cond(kc.EVICTED, "True", reason, msg, t))
        else:
            rt = released[-1][0]
            evals = [h for h in hist if h[1] == "evaluated" and h[0] >= rt]
            if evals:
                qr_reason = self.qr_reason(evals[-1][2].get("condition_reason"))
                conds.append(self._cond(kc.QUOTA_RESERVED, "False", qr_reason, evals[-1][2]["reason"], evals[0][0]))
            else:
                qr_reason = kc.PENDING_EVALUATION if self.granular else kc.PENDING
                conds.append(self._cond(kc.QUOTA_RESERVED, "False", qr_reason, msg, rt))
            conds.append(self._cond(kc.ADMITTED, "False", kc.NO_RESERVATION, kc.NO_RESERVATION_MESSAGE, rt))
            conds.append(self._cond(kc.EVICTED, "True", reason, msg, t))
            if sw.state == DEACTIVATED:
                conds.append(self._cond(kc.REQUEUED, "False", kc.EVICTED_BY_DEACTIVATION, msg, rt))
            elif sw.backoff_finished_at is not None and sw.backoff_finished_at <= self.at:
                conds.append(self._cond(kc.REQUEUED, "True", kc.BACKOFF_FINISHED,
                                        "The workload backoff was finished", sw.backoff_finished_at))
            else:
                conds.append(self._cond(kc.REQUEUED, "False", reason, msg, rt))
        if self.sim.pods_ready is not None and sw.quota_held and sw.state == EVICTED and any(
                h[1] == "pod_failed" for h in hist):
            # #14811: a recovery eviction leaves PodsReady as the recovery wait wrote it
            since = max(h[0] for h in hist if h[1] == "pod_failed")
            conds.append(self._cond(kc.PODS_READY, "False", kc.WAIT_FOR_RECOVERY, kc.PODS_RECOVERY_MESSAGE, since))
        elif self.sim.pods_ready is not None:
            conds.append(self._cond(kc.PODS_READY, "False", kc.WAIT_FOR_START, kc.PODS_NOT_READY_MESSAGE, t))
        return conds

    def _base_conditions(self, sw) -> list:
        hist = self.history[sw.key]
        admitted = [h for h in hist if h[1] == "admitted"]
        preempted = [h for h in hist if h[1] == "preempted"]
        released = [h for h in hist if h[1] == "quota_released"]
        conds = []
        if sw.state in (RESERVED, RUNNING_W, EVICTED, FINISHED) and admitted:
            t, _, f = admitted[-1]
            msg = f"Quota reserved in ClusterQueue {f['clusterQueue']}"
            conds.append(self._cond(kc.QUOTA_RESERVED, "True", kc.QUOTA_RESERVED_REASON, msg, t))
            conds.append(self._cond(kc.ADMITTED, "True", kc.ADMITTED_REASON, "The workload is admitted", t))
            migrated = [h for h in hist if h[1] == "migrated"]
            if sw.state == EVICTED and migrated and (not preempted or migrated[-1][0] >= preempted[-1][0]):
                mt, _, mf = migrated[-1]
                conds.append(self._cond(kc.EVICTED, "True", kc.EVICTED_BY_FLAVOR_MIGRATION, mf["message"], mt))
            elif sw.state == EVICTED and preempted:
                pt, _, pf = preempted[-1]
                msg = self.eviction_message(pf)
                conds.append(self._cond(kc.EVICTED, "True", kc.EVICTED_BY_PREEMPTION, msg, pt))
                conds.append(self._cond(kc.PREEMPTED, "True", pf["reason"], msg, pt))
            if sw.state == FINISHED:
                end = next((h[0] for h in reversed(hist) if h[1] == "finished"), t)
                conds.append(self._cond(kc.FINISHED, "True", kc.FINISHED_SUCCEEDED,
                                        "Reached expected number of succeeded pods", end))
            if released and preempted and sw.state != EVICTED:
                rt, _, _ = released[-1]
                conds.append(self._cond(kc.REQUEUED, "True", kc.EVICTED_BY_PREEMPTION, "Preempted", rt))
            return conds
        since = released[-1][0] if released else sw.spec.at
        evals = [h for h in hist if h[1] == "evaluated" and h[0] >= since]
        if released and preempted:
            pt, _, pf = preempted[-1]
            rt = released[-1][0]
            msg = self.eviction_message(pf)
            conds.append(self._cond(kc.ADMITTED, "False", kc.NO_RESERVATION, "The workload has no reservation", rt))
            conds.append(self._cond(kc.EVICTED, "True", kc.EVICTED_BY_PREEMPTION, msg, pt))
            conds.append(self._cond(kc.PREEMPTED, "True", pf["reason"], msg, pt))
            conds.append(self._cond(kc.REQUEUED, "True", kc.EVICTED_BY_PREEMPTION, msg, rt))
        if evals:
            _, _, last = evals[-1]
            reason = self.qr_reason(last.get("condition_reason"))
            conds.insert(0, self._cond(kc.QUOTA_RESERVED, "False", reason, last["reason"], evals[0][0]))
            if last.get("status") == "preemptionGated":
                conds.append(self._cond(kc.BLOCKED_ON_PREEMPTION_GATES, "True", kc.PREEMPTION_GATED, last["reason"],
                                        evals[-1][0]))
        elif released:
            reason = kc.PENDING_EVALUATION if self.granular else kc.PENDING
            conds.insert(0, self._cond(kc.QUOTA_RESERVED, "False", reason, "The workload was evicted",
                                       released[-1][0]))
        return conds

    def workload(self, sw) -> dict:
        ns = sw.spec.namespace
        name = workload_name(sw)
        is_job = sw.spec.kind == JOB
        meta = self.meta("Workload", name, ns, created=sw.spec.at, finalizers=[kc.RESOURCE_IN_USE_FINALIZER])
        meta["uid"] = uid("Workload", str(sw.key))
        meta["labels"] = {"kueue-doctor.io/class": sw.spec.klass}
        if is_job:
            meta["labels"][kc.JOB_UID_LABEL] = uid("Job", str(sw.key))
            meta["ownerReferences"] = [{"apiVersion": "batch/v1", "blockOwnerDeletion": True, "controller": True,
                                        "kind": "Job", "name": sw.spec.name, "uid": uid("Job", str(sw.key))}]
        else:
            meta["ownerReferences"] = [{"apiVersion": "v1", "blockOwnerDeletion": True, "controller": False,
                                        "kind": "Pod", "name": f"{sw.spec.name}-{i}",
                                        "uid": uid("Pod", ns, f"{sw.spec.name}-{i}")}
                                       for i in range(sw.spec.pods)]
        spec = {"active": sw.obj.active, "priority": sw.spec.priority, "queueName": sw.spec.queue,
                "podSets": [{"count": sw.spec.pods, "name": "main", "template": self.pod_template(sw)}]}
        if sw.spec.topology:
            spec["podSets"][0]["topologyRequest"] = dict(sw.spec.topology)
        if sw.obj.preemption_gates and self.kueue_api.endswith("/v1beta2"):
            spec["preemptionGates"] = [{"name": g} for g in sw.obj.preemption_gates]
        if sw.parent is not None:   # a ConcurrentAdmission variant: owned by its parent Workload
            meta["annotations"] = dict(sw.obj.meta.annotations)
            meta["ownerReferences"] = [*sw.obj.meta.owner_references, *meta["ownerReferences"]]
        if sw.deactivation is not None:
            spec["active"] = False
        status: dict = {}
        conds = self.workload_conditions(sw)
        if conds:
            status["conditions"] = conds
        if sw.checks:
            status["admissionChecks"] = self.check_states(sw)
        if sw.requeue_count is not None or sw.requeue_at is not None:
            rs: dict = {}
            if sw.requeue_count is not None:
                rs["count"] = sw.requeue_count
            if sw.requeue_at is not None and sw.state == QUEUED and sw.backoff_finished_at is None:
                rs["requeueAt"] = self.time(sw.requeue_at)
            status["requeueState"] = rs
        holds = sw.state in (RESERVED, RUNNING_W, EVICTED, FINISHED) and not (
            sw.state == EVICTED and sw.eviction is not None and sw.eviction[0] != kc.EVICTED_BY_PREEMPTION
            and any(h[1] == "quota_released" and h[0] >= sw.eviction[2] for h in self.history[sw.key]))
        adm = [h for h in self.history[sw.key] if h[1] == "admitted"]
        if holds and adm:
            f = adm[-1][2]
            status["admission"] = {"clusterQueue": f["clusterQueue"], "podSetAssignments": [
                {"count": ps["count"], "flavors": dict(ps["flavors"]), "name": ps["name"],
                 "resourceUsage": {r: format_amount(r, v) for r, v in ps["resourceUsage"].items()},
                 **({"topologyAssignment": encode_assignment(ps["topologyAssignment"], self.kueue_api)}
                    if "topologyAssignment" in ps else {})}
                for ps in f.get("assignments", [])]}
        elif conds:
            status["resourceRequests"] = [{"name": "main", "resources": {
                r: format_amount(r, Quantity.parse(v).amount(r) * sw.spec.pods)
                for r, v in self._requests(sw).items()}}]
        return {"apiVersion": self.kueue_api, "kind": "Workload", "metadata": meta, "spec": spec, "status": status}

    def pod_template(self, sw) -> dict:
        req = self._requests(sw)
        ann = request_annotations(sw.spec)
        return {"metadata": {"annotations": ann} if ann else {}, "spec": {
            "containers": [{"image": "registry.example.com/ml/train:1.0", "name": "main",
                            "resources": {"requests": dict(req), "limits": {r: v for r, v in req.items()
                                                                              if r != "cpu"}}}],
            "restartPolicy": "Never", "terminationGracePeriodSeconds": int(sw.spec.grace)}}

    # -- core objects -----------------------------------------------------------------------------
    def nodes(self) -> list:
        out = []
        for n in self.sim.pool.nodes:
            labels = {"kubernetes.io/hostname": n.name, "kubernetes.io/os": "linux", **n.labels}
            alloc = {r: format_amount(r, v) for r, v in sorted(with_pods(n.allocatable).items())}
            ready = {"lastHeartbeatTime": self.time(self.at), "lastTransitionTime": self.time_before(3 * 86400),
                     "message": "kubelet is posting ready status", "reason": "KubeletReady", "status": "True",
                     "type": "Ready"}
            spec: dict = {}
            if not n.ready:
                down = self._node_down_at(n.name)
                ready = {"lastHeartbeatTime": self.time(down), "lastTransitionTime": self.time(down + 40),
                         "message": "Kubelet stopped posting node status.", "reason": "NodeStatusUnknown",
                         "status": "Unknown", "type": "Ready"}
                spec["taints"] = [{"effect": "NoSchedule", "key": "node.kubernetes.io/unreachable",
                                   "timeAdded": self.time(down + 40)},
                                  {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable",
                                   "timeAdded": self.time(down + 45)}]
            out.append({"apiVersion": "v1", "kind": "Node",
                        "metadata": {**self.meta("Node", n.name, created=-3 * 86400), "labels": labels},
                        "spec": spec,
                        "status": {"allocatable": alloc, "capacity": dict(alloc), "conditions": [ready],
                                   "nodeInfo": {"kubeletVersion": "v1.33.3", "containerRuntimeVersion":
                                                "containerd://2.0.5", "operatingSystem": "linux",
                                                "architecture": "amd64"}}})
        return out

    def _node_down_at(self, name: str) -> float:
        times = [t for t, event, f in self.sim.log
                 if event == "fault" and f.get("target") == name and f.get("kind") == "nodeNotReady"]
        return times[-1] if times else 0.0

    def pods(self) -> list:
        out = []
        for sw in by_text(self.sim.workloads):
            if sw.state == FINISHED:
                continue
            live = [p for p in sw.pods if p.phase != GONE]
            if live:
                out += [self.pod(sw, p.index, p) for p in live]
            elif sw.spec.kind == POD_GROUP:
                # a pod group's pods exist before admission, held by Kueue's scheduling gate
                out += [self.pod(sw, i, None) for i in range(sw.spec.pods)]
        return out

    def _pod_name(self, sw, i: int) -> str:
        if sw.spec.kind == JOB:
            return f"{sw.spec.name}-{i}-{hex_id(5, 'pod', str(sw.key), str(sw.epoch), str(i))}"
        return f"{sw.spec.name}-{i}"

    def pod(self, sw, i: int, p) -> dict:
        ns = sw.spec.namespace
        name = self._pod_name(sw, i)
        created = sw.released_at if (p is not None and sw.spec.kind == JOB and sw.released_at is not None) \
            else sw.spec.at
        meta = self.meta("Pod", name, ns, created=created)
        meta["uid"] = uid("Pod", ns, name)
        del meta["generation"]
        wl = workload_name(sw)
        if sw.spec.kind == JOB:
            ju = uid("Job", str(sw.key))
            meta["labels"] = {kc.JOB_CONTROLLER_UID_LABEL: ju, kc.JOB_NAME_LABEL: sw.spec.name,
                              kc.LEGACY_JOB_CONTROLLER_UID_LABEL: ju, kc.LEGACY_JOB_NAME_LABEL: sw.spec.name,
                              kc.PODSET_LABEL: "main"}
            meta["annotations"] = {kc.WORKLOAD_ANNOTATION: wl}
            meta["ownerReferences"] = [{"apiVersion": "batch/v1", "blockOwnerDeletion": True, "controller": True,
                                        "kind": "Job", "name": sw.spec.name, "uid": ju}]
        else:
            meta["labels"] = {kc.MANAGED_LABEL: "true", kc.POD_GROUP_NAME_LABEL: sw.spec.name,
                              kc.QUEUE_NAME_LABEL: sw.spec.queue, kc.PODSET_LABEL: "main"}
            meta["annotations"] = {kc.POD_GROUP_TOTAL_COUNT_ANNOTATION: str(sw.spec.pods),
                                   kc.WORKLOAD_ANNOTATION: wl}
            meta["finalizers"] = [kc.MANAGED_FINALIZER]
        tas_labels, tas_annotations = pod_marks(sw.spec, bool(sw.topology), self.v)
        meta["labels"].update(tas_labels)
        meta["annotations"].update(tas_annotations)
        req = self._requests(sw)
        spec = {"containers": [{"image": "registry.example.com/ml/train:1.0", "name": "main",
                                "resources": {"requests": dict(req),
                                              "limits": {r: v for r, v in req.items() if r != "cpu"}}}],
                "restartPolicy": "Never", "schedulerName": "default-scheduler",
                "terminationGracePeriodSeconds": int(sw.spec.grace)}
        if sw.labels or (p is not None and p.domain):
            spec["nodeSelector"] = {**sw.labels, **(p.domain if p is not None and p.domain else {})}
        status: dict = {"phase": "Pending", "qosClass": "Burstable"}
        conds = []
        why = sw.spec.readiness
        if p is not None and p.node is not None and p.phase == PENDING and why != READY:
            return self._not_ready_pod(sw, p, meta, spec, status, why)
        if p is None or (p.phase == PENDING and p.node is None):
            if (sw.spec.kind == POD_GROUP and sw.state in (QUEUED, WAITING, RESERVED) and sw.released_at is None) \
                    or sw.state in (QUEUED, WAITING):
                spec["schedulingGates"] = [{"name": kc.ADMISSION_GATE}]
                conds.append({"lastProbeTime": None, "lastTransitionTime": self.time(sw.spec.at),
                              "message": "Scheduling is blocked due to non-empty scheduling gates",
                              "reason": kc.SCHEDULING_GATED, "status": "False", "type": kc.POD_SCHEDULED})
            else:
                n = len(self.sim.pool.nodes)
                message = (f"0/{n} nodes are available: {n} node(s) didn't match Pod's node affinity/selector. "
                           f"preemption: 0/{n} nodes are available: {n} Preemption is not helpful for scheduling."
                           if why == POD_UNSCHEDULABLE else f"0/{n} nodes are available: insufficient resources.")
                conds.append({"lastProbeTime": None, "lastTransitionTime": self.time(sw.released_at or sw.spec.at),
                              "message": message, "reason": kc.UNSCHEDULABLE, "status": "False",
                              "type": kc.POD_SCHEDULED})
        else:
            spec["nodeName"] = p.node.name if p.node is not None else None
            start = sw.running_since if sw.running_since is not None else sw.released_at
            status.update(phase="Running", startTime=self.time(start))
            conds.append({"lastProbeTime": None, "lastTransitionTime": self.time(start), "status": "True",
                          "type": kc.POD_SCHEDULED})
            conds.append({"lastProbeTime": None, "lastTransitionTime": self.time(start), "status": "True",
                          "type": "Ready"})
            if p.phase == TERMINATING and p.deleted_at is not None:
                meta["deletionTimestamp"] = self.time(p.deleted_at + p.grace)
                meta["deletionGracePeriodSeconds"] = int(p.grace)
                conds.append({"lastProbeTime": None, "lastTransitionTime": self.time(p.deleted_at),
                              "message": "Preempted to accommodate a higher priority Workload",
                              "reason": kc.WORKLOAD_EVICTED, "status": "True", "type": kc.TERMINATION_TARGET})
                if not sw.pods or (p.node is not None and not p.node.ready):
                    conds[1]["status"] = "False"
        status["conditions"] = conds
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}

    def _not_ready_pod(self, sw, p, meta: dict, spec: dict, status: dict, why: str) -> dict:
        """A pod bound to its node that never becomes ready: its image cannot be pulled, or its
        container keeps crashing (what kubelet reports in containerStatuses)."""
        spec["nodeName"] = p.node.name
        start = sw.released_at if sw.released_at is not None else sw.spec.at
        image = spec["containers"][0]["image"]
        restarts = 0
        if why == CRASH_LOOP_BACKOFF:
            restarts = max(1, int((self.at - start) // 300))
            waiting = {"message": f"back-off 5m0s restarting failed container=main pod={meta['name']}_"
                                  f"{sw.spec.namespace}({meta['uid']})", "reason": CRASH_LOOP_BACKOFF}
            status["phase"] = "Running"
        elif why == ERR_IMAGE_PULL:
            waiting = {"message": f'rpc error: code = NotFound desc = failed to pull and unpack image "{image}": '
                                  f'failed to resolve reference "{image}": not found', "reason": ERR_IMAGE_PULL}
        else:
            waiting = {"message": f'Back-off pulling image "{image}"', "reason": IMAGE_PULL_BACKOFF}
        cstat: dict = {"image": image, "imageID": "", "name": "main", "ready": False, "restartCount": restarts,
                       "started": False, "state": {"waiting": waiting}}
        if why == CRASH_LOOP_BACKOFF:
            cstat["lastState"] = {"terminated": {"exitCode": 1, "reason": "Error",
                                                 "finishedAt": self.time(self.at - 60),
                                                 "startedAt": self.time(self.at - 70)}}
            cstat["imageID"] = f"{image.split(':')[0]}@sha256:{hex_id(64, 'image', image)}"
        t = self.time(start)
        status.update(startTime=t, containerStatuses=[cstat], conditions=[
            {"lastProbeTime": None, "lastTransitionTime": t, "status": "True", "type": "PodReadyToStartContainers"},
            {"lastProbeTime": None, "lastTransitionTime": t, "status": "True", "type": "Initialized"},
            {"lastProbeTime": None, "lastTransitionTime": t, "message": "containers with unready status: [main]",
             "reason": "ContainersNotReady", "status": "False", "type": "Ready"},
            {"lastProbeTime": None, "lastTransitionTime": t, "message": "containers with unready status: [main]",
             "reason": "ContainersNotReady", "status": "False", "type": "ContainersReady"},
            {"lastProbeTime": None, "lastTransitionTime": t, "status": "True", "type": kc.POD_SCHEDULED}])
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}

    # -- events ----------------------------------------------------------------------------------
    def events(self) -> list:
        sim = self.sim
        start = self.at - self.window
        agg: dict = {}

        def add(t, kind, obj_name, ns, obj_uid, reason, message, etype="Normal", component="kueue-admission",
                api=None):
            if t < start or t > self.at:
                return
            key = (kind, ns, obj_name, reason, message)
            e = agg.get(key)
            if e is None:
                agg[key] = e = {"t0": t, "t1": t, "count": 0, "kind": kind, "ns": ns, "name": obj_name,
                                "uid": obj_uid, "reason": reason, "message": message, "type": etype,
                                "component": component, "api": api or self.kueue_api}
            e["count"] += 1
            e["t1"] = max(e["t1"], t)

        def wl_event(t, key, reason, message, etype="Normal"):
            sw = sim.workloads[key]
            add(t, "Workload", workload_name(sw), sw.spec.namespace, uid("Workload", str(key)), reason, message, etype)

        def owner_event(t, sw, reason, message):
            if sw.spec.kind == JOB:
                add(t, "Job", sw.spec.name, sw.spec.namespace, uid("Job", str(sw.key)), reason, message,
                    component="batch/job-kueue-controller", api="batch/v1")
            else:
                for i in range(sw.spec.pods):
                    n = f"{sw.spec.name}-{i}"
                    add(t, "Pod", n, sw.spec.namespace, uid("Pod", sw.spec.namespace, n), reason, message,
                        component="pod-kueue-controller", api="v1")

        queued_at: dict[WorkloadKey, float] = {}
        reserved_at: dict[WorkloadKey, float] = {}
        for t, event, f in sim.log:
            if t > self.at:
                break
            key = f.get("workload")
            if key not in sim.workloads:
                continue
            sw = sim.workloads[key]
            if event == "created":
                queued_at[key] = t
                if sw.spec.kind == JOB:
                    owner_event(t, sw, kc.EVENT_CREATED_WORKLOAD,
                                f"Created Workload: {sw.spec.namespace}/{workload_name(sw)}")
            elif event == "admitted":
                wait = int(t - queued_at.get(key, t))
                reserved_at[key] = t
                wl_event(t, key, kc.EVENT_QUOTA_RESERVED,
                         f"Quota reserved in ClusterQueue {f['clusterQueue']}, wait time since queued was {wait}s")
            elif event == "admitted_true":
                # with admission checks, Admitted comes once every check is Ready
                wait = int(t - reserved_at.get(key, t))
                wl_event(t, key, kc.EVENT_ADMITTED,
                         f"Admitted by ClusterQueue {f['clusterQueue']}, wait time since reservation was {wait}s")
            elif event == "released":
                owner_event(t, sw, kc.EVENT_STARTED, f"Admitted by clusterQueue {sw.cluster_queue}")
            elif event == "preempted":
                msg = self.eviction_message(f)
                wl_event(t, key, kc.evicted_event(kc.EVICTED_BY_PREEMPTION), msg)
                wl_event(t, key, kc.EVENT_PREEMPTED, msg)
                pre = f["preemptor"]
                if pre in sim.workloads:
                    wl_event(t, pre, kc.EVENT_PREEMPTED_WORKLOAD,
                             preempted_workload_message(sw.spec.namespace, workload_name(sw), uid("Workload", str(key)),
                                                        f["clusterQueue"]))
                owner_event(t, sw, kc.EVENT_STOPPED, msg)
            elif event == "quota_released":
                queued_at[key] = t
            elif event == "evicted":
                wl_event(t, key, kc.evicted_event(f["reason"]), f["message"])
                owner_event(t, sw, kc.EVENT_STOPPED, f["message"])
            elif event == "deactivated" and "message" in f:   # Kueue deactivated it (not a variant switched off)
                msg = f"The workload is deactivated due to {f['message']}"
                wl_event(t, key, kc.evicted_event(f["reason"]), msg)
                owner_event(t, sw, kc.EVENT_STOPPED, msg)
            elif event == "check_rejected":
                wl_event(t, key, kc.EVENT_ADMISSION_CHECK_REJECTED, f"Deactivated due to {f['message']}", "Warning")
            elif event == "check_state" and self.sim.scn.checks.get(f["check"]) is not None \
                    and self.sim.scn.checks[f["check"]].provisioning:
                msg = f"Admission check {f['check']} updated state from {f['previous']} to {f['state']}"
                if f["message"]:
                    msg += f" with message: {f['message']}"
                add(t, "Workload", workload_name(sw), sw.spec.namespace, uid("Workload", str(key)),
                    kc.EVENT_ADMISSION_CHECK_UPDATED, msg, component="kueue-provisioning-request-controller")
            elif event == "pods_not_ready":
                self._pod_events(add, t, sw, f["why"])
            elif event == "released" and sw.spec.readiness == POD_UNSCHEDULABLE:
                self._pod_events(add, t, sw, POD_UNSCHEDULABLE)
            elif event == "finished":
                owner_event(t, sw, kc.EVENT_FINISHED_WORKLOAD,
                            f"Workload '{sw.spec.namespace}/{workload_name(sw)}' is declared finished")
        for c in with_retries(sim, self.at):
            if c.t > self.at:
                break
            for f in c.evaluated:
                if f.get("condition_reason") == kc.WAITING_FOR_PODS_READY:
                    continue   # blockAdmission patches the status only; the candidate is admitted later
                reason = (f.get("condition_reason") or kc.PENDING) if self.granular else kc.PENDING
                wl_event(c.t, f["workload"], reason, f["reason"], "Warning")
        out = []
        for key in sorted(agg, key=lambda k: (agg[k]["t0"], k)):
            e = agg[key]
            name = f"{e['name']}.{hex_id(16, 'event', *map(str, key))}"
            out.append({"apiVersion": "v1", "count": e["count"], "eventTime": None,
                        "firstTimestamp": self.time(e["t0"]), "lastTimestamp": self.time(e["t1"]),
                        "involvedObject": {"apiVersion": e["api"], "kind": e["kind"], "name": e["name"],
                                           "namespace": e["ns"], "uid": e["uid"]},
                        "kind": "Event", "message": e["message"],
                        "metadata": {"creationTimestamp": self.time(e["t0"]), "name": name, "namespace": e["ns"],
                                     "resourceVersion": self.resource_version(), "uid": uid("Event", name)},
                        "reason": e["reason"], "reportingComponent": e["component"], "reportingInstance": "",
                        "source": {"component": e["component"]}, "type": e["type"]})
        return out

    def _pod_events(self, add, t: float, sw, why: str) -> None:
        """What kubelet and the scheduler say about pods that never become ready."""
        n = len(self.sim.pool.nodes)
        image = "registry.example.com/ml/train:1.0"
        for i in range(sw.spec.pods):
            name = self._pod_name(sw, i)
            ns = sw.spec.namespace
            pu = uid("Pod", ns, name)
            if why == POD_UNSCHEDULABLE:
                add(t, "Pod", name, ns, pu, "FailedScheduling",
                    f"0/{n} nodes are available: {n} node(s) didn't match Pod's node affinity/selector. preemption: "
                    f"0/{n} nodes are available: {n} Preemption is not helpful for scheduling.",
                    "Warning", component="default-scheduler", api="v1")
            elif why in (IMAGE_PULL_BACKOFF, ERR_IMAGE_PULL):
                add(t, "Pod", name, ns, pu, "Pulling", f'Pulling image "{image}"', component="kubelet", api="v1")
                add(t + 2, "Pod", name, ns, pu, "Failed",
                    f'Failed to pull image "{image}": rpc error: code = NotFound desc = failed to pull and unpack '
                    f'image "{image}": failed to resolve reference "{image}": not found',
                    "Warning", component="kubelet", api="v1")
                add(t + 2, "Pod", name, ns, pu, "Failed", "Error: ErrImagePull", "Warning", component="kubelet",
                    api="v1")
                add(t + 3, "Pod", name, ns, pu, "BackOff", f'Back-off pulling image "{image}"', "Warning",
                    component="kubelet", api="v1")
                add(t + 3, "Pod", name, ns, pu, "Failed", "Error: ImagePullBackOff", "Warning", component="kubelet",
                    api="v1")
            elif why == CRASH_LOOP_BACKOFF:
                add(t + 10, "Pod", name, ns, pu, "BackOff", "Back-off restarting failed container main in pod "
                    f"{name}_{ns}({pu})", "Warning", component="kubelet", api="v1")

    # -- the controller's Deployment and Configuration ------------------------------------------
    def deployment(self) -> list:
        sim = self.sim
        label = sim.kueue.label
        args = ["--config=/controller_manager_config.yaml", "--zap-log-level=5"]
        gates = dict(sorted(sim.scn.gates.items()))
        if gates:
            args.append("--feature-gates=" + ",".join(f"{k}={str(v).lower()}" for k, v in gates.items()))
        beta2 = self.v >= (0, 15, 0)
        config = {"apiVersion": "config.kueue.x-k8s.io/v1beta2" if beta2 else "config.kueue.x-k8s.io/v1beta1",
                  "kind": "Configuration", "health": {"healthProbeBindAddress": ":8081"},
                  "metrics": {"bindAddress": ":8443", "enableClusterQueueResources": True},
                  "webhook": {"port": 9443},
                  "leaderElection": {"leaderElect": True, "resourceName": "c1f6bfd2.kueue.x-k8s.io"},
                  "integrations": {"frameworks": ["batch/job", "pod"]}}
        if sim.scn.wait_for_pods_ready is not None:
            block = dict(sim.scn.wait_for_pods_ready)
            if not beta2:
                block = {"enable": True, **block}
            config["waitForPodsReady"] = block
        elif sim.scn.state.configuration is not None and sim.scn.state.configuration.wait_for_pods_ready is not None:
            config["waitForPodsReady"] = dict(sim.scn.state.configuration.wait_for_pods_ready)
        if sim.config.fair_sharing:
            fs: dict[str, Any] = {"preemptionStrategies": list(sim.config.preemption_strategies)}
            if not beta2:
                fs = {"enable": True, **fs}
            config["fairSharing"] = fs
        a = sim.scn.admission_fair_sharing
        if a is not None:
            afs_config: dict[str, Any] = {"usageHalfLifeTime": _go_duration(a.usage_half_life_time),
                                          "usageSamplingInterval": _go_duration(a.usage_sampling_interval)}
            if a.resource_weights:
                afs_config["resourceWeights"] = dict(a.resource_weights)
            config["admissionFairSharing"] = afs_config
        deploy = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {**self.meta("Deployment", "kueue-controller-manager", "kueue-system",
                                           created=-7 * 86400),
                               "labels": {"app.kubernetes.io/name": "kueue", "app.kubernetes.io/version": label,
                                          "control-plane": "controller-manager"}},
                  "spec": {"replicas": 1,
                           "selector": {"matchLabels": {"control-plane": "controller-manager"}},
                           "template": {"metadata": {"labels": {"control-plane": "controller-manager"}},
                                        "spec": {"containers": [{
                                            "args": args, "command": ["/manager"],
                                            "image": f"registry.k8s.io/kueue/kueue:{label}", "name": "manager"}],
                                            "serviceAccountName": "kueue-controller-manager"}}},
                  "status": {"availableReplicas": 1, "readyReplicas": 1, "replicas": 1, "updatedReplicas": 1}}
        cm: dict[str, Any] = {"apiVersion": "v1", "kind": "ConfigMap",
              "data": {"controller_manager_config.yaml": _dump(config)},
              "metadata": self.meta("ConfigMap", "kueue-manager-config", "kueue-system", created=-7 * 86400)}
        del cm["metadata"]["generation"]
        return [deploy, cm]


def write_snapshot(sim, directory, window: float = WINDOW, force: bool = False) -> list[Path]:
    """Write the cluster as it stands at ``sim.now`` into ``directory``; returns the files written."""
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise InputError("not a directory", file=str(out))
    if out.exists() and any(out.iterdir()) and not force:
        raise InputError("directory is not empty (use --force to overwrite)", file=str(out))
    out.mkdir(parents=True, exist_ok=True)
    writer = SnapshotWriter(sim, window)
    contents = {
        layout.KUEUE_OBJECTS: _dump(_list(writer.kueue_objects())),
        layout.NODES: _dump(_list(writer.nodes())),
        layout.PODS: _dump(_list(writer.pods())),
        layout.EVENTS: _dump(_list(writer.events())),
        layout.DEPLOYMENT: _dump(_list(writer.deployment())),
        layout.CONTROLLER_LOG: "".join(line + "\n" for line in controller_log(sim, sim.now, window)),
    }
    written = []
    for name in layout.SIMULATED_FILES:
        path = out / name
        path.write_text(contents[name], encoding="utf-8")
        written.append(path)
    # the same manifest `collect` writes: the doctor takes the snapshot time from it (the log may
    # end long before T when the cluster is quiet)
    manifest = {layout.COLLECTED_AT: layout.format_time(sim.dt(sim.now)),
                layout.SOURCE: f"kueue-doctor simulate {sim.scn.source}", layout.KUEUE_VERSION: sim.kueue.label,
                layout.FILES: sorted(layout.SIMULATED_FILES)}
    path = out / layout.MANIFEST
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    written.append(path)
    return written


def snapshot_at(scn: Scenario, at: float, directory, force: bool = False) -> list[Path]:
    """Run ``scn`` on a fresh simulator up to ``at`` and write the folder there. ``run`` ends
    with a final sample, so a caller that wants the rest of the run uses ``start``/``advance``
    (or ``fork``) on its own simulator instead, or starts a second, identical one."""
    return write_snapshot(Simulator(scn).run(at), directory, force=force)


def _go_duration(seconds: float) -> str:
    """A metav1.Duration as Kueue prints it (``5m0s``, ``1h0m0s``, ``10s``)."""
    s = round(seconds)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h}h{m}m{sec}s"
    if m:
        return f"{m}m{sec}s"
    return f"{sec}s"
