"""Which log lines matter, and what each one adds to the evidence.

Messages and keys are kueue/logvocab.py's, the ones the simulator writes. ``NEEDLES`` are the
byte strings a chunk is searched for; a hit only makes a line a candidate, the decoded ``msg``
decides what it means. Everything kept is bounded (counters, capped lists), so memory does not
grow with the log.
"""
from __future__ import annotations

import heapq
import importlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import InputError
from ..keys import WorkloadKey
from ..kueue.logvocab import (
    CONFLICT,
    ERROR_LEVELS,
    KEY_CLUSTER_QUEUE,
    KEY_DRS,
    KEY_DRS_VALUES,
    KEY_DURATION,
    KEY_NAME,
    KEY_NAMESPACE,
    KEY_PREEMPTED,
    KEY_PREEMPTING_WORKLOAD,
    KEY_REASON,
    KEY_REQUEUE_REASON,
    KEY_SCHEDULING_CYCLE,
    KEY_STATUS,
    KEY_TARGET_CLUSTER_QUEUE,
    KEY_TARGET_OLD_SHARE,
    KEY_TARGET_WORKLOAD,
    KEY_WORKLOAD,
    LEVEL,
    LEVEL_ERROR,
    MSG,
    MSG_ACQUIRED_LEASE,
    MSG_ACQUIRING_LEASE,
    MSG_ADMITTED,
    MSG_CYCLE_COMPLETE,
    MSG_DRS_VALUES,
    MSG_ELECTION_LOST,
    MSG_EVALUATED,
    MSG_FAIR_SHARING_STRATEGY,
    MSG_NO_CANDIDATES,
    MSG_PREEMPTED,
    MSG_PREEMPTION_ISSUED,
    MSG_PREEMPTION_ONGOING,
    MSG_RENEW_FAILED,
    MSG_REQUEUED,
    MSG_REQUEUED_SECOND_PASS,
    MSG_SKIPPING_CLUSTER_QUEUE,
    MSG_STARTING_MANAGER,
    MSG_STOPPED_LEADING,
    OVERLAPPING_TARGETS,
    REQUEUE_GENERIC,
    REQUEUE_PREEMPTION_NO_CANDIDATES,
    STATUS_ASSUMED,
    STATUS_NOT_NOMINATED,
    STATUS_SKIPPED,
    TS,
    parse_drs_value_text,
)
from .reader import BORROWING
from .timeparse import parse_ts

_summed: Callable | None
try:   # the compiled extractor's twin of Evidence.durations' loop (fastpath.py says when it is built)
    _summed = importlib.import_module("._fastscan", __package__).durations
except ImportError:  # pragma: no cover - depends on the install
    _summed = None


def _no_lines(place: int) -> bytes:
    raise RuntimeError(f"a line named by its place ({place}) with no file to read it from")


def part(text: str, words: str) -> str:
    """``words``, checked to be part of ``text``: a needle cut from a message, which fails at
    import (not silently at scan time) if the message it was cut from changes."""
    if words not in text:
        raise ValueError(f"{words!r} is not part of {text!r}")
    return words


def key(name: str) -> bytes:
    """A key as zap prints it before its value: '"name":'."""
    return b'"' + name.encode() + b'":'


# Needles: short, with an uncommon last byte, so bytes.find can skip ahead quickly.
NEEDLES = (
    MSG_REQUEUED.encode(),
    part(MSG_ADMITTED, "successfully admitted").encode(),
    key(MSG) + b'"' + part(MSG_PREEMPTED, "Preempt").encode(),     # and "Preemption ongoing", "... issued"
    part(OVERLAPPING_TARGETS, "overlapping preemption targets").encode(),
    key(KEY_STATUS) + b'"' + STATUS_ASSUMED.encode() + b'"',
    part(MSG_NO_CANDIDATES, "no candidate workloads").encode(),
    part(MSG_DRS_VALUES, "DominantResourceShare values").encode(),
    part(MSG_FAIR_SHARING_STRATEGY, "FairSharing strategy").encode(),
    MSG_SKIPPING_CLUSTER_QUEUE.encode(),
    MSG_CYCLE_COMPLETE.encode(),
    b"{" + key(LEVEL) + b'"' + LEVEL_ERROR.encode(),
    CONFLICT.encode(),
    part(MSG_ACQUIRING_LEASE, " lease").encode(),
    part(MSG_ELECTION_LOST, "election lost").encode(),
    part(MSG_STARTING_MANAGER, "tarting manager").encode(),       # Starting or starting
    key(KEY_STATUS) + b'"' + STATUS_NOT_NOMINATED.encode() + b'",' + key(KEY_REASON) + b'"',
)

