"""The Kueue controller log a simulated run would have written: zap JSON lines at V(5).

Message strings and keys follow shared/reference/kueue-signals.md §D; the line shape
(level, ts, logger, caller, msg, then fields) follows the gathered examples in
shared/examples/incidents/. The simulator does not re-run a cycle whose result cannot change,
but Kueue does: a head re-queued with PendingPreemption, or skipped after nomination, is
retried at once, every few milliseconds. Like the examples, this log keeps one such retry
every several seconds (``RETRY_EVERY`` with a deterministic jitter).
"""
from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Optional

from ..api.quantity import Quantity, format_amount
from ..engine.drs import dominant_resource_share
from ..engine.preemption import HUMAN_REASONS
from ..engine.snapshot import build_snapshot
from ..kueue.releases import DrsMode
from .scenario import JOB

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
        return f"job-{sw.spec.name}-{hex_id(5, 'wl', sw.key)}"
    return sw.spec.name


def workload_ref(sim, key: str) -> dict:
    sw = sim.workloads.get(key)
    ns, _, name = key.partition("/")
    return {"name": workload_name(sw) if sw is not None else name, "namespace": ns}


def ts(dt: datetime, extra_ns: int = 0) -> str:
    """RFC3339Nano as Go prints it: nanoseconds, trailing zeros trimmed."""
    ns = dt.microsecond * 1000 + extra_ns
    base = dt.strftime("%Y-%m-%dT%H:%M:%S")
    frac = f"{ns:09d}".rstrip("0")
    return f"{base}.{frac}Z" if frac else f"{base}Z"


def format_time(sim, t: float) -> str:
    whole = int(t)
    ns = int(round((t - whole) * 1e9))
    if ns >= 1_000_000_000:
        whole, ns = whole + 1, ns - 1_000_000_000
    return ts(sim.dt(whole), ns)


def cq_path(sim, cq_name: str) -> str:
    """A ClusterQueue's path from its root cohort, as preemption messages print it."""
    cq = sim.model.snapshot.cluster_queues.get(cq_name)
    if cq is None:
        return "/" + cq_name
    return "/" + "/".join(reversed([cq_name] + [a.name for a in cq.node.ancestors()]))


def eviction_message(sim, preemptor: str, reason: str, target_cq: str) -> str:
    pre = sim.workloads.get(preemptor)
    return (f"Preempted to accommodate a workload (UID: {uid('Workload', preemptor)}, JobUID: "
            f"{uid('Job', preemptor)}) due to {HUMAN_REASONS.get(reason, reason)}; preemptor path: "
            f"{cq_path(sim, pre.cluster_queue) if pre is not None else ''}; preemptee path: {cq_path(sim, target_cq)}")


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
    return f["requeue"] == "PendingPreemption" or f["status"] in ("skipped", "nominated")


def _outcome(f: dict) -> tuple:
    return f["status"], f["reason"], tuple(f.get("targets", ())), f["requeue"]


def _jitter(n: int) -> float:
    return (int.from_bytes(_digest("retry", str(n))[:4], "big") / 2**32 - 0.5) * 2 * RETRY_JITTER


def with_retries(sim, until: float) -> list[Cycle]:
    """Real cycles plus the retries of immediately re-queued heads between them."""
    real: list[Cycle] = []
    last: dict[str, tuple] = {}
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
    for i, c in enumerate(real):
        out.append(c)
        nxt = real[i + 1].t if i + 1 < len(real) else until
        again = [f for f in c.evaluated if _retried(f)]
        if not again:
            continue
        t = c.t
        while True:
            t += RETRY_EVERY + _jitter(len(out))
            if t >= nxt or t > until:
                break
            out.append(Cycle(t, evaluated=again, retry=True))
    for n, c in enumerate(out):
        c.number = CYCLE_BASE + n
    return out


# -- quota replay, for the fair-sharing lines ----------------------------------------------

