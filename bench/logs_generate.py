"""Write a realistic Kueue controller log at --zap-log-level=5, with incidents inside.

    python bench/logs_generate.py /tmp/kueue-1g.log --size 1G

The line mix follows the worked examples in shared/examples/incidents (scheduler cycles,
reconcilers, webhooks; V(4) "Workload evaluated for admission" lines with their large
nominatedAssignment), about one line per millisecond, so 1 GB covers roughly an hour of a busy
controller. Between 40% and 60% of the way through, a zombie victim in ClusterQueue team-c is the
preemption target of the heads of team-a and team-b (stuck-preemption-target); between 65% and
85%, team-d's head waits about 2 minutes per victim (slow-preemption-release). A few garbage,
truncated and very long lines are sprinkled in, as real files have. Deterministic per --seed.

``--mix scheduler`` writes a busy cluster's log instead: nearly every line a scheduler line (cycle
start/complete, the DRS tournament, "Attempting to schedule workload", evaluations, re-queues,
admissions), about 2.8 million lines per GB, with hundreds of heads per queue waiting in turn.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from datetime import UTC, datetime

QUEUES = ["team-a", "team-b", "team-c", "team-d", "infer", "batch"]
COHORT = "gpu"
PREFIX = '{"level":"Level(-%d)","ts":"%s","logger":"%s","caller":"%s","msg":"%s","replica-role":"leader"'


def _ref(ns: str, name: str) -> str:
    return '{"name":"%s","namespace":"%s"}' % (name, ns)


def _assignment(gpus: int, borrowing: int) -> str:
    # The V(4) blob that makes evaluated lines ~1.5 KB, as in the examples.
    return (
        '{"PodSets":[{"Name":"main","Flavors":{"cpu":{"Name":"h100","Mode":2,"TriedFlavorIdx":-1},'
        '"memory":{"Name":"h100","Mode":2,"TriedFlavorIdx":-1},"nvidia.com/gpu":{"Name":"h100","Mode":2,'
        '"TriedFlavorIdx":-1}},"Status":{},"Requests":{"cpu":"%d","memory":"%dGi","nvidia.com/gpu":"%d"},'
        '"Count":1,"TopologyAssignment":null,"DelayedTopologyRequest":null,"FlavorAssignmentAttempts":null}],'
        '"Borrowing":%d,"LastState":{"LastTriedFlavorIdx":[{"cpu":-1,"memory":-1,"nvidia.com/gpu":-1}],'
        '"ClusterQueueGeneration":3},"Usage":{"Quota":{"{\\"Flavor\\":\\"h100\\",\\"Resource\\":\\"cpu\\"}":%d,'
        '"{\\"Flavor\\":\\"h100\\",\\"Resource\\":\\"memory\\"}":%d,'
        '"{\\"Flavor\\":\\"h100\\",\\"Resource\\":\\"nvidia.com/gpu\\"}":%d},"TAS":null}}'
    ) % (gpus * 16, gpus * 120, gpus, borrowing, gpus * 16000, gpus * 128849018880, gpus)


class Writer:
    def __init__(self, out, start: float, rng: random.Random):
        self.out = out
        self.t = start
        self.rng = rng
        self.buf: list[str] = []
        self.size = 0
        self._sec = -1
        self._sec_text = ""
        self.cycle = 500000

    def ts(self) -> str:
        sec = int(self.t)
        if sec != self._sec:
            self._sec = sec
            self._sec_text = datetime.fromtimestamp(sec, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        return "%s.%09dZ" % (self._sec_text, int((self.t - sec) * 1e9))

    def line(self, v: int, logger: str, caller: str, msg: str, rest: str = "") -> None:
        self.t += self.rng.random() * 0.002
        text = PREFIX % (v, self.ts(), logger, caller, msg) + rest + "}\n"
        self.raw(text)

    def raw(self, text: str) -> None:
        self.buf.append(text)
        self.size += len(text)
        if len(self.buf) >= 4096:
            self.flush()

    def flush(self) -> None:
        self.out.write("".join(self.buf))
        self.buf.clear()

    def uid(self) -> str:
        r = self.rng.getrandbits(128)
        h = "%032x" % r
        return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def sched(w: Writer, v: int, caller: str, msg: str, rest: str = "") -> None:
    w.line(v, "scheduler", caller, msg, ',"schedulingCycle":%d' % w.cycle + rest)


def wl_keys(ns: str, name: str, cq: str, cohort: bool = True) -> str:
    s = ',"workload":%s,"clusterQueue":{"name":"%s"}' % (_ref(ns, name), cq)
    if cohort:
        s += ',"parentCohort":{"name":"%s"},"rootCohort":{"name":"%s"}' % (COHORT, COHORT)
    return s


def reconcile_noise(w: Writer, ns: str, job: str, wl: str, cq: str) -> None:
    rid = w.uid()
    jk = ',"namespace":"%s","name":"%s","reconcileID":"%s","job":"%s/%s","gvk":"batch/v1, Kind=Job"' % (
        ns, job, rid, ns, job)
    w.line(5, "job-webhook", "job/job_webhook.go:104", "Applying defaults",
           ',"webhookGroup":"batch","webhookKind":"Job","Job":%s,"namespace":"%s","name":"%s",'
           '"resource":{"group":"batch","version":"v1","resource":"jobs"},"user":"system:serviceaccount:%s:default",'
           '"requestID":"%s"' % (_ref(ns, job), ns, job, ns, w.uid()))
    w.line(2, "job", "jobframework/reconciler.go:407", "Reconciling Job", jk)
    w.line(2, "workload-reconciler", "core/workload_controller.go:354", "Reconcile Workload",
           ',"namespace":"%s","name":"%s","reconcileID":"%s"' % (ns, wl, w.uid()))
    w.line(2, "workload-reconciler", "core/workload_controller.go:1386", "Workload update event",
           ',"workload":%s,"queue":"default","status":"admitted","prevStatus":"pending","clusterQueue":"%s"'
           % (_ref(ns, wl), cq))
    w.line(5, "workload-reconciler", "core/workload_controller.go:1759", "Workload cluster queue update event",
           ',"localQueue":%s' % _ref(ns, "default"))
    w.line(2, "clusterqueue-reconciler", "core/clusterqueue_controller.go:168", "Reconcile ClusterQueue",
           ',"name":"%s","reconcileID":"%s"' % (cq, w.uid()))
    w.line(2, "localqueue-reconciler", "core/localqueue_controller.go:185", "Reconcile LocalQueue",
           ',"namespace":"%s","name":"default","reconcileID":"%s"' % (ns, w.uid()))
    w.line(3, "job", "jobframework/reconciler.go:648",
           "Job is suspended and workload not yet admitted by a clusterQueue, nothing to do", jk)
    w.line(2, "job", "jobframework/reconciler.go:624", "Job admitted, unsuspending", jk)


def cycle_begin(w: Writer, heads: int) -> None:
    w.cycle += 1
    sched(w, 2, "scheduler/scheduler.go:311", "Scheduling cycle starts")
    sched(w, 3, "queue/manager.go:900", "Obtained ClusterQueue heads", ',"count":%d' % heads)
    sched(w, 2, "scheduler/scheduler.go:324", "Obtained heads", ',"headCount":%d,"waitDuration":2.7e-05' % heads)
    sched(w, 2, "scheduler/scheduler.go:339", "Snapshot taken", ',"duration":0.0015')
    sched(w, 2, "scheduler/scheduler.go:344", "Nomination done",
          ',"entries":%d,"inadmissibleEntries":0,"duration":0.002' % heads)


def cycle_end(w: Writer) -> None:
    sched(w, 2, "scheduler/scheduler.go:378", "Workload processing done", ',"duration":0.004')
    sched(w, 2, "scheduler/scheduler.go:313", "Scheduling cycle complete",
          ',"duration":%.6f' % (0.002 + w.rng.random() * 0.01))


def evaluated(w: Writer, ns: str, name: str, cq: str, status: str, reason: str, gpus: int,
              borrowing: int = 0, preempted: str = "null") -> None:
    sched(w, 3, "scheduler/logging.go:42", "Workload evaluated for admission",
          wl_keys(ns, name, cq, cohort=False)
          + ',"status":"%s","reason":"%s","nominatedAssignment":%s,"preempted":%s'
          % (status, reason, _assignment(gpus, borrowing), preempted))


def admit(w: Writer, ns: str, name: str, cq: str, gpus: int, borrowing: int = 0) -> None:
    sched(w, 2, "scheduler/scheduler.go:384", "Attempting to schedule workload", wl_keys(ns, name, cq))
    sched(w, 2, "scheduler/scheduler.go:1046", "Workload assumed in the cache", wl_keys(ns, name, cq))
    evaluated(w, ns, name, cq, "assumed", "", gpus, borrowing)
    sched(w, 2, "scheduler/scheduler.go:1005", "Workload successfully admitted and assigned flavors",
          wl_keys(ns, name, cq) + ',"assignments":[{"name":"main","flavors":{"nvidia.com/gpu":"h100"},'
          '"resourceUsage":{"nvidia.com/gpu":"%d"},"count":1}]' % gpus)


def requeue(w: Writer, ns: str, name: str, cq: str, why: str, status: str = "") -> None:
    sched(w, 2, "scheduler/scheduler.go:1017", "Workload re-queued",
          wl_keys(ns, name, cq, cohort=False) + ',"queue":%s,"requeueReason":"%s","added":true,"status":"%s"'
          % (_ref(ns, "default"), why, status))


def nofit(w: Writer, ns: str, name: str, cq: str, gpus: int) -> None:
    sched(w, 2, "scheduler/scheduler.go:384", "Attempting to schedule workload", wl_keys(ns, name, cq))
    sched(w, 3, "scheduler/scheduler.go:409", "Skipping workload as FlavorAssigner assigned NoFit mode",
          wl_keys(ns, name, cq))
    evaluated(w, ns, name, cq, "", "couldn't assign flavors to pod set main: insufficient unused quota "
              "for nvidia.com/gpu in flavor h100, %d more needed" % gpus, gpus)
    requeue(w, ns, name, cq, "NoFit")


def ongoing(w: Writer, ns: str, name: str, cq: str, victim: tuple[str, str], gpus: int) -> None:
    sched(w, 2, "scheduler/scheduler.go:384", "Attempting to schedule workload", wl_keys(ns, name, cq))
    w.line(3, "scheduler", "preemption/preemption.go:201", "Preemption ongoing",
           ',"schedulingCycle":%d,"targetWorkload":%s,"preemptingWorkload":%s'
           % (w.cycle, _ref(*victim), _ref(ns, name)))
    evaluated(w, ns, name, cq, "nominated", "couldn't assign flavors to pod set main: insufficient unused quota "
              "for nvidia.com/gpu in flavor h100, %d more needed. Pending the preemption of 1 workload(s)" % gpus,
              gpus, preempted="[%s]" % _ref(*victim))
    requeue(w, ns, name, cq, "PendingPreemption")


def skipped(w: Writer, ns: str, name: str, cq: str, victim: tuple[str, str], gpus: int) -> None:
    sched(w, 2, "scheduler/scheduler.go:384", "Attempting to schedule workload", wl_keys(ns, name, cq))
    evaluated(w, ns, name, cq, "skipped", "Workload has overlapping preemption targets with another workload",
              gpus, preempted="[%s]" % _ref(*victim))
    requeue(w, ns, name, cq, "", status="skipped")


def preempted(w: Writer, ns: str, name: str, cq: str, victim: tuple[str, str], victim_cq: str) -> None:
    w.line(3, "scheduler", "preemption/preemption.go:230", "Preempted",
           ',"schedulingCycle":%d,"targetWorkload":%s,"preemptingWorkload":%s,"preemptorUID":"%s",'
           '"preemptorJobUID":"%s","reason":"InCohortReclamation","message":"Preempted to accommodate a workload '
           '(UID: x, JobUID: y) due to reclamation within the cohort","targetClusterQueue":{"name":"%s"},'
           '"preemptorPath":"/%s/%s","preempteePath":"/%s/%s"'
           % (w.cycle, _ref(*victim), _ref(ns, name), w.uid(), w.uid(), victim_cq, COHORT, cq, COHORT, victim_cq))


def evicted_pod(w: Writer, victim: tuple[str, str]) -> None:
    ns, name = victim
    w.line(3, "v1_pod", "jobframework/reconciler.go:512", "Handling a job with evicted condition",
           ',"namespace":"group/%s","name":"%s","reconcileID":"%s","job":"group/%s/%s","gvk":"/v1, Kind=Pod"'
           % (ns, name, w.uid(), ns, name))


def junk(w: Writer) -> None:
    kind = w.rng.randrange(4)
    if kind == 0:
        w.raw('{"level":"Level(-2)","ts":"%s","logger":"scheduler","caller":"scheduler/sched\n' % w.ts())
    elif kind == 1:
        w.raw("goroutine 2114 [running]:\n")
    elif kind == 2:
        w.raw("\n")
    else:
        # CRI splits very long lines; a long garbage field stands in for one.
        w.raw('{"level":"info","msg":"dump","blob":"%s"}\n' % ("x" * 5_000_000))


def generate(out, size: int, seed: int, start: float) -> int:
    rng = random.Random(seed)
    w = Writer(out, start, rng)
    serial = 0
    victim_z = ("team-c", "pod-group-zombie-0")
    slow_victims = 0
    slow_next = 0.0
    slow_victim: tuple[str, str] | None = None
    zombie_started = False
    while w.size < size:
        frac = w.size / size
        serial += 1
        heads = []
        # Background: admissions in every queue, NoFit heads now and then.
        cq = QUEUES[rng.randrange(len(QUEUES))]
        ns = cq
        heads.append(("admit", ns, "job-train-%06d" % serial, cq, rng.choice((1, 2, 4, 8))))
        if rng.random() < 0.3:
            heads.append(("nofit", "batch", "job-sweep-big", "batch", 64))
        zombie = 0.40 <= frac < 0.60
        slow = 0.65 <= frac < 0.85
        if zombie:
            heads.append(("zombie", "team-a", "pod-group-a-head", "team-a", 8))
            heads.append(("zombie", "team-b", "pod-group-b-head", "team-b", 8))
            rng.shuffle(heads)
        cycle_begin(w, len(heads))
        claimed = False
        for kind, ns, name, cq, gpus in heads:
            if kind == "admit":
                admit(w, ns, name, cq, gpus, borrowing=1 if cq == "infer" else 0)
            elif kind == "nofit":
                nofit(w, ns, name, cq, gpus)
            elif not claimed:
                claimed = True
                if not zombie_started:
                    zombie_started = True
                    preempted(w, ns, name, cq, victim_z, "team-c")
                ongoing(w, ns, name, cq, victim_z, gpus)
            else:
                skipped(w, ns, name, cq, victim_z, gpus)
        if slow:
            if slow_victim is None or w.t >= slow_next:
                if slow_victim is not None:
                    admit(w, "team-d", "pod-group-d-%03d" % slow_victims, "team-d", 8)
                slow_victims += 1
                slow_victim = ("batch", "pod-group-low-%03d" % slow_victims)
                slow_next = w.t + 120 + rng.random() * 15
                preempted(w, "team-d", "pod-group-d-%03d" % slow_victims, "team-d", slow_victim, "batch")
            elif rng.random() < 0.05:
                ongoing(w, "team-d", "pod-group-d-%03d" % slow_victims, "team-d", slow_victim, 8)
                evicted_pod(w, slow_victim)
        cycle_end(w)
        if zombie and rng.random() < 0.05:
            evicted_pod(w, victim_z)
        reconcile_noise(w, ns, "job-%06d" % serial, "job-job-%06d-1a2b3" % serial, cq)
        if rng.random() < 0.0001:
            junk(w)
    w.flush()
    return w.size


def tournament(w: Writer, ns: str, name: str, cq: str, rivals: list[tuple[str, str, str]]) -> None:
    root = ',"rootCohort":{"name":"%s"}' % COHORT
    sched(w, 5, "scheduler/fair_sharing_iterator.go:86", "Computing DominantResourceShare for tournament", root)
    sched(w, 3, "scheduler/fair_sharing_iterator.go:89",
          "Running tournament to decide next workload to consider in scheduling cycle", root)
    win = root + ',"cohort":{"name":"%s"},"clusterQueue":{"name":"%s"},"winningWorkload":%s' % (
        COHORT, cq, _ref(ns, name))
    sched(w, 3, "scheduler/fair_sharing_iterator.go:97", "Determined tournament winner", win)
    values = ",".join('{"parentCohort":"%s","workload":"%s/%s","drs":"%s"}' % (COHORT, r_ns, r_name, drs)
                      for r_ns, r_name, drs in rivals)
    sched(w, 4, "scheduler/fair_sharing_iterator.go:227", "DominantResourceShare values used during tournament",
          win + ',"drsValues":[%s]' % values)


def generate_scheduler(out, size: int, seed: int, start: float) -> int:
    """A busy cluster: each cycle admits one or two heads and re-queues the others, which wait
    hundreds of cycles; every head is chosen by a DRS tournament first."""
    rng = random.Random(seed)
    w = Writer(out, start, rng)
    pending = {cq: ["job-%s-%06d" % (cq, i) for i in range(1200)] for cq in QUEUES}
    serial = 1200
    last_head = {cq: pending[cq][0] for cq in QUEUES}
    while w.size < size:
        heads = [(cq, pending[cq][rng.randrange(len(pending[cq]))]) for cq in rng.sample(QUEUES, 4)]
        cycle_begin(w, len(heads))
        for i, (cq, name) in enumerate(heads):
            last_head[cq] = name
            # the rivals: each queue's head of an earlier cycle, so the scanner knows its queue
            rivals = [(o, last_head[o], str(rng.choice((0, 125, 250, 500))))
                      for o in ("team-a", "team-b", "team-c", "infer")]
            tournament(w, cq, name, cq, rivals)
            sched(w, 2, "scheduler/scheduler.go:384", "Attempting to schedule workload", wl_keys(cq, name, cq))
            if i == 0 and rng.random() < 0.5:
                sched(w, 2, "scheduler/scheduler.go:1046", "Workload assumed in the cache", wl_keys(cq, name, cq))
                # infer borrows: with its DRS 0 in later tournaments, drs-rounding's evidence
                sched(w, 3, "scheduler/logging.go:42", "Workload evaluated for admission",
                      wl_keys(cq, name, cq, cohort=False) + ',"status":"assumed","reason":"","nominatedAssignment":'
                      + _assignment(8, 1 if cq == "infer" else 0))
                sched(w, 2, "scheduler/scheduler.go:1005", "Workload successfully admitted and assigned flavors",
                      wl_keys(cq, name, cq) + ',"assignments":[{"name":"main","flavors":{"nvidia.com/gpu":"h100"},'
                      '"resourceUsage":{"nvidia.com/gpu":"8"},"count":1}]')
                pending[cq].remove(name)
                last_head[cq] = pending[cq][0]
                serial += 1
                pending[cq].append("job-%s-%06d" % (cq, serial))
            else:
                sched(w, 3, "scheduler/logging.go:42", "Workload evaluated for admission",
                      wl_keys(cq, name, cq, cohort=False) + ',"status":"","reason":"couldn\'t assign flavors to pod '
                      'set main: insufficient unused quota for nvidia.com/gpu in flavor h100, 8 more needed"')
                if rng.random() < 0.02:
                    sched(w, 2, "scheduler/scheduler.go:491",
                          "Workload requires preemption, but there are no candidate workloads allowed for preemption",
                          wl_keys(cq, name, cq))
                    requeue(w, cq, name, cq, "PreemptionNoCandidates")
                else:
                    requeue(w, cq, name, cq, "NoFit")
        cycle_end(w)
        if rng.random() < 0.0001:
            junk(w)
    w.flush()
    return w.size


def parse_size(text: str) -> int:
    text = text.strip().upper()
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    if text and text[-1] in mult:
        return int(float(text[:-1]) * mult[text[-1]])
    return int(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", help="output file (write it under /tmp; never commit it)")
    p.add_argument("--size", default="1G", help="approximate size, e.g. 200M or 1G")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--mix", choices=("v5", "scheduler"), default="v5",
                   help="v5: the whole controller at V(5); scheduler: a busy cluster, nearly all scheduler lines")
    args = p.parse_args(argv)
    started = time.monotonic()
    start = datetime(2026, 8, 20, 10, 0, tzinfo=UTC).timestamp()
    with open(args.out, "w", encoding="utf-8", buffering=1 << 20) as out:
        write = generate_scheduler if args.mix == "scheduler" else generate
        n = write(out, parse_size(args.size), args.seed, start)
    print(f"wrote {n / 1e6:.0f} MB to {args.out} in {time.monotonic() - started:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
