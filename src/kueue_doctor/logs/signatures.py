"""Which log lines matter, and what each one adds to the evidence.

Message strings come from shared/reference/kueue-signals.md §D. ``NEEDLES`` are the byte strings a
chunk is searched for; a hit only makes a line a candidate, the decoded ``msg`` decides what it
means. Everything kept is bounded (counters, capped lists), so memory does not grow with the log.
"""
from __future__ import annotations

import re

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .timeparse import parse_ts

# Needles: short, with an uncommon last byte, so bytes.find can skip ahead quickly.
NEEDLES = (
    b"Workload re-queued",
    b"successfully admitted",
    b'"msg":"Preempt',
    b"overlapping preemption targets",
    b'"status":"assumed"',
    b"no candidate workloads",
    b"DominantResourceShare values",
    b"FairSharing strategy",
    b"Skipping ClusterQueue",
    b"Scheduling cycle complete",
    b'{"level":"error',
    b"Operation cannot be fulfilled",
    b" lease",
    b"election lost",
    b"tarting manager",
    b'"status":"","reason":"',
)

MSG_ADMITTED = "Workload successfully admitted and assigned flavors"
MSG_REQUEUED = "Workload re-queued"
MSG_EVALUATED = "Workload evaluated for admission"
MSG_PREEMPTED = "Preempted"
MSG_ONGOING = "Preemption ongoing"
MSG_ALREADY = "Preemption already issued, waiting for observation"
DRS_STRING = re.compile(r"workload ([^,\s}]+),\s*drs:\s*(-?[0-9.]+)")
MSG_NO_CANDIDATES = "Workload requires preemption, but there are no candidate workloads allowed for preemption"
MSG_DRS = "DominantResourceShare values used during tournament"
MSG_FS_STRATEGY = "Evaluating FairSharing strategy"
MSG_SKIP_CQ = "Skipping ClusterQueue"
MSG_CYCLE = "Scheduling cycle complete"
OVERLAP = "Workload has overlapping preemption targets with another workload"
LEADER_WORDS = ("leader lease", "acquired lease", "renew lease", "election lost", "stopped leading")
CYCLE_KEY = b'"msg":"Scheduling cycle complete"'
EXAMPLES = 3
TIMES_CAP = 100_000


def cycle_duration(line: bytes) -> float | None:
    """The one line every cycle writes: only its duration is needed, so it is not decoded."""
    if CYCLE_KEY not in line:
        return None
    p = line.find(b'"duration":')
    if p < 0:
        return None
    q = line.find(b"}", p)
    try:
        return float(line[p + 11:q])
    except ValueError:
        return None


def ref(value) -> str:
    """A klog object reference ({"name","namespace"}) or an "ns/name" string, as one string."""
    if isinstance(value, dict):
        name = value.get("name") or ""
        ns = value.get("namespace")
        return f"{ns}/{name}" if ns else str(name)
    if value is None:
        return ""
    return str(value)


@dataclass
class Head:
    attempts: int = 0
    reason: str = ""
    requeue: str = ""
    first: float | None = None
    last: float | None = None


@dataclass
class QueueStats:
    admitted: int = 0
    preemptions_issued: int = 0
    preempted_from: int = 0
    skipped_overlap: int = 0
    no_candidates: int = 0
    requeue: Counter = field(default_factory=Counter)
    not_active: Counter = field(default_factory=Counter)
    heads: dict = field(default_factory=dict)
    admit_times: list = field(default_factory=list)
    timeline: dict = field(default_factory=lambda: defaultdict(Counter))
    first: float | None = None
    last: float | None = None


@dataclass
class Victim:
    first: float | None = None
    last: float | None = None
    preempted_at: float | None = None
    target_cq: str = ""
    preemptors: set = field(default_factory=set)
    preemptor_cqs: set = field(default_factory=set)
    skipper_cqs: set = field(default_factory=set)
    cycles: int = 0
    last_cycle: object = None
    lines: int = 0
    examples: list = field(default_factory=list)


