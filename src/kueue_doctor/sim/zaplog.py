"""The Kueue controller log a simulated run would have written: zap JSON lines at V(5).

Message strings and keys are kueue/logvocab.py's (shared/reference/kueue-signals.md §D), the
ones the log scanner reads; the line shape (level, ts, logger, caller, msg, then fields)
follows the gathered examples in shared/examples/incidents/. The simulator does not re-run a
cycle whose result cannot change, but Kueue does: a head re-queued with PendingPreemption, or
skipped after nomination, is retried at once, every few milliseconds. Like the examples, this log keeps one such retry
every several seconds (``RETRY_EVERY`` with a deterministic jitter). A ``requeueStorm`` fault
writes its head's retries in full, ``rate`` a second (``storm_cycles``).
"""
from __future__ import annotations

import functools
import hashlib
import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime

from ..api.quantity import Quantity, format_amount
from ..engine.drs import dominant_resource_share
from ..engine.snapshot import build_snapshot
from ..keys import WorkloadKey
from ..kueue import logvocab as lv
from ..kueue.eviction import cohort_path, preemption_message
from ..kueue.releases import DrsMode
from .scenario import JOB
from .tas import encode_assignment

RETRY_EVERY = 14.0      # median spacing of kept retries in the gathered examples
RETRY_JITTER = 4.0
WINDOW = 3600.0
CYCLE_BASE = 48000      # a controller that has been up for a while
GO_MODE = {0: 0, 1: 1, 2: 2, 3: 2}    # FlavorAssignmentMode ints in the releases simulated


# -- names shared by every file of a snapshot -------------------------------------------------

def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x00".join(parts).encode()).digest()


def uid(*parts: str) -> str:
    return str(uuid.UUID(bytes=_digest(*parts)[:16], version=4))


def hex_id(n: int, *parts: str) -> str:
    return _digest(*parts).hex()[:n]


def workload_name(sw) -> str:
    """Kueue names a Job's Workload job-<job>-<hash>; a pod group's Workload is the group name."""
    if sw.spec.kind == JOB:
        return f"job-{sw.spec.name}-{hex_id(5, 'wl', str(sw.key))}"
    return sw.spec.name


def workload_ref(sim, key: WorkloadKey) -> dict:
    sw = sim.workloads.get(key)
    ns, name = key
    return {lv.KEY_NAME: workload_name(sw) if sw is not None else name, lv.KEY_NAMESPACE: ns}


def ts(dt: datetime, extra_ns: int = 0) -> str:
    """RFC3339Nano as Go prints it: nanoseconds, trailing zeros trimmed."""
    ns = dt.microsecond * 1000 + extra_ns
    base = dt.strftime("%Y-%m-%dT%H:%M:%S")
    frac = f"{ns:09d}".rstrip("0")
    return f"{base}.{frac}Z" if frac else f"{base}Z"


def format_time(sim, t: float) -> str:
    whole = int(t)
    ns = round((t - whole) * 1e9)
    if ns >= 1_000_000_000:
        whole, ns = whole + 1, ns - 1_000_000_000
    return ts(sim.dt(whole), ns)


def cq_path(sim, cq_name: str) -> str:
    """A ClusterQueue's path from its root cohort, as preemption messages print it."""
    cq = sim.model.snapshot.cluster_queues.get(cq_name)
    if cq is None:
        return cohort_path([cq_name])
    return cohort_path(reversed([cq_name] + [a.name for a in cq.node.ancestors()]))


def eviction_message(sim, preemptor: WorkloadKey, reason: str, target_cq: str) -> str:
    pre = sim.workloads.get(preemptor)
    return preemption_message(uid("Workload", str(preemptor)), uid("Job", str(preemptor)), reason,
                              cq_path(sim, pre.cluster_queue) if pre is not None else "", cq_path(sim, target_cq))


# -- the cycles the simulator ran ----------------------------------------------------------------

