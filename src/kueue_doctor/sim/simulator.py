"""The simulation loop: work arrives, Kueue schedules, Kubernetes runs and stops pods.

Lifecycle of a workload (kueue-semantics.md §1.2, §5.10; kueue-signals.md §A):
created -> queued -> quota reserved (engine cycle) -> released to Kubernetes after a latency
(gate removed / Job unsuspended) -> pods placed -> running for its runtime -> finished, quota
freed. Preempted: evicted -> pods terminating for their grace period -> quota released when
the release's job integration says the job is no longer active -> queued again.
"""
from __future__ import annotations

import copy
import dataclasses
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from .. import heap
from ..api import build
from ..api import objects as o
from ..engine import admissionchecks as acs
from ..engine import afs, podsready
from ..engine.config import EngineConfig, resource_rules
from ..engine.model import AdmissionModel
from ..engine.scheduler import CycleResult
from ..engine.tas.cycle import topology_of
from ..engine.transformations import TransformBehaviour
from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue import constants as kc
from ..kueue.logvocab import REQUEUE_PREEMPTION_NO_CANDIDATES as PREEMPTION_NO_CANDIDATES
from ..kueue.podsready import V1BETA1, V1BETA2, V1BETA2_CONFIG, Resolved, WaitForPodsReady, resolve
from ..kueue.releases import KueueRelease, release_for
from .events import EventQueue
from .forking import fork_memo
from .metrics import Recorder
from .nodes import GONE, PENDING, RUNNING, TERMINATING, NodePool, SimPod, amounts
from .perf import ApiWrites
from .scenario import JOB, POD_GROUP, READY, UNSCHEDULABLE, Fault, Scenario, WorkloadSpec
from .tas import NON_TAS_REQUEUE_FIX, NON_TAS_REQUEUE_INTERVAL, SimTAS

T0 = datetime(2026, 1, 1, tzinfo=UTC)

BOOKING_EXPIRED_MESSAGE = ("Capacity booking for the Provisioning Request has expired and the nodes are now "
                           "candidates for scale down when underutilized.")

WAITING, QUEUED, RESERVED, RUNNING_W, EVICTED, FINISHED, DEACTIVATED = (
    "waiting", "queued", "reserved", "running", "evicted", "finished", "deactivated")


@dataclass
class SimProvisioningRequest:
    """A ProvisioningRequest the provisioning controller created for one attempt of a check."""
    name: str
    check: str
    attempt: int
    created: float
    conditions: list[tuple[str, float, str]] = field(default_factory=list)   # (type, since, message)

    def obj(self, namespace: str, klass: str, dt: Callable[[float], datetime]) -> o.ProvisioningRequest:
        return o.ProvisioningRequest(o.Meta(self.name, namespace), klass, [(f"ppt-{self.name}-main", 0)],
                                     conditions=[o.Condition(t, "True", t, m, dt(at)) for t, at, m in self.conditions])


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
    # admission checks and WaitForPodsReady (Kueue's view; the snapshot writes them)
    admitted_true_at: float | None = None      # Admitted=True (every check Ready) since
    pods_ready_at: float | None = None         # PodsReady=True since (None: not ready)
    recovery_since: float | None = None        # PodsReady=False WaitForRecovery since
    was_ready: bool = False                    # PodsReady was True in this admission
    checks: list[o.AdmissionCheckState] = field(default_factory=list)
    requests: list[SimProvisioningRequest] = field(default_factory=list)
    requeue_count: int | None = None
    requeue_at: float | None = None
    eviction: tuple[str, str, float] | None = None     # (reason, message, at) of the last eviction
    deactivation: tuple[str, str, float] | None = None  # (DeactivationTarget reason, message, at)
    backoff_finished_at: float | None = None
    kueue_evictions: int = 0                   # evictions by Kueue itself (PodsReadyTimeout, checks)
    topology: dict[str, o.TopologyAssignment] = field(default_factory=dict)  # pod set -> TAS assignment
    quota_held: bool = False                   # quotaHeldAfterEviction fault: a Kueue eviction keeps the quota