class Evidence:
    """Accumulates what candidate lines say; findings are computed from it at the end."""

    def __init__(self, since: float | None = None, until: float | None = None):
        self.since = since
        self.until = until
        self.queues: dict[str, QueueStats] = defaultdict(QueueStats)
        self.victims: dict[str, Victim] = {}
        self.workload_cq: dict[str, str] = {}
        self.borrowing: dict[str, float | None] = {}
        self.drs_zero: dict[str, list] = {}
        self.skipped: list = []
        self.issued: Counter = Counter()
        self.no_candidate_examples: list = []
        self.errors: Counter = Counter()
        self.error_examples: list = []
        self.conflicts = 0
        self.leader_events: list = []
        self.restarts = 0
        self.cycles = 0
        self.cycle_total = 0.0
        self.cycle_max = 0.0
        self.cycle_slow = 0
        self.first: float | None = None
        self.last: float | None = None
        self.in_window = 0

    # --- dispatch -------------------------------------------------------------------------

    def feed(self, obj: dict, raw: bytes) -> None:
        ts = parse_ts(obj.get("ts"))
        if not self.seen(ts):
            return
        msg = obj.get("msg")
        if not isinstance(msg, str):
            return
        level = obj.get("level")
        handler = _HANDLERS.get(msg)
        if handler is not None:
            handler(self, obj, ts, raw)
        if level in ("error", "dpanic", "panic", "fatal"):
            self._error(obj, ts, raw)
        elif b"Operation cannot be fulfilled" in raw:
            self.conflicts += 1
        low = msg.lower()
        if any(w in low for w in LEADER_WORDS):
            self.leader_events.append((ts, msg))
            del self.leader_events[:-50]
        if low == "starting manager":
            self.restarts += 1

    def seen(self, ts: float | None) -> bool:
        """The window check and first/last bookkeeping every record goes through; False if outside."""
        if ts is not None:
            if self.since is not None and ts < self.since:
                return False
            if self.until is not None and ts > self.until:
                return False
            if self.first is None or ts < self.first:
                self.first = ts
            if self.last is None or ts > self.last:
                self.last = ts
        self.in_window += 1
        return True

    def finish(self) -> None:
        """Attribute preemptions to the preemptors' ClusterQueues, now that all lines are read."""
        for v in self.victims.values():
            v.preemptor_cqs |= {self.workload_cq[p] for p in v.preemptors if p in self.workload_cq}
        for (wl, minute), n in self.issued.items():
            cq = self.workload_cq.get(wl)
            if cq:
                q = self.queues[cq]
                q.preemptions_issued += n
                if minute is not None:
                    q.timeline[minute]["preempted"] += n
        self.issued.clear()

    def leader_text(self, text: str, ts: float | None) -> None:
        """klog text lines from client-go's leader election, interleaved with the JSON."""
        low = text.lower()
        if any(w in low for w in LEADER_WORDS):
            self.leader_events.append((ts if ts is not None else self.last, text.strip()[:300]))
            del self.leader_events[:-50]

    # --- helpers --------------------------------------------------------------------------

    def _queue(self, name: str, ts: float | None) -> QueueStats:
        q = self.queues[name]
        if ts is not None:
            if q.first is None:
                q.first = ts
            q.last = ts
        return q

    def _cq(self, obj: dict) -> str:
        return self.resolve_cq(ref(obj.get("clusterQueue")), ref(obj.get("workload")))

    def resolve_cq(self, cq: str, wl: str) -> str:
        if cq and wl:
            self.workload_cq[wl] = cq
        elif wl and not cq:
            cq = self.workload_cq.get(wl, "")
        return cq

    @staticmethod
    def _minute(ts: float | None) -> int | None:
        return None if ts is None else int(ts // 60) * 60

    def _victim(self, target: str, ts: float | None) -> Victim:
        v = self.victims.get(target)
        if v is None:
            v = self.victims[target] = Victim()
        if ts is not None:
            if v.first is None or ts < v.first:
                v.first = ts
            if v.last is None or ts > v.last:
                v.last = ts
        return v

    @staticmethod
    def _example(bucket: list, raw: bytes) -> None:
        if len(bucket) < EXAMPLES:
            bucket.append(raw.decode(errors="replace")[:2000])

    # --- handlers -------------------------------------------------------------------------

    def _admitted(self, obj, ts, raw):
        self.admitted(self._cq(obj), ref(obj.get("workload")), ts)

    def admitted(self, cq: str, wl: str, ts: float | None) -> None:
        """An admission; ``cq`` is already resolved (see resolve_cq)."""
        q = self._queue(cq, ts)
        q.admitted += 1
        if ts is not None and len(q.admit_times) < TIMES_CAP:
            q.admit_times.append(ts)
        m = self._minute(ts)
        if m is not None:
            q.timeline[m]["admitted"] += 1
        q.heads.pop(wl, None)

    def _requeued(self, obj, ts, raw):
        cq = self._cq(obj)
        reason = "skipped" if obj.get("status") == "skipped" else (obj.get("requeueReason") or "Generic")
        self.requeued(cq, ref(obj.get("workload")), ts, reason)

    def requeued(self, cq: str, wl: str, ts: float | None, reason: str) -> None:
        q = self._queue(cq, ts)
        q.requeue[reason] += 1
        m = self._minute(ts)
        if m is not None:
            q.timeline[m]["requeued"] += 1
        head = q.heads.get(wl)
        if head is None:
            if len(q.heads) >= 1000:  # bounded: forget the least retried head
                q.heads.pop(min(q.heads, key=lambda k: q.heads[k].attempts))
            head = q.heads[wl] = Head(first=ts)
        head.attempts += 1
        head.requeue = reason
        head.last = ts

    def _evaluated(self, obj, ts, raw):
        cq = self._cq(obj)
        self.evaluated(cq, ref(obj.get("workload")), ts, obj.get("status"), obj.get("reason") or "",
                       obj.get("borrowing", 0), obj.get("preempted"), obj.get("schedulingCycle"), raw)

    def evaluated(self, cq: str, wl: str, ts: float | None, status, reason: str, borrowing,
                  preempted, cycle, raw: bytes) -> None:
        if status == "assumed":
            if borrowing > 0 and cq and cq not in self.borrowing:
                self.borrowing[cq] = ts
            return
        if status == "" and reason:
            head = self._queue(cq, ts).heads.get(wl)
            if head is not None:
                head.reason = reason
            return
        if status == "skipped" and OVERLAP in reason:
            q = self._queue(cq, ts)
            q.skipped_overlap += 1
            self._example(self.skipped, raw)
            targets = preempted or []
            for t in targets if isinstance(targets, list) else []:
                v = self._victim(ref(t), ts)
                v.skipper_cqs.add(cq)
                v.preemptors.add(wl)
                v.lines += 1
                self._cycle(v, cycle)

    @staticmethod
    def _cycle(v: Victim, c) -> None:
        if c is None or c != v.last_cycle:
            v.cycles += 1
            v.last_cycle = c

    def _preempted(self, obj, ts, raw):
        target = ref(obj.get("targetWorkload"))
        preemptor = ref(obj.get("preemptingWorkload"))
        v = self._victim(target, ts)
        v.preempted_at = ts if v.preempted_at is None else v.preempted_at
        v.target_cq = ref(obj.get("targetClusterQueue")) or v.target_cq
        if v.target_cq:
            self.workload_cq.setdefault(target, v.target_cq)
            q = self._queue(v.target_cq, ts)
            q.preempted_from += 1
        v.preemptors.add(preemptor)
        # The preemptor's ClusterQueue is often only named by lines after this one; resolved in finish().
        if len(self.issued) < TIMES_CAP:
            self.issued[(preemptor, self._minute(ts))] += 1
        v.lines += 1
        self._example(v.examples, raw)

    def _ongoing(self, obj, ts, raw):
        self.ongoing(ref(obj.get("targetWorkload")), ref(obj.get("preemptingWorkload")), ts,
                     obj.get("schedulingCycle"), raw)

    def ongoing(self, target: str, preemptor: str, ts: float | None, cycle, raw: bytes) -> None:
        v = self._victim(target, ts)
        v.preemptors.add(preemptor)
        v.lines += 1
        self._cycle(v, cycle)
        self._example(v.examples, raw)

    def _no_candidates(self, obj, ts, raw):
        q = self._queue(self._cq(obj), ts)
        q.no_candidates += 1
        self._example(self.no_candidate_examples, raw)

    def _drs(self, obj, ts, raw):
        for item in obj.get("drsValues") or []:
            if isinstance(item, str):
                # releases before v0.16 log each value as "{parentCohort: X, workload ns/name, drs: N}"
                m = DRS_STRING.search(item)
                if not m:
                    continue
                item = {"workload": m.group(1), "drs": m.group(2)}
            if not isinstance(item, dict):
                continue
            wl = ref(item.get("workload"))
            cq = ref(item.get("clusterQueue")) or self.workload_cq.get(wl, "")
            self._drs_value(cq, item.get("drs"), ts, raw)

    def _fs_strategy(self, obj, ts, raw):
        self._drs_value(ref(obj.get("targetClusterQueue")), obj.get("targetOldShare"), ts, raw)

    def _drs_value(self, cq: str, value, ts, raw) -> None:
        if not cq:
            return
        try:
            zero = float(value) == 0.0
        except (TypeError, ValueError):
            return
        if zero:
            seen = self.drs_zero.setdefault(cq, [0, ts, ts, []])
            seen[0] += 1
            seen[2] = ts
            self._example(seen[3], raw)

    def _skip_cq(self, obj, ts, raw):
        q = self._queue(ref(obj.get("clusterQueue")), ts)
        q.not_active[str(obj.get("reason") or "")] += 1

    def _cycle_done(self, obj, ts, raw):
        d = obj.get("duration")
        if isinstance(d, (int, float)):
            self._duration(d)

    def _duration(self, d: float) -> None:
        self.cycles += 1
        self.cycle_total += d
        self.cycle_max = max(self.cycle_max, d)
        if d > 1.0:
            self.cycle_slow += 1

    def _error(self, obj, ts, raw):
        msg = str(obj.get("msg"))
        if b"Operation cannot be fulfilled" in raw:
            self.conflicts += 1
            return
        if len(self.errors) < 1000 or msg in self.errors:
            self.errors[msg] += 1
        self._example(self.error_examples, raw)


_LEADER_MESSAGES = ("attempting to acquire leader lease", "successfully acquired lease",
                    "failed to renew lease", "leader election lost", "starting manager", "Starting manager")

_HANDLERS = {
    MSG_ADMITTED: Evidence._admitted,
    MSG_REQUEUED: Evidence._requeued,
    "Workload re-queued for second pass": Evidence._requeued,
    MSG_EVALUATED: Evidence._evaluated,
    MSG_PREEMPTED: Evidence._preempted,
    MSG_ONGOING: Evidence._ongoing,
    MSG_ALREADY: Evidence._ongoing,
    MSG_NO_CANDIDATES: Evidence._no_candidates,
    MSG_DRS: Evidence._drs,
    MSG_FS_STRATEGY: Evidence._fs_strategy,
    MSG_SKIP_CQ: Evidence._skip_cq,
    MSG_CYCLE: Evidence._cycle_done,
}

# What the fast path looks for right after '"msg":"' (the closing quote makes the match exact).
MESSAGES = tuple(m.encode() + b'"' for m in _HANDLERS) + tuple(m.encode() for m in _LEADER_MESSAGES)