@dataclass
class Cycle:
    t: float
    number: int = 0
    admitted: list = field(default_factory=list)
    preempted: list = field(default_factory=list)
    evaluated: list = field(default_factory=list)
    retry: bool = False


def real_cycles(sim) -> list[Cycle]:
    by_no: dict[int, Cycle] = {}
    for t, event, f in sim.log:
        c = f.get("cycle")
        if c is None or event not in ("admitted", "preempted", "evaluated"):
            continue
        cyc = by_no.setdefault(c, Cycle(t))
        getattr(cyc, event if event != "evaluated" else "evaluated").append(f)
    return [by_no[c] for c in sorted(by_no)]


def _retried(f: dict) -> bool:
    # Kueue puts these back in the active heap at once (requeueAndUpdate); the rest wait in
    # the inadmissible list until the cohort changes.
    return f["requeue"] == lv.REQUEUE_PENDING_PREEMPTION or f["status"] in (lv.STATUS_SKIPPED, lv.STATUS_NOMINATED)


def _outcome(f: dict) -> tuple:
    return f["status"], f["reason"], tuple(f.get("targets", ())), f["requeue"]


def _jitter(n: int) -> float:
    return (int.from_bytes(_digest("retry", str(n))[:4], "big") / 2**32 - 0.5) * 2 * RETRY_JITTER


def with_retries(sim, until: float) -> list[Cycle]:
    """Real cycles plus the retries of immediately re-queued heads between them."""
    real: list[Cycle] = []
    last: dict[WorkloadKey, tuple] = {}
    for c in real_cycles(sim):
        # The simulator re-runs cycles a few milliseconds apart while heads bounce between the
        # active and inadmissible lists; a cycle that only repeats each head's last outcome is
        # one of the retries the log thins out.
        if real and not c.admitted and not c.preempted and c.t - real[-1].t < RETRY_EVERY - RETRY_JITTER \
                and all(last.get(f["workload"]) == _outcome(f) for f in c.evaluated):
            continue
        real.append(c)
        last.update((f["workload"], _outcome(f)) for f in c.evaluated)
    out: list[Cycle] = []
    storm = next(((t, f) for t, event, f in sim.log if event == "storm"), None)
    for i, c in enumerate(real):
        out.append(c)
        nxt = real[i + 1].t if i + 1 < len(real) else until
        if storm is not None:
            nxt = min(nxt, storm[0])   # from then on the storm's head has every cycle
        again = [f for f in c.evaluated if _retried(f)]
        if not again:
            continue
        t = c.t
        while True:
            t += RETRY_EVERY + _jitter(len(out))
            if t >= nxt or t > until:
                break
            out.append(Cycle(t, evaluated=again, retry=True))
    if storm is not None:
        out += storm_cycles(sim, *storm, until)
    for n, c in enumerate(out):
        c.number = CYCLE_BASE + n
    return out


def storm_cycles(sim, start: float, storm: dict, until: float) -> list[Cycle]:
    """A requeueStorm fault (kubernetes-sigs/kueue#8064): the head re-queued at once after each
    no-candidates attempt is the only head of ``rate`` cycles a second, each the same attempt."""
    key = storm["workload"]
    last = next(f for t, event, f in reversed(sim.log) if event == "evaluated" and f["workload"] == key
                and t <= start)
    step = 1.0 / storm["rate"]
    n = int((until - start) / step)
    return [Cycle(start + i * step, evaluated=[last], retry=True) for i in range(1, n + 1)]


# -- quota replay, for the fair-sharing lines ----------------------------------------------

