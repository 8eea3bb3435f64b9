"""The simulation loop: work arrives, Kueue schedules, Kubernetes runs and stops pods.

Lifecycle of a workload (kueue-semantics.md §1.2, §5.10; kueue-signals.md §A):
created -> queued -> quota reserved (engine cycle) -> released to Kubernetes after a latency
(gate removed / Job unsuspended) -> pods placed -> running for its runtime -> finished, quota
freed. Preempted: evicted -> pods terminating for their grace period -> quota released when
the release's job integration says the job is no longer active -> queued again.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from .. import heap
from ..api import build
from ..api import objects as o
from ..engine import afs
from ..engine.config import EngineConfig
from ..engine.model import AdmissionModel
from ..engine.scheduler import CycleResult
from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue import constants as kc
from ..kueue.releases import KueueRelease, release_for
from .events import EventQueue
from .metrics import Recorder
from .nodes import GONE, RUNNING, TERMINATING, NodePool, SimPod, amounts
from .scenario import JOB, POD_GROUP, Scenario, WorkloadSpec

T0 = datetime(2026, 1, 1, tzinfo=UTC)

WAITING, QUEUED, RESERVED, RUNNING_W, EVICTED, FINISHED = (
    "waiting", "queued", "reserved", "running", "evicted", "finished")


@dataclass
class SimWorkload:
    spec: WorkloadSpec
    key: WorkloadKey
    obj: o.Workload
    state: str = WAITING
    epoch: int = 0
    admitted_at: float | None = None
    first_admitted_at: float | None = None
    released_at: float | None = None
    running_since: float | None = None
    finished_at: float | None = None
    waiting_since: float = 0.0
    cluster_queue: str = ""
    pods: list[SimPod] = field(default_factory=list)
    zombie: bool = False
    preemptions: int = 0
    admissions: int = 0
    labels: dict[str, str] = field(default_factory=dict)
    parent: WorkloadKey | None = None     # a ConcurrentAdmission variant's parent (scenario ``variants``)


class Simulator:
    def __init__(self, scn: Scenario, progress: Callable[[float], None] | None = None):
        self.scn = scn
        self.kueue: KueueRelease = release_for(scn.version, scn.gates)
        cfg = EngineConfig(gates=dict(self.kueue.gates), drs_mode=self.kueue.drs_mode,
                           concurrent_admission_preemption_gates=self.kueue.concurrent_admission_preemption_gates)
        if scn.fair_sharing is not None:
            cfg.fair_sharing = True
            if scn.fair_sharing.get("preemptionStrategies"):
                cfg.preemption_strategies = list(scn.fair_sharing["preemptionStrategies"])
        elif scn.state.configuration is not None:
            cfg.fair_sharing = scn.state.configuration.fair_sharing.enabled
        if scn.admission_fair_sharing is not None:
            cfg.admission_fair_sharing = afs.AfsConfig.from_api(scn.admission_fair_sharing)
            cfg.afs_behaviour = afs.AfsBehaviour.for_release(self.kueue.version)
        self.config = cfg
        self.settings = scn.settings
        for cq in scn.state.cluster_queues.values():
            if cq.namespace_selector is None:
                cq.namespace_selector = o.LabelSelector()  # scenarios mean "all namespaces" when silent
        self.model = AdmissionModel(scn.state, cfg)
        self.model.queues.sticky_preemptor = self.kueue.sticky_preemptor
        self.events = EventQueue()
        self.pool = NodePool(scn.nodes, scn.settings.placement)
        self.workloads: dict[WorkloadKey, SimWorkload] = {}
        self.unplaced: list[SimWorkload] = []
        self.cycle_pending = False
        self.cycle_busy_until = 0.0
        self.cycles = 0
        self.finished = 0
        self.recorder = Recorder(self)
        self.progress = progress
        self.log: list[tuple] = []           # (time, event, fields) for the snapshot's controller log
        self.variants: dict[WorkloadKey, list[SimWorkload]] = {}   # parent -> its variants
        heap.settle()

    # -- helpers -------------------------------------------------------------------------
    def dt(self, t: float) -> datetime:
        return T0 + timedelta(seconds=t)

    @property
    def now(self) -> float:
        return self.events.now

    def request_cycle(self) -> None:
        if not self.cycle_pending:
            self.cycle_pending = True
            self.events.at(max(self.now, self.cycle_busy_until), "cycle")

    def emit(self, event: str, **fields) -> None:
        self.log.append((self.now, event, fields))

    # -- run ---------------------------------------------------------------------------
    def run(self, until: float | None = None) -> Simulator:
        started = time.perf_counter()
        end = until if until is not None else self.settings.duration
        for spec in sorted(self.scn.workloads, key=lambda s: (s.at, s.namespace, s.name)):
            self.events.at(spec.at, "arrive", spec)
        for fault in self.scn.faults:
            self.events.at(fault.at, "fault", fault)
        self.events.at(0.0, "sample")
        if self.afs_ledger is not None:
            self.events.at(0.0, "afs_sample")
        handlers = {"arrive": self.on_arrive, "cycle": self.on_cycle, "release": self.on_release,
                    "finish": self.on_finish, "pod_gone": self.on_pod_gone, "quota_release": self.on_quota_release,
                    "fault": self.on_fault, "sample": self.on_sample, "afs_sample": self.on_afs_sample,
                    "open_gate": self.on_open_gate}
        while True:
            t = self.events.peek_time()
            if t is None or (end is not None and t > end):
                break
            popped = self.events.pop()
            assert popped is not None  # peek_time just saw it
            _, kind, payload = popped
            handlers[kind](payload)
            if self.progress is not None:
                self.progress(self.now)
            if end is None and self._idle():
                break
        if end is not None:
            self.events.now = max(self.events.now, end)
        self.recorder.sample(final=True)
        self.wall_seconds = time.perf_counter() - started
        return self

    def _idle(self) -> bool:
        """Nothing left that can change: every workload finished and no event but sampling."""
        return self.finished >= len(self.scn.workloads) and not any(
            k not in ("sample", "afs_sample") for _, _, k, _ in self.events._heap)

    # -- handlers ------------------------------------------------------------------------
    def on_arrive(self, spec: WorkloadSpec) -> None:
        cq = self._concurrent_queue(spec)
        if cq is None:
            self._arrive(spec)
            return
        # ConcurrentAdmission's controller makes one variant per flavor of the ClusterQueue's first
        # resource group, owned by the parent (which neither queues nor holds quota: not simulated)
        parent = WorkloadKey(spec.namespace, spec.name)
        self.variants[parent] = [
            self._arrive(dataclasses.replace(spec, name=f"{spec.name}-{f.name}"), parent, f.name)
            for f in cq.resource_groups[0].flavors]
        self._sync_variants(parent)

    def _concurrent_queue(self, spec: WorkloadSpec) -> o.ClusterQueue | None:
        if not self.config.gate("ConcurrentAdmission"):
            return None
        lq = self.scn.state.local_queues.get((spec.namespace, spec.queue))
        cq = self.scn.state.cluster_queues.get(lq.cluster_queue) if lq is not None else None
        if cq is None or cq.concurrent_admission_policy is None or not cq.resource_groups:
            return None
        return cq

    def _sync_variants(self, parent: WorkloadKey) -> None:
        """The variant controller's (de)activation: with a variant admitted, RetainFirstAdmission keeps
        no other one active; TryPreferredFlavors keeps those more favourable than it (and not below
        lastAcceptableFlavorName); with none admitted all are active. A deactivated variant leaves
        its queue (Workload spec.active false); only pending variants are switched here."""
        variants = self.variants.get(parent, [])
        if not variants or any(v.state == FINISHED for v in variants):
            return
        cq = self.scn.state.cluster_queues[variants[0].cluster_queue]
        policy = cq.concurrent_admission_policy
        assert policy is not None
        order = [f.name for f in cq.resource_groups[0].flavors]
        admitted = [v for v in variants if v.state in (RESERVED, RUNNING_W)]
        if not admitted:
            active = set(range(len(variants)))
        elif policy.migration_mode == "RetainFirstAdmission":
            active = {variants.index(admitted[0])}
        else:
            at = min(variants.index(v) for v in admitted)
            last = order.index(policy.last_acceptable_flavor) if policy.last_acceptable_flavor in order else None
            active = {i for i in range(len(variants)) if i < at and (last is None or i <= last)} | {at}
        for i, v in enumerate(variants):
            if v.state != QUEUED or (i in active) == v.obj.active:
                continue
            wi = self.model.info(v.obj)
            v.obj.active = i in active
            if v.obj.active:
                self.model.queues.add(wi)
                self.recorder.queued_change(v.cluster_queue, +1)
            else:
                self.model.queues.delete(wi)
                self.recorder.queued_change(v.cluster_queue, -1)
            self.emit("activated" if v.obj.active else "deactivated", workload=v.key)

    def _arrive(self, spec: WorkloadSpec, parent: WorkloadKey | None = None, flavor: str = "") -> SimWorkload:
        key = WorkloadKey(spec.namespace, spec.name)
        if key in self.workloads:
            raise InputError(f"two workloads are named {key}", file=self.scn.source)
        wl = build.workload(spec.namespace, spec.name, spec.queue, spec.requests, count=spec.pods,
                            priority=spec.priority, created=self.dt(self.now),
                            labels={"kueue-doctor.io/class": spec.klass}, grace=int(spec.grace))
        if parent is not None:
            wl.meta.annotations[kc.ALLOWED_FLAVORS_ANNOTATION] = flavor
            wl.meta.owner_references = [{"apiVersion": f"{kc.GROUP}/v1beta2", "kind": "Workload",
                                         "name": parent.name, "uid": str(parent), "controller": True}]
        wl.preemption_gates = [g for g, _ in spec.preemption_gates]
        for g, after in spec.preemption_gates:
            if after is not None:
                self.events.after(after, "open_gate", (key, g))
        sw = SimWorkload(spec, key, wl, state=QUEUED, waiting_since=self.now, parent=parent)
        self.workloads[key] = sw
        wi = self.model.submit(wl)
        sw.cluster_queue = self.model.queues.cluster_queue_for(wi) or ""
        if sw.cluster_queue:
            self.recorder.queued_change(sw.cluster_queue, +1)
        self.emit("created", workload=key, queue=spec.queue)
        self.request_cycle()
        return sw

    def on_open_gate(self, payload) -> None:
        """A controller (MultiKueue, ConcurrentAdmission) opens a preemption gate: the workload,
        parked as inadmissible while gated, is queued again (ClusterQueue.PushOrUpdate)."""
        key, gate = payload
        sw = self.workloads[key]
        sw.obj.status.preemption_gates[gate] = "Open"
        self.emit("gate_opened", workload=key, gate=gate)
        q = self.model.queues.queues.get(sw.cluster_queue)
        if q is not None and key in q.inadmissible:
            q.push(q.inadmissible.pop(key))
        self.request_cycle()

    def on_cycle(self, _payload) -> None:
        self.cycle_pending = False
        now_dt = self.dt(self.now)
        res = self.model.cycle(now_dt)
        self.cycles += 1
        heads = len(res.entries) + len(res.inadmissible)
        s = self.settings
        cost = s.cycle_cost + s.per_head_cost * heads + s.admission_cost * len(res.admitted)
        self.cycle_busy_until = self.now + cost
        for e in res.admitted:
            self._admitted(e)
        for t in res.preempted:
            preemptor = next(e.key for e in res.entries if t in e.targets)  # a target is some entry's
            self._evict(self.workloads[t.key], t.reason, preemptor)
        for m in res.migrated:
            self._evict(self.workloads[m.key], m.reason, m.evictor, message=m.message)
        for parent in self.variants:
            self._sync_variants(parent)
        self._log_cycle(res)
        parked = any(e.key in self.model.queues.queues[e.cq_name].inadmissible
                     for e in res.entries + res.inadmissible if e.cq_name in self.model.queues.queues)
        if res.admitted or res.preempted or res.migrated or parked:
            self.request_cycle()

    def _admitted(self, e) -> None:
        sw = self.workloads[e.key]
        sw.state = RESERVED
        sw.epoch += 1
        sw.admissions += 1
        sw.admitted_at = self.now
        sw.cluster_queue = e.cq_name
        self.recorder.queued_change(e.cq_name, -1)
        if sw.first_admitted_at is None:
            sw.first_admitted_at = self.now
        labels: dict[str, str] = {}
        for ps in e.assignment.pod_sets:
            for f in ps.flavors.values():
                flavor = self.model.snapshot.flavors.get(f.name)
                if flavor is not None:
                    labels.update(flavor.node_labels)
        sw.labels = labels
        self.recorder.admission(sw)
        self._afs_settle(sw)
        self.emit("admitted", workload=sw.key, clusterQueue=e.cq_name, cycle=self.cycles,
                  borrowing=e.assignment.borrowing,
                  assignments=[{"name": ps.name, "count": ps.count,
                                "flavors": {r: f.name for r, f in ps.flavors.items()},
                                "resourceUsage": {r: v * ps.count for r, v in ps.requests.items()}}
                               for ps in e.assignment.pod_sets])
        self.events.after(self.settings.release_latency, "release", (sw, sw.epoch))

    def on_release(self, payload) -> None:
        sw, epoch = payload
        if sw.epoch != epoch or sw.state != RESERVED:
            return
        sw.released_at = self.now
        sw.pods = [SimPod(sw.key, i, amounts(sw.spec.requests), grace=sw.spec.grace, zombie=sw.zombie)
                   for i in range(sw.spec.pods)]
        self.emit("released", workload=sw.key)
        self._try_place(sw)

    def _try_place(self, sw: SimWorkload) -> bool:
        if self.pool and not self.pool.place_group(sw.pods, sw.labels):
            if sw not in self.unplaced:
                self.unplaced.append(sw)
            return False
        for p in sw.pods:
            p.phase = RUNNING
        sw.state = RUNNING_W
        sw.running_since = self.now
        self.events.after(sw.spec.runtime, "finish", (sw, sw.epoch))
        return True

    def _retry_placement(self) -> None:
        waiting, self.unplaced = self.unplaced, []
        for sw in waiting:
            if sw.state == RESERVED and sw.pods:
                self._try_place(sw)

    def on_finish(self, payload) -> None:
        sw, epoch = payload
        if sw.epoch != epoch or sw.state != RUNNING_W:
            return
        for p in sw.pods:
            self._pod_gone(p)
        sw.state = FINISHED
        sw.finished_at = self.now
        self.finished += 1
        self.recorder.quota_released(sw)
        self.model.release(sw.key, self.dt(self.now), requeue=False)
        self.emit("finished", workload=sw.key, clusterQueue=sw.cluster_queue)
        if sw.parent is not None:
            self._finish_siblings(sw)
        self._retry_placement()
        self.request_cycle()

    def _finish_siblings(self, done: SimWorkload) -> None:
        """The parent finished with ``done``: its other variants go too (they count as one workload)."""
        assert done.parent is not None
        for sw in self.variants.get(done.parent, []):
            if sw is done or sw.state == FINISHED:
                continue
            for p in sw.pods:
                self._pod_gone(p)
            if sw in self.unplaced:
                self.unplaced.remove(sw)
            if sw.state == QUEUED:
                self.model.queues.delete(self.model.infos[sw.key])
                self.recorder.queued_change(sw.cluster_queue, -1)
            elif self.model.release(sw.key, self.dt(self.now), requeue=False) is not None:
                self.recorder.quota_released(sw)
            sw.state = FINISHED
            sw.epoch += 1
            sw.finished_at = self.now
            self.emit("finished", workload=sw.key, clusterQueue=sw.cluster_queue)

    def _pod_gone(self, p: SimPod) -> None:
        if p.phase == GONE:
            return
        if p.node is not None:
            p.node.unbind(p)
        p.phase = GONE

    def _evict(self, sw: SimWorkload, reason: str, preemptor: WorkloadKey, message: str = "") -> None:
        if reason == kc.EVICTED_BY_FLAVOR_MIGRATION:
            # an eviction without a Preempted condition: a more favourable variant takes over
            self.recorder.migration(sw, preemptor)
            self.emit("migrated", workload=sw.key, clusterQueue=sw.cluster_queue, reason=reason, evictor=preemptor,
                      message=message, cycle=self.cycles)
        else:
            sw.preemptions += 1
            self.recorder.preemption(sw, reason, preemptor)
            self.emit("preempted", workload=sw.key, clusterQueue=sw.cluster_queue, reason=reason,
                      preemptor=preemptor, cycle=self.cycles)
        was_running = sw.state == RUNNING_W
        sw.state = EVICTED
        sw.epoch += 1
        if sw in self.unplaced:
            self.unplaced.remove(sw)
        latency = self.settings.quota_release_latency
        live = [p for p in sw.pods if p.phase in (RUNNING, TERMINATING) or (p.node is not None and p.phase != GONE)]
        for p in sw.pods:
            if p.phase == GONE:
                continue
            if p.node is None:          # never started: nothing to wait for
                p.phase = GONE
                continue
            p.phase = TERMINATING
            p.deleted_at = self.now
            if not p.zombie:
                self.events.after(p.grace, "pod_gone", (sw, sw.epoch, p))
        if not was_running or not live:
            self.events.after(latency, "quota_release", (sw, sw.epoch))
        elif sw.spec.kind == JOB or self.kueue.fast_pod_release:
            # batch Jobs stop counting terminating pods as active; the alpha gate does the same for pods
            self.events.after(latency, "quota_release", (sw, sw.epoch))
        elif self.kueue.stuck_pod_fix:
            # a pod past deletionTimestamp + grace is no longer active (#6872), even if it never goes away
            self.events.after(max(p.grace for p in live) + latency, "quota_release", (sw, sw.epoch))
        # otherwise: released when the last pod is gone (on_pod_gone)

    def on_pod_gone(self, payload) -> None:
        sw, epoch, pod = payload
        if pod.zombie or pod.phase == GONE:
            return
        self._pod_gone(pod)
        self._retry_placement()
        if sw.epoch == epoch and sw.state == EVICTED and sw.spec.kind == POD_GROUP \
                and not self.kueue.fast_pod_release and not self.kueue.stuck_pod_fix \
                and all(p.phase == GONE for p in sw.pods):
            self.events.after(self.settings.quota_release_latency, "quota_release", (sw, sw.epoch))

    def on_quota_release(self, payload) -> None:
        sw, epoch = payload
        if sw.epoch != epoch or sw.state != EVICTED:
            return
        sw.state = QUEUED
        sw.waiting_since = self.now
        self.recorder.quota_released(sw)
        wi = self.model.release(sw.key, self.dt(self.now), requeue=True)
        if wi is not None:
            self.recorder.queued_change(sw.cluster_queue, +1)
        self.emit("quota_released", workload=sw.key, clusterQueue=sw.cluster_queue)
        if sw.parent is not None:
            self._sync_variants(sw.parent)
        self.request_cycle()

    def on_fault(self, fault) -> None:
        self.emit("fault", kind=fault.kind, target=fault.target)
        self.recorder.fault(fault)
        if fault.workload is not None:
            sw = self.workloads.get(fault.workload)
            if sw is None:
                raise InputError(f"fault names workload {fault.target}, which has not been created by then",
                                 file=self.scn.source, field="faults")
            sw.zombie = True
            for p in sw.pods:
                p.zombie = True
            return
        node = self.pool.by_name.get(fault.node)
        if node is None:
            raise InputError(f"fault names node {fault.node}, which the scenario does not define",
                             file=self.scn.source, field="faults")
        if fault.kind == "nodeNotReady":
            node.ready = False
            for sw in self.workloads.values():
                for p in sw.pods:
                    if p.node is node and p.phase != GONE:
                        p.zombie = True
        else:
            node.ready = True
            for sw in self.workloads.values():
                for p in sw.pods:
                    if p.node is node and p.zombie:
                        p.zombie = False
                        if p.phase == TERMINATING:
                            self.events.after(0.0, "pod_gone", (sw, sw.epoch, p))
            self._retry_placement()

    # -- admission fair sharing: LocalQueue usage (engine/afs.py) -------------------------------
    @property
    def afs_ledger(self) -> afs.UsageLedger | None:
        return self.model.queues.afs_ledger

    def lq_admitted(self, ns: str, name: str) -> afs.Amounts:
        """The LocalQueue's admitted usage per resource (the cache's LocalQueue.GetAdmittedUsage)."""
        cq = self.model.snapshot.cluster_queues.get(self.model.queues.local_queues.get((ns, name), ""))
        return self._lq_usages(cq.workloads.values() if cq is not None else []).get((ns, name), {})

    def _lq_usages(self, workloads) -> dict[afs.LqKey, afs.Amounts]:
        usage: dict[afs.LqKey, dict[tuple[str, str], int]] = {}
        for wi in workloads:
            mine = usage.setdefault((wi.namespace, wi.queue_name), {})
            for fr, v in wi.usage.items():
                mine[fr] = mine.get(fr, 0) + v
        return {k: afs.amounts_of_usage(u) for k, u in usage.items()}

    def _afs_settle(self, sw: SimWorkload) -> None:
        """The workload turned Admitted (at once here: no admission checks): its LocalQueue's usage
        decays to now and takes the entry penalty the scheduler charged (updateAfsConsumedUsage)."""
        led = self.afs_ledger
        q = self.model.queues.queues.get(sw.cluster_queue)
        if led is None or q is None or q.ledger is None:
            return
        ns, name = sw.spec.namespace, sw.spec.queue
        led.settle((ns, name), sw.key, self.lq_admitted(ns, name), self.dt(self.now))

    def on_afs_sample(self, _payload) -> None:
        """The LocalQueue reconciler: every usageSamplingInterval, consumed usage decays toward the
        admitted usage (reconcileConsumedUsage); the snapshot writes it to the LocalQueue status."""
        led = self.afs_ledger
        if led is None or self.config.admission_fair_sharing is None:
            return
        now = self.dt(self.now)
        admitted = self._lq_usages(self.model.snapshot.all_workloads())
        for key in sorted(self.model.queues.local_queues):
            if led.due(key, now):
                led.sample(key, admitted.get(key, {}), now)
        if self.events.peek_time() is not None or self.settings.duration:
            self.events.after(self.config.admission_fair_sharing.usage_sampling_interval, "afs_sample")

    def on_sample(self, _payload) -> None:
        self.recorder.sample()
        if self.events.peek_time() is not None or self.settings.duration:
            self.events.after(self.settings.sample_interval, "sample")

    def _log_cycle(self, res: CycleResult) -> None:
        for e in res.entries:
            if e.status == "assumed":
                continue
            a = e.assignment
            self.emit("evaluated", workload=e.key, clusterQueue=e.cq_name, status=e.status or "pending",
                      reason=e.inadmissible_msg, targets=[t.key for t in e.targets], requeue=e.requeue_reason,
                      cycle=self.cycles, condition_reason=e.reason,
                      mode=a.representative_mode() if a is not None else 0,
                      borrowing=a.borrowing if a is not None else 0,
                      usage=sorted((fr[0], fr[1], v) for fr, v in a.usage.items()) if a is not None else [])
        for cq, n in res.preemption_skips.items():
            self.emit("preemption_skips", clusterQueue=cq, count=n)