class Replay:
    """Admitted usage per ClusterQueue through time, rebuilt from the simulator's log."""

    def __init__(self, sim):
        self.sim = sim
        self.snap = build_snapshot(sim.scn.state, sim.config, workloads=[])
        self.held: dict[str, tuple[str, dict]] = {}
        self.pos = 0

    def advance(self, t: float, before_cycle: Optional[int] = None) -> None:
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

    def workloads_of(self, cq_name: str) -> list[str]:
        return sorted(k for k, (cq, _) in self.held.items() if cq == cq_name)


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

    def line(self, t: float, v: int, logger: str, caller: str, msg: str, **fields) -> None:
        level = {0: "info", 1: "debug"}.get(v, f"Level(-{v})")
        rec = {"level": level, "ts": format_time(self.sim, t), "logger": logger, "caller": caller, "msg": msg}
        if self.v017:
            rec["replica-role"] = "leader"   # from about v0.17 (§D.2)
        rec.update(fields)
        self.lines.append((t, self.seq, json.dumps(rec, separators=(",", ":"), ensure_ascii=False)))
        self.seq += 1

    # -- helpers ----------------------------------------------------------------------------
    def cq_ref(self, name: str) -> dict:
        return {"name": name}

    def cohorts(self, cq_name: str) -> dict:
        cq = self.sim.model.snapshot.cluster_queues.get(cq_name)
        if cq is None or cq.node.parent is None:
            return {}
        return {"parentCohort": {"name": cq.node.parent.name}, "rootCohort": {"name": cq.node.root().name}}

    def path(self, cq_name: str) -> str:
        return cq_path(self.sim, cq_name)

    def local_queue(self, key: str) -> dict:
        sw = self.sim.workloads[key]
        return {"name": sw.spec.queue, "namespace": sw.spec.namespace}

    def nominated(self, sim, f: dict) -> dict:
        sw = sim.workloads[f["workload"]]
        per_pod = {r: v for r, v in sw.spec.requests.items()}
        flavors = None
        if f.get("usage") and f["mode"] != 0:
            flavors = {res: {"Name": fl, "Mode": GO_MODE.get(f["mode"], 2), "TriedFlavorIdx": -1}
                       for fl, res, _ in f["usage"]}
        quota = {json.dumps({"Flavor": fl, "Resource": res}, separators=(",", ":")): v
                 for fl, res, v in f.get("usage", [])} or None
        return {"PodSets": [{"Name": "main", "Flavors": flavors, "Status": {},
                             "Requests": {r: format_amount(r, _amount(r, v) * sw.spec.pods) for r, v in per_pod.items()},
                             "Count": sw.spec.pods, "TopologyAssignment": None, "DelayedTopologyRequest": None,
                             "FlavorAssignmentAttempts": None}],
                "Borrowing": f.get("borrowing", 0),
                "LastState": {"LastTriedFlavorIdx": [{r: -1 for r in per_pod}], "ClusterQueueGeneration": 1},
                "Usage": {"Quota": quota, "TAS": None}}

    # -- cycles -------------------------------------------------------------------------------
    def cycle(self, c: Cycle, replay: Optional[Replay]) -> None:
        sim = self.sim
        t = c.t
        step = 0.000037
        sc = {"schedulingCycle": c.number}
        heads = len(c.evaluated) + len(c.admitted)
        if self.v017:
            self.line(t, 2, "scheduler", "scheduler/scheduler.go:291", "Scheduling cycle starts", **sc)
        self.line(t + step, 3, "scheduler", "queue/manager.go:812", "Obtained ClusterQueue heads", **sc, count=heads)
        if self.v017:
            self.line(t + 2 * step, 2, "scheduler", "scheduler/scheduler.go:304", "Obtained heads", **sc,
                      headCount=heads, waitDuration=0.000102)
            self.line(t + 0.0009, 2, "scheduler", "scheduler/scheduler.go:319", "Snapshot taken", **sc,
                      duration=0.000871)
            self.line(t + 0.0021, 2, "scheduler", "scheduler/scheduler.go:324", "Nomination done", **sc,
                      entries=heads, inadmissibleEntries=0, duration=0.00118)
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
            base = {**sc, "workload": wref, "clusterQueue": self.cq_ref(cq), **cohorts}
            self.line(now, 2, "scheduler", "scheduler/scheduler.go:384", "Attempting to schedule workload", **base)
            now += 0.00001
            if kind == "admitted":
                self.line(now, 2, "scheduler", "scheduler/scheduler.go:913", "Workload assumed in the cache",
                          **sc, workload=wref, clusterQueue=self.cq_ref(cq))
                fa = {"evaluated": True, "mode": 3, "borrowing": f.get("borrowing", 0),
                      "usage": sorted((fl, res, ps["resourceUsage"].get(res, 0))
                                      for ps in f.get("assignments", []) for res, fl in ps["flavors"].items())}
                fa["workload"] = key
                self.line(now + 0.0002, 3, "scheduler", "scheduler/logging.go:42", "Workload evaluated for admission",
                          **sc, workload=wref, clusterQueue=self.cq_ref(cq), status="assumed", reason="",
                          nominatedAssignment=self.nominated(sim, fa), preempted=None)
                asg = [{"name": ps["name"], "flavors": ps["flavors"],
                        "resourceUsage": {r: format_amount(r, v) for r, v in ps["resourceUsage"].items()},
                        "count": ps["count"]} for ps in f.get("assignments", [])]
                self.line(now + 0.015, 2, "scheduler", "scheduler/scheduler.go:872",
                          "Workload successfully admitted and assigned flavors", **base, assignments=asg)
                now += 0.0004
                continue
            mode = f.get("mode", 0)
            if mode == 0:
                self.line(now, 3, "scheduler", "scheduler/scheduler.go:409",
                          "Skipping workload as FlavorAssigner assigned NoFit mode", **base)
            elif mode == 1 and sim.config.fair_sharing and replay is not None and not c.retry:
                self.fair_simulation(now, base, f, cq, replay)
            now += 0.00002
            if f["requeue"] == "PreemptionNoCandidates":
                pre = sim.model.snapshot.cluster_queues[cq].preemption if cq in sim.model.snapshot.cluster_queues \
                    else None
                policy = {"reclaimWithinCohort": pre.reclaim_within_cohort if pre else "Never",
                          "borrowWithinCohort": {"policy": (pre.borrow_within_cohort.policy
                                                            if pre and pre.borrow_within_cohort else "Never")},
                          "withinClusterQueue": pre.within_cluster_queue if pre else "Never"}
                self.line(now, 2, "scheduler", "scheduler/scheduler.go:491",
                          "Workload requires preemption, but there are no candidate workloads allowed for preemption",
                          **base, preemption=policy)
            if f["status"] != "skipped":
                for target in f.get("targets", []):
                    now += 0.00003
                    if not c.retry and (target, key) in preempted_now:
                        self.preempted(now, sc, key, cq, target, c)
                    else:
                        self.line(now, 3, "scheduler", "preemption/preemption.go:214", "Preemption ongoing", **sc,
                                  workload=wref, clusterQueue=self.cq_ref(cq),
                                  targetWorkload=workload_ref(sim, target), preemptingWorkload=wref)
            status = "skipped" if f["status"] == "skipped" else ("" if mode == 0 else "nominated")
            now += 0.00004
            self.line(now, 3, "scheduler", "scheduler/logging.go:42", "Workload evaluated for admission", **sc,
                      workload=wref, clusterQueue=self.cq_ref(cq), status=status, reason=f["reason"],
                      nominatedAssignment=self.nominated(sim, f),
                      preempted=[workload_ref(sim, x) for x in f.get("targets", [])] or None)
            requeues.append((f, status))
        for f, status in requeues:
            now += 0.00005
            reason = f["requeue"]
            if reason == "Generic":
                reason = "FailedAfterNomination" if status in ("skipped", "nominated") else ""
            self.line(now, 2, "scheduler", "scheduler/scheduler.go:1017", "Workload re-queued", **sc,
                      workload=workload_ref(sim, f["workload"]), clusterQueue=self.cq_ref(f["clusterQueue"]),
                      queue=self.local_queue(f["workload"]), requeueReason=reason, added=True, status=status)
        if self.v017:
            self.line(now + 0.0001, 2, "scheduler", "scheduler/scheduler.go:358", "Workload processing done", **sc,
                      duration=round(now + 0.0001 - t, 9))
            self.line(now + 0.00012, 2, "scheduler", "scheduler/scheduler.go:293", "Scheduling cycle complete", **sc,
                      duration=round(now + 0.00012 - t, 9))

    def preempted(self, now, sc, key, cq, target, c: Cycle) -> None:
        sim = self.sim
        p = next(x for x in c.preempted if x["workload"] == target and x["preemptor"] == key)
        psw, tsw = sim.workloads[key], sim.workloads[target]
        pre_uid = uid("Workload", key)
        job_uid = uid("Job", key)
        message = eviction_message(sim, key, p["reason"], p["clusterQueue"])
        fields = dict(targetWorkload=workload_ref(sim, target), preemptingWorkload=workload_ref(sim, key),
                      preemptorUID=pre_uid, preemptorJobUID=job_uid, reason=p["reason"], message=message,
                      targetClusterQueue=self.cq_ref(p["clusterQueue"]), preemptorPath=self.path(cq),
                      preempteePath=self.path(p["clusterQueue"]))
        if sim.kueue.version >= (0, 19, 0):
            fields.update(preemptorEffectivePriority=psw.spec.priority, preemptorBoost=0,
                          targetEffectivePriority=tsw.spec.priority, targetBoost=0)
        self.line(now, 3, "scheduler", "preemption/preemption.go:196", "Preempted", **sc,
                  workload=workload_ref(sim, key), clusterQueue=self.cq_ref(cq), **fields)
        if sim.kueue.version >= (0, 13, 0):
            self.line(now + 0.00001, 3, "scheduler", "expectations/store.go:68", "Expecting UIDs", **sc,
                      store="preemptions", key=f"{key}", uids=[uid("Workload", target)])

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
            values.append((other.node.parent.name, f"{ref['namespace']}/{ref['name']}", drs_text(sim, drs)))
        values.sort()
        rc = {"rootCohort": {"name": root}}
        self.line(now, 5, "scheduler", "scheduler/fair_sharing_iterator.go:86",
                  "Computing DominantResourceShare for tournament", **sc, **rc)
        self.line(now + 0.00001, 3, "scheduler", "scheduler/fair_sharing_iterator.go:89",
                  "Running tournament to decide next workload to consider in scheduling cycle", **sc, **rc)
        win = {**rc, "cohort": {"name": node.parent.name}, "clusterQueue": self.cq_ref(cq),
               "winningWorkload": workload_ref(sim, key)}
        self.line(now + 0.00002, 3, "scheduler", "scheduler/fair_sharing_iterator.go:97",
                  "Determined tournament winner", **sc, **win)
        if sim.kueue.version >= (0, 16, 0):
            drs_values = [{"parentCohort": pc, "workload": wl, "drs": d} for pc, wl, d in values]
            v = 4
        else:
            # Before the V(4) struct form, the values were pre-formatted strings at V(5).
            drs_values = [f"{{parentCohort: {pc}, workload {wl}, drs: {d}}}" for pc, wl, d in values]
            v = 5
        self.line(now + 0.00003, v, "scheduler", "scheduler/fair_sharing_iterator.go:227",
                  "DominantResourceShare values used during tournament", **sc, **win, drsValues=drs_values)
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
        self.line(now, 5, "scheduler", "preemption/preemption.go:341", "Simulating fair preemption", **base,
                  candidates=[workload_ref(sim, k) for k in cands],
                  resourcesRequiringPreemption=[{"Flavor": fl, "Resource": res} for fl, res in sorted(frs)],
                  preemptingWorkload=workload_ref(sim, f["workload"]))

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
            jf = {"namespace": ns if is_job else f"group/{ns}", "name": sw.spec.name}

            def rid(tag: str) -> str:
                return uid("reconcile", tag, key, f"{t:.6f}")
            if event == "created":
                self.line(t + 0.03, 2, "workload-reconciler", "core/workload_controller.go:1203",
                          "Workload create event", workload=wref, queue=sw.spec.queue, status="pending")
                self.line(t + 0.05, 3, logger, "jobframework/reconciler.go:607",
                          "Job is suspended and workload not yet admitted by a clusterQueue, nothing to do",
                          **jf, reconcileID=rid("susp"), job=job, gvk=gvk)
            elif event == "released":
                self.line(t, 2, logger, "jobframework/reconciler.go:583", "Job admitted, unsuspending", **jf,
                          reconcileID=rid("rel"), job=job, gvk=gvk)
                if not is_job:
                    for i in range(sw.spec.pods):
                        self.line(t + 0.004 + i * 0.0001, 3, logger, "pod/pod_controller.go:310",
                                  "Starting pod in group", **jf, reconcileID=rid(f"start{i}"), job=job, gvk=gvk,
                                  podInGroup={"name": f"{sw.spec.name}-{i}", "namespace": ns})
            elif event == "preempted":
                self.line(t + 0.02, 3, logger, "jobframework/reconciler.go:443",
                          "Handling a job with evicted condition", **jf, reconcileID=rid("ev"), job=job, gvk=gvk)
            elif event == "finished":
                self.line(t + 0.01, 2, "workload-reconciler", "core/workload_controller.go:1289",
                          "Workload update event", workload=wref, queue=sw.spec.queue, status="finished",
                          prevStatus="admitted", clusterQueue=f.get("clusterQueue", ""))


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


def _cycle_id(sim, c: Cycle) -> Optional[int]:
    for f in c.evaluated + c.admitted + c.preempted:
        if "cycle" in f:
            return f["cycle"]
    return None
