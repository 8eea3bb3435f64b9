"""The frequent lines read in batches (logs/batch.py) give the evidence the per-line path gives,
line for line: on both bench mixes, and on them with lines bent out of the exact shapes in every
way the shapes (and the batch's shortcuts) guard against, so those lines must take the per-line
path at their place in the file."""
from __future__ import annotations

import io
import random
import sys

import pytest

from kueue_doctor.logs import ops, scan, scanner
from kueue_doctor.logs.reader import ReadStats
from kueue_doctor.logs.signatures import Evidence
from tests.paths import REPO

sys.path.insert(0, str(REPO / "bench"))
import logs_generate

START = 1_787_220_000.0  # 2026-08-20T10:00:00Z, as the generator's main() uses

# (find, replace): each breaks a shape (or a rule the batch relies on) without breaking the line's
# meaning for json, or breaks the JSON itself; applied to one line in a few.
_BENDS = [
    (b'"namespace":"', b'"namespace":"a\\u0062'),          # an escape in a name
    (b'"logger":"sched', b'"logger":"s\\"ched'),             # an escape where nothing is read
    (b'"caller":"sched', b'"caller":"s\x01ched'),            # a control character: not JSON
    (b'"caller":"sched', b'"caller":"s\tched'),
    (b'"caller":"sched', b'"caller":"s\x7fched'),            # DEL is allowed in JSON
    (b'"name":"job', b'"name":"j\xc3\xa9ob'),                # non-ASCII
    (b'"level":"Level(-2)"', b'"level":"error"'),           # an error line
    (b'"level":"Level(-3)"', b'"level":"FATAL"'),
    (b'"level":"Level(-4)"', b'"level":"debug"'),
    (b'"level":"Level(-4)"', b'"level":"Panic"'),
    (b'"level":"Level(-3)"', b'"level":"fatal"'),
    (b'"level":"Level(-2)"', b'"level":"dpanic"'),
    (b'"nominatedAssignment":{', b'"nominatedAssignment":{"msg":"Scheduling cycle complete","duration":5},"x":{'),
    (b'"ts":"2026', b'"ts":"2026 '),                          # a time parse_ts does not read fast
    (b'Z","logger"', b'","logger"'),                          # no zone
    (b'Z","logger"', b'+00:00","logger"'),
    (b'.', b'.', ),                                           # unchanged: keeps the rest in place
    (b'"requeueReason":"NoFit"', b'"requeueReason":""'),     # the generic reason
    (b'"requeueReason":"NoFit"', b'"requeueReason":"PreemptionNoCandidates"'),
    (b'"status":""}', b'"status":"skipped"}'),
    (b'"status":"","reason":"', b'"status":"skipped","reason":"'),
    (b'"status":"","reason":"couldn', b'"status":"","reason":"'),
    (b'"clusterQueue":{"name":"', b'"clusterQueue":{"name":"'[:-1] + b'"}, "x":{"name":"'),
    (b'"clusterQueue":{"name":"team-a"}', b'"clusterQueue":{"name":""}'),   # no queue: looked up
    (b'"clusterQueue":{"name":"infer"}', b'"clusterQueue":{"name":"team-a"}'),   # the map changes
    (b'"namespace":"team-b"}', b'"namespace":""}'),
    (b'"name":"job-team-c', b'"name":"a/job-team-c'),        # a slash in a name
    (b',"replica-role":"leader"', b''),                       # the tags are optional
    (b',"schedulingCycle":', b',"schedulingCycle":0'),       # a leading zero: not JSON
    (b'"duration":0.', b'"duration":1e-3,"x":0.'),
    (b'"duration":0.', b'"duration":"0.'),
    (b'"drs":"0"', b'"drs":"0.0"'),
    (b'"drs":"0"', b'"drs":"-0"'),
    (b'"drs":"0"', b'"drs":"x"'),
    (b'"drs":"0"', b'"drs":""'),
    (b'"drs":"250"', b'"drs":"0e5"'),
    (b'"drs":"250"', b'"drs":"0"'),
    (b'"drs":"125"', b'"drs":"12a"'),
    (b'"workload":"team-a/', b'"workload":"team-a/b/'),
    (b'"workload":"infer/', b'"workload":"nobody/'),          # a workload no line named yet
    (b'"status":"assumed"', b'"status":"nominated"'),
    (b'"status":"assumed"', b'"status":"other"'),
    (b'"Borrowing":0', b'"Borrowing":3'),
    (b'"Borrowing":1', b'"Borrowing":0'),
    (b'"Borrowing":1', b'"Borrowing":1,"Borrowing":0'),
    (b'"reason":"couldn', b'"reason":"Operation cannot be fulfilled; couldn'),
    (b'"reason":"', b'"reason":"","reason":"'),              # a duplicate key: json keeps the last
    (b'"status":"', b'"status":"\\"'),
    (b'}\n', b',"msg":"Scheduling cycle complete"}\n'),     # a second message in the line
    (b'"msg":"Workload re-queued"', b'"msg":"Workload re-queued","msg":"x"'),
    (b'"added":true', b'"added":1'),
    (b'{"level"', b' {"level"'),                              # indented: an odd line
    (b'}]}\n', b'}]\n'),                                      # cut short
    (b'"}\n', b'"\n'),
]


