"""Where a buffer's candidate lines and odd lines are: one multi-pattern literal scan.

The scan looks for every message the scanner reads right after its ``"msg":"`` key, zap's
error-level prefix, and the two byte pairs that only a line other than ``{...}`` makes (a
newline after something else than ``}``, or before something else than ``{``). With the
``hyperscan`` wheel that is one pass at several GB/s over a reused buffer (a memoryview, no
copy); without it (no wheel for the platform) the same hits come from the ``re`` module's
alternation, the pure path the tests force to check both give the same reports.
"""
from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any

from ..kueue.logvocab import (
    LEVEL,
    LEVEL_ERROR,
    MSG,
    MSG_ADMITTED,
    MSG_CYCLE_COMPLETE,
    MSG_DRS_VALUES,
    MSG_EVALUATED,
    MSG_PREEMPTION_ISSUED,
    MSG_PREEMPTION_ONGOING,
    MSG_REQUEUED,
)
from .signatures import MESSAGES, key

hyperscan: Any
try:  # a compiled library with manylinux wheels; the re path below gives the same hits
    import hyperscan
except ImportError:  # pragma: no cover - depends on the platform's wheels
    hyperscan = None
if TYPE_CHECKING:
    import numpy as np

# Kinds of hit. The frequent messages have a kind of their own (the scanner cuts their fields out
# of the bytes); OTHER is any other message read; ERROR a line at error level; ODD_END/ODD_START
# a line that is not "{...}".
ADMITTED, REQUEUED, EVALUATED, ONGOING, ALREADY, CYCLE, DRS, OTHER, ERROR, ODD_END, ODD_START = range(1, 12)
FREQUENT = {
    ADMITTED: MSG_ADMITTED, REQUEUED: MSG_REQUEUED, EVALUATED: MSG_EVALUATED, ONGOING: MSG_PREEMPTION_ONGOING,
    ALREADY: MSG_PREEMPTION_ISSUED, CYCLE: MSG_CYCLE_COMPLETE, DRS: MSG_DRS_VALUES,
}
_KEY = key(MSG) + b'"'
# In alternation order: where two could match at one place the first is the one the scan reports.
_MESSAGES = ([(kind, _KEY + msg.encode() + b'"') for kind, msg in FREQUENT.items()]
             + [(OTHER, _KEY + m) for m in MESSAGES if m.decode().rstrip('"') not in FREQUENT.values()])
assert len(_MESSAGES) == len(MESSAGES)
assert not any(p != q and q.startswith(p) for _, p in _MESSAGES for _, q in _MESSAGES)
ERROR_PREFIX = b"{" + key(LEVEL) + b'"' + LEVEL_ERROR.encode()
_ODD = ((ODD_END, rb"[^}]\n"), (ODD_START, rb"\n[^{]"))


class Hits:
    """A buffer's hits, each list in order: ``msgs`` (where ``msg":"`` starts, kind) of every
    message (a line's own is its leftmost: no two can start at one place, none being a prefix of
    another), ``errors`` where the error-level prefix starts, ``odd`` the starts of lines that are
    not ``{...}``."""

    __slots__ = ("errors", "msgs", "odd")

    def __init__(self, msgs: list, errors: list, odd: list):
        self.msgs = msgs
        self.errors = errors
        self.odd = odd


def _collect(buf: bytes, a: int, raw: list) -> Hits:
    """``raw``: (start, kind, end) in any order."""
    msgs: list = []
    errors: list = []
    odd: set = set()
    if buf[a] != 0x7B:
        odd.add(a)
    raw.sort()
    for start, kind, end in raw:
        if kind < ERROR:
            msgs.append((start + 1, kind))   # + 1: where 'msg":"' starts, after the quote
        elif kind == ERROR:
            errors.append(start)
        else:
            # end - 1: the newline after the odd line (ODD_END), the odd line's start (ODD_START)
            odd.add(buf.rfind(b"\n", a, end - 1) + 1 or a if kind == ODD_END else end - 1)
    return Hits(msgs, errors, sorted(odd))