class Simulator:
    def __init__(self, scn: Scenario, progress: Callable[[float], None] | None = None):
        self.scn = scn
        self.kueue: KueueRelease = release_for(scn.version, scn.gates)
        cfg = EngineConfig(gates=dict(self.kueue.gates), drs_mode=self.kueue.drs_mode,
                           concurrent_admission_preemption_gates=self.kueue.concurrent_admission_preemption_gates,
                           no_candidates_ranked_last=self.kueue.no_candidates_ranked_last)
        if scn.fair_sharing is not None:
            cfg.fair_sharing = True
            if scn.fair_sharing.get("preemptionStrategies"):
                cfg.preemption_strategies = list(scn.fair_sharing["preemptionStrategies"])
        elif scn.state.configuration is not None:
            cfg.fair_sharing = scn.state.configuration.fair_sharing.enabled
        c = scn.state.configuration
        if c is not None:   # a Kueue Configuration among the objects: its resources rules, as the release applies them
            cfg.resource_rules = resource_rules(c.exclude_resource_prefixes, c.resource_transformations, cfg.gates)
        cfg.resource_rules = replace(cfg.resource_rules, behaviour=TransformBehaviour.for_release(self.kueue.version))
        if scn.admission_fair_sharing is not None:
            cfg.admission_fair_sharing = afs.AfsConfig.from_api(scn.admission_fair_sharing)
            cfg.afs_behaviour = afs.AfsBehaviour.for_release(self.kueue.version)
        self.pods_ready_resolved = self._pods_ready(scn)
        self.pods_ready: WaitForPodsReady | None = self.pods_ready_resolved.settings
        cfg.wait_for_pods_ready = self.pods_ready
        if self.pods_ready is not None:
            cfg.requeuing_timestamp = self.pods_ready.requeuing.timestamp
        self.config = cfg
        self.settings = scn.settings
        for cq in scn.state.cluster_queues.values():
            if cq.namespace_selector is None:
                cq.namespace_selector = o.LabelSelector()  # scenarios mean "all namespaces" when silent
        self.model = AdmissionModel(scn.state, cfg)
        self.model.queues.sticky_preemptor = self.kueue.sticky_preemptor
        self.events = EventQueue()
        self.pool = NodePool(scn.nodes, scn.settings.placement)
        # topology-aware scheduling: the engine's TAS snapshots follow the simulated nodes and pods
        self.tas: SimTAS | None = None
        if scn.state.topologies and self.pool:
            self.tas = SimTAS(scn.state.topologies, scn.nodes, self.pool)
            self.model.snapshot.tas_inputs = self.tas.inputs
        self.non_tas_requeue = self.tas is not None and NON_TAS_REQUEUE_FIX.carried_by(self.kueue.version)
        self.tas_requeue_pending = False
        self.workloads: dict[WorkloadKey, SimWorkload] = {}
        self.unplaced: list[SimWorkload] = []
        self.cycle_pending = False
        self.cycle_busy_until = 0.0
        # the perf configs' API client model (sim/perf.py); None: the fixed costs of Settings
        self.api = ApiWrites(*scn.settings.api_writes) if scn.settings.api_writes else None
        self.requeue_due: dict[str, float] = {}   # perf configs: cohort tree -> when its batched requeue runs
        self.evict_delay = 0.0               # perf configs: until the eviction's write lands
        self.cycles = 0
        self.finished = 0
        self.deactivated = 0
        self.recorder = Recorder(self)
        self.progress = progress
        self.log: list[tuple] = []           # (time, event, fields) for the snapshot's controller log
        self.variants: dict[WorkloadKey, list[SimWorkload]] = {}   # parent -> its variants
        self.storm_faults: dict[WorkloadKey, Fault] = {}   # requeueStorm faults not started yet
        self.storm: tuple[WorkloadKey, float] | None = None   # (head, rate) of the storm under way
        # the wall time of simulated time 0: T0 for a scenario, the snapshot's time for a run that
        # starts from a gathered cluster (sim/restart.py)
        self.origin = T0
        self.started = False                 # start() has scheduled the arrivals
        heap.settle()

    def _pods_ready(self, scn: Scenario) -> Resolved:
        """WaitForPodsReady as the release runs the scenario's Configuration: the
        ``kueue.waitForPodsReady`` block (read as the Configuration version the snapshot writes
        for the release), else a Configuration among the objects, else the release's defaults."""
        v = self.kueue.version
        if scn.wait_for_pods_ready is not None:
            api = V1BETA2 if v >= V1BETA2_CONFIG else V1BETA1
            return resolve(scn.wait_for_pods_ready, api, v, self.kueue.gates)
        c = scn.state.configuration
        if c is not None:
            return resolve(c.wait_for_pods_ready, c.api_version or None, v, self.kueue.gates)
        return resolve(None, V1BETA2 if v >= V1BETA2_CONFIG else V1BETA1, v, self.kueue.gates)

    # -- helpers -------------------------------------------------------------------------
    def dt(self, t: float) -> datetime:
        return self.origin + timedelta(seconds=t)

    @property
    def now(self) -> float:
        return self.events.now

    def request_cycle(self) -> None:
        if self.api is not None and self.api.requeue_batch and self.model.dirty:
            self._batch_requeue()
        if self.storm is not None:
            # a requeueStorm fault: the scheduler spends every cycle on its head (zaplog writes
            # them); no other head gets one
            self.cycle_pending = True
            return
        if not self.cycle_pending:
            self.cycle_pending = True
            self.events.at(max(self.now, self.cycle_busy_until), "cycle")

    def _batch_requeue(self) -> None:
        """Kueue's requeuer (inadmissible_workloads.go): a capacity event schedules the cohort
        tree's requeue ``requeueBatchPeriod`` later, one pending per tree (AddAfter keeps the earlier)."""
        assert self.api is not None
        trees: dict[str, list[str]] = {}
        dirty = self.model.dirty
        while dirty:   # a release marks its whole tree: each tree looked up once, taken off at once
            tree = self.model._tree_queues(next(iter(dirty)))
            trees[tree[0]] = tree
            dirty.difference_update(tree)
        for root in sorted(trees):   # the dirty set's order is the hash seed's: events in name order
            if root not in self.requeue_due:
                self.requeue_due[root] = self.now + self.api.requeue_batch
                self.events.at(self.now + self.api.requeue_batch, "requeue", trees[root])
        self.model.dirty.clear()

    def on_requeue(self, tree: list[str]) -> None:
        del self.requeue_due[tree[0]]
        self.model.queues.queue_inadmissible(tree, self.dt(self.now))
        self.request_cycle()

    def emit(self, event: str, **fields) -> None:
        self.log.append((self.now, event, fields))

    # -- run ---------------------------------------------------------------------------
    def run(self, until: float | None = None) -> Simulator:
        started = time.perf_counter()
        self.start()
        # what a run makes mostly lives until its end (workloads, the log, the series): each
        # collector pass would walk it for the few thousand cycles it frees (~10% of a perf run)
        with heap.paused():
            self.advance(until)
        self.recorder.sample(final=True)
        self.wall_seconds = time.perf_counter() - started
        return self

    def start(self, sample: bool = True) -> Simulator:
        """Schedule the arrivals, faults and sampling once; ``sample`` False for a caller that
        samples itself (the exporter). Calling it again does nothing, so a resumed or forked run
        never sees its work arrive twice."""
        if self.started:
            return self
        self.started = True
        for spec in sorted(self.scn.workloads, key=lambda s: (s.at, s.namespace, s.name)):
            if WorkloadKey(spec.namespace, spec.name) not in self.workloads:   # not there already (restart.py)
                self.events.at(spec.at, "arrive", spec)
        for fault in self.scn.faults:
            self.events.at(fault.at, "fault", fault)
        if sample:
            self.events.at(0.0, "sample")
        if self.afs_ledger is not None:
            self.events.at(0.0, "afs_sample")
        return self

    def advance(self, until: float | None = None) -> Simulator:
        """Process the events up to ``until`` (None: the scenario's duration, else until nothing
        is left to change) and stop with the clock at ``until``. Resumable: advance(a) then
        advance(b) does what advance(b) does."""
        self.start()
        end = until if until is not None else self.settings.duration
        handlers = self.handlers()
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
        return self

    def fork(self) -> Simulator:
        """An independent copy at the current time: advancing it leaves this one as it was."""
        # itertools.count is not copyable on every Python: hand both the next number instead
        n = next(self.events._seq)
        self.events._seq = itertools.count(n)
        # what no run writes is shared, the per-workload objects copied one level (sim/forking.py)
        memo = fork_memo(self)
        memo.update({id(self.events._seq): itertools.count(n), id(self.progress): None})
        fork = copy.deepcopy(self, memo)
        # what is keyed by id() must be keyed by the copies' ids: the engine's cohort-tree cache
        # is rebuilt on demand, the TAS pods are re-keyed through the copy's memo
        fork.model._trees = None
        if fork.tas is not None:
            fork.tas._pods = {id(memo[k]): v for k, v in fork.tas._pods.items()}
        return fork

    def handlers(self, sample: bool = True) -> dict[str, Callable[[Any], None]]:
        """Event kind -> handler; ``sample`` False for a caller that samples itself (the exporter)."""
        out: dict[str, Callable[[Any], None]] = {
            "arrive": self.on_arrive, "cycle": self.on_cycle, "release": self.on_release,
            "finish": self.on_finish, "pod_gone": self.on_pod_gone, "quota_release": self.on_quota_release,
            "fault": self.on_fault, "pods_ready": self.on_pods_ready,
            "pods_ready_timeout": self.on_pods_ready_timeout, "check_outcome": self.on_check_outcome,
            "booking_expired": self.on_booking_expired, "backoff_done": self.on_backoff_done,
            "pod_failed": self.on_pod_failed, "afs_sample": self.on_afs_sample, "open_gate": self.on_open_gate,
            "tas_requeue": self.on_tas_requeue, "requeue": self.on_requeue}
        if sample:
            out["sample"] = self.on_sample
        return out

    def _idle(self) -> bool:
        """Nothing left that can change: every workload finished and no event but sampling."""
        return self.finished + self.deactivated >= len(self.scn.workloads) and not any(
            k not in ("sample", "afs_sample") and not (k == "pods_ready_timeout" and p[0].state == FINISHED)
            for _, _, k, p in self.events._heap)

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
        if spec.topology_request is not None:
            ps = wl.pod_sets[0]
            ps.topology, ps.topology_request = spec.topology_request, dict(spec.topology or {})
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
        if self.api is not None and not self.model.dirty and not self.model.queues.has_heads():
            return   # perf configs: Kueue's scheduler waits in Heads while every heap is empty
        now_dt = self.dt(self.now)
        if self.tas is not None:
            self.tas.refresh()
        res = self.model.cycle(now_dt)
        self.cycles += 1
        heads = len(res.entries) + len(res.inadmissible)
        s = self.settings
        cost = s.cycle_cost + s.per_head_cost * heads + s.admission_cost * len(res.admitted)
        start = self.now
        for e in res.admitted:
            self._admitted(e)
        for t in res.preempted:
            preemptor = next(e.key for e in res.entries if t in e.targets)  # a target is some entry's
            self.evict_delay = self.api.sync(start) if self.api else 0.0
            self._evict(self.workloads[t.key], t.reason, preemptor)
        self.evict_delay = 0.0
        for m in res.migrated:
            self._evict(self.workloads[m.key], m.reason, m.evictor, message=m.message)
        for parent in self.variants:
            self._sync_variants(parent)
        self._log_cycle(res)
        self.cycle_busy_until = self.api.end_cycle(start, cost, res) if self.api else start + cost
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
        sw.topology = dict(topology_of(e.assignment))
        self.recorder.admission(sw)
        self._afs_settle(sw)
        self.emit("admitted", workload=sw.key, clusterQueue=e.cq_name, cycle=self.cycles,
                  borrowing=e.assignment.borrowing,
                  assignments=[{"name": ps.name, "count": ps.count,
                                "flavors": {r: f.name for r, f in ps.flavors.items()},
                                "resourceUsage": dict(ps.requests),
                                **({"topologyAssignment": sw.topology[ps.name]} if ps.name in sw.topology else {})}
                               for ps in e.assignment.pod_sets])
        sw.pods_ready_at = None
        sw.recovery_since = None
        self._sync_obj(sw)
        cq = self.scn.state.cluster_queues.get(e.cq_name)
        flavors = {f.name for ps in e.assignment.pod_sets for f in ps.flavors.values()}
        names = acs.checks_for(cq, flavors) if cq is not None else []
        if names:
            # the workload controller adds every check as Pending (keeping the retry count of the
            # last eviction's reset); Admitted waits for all of them to be Ready
            prev = {c.name: c for c in sw.checks}
            now = self.dt(self.now)
            sw.checks = [prev.get(n) or o.AdmissionCheckState(n, kc.CHECK_PENDING, "", now) for n in names]
            self._sync_obj(sw)
            for n in names:
                self._start_check(sw, n)
            return
        self._admit_true(sw)

    def _admit_true(self, sw: SimWorkload) -> None:
        """Admitted=True: quota reserved and every admission check Ready; released after a latency."""
        sw.admitted_true_at = self.now
        sw.was_ready = False
        self.emit("admitted_true", workload=sw.key, clusterQueue=sw.cluster_queue)
        wait = 0.0
        if self.api is not None:
            wait = self.api.write(self.now)
            self.api.admitted(sw.key)
        self.events.after(self.settings.release_latency + wait, "release", (sw, sw.epoch))
        if self.pods_ready is not None:
            self.events.after(self.pods_ready.timeout, "pods_ready_timeout", (sw, sw.epoch))

    # -- admission checks ------------------------------------------------------------------
    def _start_check(self, sw: SimWorkload, name: str) -> None:
        script = self.scn.checks.get(name)
        state = next(c for c in sw.checks if c.name == name)
        if script is None:   # no script: a controller that answers Ready at once
            self._check_changed(sw, replace(state, state=kc.CHECK_READY, last_transition_time=self.dt(self.now)))
            return
        attempt = (state.retry_count or 0) + 1
        outcome = script.outcomes[min(attempt, len(script.outcomes)) - 1]
        if script.provisioning:
            pr = SimProvisioningRequest(acs.provisioning_request_name(workload_name_of(sw), name, attempt),
                                        name, attempt, self.now)
            sw.requests.append(pr)
            self.emit("provreq_created", workload=sw.key, check=name, request=pr.name)
            if outcome.outcome != "Accepted":
                pr.conditions.append((kc.PR_ACCEPTED, self.now, "Provisioning Request was accepted"))
        self.events.after(outcome.after, "check_outcome", (sw, sw.epoch, name, attempt, outcome))

    def _provisioning_class(self, check: str) -> tuple[str, o.ProvisioningRetryStrategy]:
        st = self.scn.state
        ac = st.admission_checks.get(check)
        prc = st.provisioning_request_configs.get(ac.parameters.get("name", "")) \
            if ac is not None and ac.parameters else None
        if prc is None:
            return "queued-provisioning.gke.io", o.ProvisioningRetryStrategy()
        return prc.provisioning_class_name, prc.retry_strategy

    def _request_for(self, sw: SimWorkload, check: str, attempt: int) -> SimProvisioningRequest | None:
        return next((r for r in reversed(sw.requests) if r.check == check and r.attempt == attempt), None)

    def _sync_provisioning(self, sw: SimWorkload, check: str, attempt: int) -> None:
        pr = self._request_for(sw, check, attempt)
        state = next((c for c in sw.checks if c.name == check), None)
        if pr is None or state is None:
            return
        klass, retry = self._provisioning_class(check)
        new = acs.provisioning_state(state, pr.obj(sw.spec.namespace, klass, self.dt), retry,
                                     admitted=sw.admitted_true_at is not None, active=True,
                                     pod_sets=["main"], now=self.dt(self.now))
        if new is not state:
            self._check_changed(sw, new)

    def on_check_outcome(self, payload) -> None:
        sw, epoch, name, attempt, outcome = payload
        if sw.epoch != epoch or sw.state not in (RESERVED, RUNNING_W):
            return
        script = self.scn.checks[name]
        if script.provisioning:
            pr = self._request_for(sw, name, attempt)
            if pr is None:
                return
            if outcome.outcome == "Accepted":
                pr.conditions.append((kc.PR_ACCEPTED, self.now, outcome.message))
            else:
                pr.conditions.append((outcome.outcome, self.now, outcome.message))
                if outcome.outcome == kc.PR_PROVISIONED and script.booking_expires_after is not None:
                    self.events.after(script.booking_expires_after, "booking_expired", (sw, sw.epoch, name, attempt))
            self._sync_provisioning(sw, name, attempt)
            return
        state = next(c for c in sw.checks if c.name == name)
        new = replace(state, state=outcome.outcome, message=outcome.message, last_transition_time=self.dt(self.now))
        self._check_changed(sw, new)

    def on_booking_expired(self, payload) -> None:
        sw, epoch, name, attempt = payload
        if sw.epoch != epoch or sw.state not in (RESERVED, RUNNING_W):
            return
        pr = self._request_for(sw, name, attempt)
        if pr is None or (sw.released_at is not None and sw.pods and any(p.node is not None for p in sw.pods)):
            return   # the pods consumed the booking
        pr.conditions.append((kc.PR_BOOKING_EXPIRED, self.now, BOOKING_EXPIRED_MESSAGE))
        self._sync_provisioning(sw, name, attempt)

    def _check_changed(self, sw: SimWorkload, new: o.AdmissionCheckState) -> None:
        old = next(c for c in sw.checks if c.name == new.name)
        sw.checks = [new if c.name == new.name else c for c in sw.checks]
        self._sync_obj(sw)
        if old.state != new.state:
            self.recorder.check_outcome(sw, new.name, new.state)
            self.emit("check_state", workload=sw.key, check=new.name, previous=old.state, state=new.state,
                      message=new.message)
        wl = self._view(sw)
        ev = acs.check_eviction(wl)
        if ev is not None and ev.action == acs.REJECT:
            self.emit("check_rejected", workload=sw.key, message=ev.message)
            self._deactivate(sw, kc.EVICTED_BY_ADMISSION_CHECK, ev.message)
        elif ev is not None:
            t = acs.max_retry_time(sw.checks)
            self._kueue_evict(sw, kc.EVICTED_BY_ADMISSION_CHECK, ev.message,
                              requeue_at=(t - self.origin).total_seconds() if t is not None else None)
        elif sw.admitted_true_at is None and acs.all_ready(wl):
            self._admit_true(sw)

    # -- WaitForPodsReady ----------------------------------------------------------------------
    def _view(self, sw: SimWorkload) -> o.Workload:
        """The Workload as Kueue holds it now (conditions the controllers read), for the engine's
        pure functions; the engine's own object keeps only what its queues read."""
        conds = []
        dt = self.dt
        if sw.state in (RESERVED, RUNNING_W) and sw.admitted_at is not None:
            conds.append(o.Condition(kc.QUOTA_RESERVED, "True", kc.QUOTA_RESERVED_REASON, "", dt(sw.admitted_at)))
            if sw.admitted_true_at is not None:
                conds.append(o.Condition(kc.ADMITTED, "True", kc.ADMITTED_REASON, "", dt(sw.admitted_true_at)))
            if sw.pods_ready_at is not None:
                conds.append(o.Condition(kc.PODS_READY, "True", kc.PODS_READY_STARTED, "", dt(sw.pods_ready_at)))
            elif sw.recovery_since is not None:
                conds.append(o.Condition(kc.PODS_READY, "False", kc.WAIT_FOR_RECOVERY, "", dt(sw.recovery_since)))
        rs = o.RequeueState(sw.requeue_count, dt(sw.requeue_at) if sw.requeue_at is not None else None) \
            if sw.requeue_count is not None or sw.requeue_at is not None else None
        return o.Workload(meta=sw.obj.meta, queue_name=sw.obj.queue_name, pod_sets=sw.obj.pod_sets,
                          status=o.WorkloadStatus(conditions=conds, requeue_state=rs, check_states=list(sw.checks)))

    def _sync_obj(self, sw: SimWorkload) -> None:
        """What the engine reads off the Workload: PodsReady (blockAdmission), the Evicted and
        Requeued conditions and requeueState (queue order and backoff), the check states."""
        conds = []
        dt = self.dt
        if sw.pods_ready_at is not None and sw.state in (RESERVED, RUNNING_W):
            conds.append(o.Condition(kc.PODS_READY, "True", kc.PODS_READY_STARTED, "", dt(sw.pods_ready_at)))
        if sw.eviction is not None and sw.state in (EVICTED, QUEUED) and sw.eviction[0] != kc.EVICTED_BY_PREEMPTION:
            reason, msg, at = sw.eviction
            conds.append(o.Condition(kc.EVICTED, "True", reason, msg, dt(at)))
            if sw.state == QUEUED:
                if sw.backoff_finished_at is None:
                    conds.append(o.Condition(kc.REQUEUED, "False", reason, msg, dt(at)))
                else:
                    conds.append(o.Condition(kc.REQUEUED, "True", kc.BACKOFF_FINISHED,
                                             "The workload backoff was finished", dt(sw.backoff_finished_at)))
        sw.obj.status.conditions = conds
        sw.obj.status.check_states = list(sw.checks)
        sw.obj.status.requeue_state = o.RequeueState(
            sw.requeue_count, dt(sw.requeue_at) if sw.requeue_at is not None else None) \
            if sw.requeue_count is not None or sw.requeue_at is not None else None

    def on_pods_ready(self, payload) -> None:
        sw, epoch = payload
        if sw.epoch != epoch or sw.state != RUNNING_W or sw.pods_ready_at is not None:
            return
        sw.pods_ready_at = self.now
        sw.recovery_since = None
        recovered = sw.was_ready
        sw.was_ready = True
        self._sync_obj(sw)
        self.emit("pods_ready", workload=sw.key, recovered=recovered)
        if sw.spec.fail_after is not None and not recovered:
            self.events.after(sw.spec.fail_after, "pod_failed", (sw, sw.epoch))
        if self.pods_ready is not None and self.pods_ready.block_admission:
            self.request_cycle()

    def on_pod_failed(self, payload) -> None:
        """One pod fails after running a while: PodsReady=False (WaitForRecovery) until its
        replacement is ready (``recovery``), timed by recoveryTimeout."""
        sw, epoch = payload
        if sw.epoch != epoch or sw.state != RUNNING_W:
            return
        sw.pods_ready_at = None
        sw.recovery_since = self.now
        self._sync_obj(sw)
        self.emit("pod_failed", workload=sw.key)
        if sw.spec.recovery == READY:
            self.events.after(max(sw.spec.ready_after, 1.0), "pods_ready", (sw, sw.epoch))
        if self.pods_ready is not None and self.pods_ready.recovery_timeout is not None:
            self.events.after(self.pods_ready.recovery_timeout, "pods_ready_timeout", (sw, sw.epoch))

    def on_pods_ready_timeout(self, payload) -> None:
        sw, epoch = payload
        if sw.epoch != epoch or sw.state not in (RESERVED, RUNNING_W) or self.pods_ready is None:
            return
        v = podsready.evaluate(self._view(sw), self.pods_ready, self.dt(self.now))
        if v.action == podsready.DEACTIVATE:
            self._deactivate(sw, v.reason, v.message)
        elif v.action == podsready.EVICT:
            sw.requeue_count = v.requeue_count
            self._kueue_evict(sw, kc.EVICTED_BY_PODS_READY_TIMEOUT, v.message,
                              requeue_at=(v.requeue_at - self.origin).total_seconds() if v.requeue_at else None)

    # -- evictions by Kueue itself ------------------------------------------------------------
    def _kueue_evict(self, sw: SimWorkload, reason: str, message: str, requeue_at: float | None) -> None:
        sw.kueue_evictions += 1
        sw.eviction = (reason, message, self.now)
        sw.requeue_at = requeue_at
        sw.checks = acs.reset_on_eviction(sw.checks, self.dt(self.now))
        self.recorder.kueue_eviction(sw, reason)
        self.emit("evicted", workload=sw.key, clusterQueue=sw.cluster_queue, reason=reason, message=message)
        self._stop(sw)
        self._sync_obj(sw)

    def _deactivate(self, sw: SimWorkload, cause: str, message: str) -> None:
        """DeactivationTarget -> spec.active=false -> evicted (DeactivatedDueTo<cause>), never requeued."""
        sw.deactivation = (cause, message, self.now)
        reason = kc.reason_with_cause(kc.EVICTED_BY_DEACTIVATION, cause)
        sw.eviction = (reason, podsready.deactivated_message(message), self.now)
        sw.obj.active = False
        sw.requeue_count = None
        sw.requeue_at = None
        self.recorder.kueue_eviction(sw, reason)
        self.emit("deactivated", workload=sw.key, clusterQueue=sw.cluster_queue, reason=reason,
                  cause=cause, message=message)
        if sw.state in (RESERVED, RUNNING_W):
            sw.checks = acs.reset_on_eviction(sw.checks, self.dt(self.now))
            self._stop(sw)
        self._sync_obj(sw)

    def on_backoff_done(self, payload) -> None:
        sw, epoch = payload
        if sw.epoch != epoch or sw.state != QUEUED:
            return
        sw.backoff_finished_at = self.now
        sw.requeue_at = None
        self._sync_obj(sw)
        self.emit("backoff_finished", workload=sw.key)
        self.model.backoff_finished(sw.key, self.dt(self.now))
        self.request_cycle()

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
        if sw.spec.readiness == UNSCHEDULABLE:
            return False   # no node satisfies the pods (selector, taint, affinity): pending for ever
        ta = sw.topology.get("main")
        domains = self.tas.domains(ta) if self.tas is not None and ta is not None else None
        placed = self.pool.place_group(sw.pods, sw.labels) if domains is None else \
            self.pool.place_pinned(sw.pods, sw.labels, domains)
        if self.pool and not placed:
            if sw not in self.unplaced:
                self.unplaced.append(sw)
            return False
        if self.tas is not None and ta is None:
            self.tas.bound(sw.pods)
        if sw.spec.readiness != READY:
            # bound to nodes, holding their resources, but never ready (image pull, crash loop)
            for p in sw.pods:
                p.phase = PENDING
            self.emit("pods_not_ready", workload=sw.key, why=sw.spec.readiness)
            return True
        for p in sw.pods:
            p.phase = RUNNING
        sw.state = RUNNING_W
        sw.running_since = self.now
        self.events.after(sw.spec.ready_after, "pods_ready", (sw, sw.epoch))
        self.events.after(sw.spec.ready_after + sw.spec.runtime, "finish", (sw, sw.epoch))
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
        if self.tas is not None and self.tas.unbound(p) and self.non_tas_requeue and not self.tas_requeue_pending:
            # the controller's 10 s ticker: the next tick after the pod went
            self.tas_requeue_pending = True
            tick = (self.now // NON_TAS_REQUEUE_INTERVAL + 1) * NON_TAS_REQUEUE_INTERVAL
            self.events.at(tick, "tas_requeue")
        p.phase = GONE

    def _evict(self, sw: SimWorkload, reason: str, preemptor: WorkloadKey, message: str = "") -> None:
        if sw.quota_held and sw.state == EVICTED:
            # already Evicted=True: Kueue's preemptor does not evict it again (IssuePreemptions),
            # and under the fault its quota does not come back
            return
        if reason == kc.EVICTED_BY_FLAVOR_MIGRATION:
            # an eviction without a Preempted condition: a more favourable variant takes over
            sw.eviction = (kc.EVICTED_BY_FLAVOR_MIGRATION, message, self.now)
            self.recorder.migration(sw, preemptor)
            self.emit("migrated", workload=sw.key, clusterQueue=sw.cluster_queue, reason=reason, evictor=preemptor,
                      message=message, cycle=self.cycles)
        else:
            sw.eviction = (kc.EVICTED_BY_PREEMPTION, reason, self.now)
            sw.preemptions += 1
            self.recorder.preemption(sw, reason, preemptor)
            self.emit("preempted", workload=sw.key, clusterQueue=sw.cluster_queue, reason=reason,
                      preemptor=preemptor, cycle=self.cycles)
        self._stop(sw)

    def _stop(self, sw: SimWorkload) -> None:
        """The job is stopped (evicted): pods terminate, the quota goes when the job is inactive."""
        was_running = sw.state == RUNNING_W or any(p.node is not None and p.phase != GONE for p in sw.pods)
        sw.state = EVICTED
        sw.pods_ready_at = None
        sw.recovery_since = None
        sw.admitted_true_at = None
        sw.epoch += 1
        if sw in self.unplaced:
            self.unplaced.remove(sw)
        latency = self.settings.quota_release_latency + self.evict_delay
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

    def on_tas_requeue(self, _payload) -> None:
        """Freed non-TAS capacity: the parked workloads of the ClusterQueues on those nodes' TAS
        flavors are retried (sim/tas.py NON_TAS_REQUEUE_FIX)."""
        self.tas_requeue_pending = False
        assert self.tas is not None
        cqs = self.tas.drain_freed(self.scn.state)
        if cqs:
            self.model.dirty.update(cqs)
            self.emit("tas_requeue", clusterQueues=cqs)
            self.request_cycle()

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
        if sw.quota_held and sw.eviction is not None and sw.eviction[0] != kc.EVICTED_BY_PREEMPTION:
            # quotaHeldAfterEviction (kubernetes-sigs/kueue#14811): the pods went, the reservation
            # and status.admission stay
            self.emit("quota_kept", workload=sw.key, clusterQueue=sw.cluster_queue)
            return
        if sw.deactivation is not None:
            sw.state = DEACTIVATED
            self.deactivated += 1
            self.recorder.quota_released(sw)
            self.model.release(sw.key, self.dt(self.now), requeue=False)
            self.emit("quota_released", workload=sw.key, clusterQueue=sw.cluster_queue)
            self._retry_placement()
            self.request_cycle()
            return
        sw.state = QUEUED
        sw.waiting_since = self.now
        sw.backoff_finished_at = None
        self._sync_obj(sw)
        if sw.eviction is not None and sw.eviction[0] != kc.EVICTED_BY_PREEMPTION:
            # Requeued=False until the backoff is over (requeueAt; none: at once)
            at = sw.requeue_at if sw.requeue_at is not None else self.now
            self.events.at(max(at, self.now), "backoff_done", (sw, sw.epoch))
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
            if fault.kind == "quotaHeldAfterEviction":
                sw.quota_held = True
                return
            if fault.kind == "requeueStorm":
                self.storm_faults[sw.key] = fault
                last = next((f for _, ev, f in reversed(self.log) if ev == "evaluated" and f["workload"] == sw.key),
                            None)
                if sw.state == QUEUED and last is not None and last["requeue"] == PREEMPTION_NO_CANDIDATES:
                    self._start_storm(sw.key)
                return
            sw.zombie = True
            for p in sw.pods:
                p.zombie = True
            return
        node = self.pool.by_name.get(fault.node)
        if node is None:
            raise InputError(f"fault names node {fault.node}, which the scenario does not define",
                             file=self.scn.source, field="faults")
        if self.tas is not None:
            self.tas.node_ready(node.name, fault.kind == "nodeReady")
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
        for e in res.entries:
            if e.key in self.storm_faults and e.requeue_reason == PREEMPTION_NO_CANDIDATES:
                self._start_storm(e.key)

    def _start_storm(self, key: WorkloadKey) -> None:
        """requeueStorm (kubernetes-sigs/kueue#8064): from the head's no-candidates attempt on, it
        is re-queued at once after each attempt, ``rate`` times a second, for the rest of the run."""
        fault = self.storm_faults.pop(key)
        if self.storm is None:
            self.storm = (key, fault.rate)
            self.emit("storm", workload=key, clusterQueue=self.workloads[key].cluster_queue, rate=fault.rate)


def workload_name_of(sw: SimWorkload) -> str:
    """The Workload object's name (job-<name>-<hash> for Jobs), as the snapshot writes it."""
    from .zaplog import workload_name
    return workload_name(sw)