# Lower-case words of the leader-election messages, found inside a message that goes on.
LEADER_WORDS = (part(MSG_ACQUIRING_LEASE, "leader lease"), part(MSG_ACQUIRED_LEASE, "acquired lease"),
                part(MSG_RENEW_FAILED, "renew lease"), part(MSG_ELECTION_LOST, "election lost"),
                MSG_STOPPED_LEADING)
CYCLE_KEY = key(MSG) + b'"' + MSG_CYCLE_COMPLETE.encode() + b'"'
_CONFLICT = CONFLICT.encode()
_STARTING_MANAGER = MSG_STARTING_MANAGER.lower()    # controller-runtime has written both cases
# The label a head skipped in its cycle gets instead of a requeue reason: it waits on another
# head's preemption, it is not a head that cannot fit.
SKIPPED = STATUS_SKIPPED
_DURATION_KEY = key(KEY_DURATION)
_DURATION_LEN = len(_DURATION_KEY)
EXAMPLES = 3
TIMES_CAP = 100_000
HEADS_CAP = 1000


def cycle_duration(line: bytes) -> float | None:
    """The one line every cycle writes: only its duration is needed, so it is not decoded."""
    if CYCLE_KEY not in line:
        return None
    p = line.find(_DURATION_KEY)
    if p < 0:
        return None
    q = line.find(b"}", p)
    try:
        return float(line[p + _DURATION_LEN:q])
    except ValueError:
        return None


def ref(value) -> str:
    """A klog object reference ({"name","namespace"}) or an "ns/name" string, as one string
    (a ClusterQueue's name: cluster-scoped objects have no namespace)."""
    if isinstance(value, dict):
        name = value.get(KEY_NAME) or ""
        ns = value.get(KEY_NAMESPACE)
        return f"{ns}/{name}" if ns else str(name)
    if value is None:
        return ""
    return str(value)


def workload_key(value) -> WorkloadKey | None:
    """The workload a klog object reference ({"name","namespace"}) or an "ns/name" string names;
    None when the line names none (a Workload always has a namespace)."""
    if isinstance(value, dict):
        name = value.get(KEY_NAME)
        ns = value.get(KEY_NAMESPACE)
        return WorkloadKey(str(ns), str(name)) if ns and name else None
    if isinstance(value, str):
        try:
            return WorkloadKey.parse(value)
        except InputError:
            return None
    return None


@dataclass
class Head:
    attempts: int = 0
    reason: str = ""
    requeue: str = ""
    first: float | None = None
    last: float | None = None
    seq: int = 0    # when it became a head: the order of QueueStats.heads


@dataclass
class QueueStats:
    admitted: int = 0
    preemptions_issued: int = 0
    preempted_from: int = 0
    skipped_overlap: int = 0
    no_candidates: int = 0
    requeue: Counter = field(default_factory=Counter)
    not_active: Counter = field(default_factory=Counter)
    heads: dict[WorkloadKey, Head] = field(default_factory=dict)
    admit_times: list = field(default_factory=list)
    timeline: dict = field(default_factory=lambda: defaultdict(Counter))
    first: float | None = None
    last: float | None = None
    # A heap of (attempts, seq, workload) at or below each head's attempts, built at the first
    # time the heads are full: the least retried head is found without a walk over all of them.
    least: list | None = None
    made: int = 0   # heads made so far (their seq)

    def new_head(self, wl: WorkloadKey, ts: float | None, cap: int) -> Head:
        """A head for ``wl``; when there are ``cap`` already, the least retried one (the first
        made among equals, as min() over the heads in order picks) is forgotten first."""
        heads = self.heads
        if len(heads) >= cap:
            heads.pop(self._least_retried())
        self.made += 1
        head = heads[wl] = Head(first=ts, seq=self.made)
        if self.least is not None:
            heapq.heappush(self.least, (0, self.made, wl))
        return head

    def _least_retried(self) -> WorkloadKey:
        heads = self.heads
        least = self.least
        if least is None or len(least) > 4 * len(heads):
            least = self.least = [(h.attempts, h.seq, wl) for wl, h in heads.items()]
            heapq.heapify(least)
        while True:
            attempts, seq, wl = least[0]
            head = heads.get(wl)
            if head is None or head.seq != seq:       # admitted (or made again) since
                heapq.heappop(least)
            elif head.attempts != attempts:           # retried since: attempts only grow
                heapq.heapreplace(least, (head.attempts, seq, wl))
            else:
                heapq.heappop(least)
                return wl