class Replay:
    """Admitted usage per ClusterQueue through time, rebuilt from the simulator's log."""

    def __init__(self, sim):
        self.sim = sim
        self.snap = build_snapshot(sim.scn.state, sim.config, workloads=[])
        self.held: dict[WorkloadKey, tuple[str, dict]] = {}
        self.pos = 0

    def advance(self, t: float, before_cycle: int | None = None) -> None:
        """Apply log events up to time ``t`` (exclusive of cycle ``before_cycle``'s own events)."""
        log = self.sim.log
        while self.pos < len(log):
            te, event, f = log[self.pos]
            if te > t or (before_cycle is not None and f.get("cycle") == before_cycle):
                break
            self.pos += 1
            if event == "admitted":
                usage: dict = {}
                for ps in f.get("assignments", []):
                    for res, fl in ps["flavors"].items():
                        usage[(fl, res)] = usage.get((fl, res), 0) + ps["resourceUsage"].get(res, 0)
                cq = self.snap.cluster_queues.get(f["clusterQueue"])
                if cq is not None:
                    cq.node.add_usages(usage)
                    self.held[f["workload"]] = (f["clusterQueue"], usage)
            elif event in ("quota_released", "finished"):
                held = self.held.pop(f["workload"], None)
                if held is not None:
                    self.snap.cluster_queues[held[0]].node.remove_usages(held[1])

    def drs_with(self, cq_name: str, usage: dict):
        cq = self.snap.cluster_queues[cq_name]
        cq.node.add_usages(usage)
        try:
            return dominant_resource_share(cq.node, None, self.sim.kueue.drs_mode)
        finally:
            cq.node.remove_usages(usage)

    def borrowing(self, cq_name: str, frs) -> bool:
        node = self.snap.cluster_queues[cq_name].node
        return any(node.usage.get(fr, 0) > node.nominal(fr) for fr in frs)

    def workloads_of(self, cq_name: str) -> list[WorkloadKey]:
        return sorted((k for k, (cq, _) in self.held.items() if cq == cq_name), key=str)


def drs_text(sim, drs) -> str:
    """How the release prints a share: integers before #6925, decimals after."""
    if sim.kueue.drs_mode != DrsMode.EXACT:
        return str(drs.rounded())
    p = drs.precise()
    return "+Inf" if p == float("inf") else f"{p:.3f}"


# -- the writer -----------------------------------------------------------------------------