def _log(mix: str, size: int, seed: int, bent: float) -> bytes:
    out = io.StringIO()
    write = logs_generate.generate_scheduler if mix == "scheduler" else logs_generate.generate
    write(out, size, seed, START)
    lines = out.getvalue().encode().splitlines(keepends=True)
    rng = random.Random(seed)
    for i, line in enumerate(lines):
        if len(line) > 100_000:
            lines[i] = b'{"level":"info","msg":"dump"}\n'   # keep the inputs small
        elif rng.random() < bent:
            fits = [(old, new) for old, new in _BENDS if old in line]
            if fits:
                old, new = fits[rng.randrange(len(fits))]
                lines[i] = line.replace(old, new, 1)
    return b"".join(lines)


def _reports(path, monkeypatch, **kw):
    monkeypatch.setattr(scanner, "BATCH", True)
    got = scan(str(path), **kw).to_json()
    monkeypatch.setattr(scanner, "BATCH", False)
    want = scan(str(path), **kw).to_json()
    return got, want


def _evidence(data: bytes, monkeypatch, on: bool, piece: int) -> tuple:
    """Everything the scan gathered (line counts, the whole Evidence, dicts in their order),
    ``piece`` bytes at a time."""
    monkeypatch.setattr(scanner, "BATCH", on)
    stats = ReadStats()
    ev = Evidence()
    a = 0
    while a < len(data):
        b = data.rfind(b"\n", a, a + piece) + 1 or len(data)
        tape: list = []
        scanner.scan_range(data, a, b, stats, tape, False)
        scanner.apply(ev, tape)
        a = b
    state = {k: _ordered(v) for k, v in vars(ev).items() if k not in ("queues", "victims", "retries")}
    for name in ("queues", "victims", "retries"):   # dataclasses (Head, ...) compare by value
        state[name] = [(k, {f: _ordered(x) for f, x in vars(v).items()}) for k, v in getattr(ev, name).items()]
    return stats.astuple(), state


def _ordered(v):
    """A dict's items in their order (== on dicts ignores it; reports do not)."""
    if isinstance(v, dict):
        return [(k, _ordered(x)) for k, x in v.items()]
    return v


@pytest.mark.parametrize("mix", ["v5", "scheduler"])
@pytest.mark.parametrize("bent", [0.0, 0.02, 0.3])
def test_batches_give_the_per_line_evidence(monkeypatch, mix, bent):
    data = _log(mix, 1 << 20, seed=13, bent=bent)
    for piece in (1 << 22, 1 << 15):
        assert _evidence(data, monkeypatch, True, piece) == _evidence(data, monkeypatch, False, piece)


@pytest.mark.parametrize("mix", ["v5", "scheduler"])
@pytest.mark.parametrize("bent", [0.0, 0.02])
def test_batches_give_the_per_line_report(tmp_path, monkeypatch, mix, bent):
    path = tmp_path / "kueue.log"
    path.write_bytes(_log(mix, 1 << 20, seed=11, bent=bent))
    for kw in ({"workers": 1}, {"workers": 2, "chunk_size": 1 << 16}):
        got, want = _reports(path, monkeypatch, **kw)
        assert got == want, kw


def test_the_frequent_lines_take_the_batch_path():
    """Else the comparisons above would compare the per-line path with itself."""
    data = _log("scheduler", 1 << 20, seed=3, bent=0.0)
    tape: list = []
    scanner.scan_range(data, 0, len(data), ReadStats(), tape, False)
    runs = [e[1] for e in tape if e[0] == scanner._OPS]
    codes = b"".join(r[0] for r in runs)
    per_line = codes.count(bytes([ops.OP_EVENT]))
    assert len(codes) > 20 * per_line > 0     # the no-candidates lines stay per line
    assert set(codes) == {ops.OP_ADMIT, ops.OP_REQUEUE, ops.OP_NOT_NOMINATED, ops.OP_DRS_ZERO,
                          ops.OP_EVENT, ops.OP_ASSUMED}


def test_a_window_takes_the_per_line_path(tmp_path, monkeypatch):
    path = tmp_path / "kueue.log"
    path.write_bytes(_log("scheduler", 1 << 20, seed=5, bent=0.02))
    got, want = _reports(path, monkeypatch, workers=1, since=START + 30, until=START + 90)
    assert got == want