@dataclass
class Retries:
    """One workload's failed preemption attempts: "no candidate workloads allowed for
    preemption" lines and PreemptionNoCandidates re-queues (each cycle writes both)."""
    cluster_queue: str = ""
    no_candidates: int = 0
    requeues: int = 0
    first: float | None = None
    last: float | None = None
    examples: list = field(default_factory=list)

    @property
    def attempts(self) -> int:
        return max(self.no_candidates, self.requeues)


@dataclass
class Victim:
    first: float | None = None
    last: float | None = None
    preempted_at: float | None = None
    target_cq: str = ""
    preemptors: set[WorkloadKey] = field(default_factory=set)
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
        self.victims: dict[WorkloadKey, Victim] = {}
        self.workload_cq: dict[WorkloadKey, str] = {}
        self.borrowing: dict[str, float | None] = {}
        self.drs_zero: dict[str, list] = {}
        self.skipped: list = []
        self.issued: Counter = Counter()
        self.no_candidate_examples: list = []
        self.retries: dict[WorkloadKey, Retries] = {}
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
        # the line that starts at a place of the file being read (set while a regular file is
        # scanned in ranges: its tapes name raw lines by place, see scanner.scan_range)
        self.line_at: Callable[[int], bytes] = _no_lines
        # each worker's workload table so far, by worker (ops.share_keys)
        self.worker_keys: dict[int, list] = {}

    # --- dispatch -------------------------------------------------------------------------

    def feed(self, obj: dict, raw: bytes) -> None:
        ts = parse_ts(obj.get(TS))
        if not self.seen(ts):
            return
        msg = obj.get(MSG)
        if not isinstance(msg, str):
            return
        level = obj.get(LEVEL)
        handler = _HANDLERS.get(msg)
        if handler is not None:
            handler(self, obj, ts, raw)
        if level in ERROR_LEVELS or (isinstance(level, str) and level.lower() in ERROR_LEVELS):
            self._error(obj, ts, raw)
        elif _CONFLICT in raw:
            self.conflicts += 1
        low = msg.lower()
        if any(w in low for w in LEADER_WORDS):
            self.leader_events.append((ts, msg))
            del self.leader_events[:-50]
        if low == _STARTING_MANAGER:
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

    def seen_all(self, times: list) -> None:
        """``seen`` for each of ``times`` (records that add nothing else), in one go."""
        if self.since is not None or self.until is not None:
            for ts in times:
                self.seen(ts)
            return
        self.in_window += len(times)
        known = [t for t in times if t is not None]
        if known:
            lo, hi = min(known), max(known)
            if self.first is None or lo < self.first:
                self.first = lo
            if self.last is None or hi > self.last:
                self.last = hi

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
        return self.resolve_cq(ref(obj.get(KEY_CLUSTER_QUEUE)), workload_key(obj.get(KEY_WORKLOAD)))

    def resolve_cq(self, cq: str, wl: WorkloadKey | None) -> str:
        if wl is None:
            return cq
        if cq:
            self.workload_cq[wl] = cq
        else:
            cq = self.workload_cq.get(wl, "")
        return cq

    @staticmethod
    def _minute(ts: float | None) -> int | None:
        return None if ts is None else int(ts // 60) * 60

    def _victim(self, target: WorkloadKey, ts: float | None) -> Victim:
        v = self.victims.get(target)
        if v is None:
            v = self.victims[target] = Victim()
        if ts is not None:
            if v.first is None or ts < v.first:
                v.first = ts
            if v.last is None or ts > v.last:
                v.last = ts
        return v

    def _example(self, bucket: list, raw: bytes | int) -> None:
        if len(bucket) < EXAMPLES:
            # an int: a line by its place in the file (parallel.py ships no copy)
            line = self.line_at(raw) if isinstance(raw, int) else raw
            bucket.append(line.decode(errors="replace")[:2000])

    # --- handlers -------------------------------------------------------------------------

    def _admitted(self, obj, ts, raw):
        self.admitted(self._cq(obj), workload_key(obj.get(KEY_WORKLOAD)), ts)

    def admitted(self, cq: str, wl: WorkloadKey | None, ts: float | None) -> None:
        """An admission; ``cq`` is already resolved (see resolve_cq)."""
        q = self._queue(cq, ts)
        q.admitted += 1
        if ts is not None and len(q.admit_times) < TIMES_CAP:
            q.admit_times.append(ts)
        m = self._minute(ts)
        if m is not None:
            q.timeline[m]["admitted"] += 1
        if wl is not None:
            q.heads.pop(wl, None)

    def _requeued(self, obj, ts, raw):
        cq = self._cq(obj)
        reason = SKIPPED if obj.get(KEY_STATUS) == STATUS_SKIPPED else (obj.get(KEY_REQUEUE_REASON) or REQUEUE_GENERIC)
        self.requeued(cq, workload_key(obj.get(KEY_WORKLOAD)), ts, reason)

    def requeued(self, cq: str, wl: WorkloadKey | None, ts: float | None, reason: str) -> None:
        q = self._queue(cq, ts)
        q.requeue[reason] += 1
        m = self._minute(ts)
        if m is not None:
            q.timeline[m]["requeued"] += 1
        if wl is None:
            return
        if reason == REQUEUE_PREEMPTION_NO_CANDIDATES:
            r = self._retries(wl, cq, ts)
            if r is not None:
                r.requeues += 1
        head = q.heads.get(wl)
        if head is None:
            head = q.new_head(wl, ts, HEADS_CAP)   # bounded: forgets the least retried head
        head.attempts += 1
        head.requeue = reason
        head.last = ts

    def _evaluated(self, obj, ts, raw):
        cq = self._cq(obj)
        self.evaluated(cq, workload_key(obj.get(KEY_WORKLOAD)), ts, obj.get(KEY_STATUS), obj.get(KEY_REASON) or "",
                       obj.get(BORROWING, 0), obj.get(KEY_PREEMPTED), obj.get(KEY_SCHEDULING_CYCLE), raw)

    def evaluated(self, cq: str, wl: WorkloadKey | None, ts: float | None, status, reason: str, borrowing,
                  preempted, cycle, raw: bytes) -> None:
        if status == STATUS_ASSUMED:
            if borrowing > 0 and cq and cq not in self.borrowing:
                self.borrowing[cq] = ts
            return
        if status == STATUS_NOT_NOMINATED and reason:
            heads = self._queue(cq, ts).heads
            head = heads.get(wl) if wl is not None else None
            if head is not None:
                head.reason = reason
            return
        if status == STATUS_SKIPPED and OVERLAPPING_TARGETS in reason:
            q = self._queue(cq, ts)
            q.skipped_overlap += 1
            self._example(self.skipped, raw)
            targets = preempted or []
            for t in targets if isinstance(targets, list) else []:
                target = workload_key(t)
                if target is None:
                    continue
                v = self._victim(target, ts)
                v.skipper_cqs.add(cq)
                if wl is not None:
                    v.preemptors.add(wl)
                v.lines += 1
                self._cycle(v, cycle)

    @staticmethod
    def _cycle(v: Victim, c) -> None:
        if c is None or c != v.last_cycle:
            v.cycles += 1
            v.last_cycle = c

    def _preempted(self, obj, ts, raw):
        target = workload_key(obj.get(KEY_TARGET_WORKLOAD))
        preemptor = workload_key(obj.get(KEY_PREEMPTING_WORKLOAD))
        if target is None:
            return
        v = self._victim(target, ts)
        v.preempted_at = ts if v.preempted_at is None else v.preempted_at
        v.target_cq = ref(obj.get(KEY_TARGET_CLUSTER_QUEUE)) or v.target_cq
        if v.target_cq:
            self.workload_cq.setdefault(target, v.target_cq)
            q = self._queue(v.target_cq, ts)
            q.preempted_from += 1
        if preemptor is not None:
            v.preemptors.add(preemptor)
            # The preemptor's ClusterQueue is often only named by lines after this one; resolved in finish().
            if len(self.issued) < TIMES_CAP:
                self.issued[(preemptor, self._minute(ts))] += 1
        v.lines += 1
        self._example(v.examples, raw)

    def _ongoing(self, obj, ts, raw):
        self.ongoing(workload_key(obj.get(KEY_TARGET_WORKLOAD)), workload_key(obj.get(KEY_PREEMPTING_WORKLOAD)), ts,
                     obj.get(KEY_SCHEDULING_CYCLE), raw)

    def ongoing(self, target: WorkloadKey | None, preemptor: WorkloadKey | None, ts: float | None, cycle,
                raw: bytes) -> None:
        if target is None:
            return
        v = self._victim(target, ts)
        if preemptor is not None:
            v.preemptors.add(preemptor)
        v.lines += 1
        self._cycle(v, cycle)
        self._example(v.examples, raw)

    def _no_candidates(self, obj, ts, raw):
        cq = self._cq(obj)
        q = self._queue(cq, ts)
        q.no_candidates += 1
        self._example(self.no_candidate_examples, raw)
        wl = workload_key(obj.get(KEY_WORKLOAD))
        r = self._retries(wl, cq, ts) if wl is not None else None
        if r is not None:
            r.no_candidates += 1
            self._example(r.examples, raw)

    def _retries(self, wl: WorkloadKey, cq: str, ts: float | None) -> Retries | None:
        r = self.retries.get(wl)
        if r is None:
            if len(self.retries) >= 1000:   # bounded: the storms are the few most retried
                return None
            r = self.retries[wl] = Retries(first=ts)
        r.cluster_queue = cq or r.cluster_queue
        if ts is not None:
            r.first = ts if r.first is None else min(r.first, ts)
            r.last = ts if r.last is None else max(r.last, ts)
        return r

    def _drs(self, obj, ts, raw):
        for item in obj.get(KEY_DRS_VALUES) or []:
            if isinstance(item, str):
                # releases before v0.16 log each value as a string (logvocab.drs_value_text)
                found = parse_drs_value_text(item)
                if found is None:
                    continue
                item = {KEY_WORKLOAD: found[0], KEY_DRS: found[1]}
            if not isinstance(item, dict):
                continue
            wl = workload_key(item.get(KEY_WORKLOAD))
            cq = ref(item.get(KEY_CLUSTER_QUEUE)) or (self.workload_cq.get(wl, "") if wl is not None else "")
            self.drs_value(cq, item.get(KEY_DRS), ts, raw)

    def _fs_strategy(self, obj, ts, raw):
        self.drs_value(ref(obj.get(KEY_TARGET_CLUSTER_QUEUE)), obj.get(KEY_TARGET_OLD_SHARE), ts, raw)

    def drs_value(self, cq: str, value, ts, raw) -> None:
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
        q = self._queue(ref(obj.get(KEY_CLUSTER_QUEUE)), ts)
        q.not_active[str(obj.get(KEY_REASON) or "")] += 1

    def _cycle_done(self, obj, ts, raw):
        d = obj.get(KEY_DURATION)
        if isinstance(d, (int, float)):
            self._duration(d)

    def _duration(self, d: float) -> None:
        self.durations((d,))

    def durations(self, ds) -> None:
        """Cycle durations, added in file order (a float sum depends on its order)."""
        n, total, top, slow = self.cycles, self.cycle_total, self.cycle_max, self.cycle_slow
        if _summed is not None and type(total) is float and type(top) is float:
            got = _summed(ds, n, total, top, slow)   # the same loop in C (the tests compare both)
            if got is not None:
                self.cycles, self.cycle_total, self.cycle_max, self.cycle_slow = got
                return
        for d in ds:
            n += 1
            total += d
            if d > top:   # what max(top, d) keeps
                top = d
            if d > 1.0:
                slow += 1
        self.cycles, self.cycle_total, self.cycle_max, self.cycle_slow = n, total, top, slow

    def _error(self, obj, ts, raw):
        msg = str(obj.get(MSG))
        if _CONFLICT in raw:
            self.conflicts += 1
            return
        if len(self.errors) < 1000 or msg in self.errors:
            self.errors[msg] += 1
        self._example(self.error_examples, raw)


_LEADER_MESSAGES = (MSG_ACQUIRING_LEASE, MSG_ACQUIRED_LEASE, MSG_RENEW_FAILED, MSG_ELECTION_LOST,
                    _STARTING_MANAGER, MSG_STARTING_MANAGER)

_HANDLERS = {
    MSG_ADMITTED: Evidence._admitted,
    MSG_REQUEUED: Evidence._requeued,
    MSG_REQUEUED_SECOND_PASS: Evidence._requeued,
    MSG_EVALUATED: Evidence._evaluated,
    MSG_PREEMPTED: Evidence._preempted,
    MSG_PREEMPTION_ONGOING: Evidence._ongoing,
    MSG_PREEMPTION_ISSUED: Evidence._ongoing,
    MSG_NO_CANDIDATES: Evidence._no_candidates,
    MSG_DRS_VALUES: Evidence._drs,
    MSG_FAIR_SHARING_STRATEGY: Evidence._fs_strategy,
    MSG_SKIPPING_CLUSTER_QUEUE: Evidence._skip_cq,
    MSG_CYCLE_COMPLETE: Evidence._cycle_done,
}

# What the fast path looks for right after '"msg":"' (the closing quote makes the match exact).
MESSAGES = tuple(m.encode() + b'"' for m in _HANDLERS) + tuple(m.encode() for m in _LEADER_MESSAGES)