class ZapLog:
    def __init__(self, sim):
        self.sim = sim
        self.lines: list[tuple[float, int, str]] = []
        self.seq = 0
        self.v017 = sim.kueue.version >= (0, 17, 0)
        self.kueue_api = "kueue.x-k8s.io/v1beta2" if sim.kueue.version >= (0, 15, 0) else "kueue.x-k8s.io/v1beta1"

    def line(self, t: float, v: int, logger: str, caller: str, msg: str, fields: dict) -> None:
        rec = {lv.LEVEL: lv.level(v), lv.TS: format_time(self.sim, t), lv.LOGGER: logger, lv.CALLER: caller,
               lv.MSG: msg}
        if self.v017:
            rec[lv.REPLICA_ROLE] = "leader"   # from about v0.17 (§D.2)
        rec.update(fields)
        self.lines.append((t, self.seq, json.dumps(rec, separators=(",", ":"), ensure_ascii=False)))
        self.seq += 1

    # -- helpers ----------------------------------------------------------------------------
    def cq_ref(self, name: str) -> dict:
        return {lv.KEY_NAME: name}

    def cohorts(self, cq_name: str) -> dict:
        cq = self.sim.model.snapshot.cluster_queues.get(cq_name)
        if cq is None or cq.node.parent is None:
            return {}
        return {lv.KEY_PARENT_COHORT: {lv.KEY_NAME: cq.node.parent.name},
                lv.KEY_ROOT_COHORT: {lv.KEY_NAME: cq.node.root().name}}

    def path(self, cq_name: str) -> str:
        return cq_path(self.sim, cq_name)

    def local_queue(self, key: WorkloadKey) -> dict:
        sw = self.sim.workloads[key]
        return {lv.KEY_NAME: sw.spec.queue, lv.KEY_NAMESPACE: sw.spec.namespace}

    def nominated(self, sim, f: dict) -> dict:
        # Go struct field names (the flavor assigner's Assignment has no JSON tags); only the
        # borrowing level is read back.
        sw = sim.workloads[f["workload"]]
        per_pod = dict(sw.spec.requests)
        flavors = None
        if f.get("usage") and f["mode"] != 0:
            flavors = {res: {"Name": fl, "Mode": GO_MODE.get(f["mode"], 2), "TriedFlavorIdx": -1}
                       for fl, res, _ in f["usage"]}
        quota = {json.dumps({"Flavor": fl, "Resource": res}, separators=(",", ":")): v
                 for fl, res, v in f.get("usage", [])} or None
        return {"PodSets": [{"Name": "main", "Flavors": flavors, "Status": {},
                             "Requests": {r: format_amount(r, _amount(r, v) * sw.spec.pods)
                                          for r, v in per_pod.items()},
                             "Count": sw.spec.pods, "TopologyAssignment": None, "DelayedTopologyRequest": None,
                             "FlavorAssignmentAttempts": None}],
                lv.ASSIGNMENT_BORROWING: f.get("borrowing", 0),
                "LastState": {"LastTriedFlavorIdx": [dict.fromkeys(per_pod, -1)], "ClusterQueueGeneration": 1},
                "Usage": {"Quota": quota, "TAS": None}}

    # -- cycles -------------------------------------------------------------------------------
    def cycle(self, c: Cycle, replay: Replay | None) -> None:
        sim = self.sim
        t = c.t
        step = 0.000037
        sc = {lv.KEY_SCHEDULING_CYCLE: c.number}
        heads = len(c.evaluated) + len(c.admitted)
        if self.v017:
            self.line(t, 2, "scheduler", "scheduler/scheduler.go:291", lv.MSG_CYCLE_STARTS, sc)
        self.line(t + step, 3, "scheduler", "queue/manager.go:812", lv.MSG_CLUSTER_QUEUE_HEADS,
                  {**sc, lv.KEY_COUNT: heads})
        if self.v017:
            self.line(t + 2 * step, 2, "scheduler", "scheduler/scheduler.go:304", lv.MSG_HEADS,
                      {**sc, lv.KEY_HEAD_COUNT: heads, lv.KEY_WAIT_DURATION: 0.000102})
            self.line(t + 0.0009, 2, "scheduler", "scheduler/scheduler.go:319", lv.MSG_SNAPSHOT_TAKEN,
                      {**sc, lv.KEY_DURATION: 0.000871})
            self.line(t + 0.0021, 2, "scheduler", "scheduler/scheduler.go:324", lv.MSG_NOMINATION_DONE,
                      {**sc, lv.KEY_ENTRIES: heads, lv.KEY_INADMISSIBLE_ENTRIES: 0, lv.KEY_DURATION: 0.00118})
        now = t + 0.0025
        entries = [("admitted", f) for f in c.admitted] + [("evaluated", f) for f in c.evaluated]
        # Admitted entries were processed before the ones that failed in the same cycle only if
        # they sorted first; the simulator does not say, so keep its queue order.
        entries.sort(key=lambda x: x[1]["clusterQueue"])
        preempted_now = {(p["workload"], p["preemptor"]) for p in c.preempted}
        requeues = []
        for kind, f in entries:
            key, cq = f["workload"], f["clusterQueue"]
            wref = workload_ref(sim, key)
            cohorts = self.cohorts(cq)
            if replay is not None and sim.config.fair_sharing and cohorts:
                now = self.tournament(now, sc, key, cq, entries, replay)
            wlcq = {**sc, lv.KEY_WORKLOAD: wref, lv.KEY_CLUSTER_QUEUE: self.cq_ref(cq)}
            base = {**wlcq, **cohorts}
            self.line(now, 2, "scheduler", "scheduler/scheduler.go:384", lv.MSG_ATTEMPTING, base)
            now += 0.00001
            if kind == "admitted":
                self.line(now, 2, "scheduler", "scheduler/scheduler.go:913", lv.MSG_ASSUMED, wlcq)
                fa = {"evaluated": True, "mode": 3, "borrowing": f.get("borrowing", 0),
                      "usage": sorted((fl, res, ps["resourceUsage"].get(res, 0))
                                      for ps in f.get("assignments", []) for res, fl in ps["flavors"].items())}
                fa["workload"] = key
                self.line(now + 0.0002, 3, "scheduler", "scheduler/logging.go:42", lv.MSG_EVALUATED,
                          {**wlcq, lv.KEY_STATUS: lv.STATUS_ASSUMED, lv.KEY_REASON: "",
                           lv.KEY_NOMINATED_ASSIGNMENT: self.nominated(sim, fa), lv.KEY_PREEMPTED: None})
                asg = [{lv.KEY_NAME: ps["name"], lv.KEY_FLAVORS: ps["flavors"],
                        lv.KEY_RESOURCE_USAGE: {r: format_amount(r, v) for r, v in ps["resourceUsage"].items()},
                        lv.KEY_COUNT: ps["count"],
                        # the PodSetAssignment as Kueue's API types print it (TAS workloads)
                        **({"topologyAssignment": encode_assignment(ps["topologyAssignment"], self.kueue_api)}
                           if "topologyAssignment" in ps else {})} for ps in f.get("assignments", [])]
                self.line(now + 0.015, 2, "scheduler", "scheduler/scheduler.go:872", lv.MSG_ADMITTED,
                          {**base, lv.KEY_ASSIGNMENTS: asg})
                now += 0.0004
                continue
            mode = f.get("mode", 0)
            if mode == 0:
                self.line(now, 3, "scheduler", "scheduler/scheduler.go:409", lv.MSG_NO_FIT, base)
            elif mode == 1 and sim.config.fair_sharing and replay is not None and not c.retry:
                self.fair_simulation(now, base, f, cq, replay)
            now += 0.00002
            if f["requeue"] == lv.REQUEUE_PREEMPTION_NO_CANDIDATES:
                pre = sim.model.snapshot.cluster_queues[cq].preemption if cq in sim.model.snapshot.cluster_queues \
                    else None
                policy = {"reclaimWithinCohort": pre.reclaim_within_cohort if pre else "Never",
                          "borrowWithinCohort": {"policy": (pre.borrow_within_cohort.policy
                                                            if pre and pre.borrow_within_cohort else "Never")},
                          "withinClusterQueue": pre.within_cluster_queue if pre else "Never"}
                self.line(now, 2, "scheduler", "scheduler/scheduler.go:491", lv.MSG_NO_CANDIDATES,
                          {**base, lv.KEY_PREEMPTION: policy})
            if f["status"] != lv.STATUS_SKIPPED:
                for target in f.get("targets", []):
                    now += 0.00003
                    if not c.retry and (target, key) in preempted_now:
                        self.preempted(now, sc, key, cq, target, c)
                    else:
                        self.line(now, 3, "scheduler", "preemption/preemption.go:214", lv.MSG_PREEMPTION_ONGOING,
                                  {**wlcq, lv.KEY_TARGET_WORKLOAD: workload_ref(sim, target),
                                   lv.KEY_PREEMPTING_WORKLOAD: wref})
            status = lv.STATUS_SKIPPED if f["status"] == lv.STATUS_SKIPPED else (
                lv.STATUS_NOT_NOMINATED if mode == 0 else lv.STATUS_NOMINATED)
            now += 0.00004
            self.line(now, 3, "scheduler", "scheduler/logging.go:42", lv.MSG_EVALUATED,
                      {**wlcq, lv.KEY_STATUS: status, lv.KEY_REASON: f["reason"],
                       lv.KEY_NOMINATED_ASSIGNMENT: self.nominated(sim, f),
                       lv.KEY_PREEMPTED: [workload_ref(sim, x) for x in f.get("targets", [])] or None})
            requeues.append((f, status))
        for f, status in requeues:
            now += 0.00005
            reason = f["requeue"]
            if reason == lv.REQUEUE_GENERIC:
                reason = lv.REQUEUE_FAILED_AFTER_NOMINATION if status in (lv.STATUS_SKIPPED, lv.STATUS_NOMINATED) \
                    else lv.REQUEUE_GENERIC_LOGGED
            self.line(now, 2, "scheduler", "scheduler/scheduler.go:1017", lv.MSG_REQUEUED,
                      {**sc, lv.KEY_WORKLOAD: workload_ref(sim, f["workload"]),
                       lv.KEY_CLUSTER_QUEUE: self.cq_ref(f["clusterQueue"]),
                       lv.KEY_QUEUE: self.local_queue(f["workload"]), lv.KEY_REQUEUE_REASON: reason,
                       lv.KEY_ADDED: True, lv.KEY_STATUS: status})
        if self.v017:
            self.line(now + 0.0001, 2, "scheduler", "scheduler/scheduler.go:358", lv.MSG_PROCESSING_DONE,
                      {**sc, lv.KEY_DURATION: round(now + 0.0001 - t, 9)})
            self.line(now + 0.00012, 2, "scheduler", "scheduler/scheduler.go:293", lv.MSG_CYCLE_COMPLETE,
                      {**sc, lv.KEY_DURATION: round(now + 0.00012 - t, 9)})

    def preempted(self, now, sc, key, cq, target, c: Cycle) -> None:
        sim = self.sim
        p = next(x for x in c.preempted if x["workload"] == target and x["preemptor"] == key)
        psw, tsw = sim.workloads[key], sim.workloads[target]
        pre_uid = uid("Workload", str(key))
        job_uid = uid("Job", str(key))
        message = eviction_message(sim, key, p["reason"], p["clusterQueue"])
        fields = {**sc, lv.KEY_WORKLOAD: workload_ref(sim, key), lv.KEY_CLUSTER_QUEUE: self.cq_ref(cq),
                  lv.KEY_TARGET_WORKLOAD: workload_ref(sim, target), lv.KEY_PREEMPTING_WORKLOAD: workload_ref(sim, key),
                  lv.KEY_PREEMPTOR_UID: pre_uid, lv.KEY_PREEMPTOR_JOB_UID: job_uid, lv.KEY_REASON: p["reason"],
                  lv.KEY_MESSAGE: message, lv.KEY_TARGET_CLUSTER_QUEUE: self.cq_ref(p["clusterQueue"]),
                  lv.KEY_PREEMPTOR_PATH: self.path(cq), lv.KEY_PREEMPTEE_PATH: self.path(p["clusterQueue"])}
        if sim.kueue.version >= (0, 19, 0):
            fields.update({lv.KEY_PREEMPTOR_EFFECTIVE_PRIORITY: psw.spec.priority, lv.KEY_PREEMPTOR_BOOST: 0,
                           lv.KEY_TARGET_EFFECTIVE_PRIORITY: tsw.spec.priority, lv.KEY_TARGET_BOOST: 0})
        self.line(now, 3, "scheduler", "preemption/preemption.go:196", lv.MSG_PREEMPTED, fields)
        if sim.kueue.version >= (0, 13, 0):
            self.line(now + 0.00001, 3, "scheduler", "expectations/store.go:68", lv.MSG_EXPECTING_UIDS,
                      {**sc, lv.KEY_STORE: "preemptions", lv.KEY_KEY: str(key),
                       lv.KEY_UIDS: [uid("Workload", str(target))]})

    def tournament(self, now, sc, key, cq, entries, replay: Replay) -> float:
        sim = self.sim
        node = sim.model.snapshot.cluster_queues[cq].node
        root = node.root().name
        values = []
        for _, f in entries:
            other = sim.model.snapshot.cluster_queues.get(f["clusterQueue"])
            if other is None or other.node.root().name != root:
                continue
            usage = _usage_of(f)
            drs = replay.drs_with(f["clusterQueue"], usage)
            ref = workload_ref(sim, f["workload"])
            values.append((other.node.parent.name, f"{ref[lv.KEY_NAMESPACE]}/{ref[lv.KEY_NAME]}", drs_text(sim, drs)))
        values.sort()
        rc = {**sc, lv.KEY_ROOT_COHORT: {lv.KEY_NAME: root}}
        self.line(now, 5, "scheduler", "scheduler/fair_sharing_iterator.go:86", lv.MSG_COMPUTING_DRS, rc)
        self.line(now + 0.00001, 3, "scheduler", "scheduler/fair_sharing_iterator.go:89", lv.MSG_RUNNING_TOURNAMENT,
                  rc)
        win = {**rc, lv.KEY_COHORT: {lv.KEY_NAME: node.parent.name}, lv.KEY_CLUSTER_QUEUE: self.cq_ref(cq),
               lv.KEY_WINNING_WORKLOAD: workload_ref(sim, key)}
        self.line(now + 0.00002, 3, "scheduler", "scheduler/fair_sharing_iterator.go:97", lv.MSG_TOURNAMENT_WINNER,
                  win)
        if sim.kueue.version >= (0, 16, 0):
            drs_values: list = [{lv.KEY_PARENT_COHORT: pc, lv.KEY_WORKLOAD: wl, lv.KEY_DRS: d} for pc, wl, d in values]
            v = 4
        else:
            # Before the V(4) struct form, the values were pre-formatted strings at V(5).
            drs_values = [lv.drs_value_text(pc, wl, d) for pc, wl, d in values]
            v = 5
        self.line(now + 0.00003, v, "scheduler", "scheduler/fair_sharing_iterator.go:227", lv.MSG_DRS_VALUES,
                  {**win, lv.KEY_DRS_VALUES: drs_values})
        return now + 0.00005

    def fair_simulation(self, now, base, f, cq, replay: Replay) -> None:
        sim = self.sim
        frs = {(fl, res) for fl, res, _ in f.get("usage", [])}
        me = sim.workloads[f["workload"]]
        root = sim.model.snapshot.cluster_queues[cq].node.root()
        cands = []
        for name, other in sorted(sim.model.snapshot.cluster_queues.items()):
            if other.node.root() is not root:
                continue
            for k in replay.workloads_of(name):
                held = replay.held[k][1]
                if not any(fr in frs for fr in held):
                    continue
                if name == cq:
                    if sim.workloads[k].spec.priority < me.spec.priority:
                        cands.append(k)
                elif replay.borrowing(name, frs):
                    cands.append(k)
        self.line(now, 5, "scheduler", "preemption/preemption.go:341", lv.MSG_SIMULATING_FAIR_PREEMPTION,
                  {**base, lv.KEY_CANDIDATES: [workload_ref(sim, k) for k in cands],
                   lv.KEY_RESOURCES_REQUIRING_PREEMPTION: [{"Flavor": fl, "Resource": res} for fl, res in sorted(frs)],
                   lv.KEY_PREEMPTING_WORKLOAD: workload_ref(sim, f["workload"])})

    # -- controllers --------------------------------------------------------------------------
    def controllers(self) -> None:
        sim = self.sim
        for t, event, f in sim.log:
            key = f.get("workload")
            sw = sim.workloads.get(key) if key else None
            if sw is None:
                continue
            ns = sw.spec.namespace
            wref = workload_ref(sim, key)
            is_job = sw.spec.kind == JOB
            logger = "job" if is_job else "v1_pod"
            job = f"{ns}/{sw.spec.name}" if is_job else f"group/{ns}/{sw.spec.name}"
            gvk = "batch/v1, Kind=Job" if is_job else "/v1, Kind=Pod"
            jf = {lv.KEY_NAMESPACE: ns if is_job else f"group/{ns}", lv.KEY_NAME: sw.spec.name}
            job_fields = functools.partial(_job_fields, jf, job, gvk, key, f"{t:.6f}")
            if event == "created":
                self.line(t + 0.03, 2, "workload-reconciler", "core/workload_controller.go:1203",
                          lv.MSG_WORKLOAD_CREATE,
                          {lv.KEY_WORKLOAD: wref, lv.KEY_QUEUE: sw.spec.queue, lv.KEY_STATUS: "pending"})
                self.line(t + 0.05, 3, logger, "jobframework/reconciler.go:607", lv.MSG_JOB_SUSPENDED,
                          job_fields("susp"))
            elif event == "released":
                self.line(t, 2, logger, "jobframework/reconciler.go:583", lv.MSG_JOB_UNSUSPENDING, job_fields("rel"))
                if not is_job:
                    for i in range(sw.spec.pods):
                        self.line(t + 0.004 + i * 0.0001, 3, logger, "pod/pod_controller.go:310", lv.MSG_STARTING_POD,
                                  {**job_fields(f"start{i}"),
                                   lv.KEY_POD_IN_GROUP: {lv.KEY_NAME: f"{sw.spec.name}-{i}", lv.KEY_NAMESPACE: ns}})
            elif event == "preempted":
                self.line(t + 0.02, 3, logger, "jobframework/reconciler.go:443", lv.MSG_JOB_EVICTED, job_fields("ev"))
            elif event == "finished":
                self.line(t + 0.01, 2, "workload-reconciler", "core/workload_controller.go:1289",
                          lv.MSG_WORKLOAD_UPDATE,
                          {lv.KEY_WORKLOAD: wref, lv.KEY_QUEUE: sw.spec.queue, lv.KEY_STATUS: "finished",
                           lv.KEY_PREV_STATUS: "admitted", lv.KEY_CLUSTER_QUEUE: f.get("clusterQueue", "")})