def _collect_sorted(buf: bytes, a: int, start: np.ndarray, kind: np.ndarray, end: np.ndarray) -> Hits:
    """_collect of hits already in order, as arrays."""
    is_msg = kind < ERROR
    msgs = list(zip((start[is_msg] + 1).tolist(), kind[is_msg].tolist(), strict=True))
    errors = start[kind == ERROR].tolist()
    odd = {a} if buf[a] != 0x7B else set()
    other = kind > ERROR
    for k, e in zip(kind[other].tolist(), end[other].tolist(), strict=True):
        odd.add(buf.rfind(b"\n", a, e - 1) + 1 or a if k == ODD_END else e - 1)
    return Hits(msgs, errors, sorted(odd))


def _hyperscan_db():
    import numpy as np

    exprs = [re.escape(p) for _, p in _MESSAGES] + [re.escape(ERROR_PREFIX)] + [p for _, p in _ODD]
    kinds = [k for k, _ in _MESSAGES] + [ERROR] + [k for k, _ in _ODD]
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=exprs, ids=list(range(len(exprs))), elements=len(exprs), flags=[0] * len(exprs))
    lengths = [len(p) for _, p in _MESSAGES] + [len(ERROR_PREFIX)] + [2, 2]
    assert len(exprs) <= 32   # find() packs the pattern in 5 bits
    return db, np.array(kinds, np.int64), np.array(lengths, np.int64)


_DB = None
# a scratch space a thread: a database's own one cannot serve two scans at once, and the
# scanner's threads (parallel.py) can each be in one
_SCRATCH = threading.local()
# The pure path: one alternation (leftmost match, first alternative on a tie), the error prefix
# and the odd pairs, each a regex pass.
_ALTERNATION = re.compile(b"|".join(b"(" + re.escape(p) + b")" for _, p in _MESSAGES))
_GROUP_KIND = [0] + [k for k, _ in _MESSAGES]
# Lookaheads, so that each newline is seen by both (hyperscan reports overlapping matches).
_ODD_END_RE = re.compile(rb"[^}](?=\n)")
_ODD_START_RE = re.compile(rb"\n(?=[^{])")


def find(buf: bytes, a: int, b: int) -> Hits:
    """The hits in ``buf[a:b]``, whole lines each ending in a newline."""
    global _DB
    if hyperscan is not None:
        if _DB is None:
            _DB = _hyperscan_db()
        import numpy as np  # (here: the compiled extractor's scans need none of it, see ops.py)

        db, kinds, lengths = _DB
        scratch = getattr(_SCRATCH, "space", None)
        if scratch is None or _SCRATCH.db is not db:
            scratch = _SCRATCH.space = hyperscan.Scratch(db)
            _SCRATCH.db = db
        raw: list = []
        # one int a hit (its end and pattern), the rest with numpy: the callback is the per-hit cost
        append = raw.append
        db.scan(memoryview(buf)[a:b], match_event_handler=lambda i, _f, to, _fl, _c: append(to << 5 | i),
                scratch=scratch)
        hits = np.array(raw, np.int64)
        pattern = hits & 31
        end = a + (hits >> 5)
        kind = kinds[pattern]
        start = end - lengths[pattern]
        order = np.lexsort((end, kind, start))
        return _collect_sorted(buf, a, start[order], kind[order], end[order])
    raw = [(m.start(), _GROUP_KIND[m.lastindex or 0], m.end()) for m in _ALTERNATION.finditer(buf, a, b)]
    p = buf.find(ERROR_PREFIX, a, b)
    while p >= 0:
        raw.append((p, ERROR, p + len(ERROR_PREFIX)))
        p = buf.find(ERROR_PREFIX, p + 1, b)
    if buf.count(b"}\n{", a, b) != buf.count(b"\n", a, b) - 1:
        # the ends hyperscan gives: one past the newline (ODD_END), one past the line's first byte
        raw.extend((m.start(), ODD_END, m.end() + 1) for m in _ODD_END_RE.finditer(buf, a, b))
        raw.extend((m.start(), ODD_START, m.end() + 1) for m in _ODD_START_RE.finditer(buf, a, b))
    return _collect(buf, a, raw)