def _job_fields(jf: dict, job: str, gvk: str, key: WorkloadKey, stamp: str, tag: str) -> dict:
    """A job-framework reconciler line's fields; its reconcile ID is derived from the event."""
    return {**jf, lv.KEY_RECONCILE_ID: uid("reconcile", tag, str(key), stamp), lv.KEY_JOB: job, lv.KEY_GVK: gvk}


def _usage_of(f: dict) -> dict:
    if "assignments" in f:
        out: dict = {}
        for ps in f["assignments"]:
            for res, fl in ps["flavors"].items():
                out[(fl, res)] = out.get((fl, res), 0) + ps["resourceUsage"].get(res, 0)
        return out
    return {(fl, res): v for fl, res, v in f.get("usage", [])}


def _amount(res: str, v) -> int:
    # scenario requests are plain YAML numbers or quantity strings; cpu amounts are millicores
    return Quantity.parse(str(v)).amount(res)


def controller_log(sim, at: float, window: float = WINDOW) -> list[str]:
    """The log lines of [at - window, at], sorted by time."""
    w = ZapLog(sim)
    replay = Replay(sim) if sim.config.fair_sharing else None
    for c in with_retries(sim, at):
        if c.t > at:
            break
        if replay is not None:
            # the tournament sees the cache as it was before this cycle's own admissions
            replay.advance(c.t, before_cycle=None if c.retry else _cycle_id(sim, c))
        w.cycle(c, replay)
    w.controllers()
    start = at - window
    return [line for t, _, line in sorted(w.lines) if start <= t <= at]


def _cycle_id(sim, c: Cycle) -> int | None:
    for f in c.evaluated + c.admitted + c.preempted:
        if "cycle" in f:
            return f["cycle"]
    return None
