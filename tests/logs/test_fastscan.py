"""The compiled extractor (logs/_fastscan.c through logs/fastpath.py) gives what the pure path
gives: the same line counts and the whole Evidence (dicts in their order) as the batches of
batch.py and as the per-line path, on the bench mixes with the 54 bent lines of test_batch.py
and on lines a Hypothesis generator bends (truncation, escapes, non-ASCII, CRLF, missing or
doubled fields, huge values), cut into buffers at random line borders; it is built and used
wherever a C compiler is; and no bytes make it crash."""
from __future__ import annotations

import os
import random
import shutil
import sysconfig

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_doctor.logs import candidates, fastpath, ops, scan, scanner
from kueue_doctor.logs.reader import ReadStats
from kueue_doctor.logs.signatures import Evidence
from kueue_doctor.logs.timeparse import parse_ts

from .test_batch import _log, _ordered

needs_extension = pytest.mark.skipif(fastpath._fastscan is None, reason="the extension is not built here")


def _state(data: bytes, pieces: list[int], compiled: bool, batch: bool) -> tuple:
    """Line counts and the whole Evidence of scanning ``data`` in buffers ending at ``pieces``
    (positions after a newline, the last len(data))."""
    saved = fastpath.ENABLED, scanner.BATCH
    fastpath.ENABLED, scanner.BATCH = compiled and fastpath._fastscan is not None, batch
    try:
        stats = ReadStats()
        ev = Evidence()
        a = 0
        for b in pieces:
            tape: list = []
            scanner.scan_range(data, a, b, stats, tape, False)
            scanner.apply(ev, tape)
            a = b
    finally:
        fastpath.ENABLED, scanner.BATCH = saved
    state = {k: _ordered(v) for k, v in vars(ev).items() if k not in ("queues", "victims", "retries")}
    for name in ("queues", "victims", "retries"):
        state[name] = [(k, {f: _ordered(x) for f, x in vars(v).items()}) for k, v in getattr(ev, name).items()]
    return stats.astuple(), state


def _pieces(data: bytes, size: int) -> list[int]:
    out = []
    a = 0
    while a < len(data):
        b = data.rfind(b"\n", a, a + size) + 1 or data.find(b"\n", a) + 1 or len(data)
        out.append(b)
        a = b
    return out


def _same_three_ways(data: bytes, pieces: list[int]) -> None:
    compiled = _state(data, pieces, True, True)
    assert compiled == _state(data, pieces, False, True), "compiled and batch.py differ"
    assert compiled == _state(data, pieces, False, False), "compiled and the per-line path differ"


@needs_extension
@pytest.mark.parametrize("mix", ["v5", "scheduler"])
@pytest.mark.parametrize("bent", [0.0, 0.02, 0.3])
def test_the_compiled_path_gives_the_pure_evidence_on_the_bent_mixes(mix, bent):
    data = _log(mix, 1 << 20, seed=17, bent=bent)
    for size in (1 << 22, 1 << 15):
        _same_three_ways(data, _pieces(data, size))


@needs_extension
@pytest.mark.parametrize("mix", ["v5", "scheduler"])
def test_the_compiled_path_gives_the_pure_report(tmp_path, monkeypatch, mix):
    path = tmp_path / "kueue.log"
    path.write_bytes(_log(mix, 1 << 20, seed=19, bent=0.02))
    for kw in ({"workers": 1}, {"workers": 2, "chunk_size": 1 << 16}):
        got = scan(str(path), **kw).to_json()
        monkeypatch.setattr(fastpath, "ENABLED", False)
        want = scan(str(path), **kw).to_json()
        monkeypatch.setattr(fastpath, "ENABLED", True)
        assert got == want, kw


# --- Hypothesis: frequent lines bent every way --------------------------------------------------

_HEAD = ('{"level":"%s","ts":"%s","logger":"scheduler","caller":"scheduler/scheduler.go:1","msg":"%s",'
         '"replica-role":"leader","schedulingCycle":%s')
_WLCQ = ',"workload":{"name":"%s","namespace":"%s"},"clusterQueue":{"name":"%s"}'
_TEMPLATES = {
    "admitted": (_HEAD + _WLCQ + ',"parentCohort":{"name":"gpu"},"rootCohort":{"name":"gpu"},"assignments":'
                 '[{"name":"main","flavors":{"nvidia.com/gpu":"h100"},"resourceUsage":{"nvidia.com/gpu":"8"},'
                 '"count":1}]}', "Workload successfully admitted and assigned flavors"),
    "requeued": (_HEAD + _WLCQ + ',"queue":{"name":"default","namespace":"%s"},"requeueReason":"%s",'
                 '"added":true,"status":"%s"}', "Workload re-queued"),
    "evaluated": (_HEAD + _WLCQ + ',"status":"%s","reason":"%s"%s}', "Workload evaluated for admission"),
    "drs": (_HEAD + ',"cohort":{"name":"gpu"},"clusterQueue":{"name":"%s"},"drsValues":[%s]}',
            "DominantResourceShare values used during tournament"),
    "cycle": (_HEAD + ',"duration":%s}', "Scheduling cycle complete"),
    "ongoing": (_HEAD + ',"targetWorkload":{"name":"%s","namespace":"%s"},"preemptingWorkload":{"name":"%s",'
                '"namespace":"%s"}}', "Preemption ongoing"),
    "nocand": (_HEAD + _WLCQ + '}', "Workload requires preemption, but there are no candidate workloads allowed "
               "for preemption"),
}
# durations the extension reads (JSON numbers) and texts it leaves to float() or to the decoder
_DURATIONS = ["1e-3", "2.5E+2", "-0", "0", "01", " 1", "1_0", "inf", "1.", ".5", "-", "1e", "9" * 60,
              "0.1234567890123456789", "1}x", '1,"duration":2']
_BLOB = ',"nominatedAssignment":{"PodSets":[{"Name":"main","Flavors":{"nvidia.com/gpu":{"Name":"h100"}}}],"Borrowing":%s}'
_odd = st.sampled_from(['"', "\\", "\\u0041", "é", "\x01", "\t", "/", " ", "\x7f", "", "0", "ÿ"])
_word = st.one_of(st.sampled_from(["team-a", "team-b", "infer", "job-1", "job-2", "default", "a/b", ""]),
                  st.builds(lambda w, o, n: w + o * n, st.sampled_from(["team-a", "job-1"]), _odd,
                            st.integers(0, 3)),
                  st.builds(lambda n: "x" * n, st.sampled_from([0, 1, 200, 20_000])))
_level = st.sampled_from(["Level(-2)", "Level(-3)", "Level(-4)", "info", "debug", "error", "ERROR", "Fatal",
                          "dpanic", "panic", "Level(-2"])
_ts = st.one_of(st.builds(lambda s, frac: f"2026-08-20T10:{s // 60:02d}:{s % 60:02d}.{frac}Z", st.integers(0, 3599),
                          st.sampled_from(["1", "123", "000000001", "999999999", "1234567890", "12a", ""])),
                st.sampled_from(["2026-08-20T10:00:00Z", "2026-08-20T10:00:00.5+00:00", "2026-08-20 10:00:00.1Z",
                                 "garbage", ""]))
_cycle = st.sampled_from(["1", "500001", "0", "-3", "01", '"7"', "99999999999999999999999"])
_share = st.sampled_from(["0", "0", "250", "1.5", "0.0", "-0", "1e-3", "", "x", "01", "500"])
_status = st.sampled_from(["", "", "skipped", "assumed", "nominated", "other", "\\"])
_reason = st.sampled_from(["", "NoFit", "PreemptionNoCandidates", "couldn't fit", "Operation cannot be fulfilled"])


@st.composite
def _line(draw) -> str:
    kind = draw(st.sampled_from(sorted(_TEMPLATES)))
    template, msg = _TEMPLATES[kind]
    head = (draw(_level), draw(_ts), msg, draw(_cycle))
    w = lambda: draw(_word)  # noqa: E731 - a short name for the many fields below
    if kind == "admitted":
        fields = (w(), w(), w())
    elif kind == "requeued":
        fields = (w(), w(), w(), w(), draw(_reason), draw(_status))
    elif kind == "evaluated":
        blob = draw(st.sampled_from(["", _BLOB % "0", _BLOB % "2", _BLOB % "0" + ',"msg":"Scheduling cycle complete"']))
        fields = (w(), w(), w(), draw(_status), draw(_reason), blob)
    elif kind == "drs":
        item = '{"parentCohort":"gpu","workload":"%s","drs":"%s"}'
        # the extension splits "ns/name" itself: texts WorkloadKey.parse refuses among the valid ones
        wl_text = lambda: draw(st.sampled_from([f"{w()}/{w()}"] * 3 + ["a", "a/b/c", "/b", "a/", "", "//"]))  # noqa: E731
        items = ",".join(item % (wl_text(), draw(_share)) for _ in range(draw(st.integers(0, 4))))
        fields = (w(), items)
    elif kind == "cycle":
        fields = (draw(st.sampled_from(["0.005", "1.5", "2", '"x"', *_DURATIONS])),)
    elif kind == "ongoing":
        fields = (w(), w(), w(), w())
    else:
        fields = (w(), w(), w())
    text = template % (head + fields)
    bend = draw(st.sampled_from(["none", "none", "cut", "drop", "double", "crlf", "indent", "byte"]))
    if bend == "cut":
        text = text[:draw(st.integers(0, len(text)))]
    elif bend == "drop":
        keys = [i for i in range(len(text)) if text.startswith(',"', i)]
        if keys:
            i = draw(st.sampled_from(keys))
            j = text.find(',"', i + 1)
            text = text[:i] + (text[j:] if j > 0 else "}")
    elif bend == "double":
        i = text.find(',"status"')
        if i > 0:
            text = text[:i] + ',"status":"x"' + text[i:]
    elif bend == "crlf":
        text += "\r"
    elif bend == "indent":
        text = "  " + text
    elif bend == "byte":
        i = draw(st.integers(0, len(text)))
        text = text[:i] + draw(st.sampled_from(["\x00", "\xff", '"', "}", "{", "\\"])) + text[i:]
    return text


@needs_extension
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(lines=st.lists(_line(), min_size=1, max_size=40), cuts=st.lists(st.integers(0, 10_000), max_size=4))
def test_bent_lines_give_the_pure_evidence(lines, cuts):
    data = ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")
    ends = [i + 1 for i in range(len(data)) if data[i] == 0x0A]
    pieces = sorted({ends[c % len(ends)] for c in cuts} | {len(data)})
    _same_three_ways(data, pieces)


@needs_extension
@pytest.mark.parametrize("text", ["team-a/a/b", "/a/b", "team-a/", "team-a", "", "team-a/a", "a/b/"])
def test_a_drs_items_workload_text_splits_as_workload_key_parses_it(text):
    # the extension splits a DRS item's "ns/name" itself; a zero share counts for the queue the
    # workload was last seen in only where WorkloadKey.parse accepts the text
    head = ("Level(-2)", "2026-08-20T10:00:00.1Z")
    named = [_TEMPLATES["requeued"][0] % (*head, "Workload re-queued", 1, wl, "team-a", "cq-a", "team-a", "NoFit", "")
             for wl in ("a/b", "a", "")]
    drs_item = '{"parentCohort":"gpu","workload":"' + text + '","drs":"0"}'
    drs = _TEMPLATES["drs"][0] % (*head, _TEMPLATES["drs"][1], 2, "cq-a", drs_item)
    data = ("\n".join([*named, drs]) + "\n").encode()
    _same_three_ways(data, [len(data)])


@needs_extension
@pytest.mark.parametrize("text", _DURATIONS)
def test_a_cycles_duration_reads_as_float_reads_it(text):
    head = ("Level(-2)", "2026-08-20T10:00:00.1Z", "Scheduling cycle complete", 1)
    lines = [_TEMPLATES["cycle"][0] % (*head, d) for d in ("0.25", text, "1e-9", text)]
    lines.insert(2, lines[1][:-1])   # no closing brace: an odd line, read in Python
    data = ("\n".join(lines) + "\n").encode()
    _same_three_ways(data, [len(data)])


# whole seconds the extension reads itself (strict_base) and ones it leaves to scanner._ts:
# impossible dates, leap days, the epoch's edges, and a form only strptime reads (" 5")
_SECONDS = ["2026-08-20T10:00:00", "2024-02-29T23:59:59", "2000-02-29T00:00:00", "1970-01-01T00:00:00",
            "1969-12-31T23:59:59", "0001-01-01T00:00:00", "9999-12-31T23:59:59", "2026-02-29T10:00:00",
            "1900-02-29T10:00:00", "2026-13-01T10:00:00", "2026-00-10T10:00:00", "2026-04-31T10:00:00",
            "0000-01-01T00:00:00", "2026-08-20T24:00:00", "2026-08-20T10:60:00", "2026-08-20T10:00:60",
            "2026-08- 5T10:00:00", "2026-08-2xT10:00:00", "2026/08/20T10:00:00"]


@needs_extension
@pytest.mark.parametrize("second", _SECONDS)
def test_a_lines_time_reads_as_the_per_line_path_reads_it(second):
    lines = []
    for i, frac in enumerate(["1", "000000001", "999999999", "5"]):
        head = ("Level(-2)", f"{second}.{frac}Z", _TEMPLATES["admitted"][1], 3)
        lines.append(_TEMPLATES["admitted"][0] % (*head, f"job-{i}", "team-a", "cq-a"))
        head = ("Level(-2)", f"{second}.{frac}Z", _TEMPLATES["requeued"][1], 3)
        lines.append(_TEMPLATES["requeued"][0] % (*head, f"job-{i}", "team-a", "cq-a", "team-a", "NoFit", ""))
    data = ("\n".join(lines) + "\n").encode()
    _same_three_ways(data, [len(data)])
    ev = _state(data, [len(data)], True, True)[1]
    want = parse_ts(f"{second}.5Z")
    assert ev["last"] == (None if want is None else max(t for t in (parse_ts(f"{second}.{f}Z") for f in
                                                                      ["1", "000000001", "999999999", "5"])))


def _replay_lines(seed: int, n: int) -> list[str]:
    """Scheduler lines in random order over few queues and many workloads: heads made, retried,
    admitted and forgotten past the cap, reasons set, queues resolved from earlier lines, DRS
    zero shares attributed, no-candidate storms; and lines read in Python between them, which
    touch the same queues (the compiled replay sets what it holds back before each)."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        ts = f"2026-08-20T10:{i // 600 % 60:02d}:{i // 10 % 60:02d}.{rng.randrange(1, 10**9)}Z"
        head = (rng.choice(["Level(-2)", "Level(-3)"]), ts)
        wl = f"job-{rng.randrange(3000)}"
        cq = rng.choice(["cq-a", "cq-b", "cq-a", ""])
        kind = rng.choice(["requeued"] * 5 + ["admitted", "evaluated", "drs", "nocand"])
        msg = _TEMPLATES[kind][1]
        if kind == "requeued":
            reason = rng.choice(["PreemptionNoCandidates", "NoFit", ""])
            fields = (wl, "team-a", cq, "team-a", reason, rng.choice(["", "", "skipped"]))
        elif kind in ("admitted", "nocand"):   # nocand: a Python handler touching the same queues
            fields = (wl, "team-a", cq)
        elif kind == "evaluated" and rng.random() < 0.5:   # assumed, borrowing or not, in some queue
            fields = (wl, "team-a", cq, "assumed", "", _BLOB % rng.choice(["1", "2", "-1"]))
        elif kind == "evaluated":
            fields = (wl, "team-a", cq, "", rng.choice(["couldn't fit", ""]), "")
        else:
            items = ",".join(f'{{"parentCohort":"gpu","workload":"team-a/job-{rng.randrange(1300)}","drs":"0"}}'
                             for _ in range(rng.randrange(1, 4)))
            fields = (cq, items)
        out.append(_TEMPLATES[kind][0] % (*head, msg, i, *fields))
    return out


@needs_extension
@pytest.mark.parametrize("seed", [1, 2])
def test_the_compiled_replay_gives_the_pure_evidence(seed):
    # the extension's replay (ops.apply_ops in C) against the Python loop, rule for rule
    data = ("\n".join(_replay_lines(seed, 8000)) + "\n").encode()
    _same_three_ways(data, _pieces(data, 1 << 16))
    _, state = _state(data, [len(data)], True, True)
    queues = dict(state["queues"])
    assert len(queues["cq-a"]["heads"]) == 1000    # the cap was reached: heads were forgotten
    assert state["drs_zero"] and state["retries"]
    assert dict(state["borrowing"]).keys() == {"cq-a", "cq-b"}   # assumed while borrowing, as operations


@needs_extension
def test_the_replay_counts_each_time_in_the_minute_python_gives_it():
    # Evidence._minute is int(ts // 60) * 60; the compiled replay works it out itself (fmod, and
    # Python's rounding of the quotient), before the epoch too, where the quotient is negative
    from kueue_doctor.logs.timeparse import parse_ts

    stamps = ["1969-12-31T23:59:59.5Z", "1969-12-31T23:59:00Z", "1969-12-31T23:58:59.999999999Z",
              "1970-01-01T00:00:00Z", "2026-08-20T10:00:59.999999999Z", "2026-08-20T10:01:00Z",
              "2026-08-20T10:00:00.000000001Z", "2262-04-11T23:47:16.854775807Z"]
    lines = [_TEMPLATES[kind][0] % ("Level(-2)", stamp, _TEMPLATES[kind][1], i, f"job-{i}", "team-a", "cq-a",
                                    *extra)
             for i, stamp in enumerate(stamps)
             for kind, extra in (("admitted", ()), ("requeued", ("team-a", "NoFit", "")))]
    data = ("\n".join(lines) + "\n").encode()
    _same_three_ways(data, [len(data)])
    _, state = _state(data, [len(data)], True, True)
    timeline = dict(dict(dict(state["queues"])["cq-a"])["timeline"])
    minutes = [int(t // 60) * 60 for t in map(parse_ts, stamps) if t is not None]
    assert len(minutes) == len(stamps) and min(minutes) == -120
    assert sorted(timeline) == sorted(set(minutes))
    assert sum(dict(c).get("admitted", 0) for c in timeline.values()) == len(stamps)


@needs_extension
def test_a_line_read_in_python_sees_what_the_replay_did():
    # the replay holds a queue's last time back; a handler between (here the last line) writes its own
    lines = [_TEMPLATES[kind][0] % ("Level(-2)", f"2026-08-20T10:00:0{i}.5Z", _TEMPLATES[kind][1], i, "job-1",
                                    "team-a", "cq-a", *extra)
             for i, (kind, extra) in enumerate([("requeued", ("team-a", "NoFit", "")), ("admitted", ()),
                                                ("nocand", ())])]
    data = ("\n".join(lines) + "\n").encode()
    _same_three_ways(data, [len(data)])
    _, state = _state(data, [len(data)], True, True)
    q = dict(dict(state["queues"])["cq-a"])
    assert (q["first"], q["last"], q["admitted"], q["no_candidates"]) == (1787220000.5, 1787220002.5, 1, 1)


# --- built, used, and safe -----------------------------------------------------------------------

def _compiler_here() -> bool:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h"))
    return headers and shutil.which(cc) is not None


def test_the_extension_is_built_where_a_compiler_is():
    """`pip install -e .` compiles it (setup.py, optional): with gcc and Python's headers, as in CI,
    it must be there, or the fast path would be silently lost."""
    if not _compiler_here():
        pytest.skip("no C compiler or Python headers: the pure path is the one that runs")
    assert fastpath._fastscan is not None, "logs/_fastscan.c was not built: reinstall with `pip install -e .`"


class _Spy:
    def __init__(self, module):
        self.module = module
        self.scans = 0

    def __getattr__(self, name):
        return getattr(self.module, name)

    def scan(self, *args):
        self.scans += 1
        return self.module.scan(*args)


@needs_extension
def test_the_extension_reads_the_frequent_lines(monkeypatch):
    spy = _Spy(fastpath._fastscan)
    monkeypatch.setattr(fastpath, "_fastscan", spy)
    data = _log("scheduler", 1 << 20, seed=3, bent=0.0)
    tape: list = []
    scanner.scan_range(data, 0, len(data), ReadStats(), tape, False)
    assert spy.scans == 1
    got = fastpath._fastscan.scan(data, 0, len(data))
    code, rest, durations = got[1], got[14], got[16]
    assert len(code) > 50 * len(rest) > 0     # the frequent lines and cycle ends in C; a few others per line
    assert set(code) == {0, 1, 2, 3, 5}       # admit, re-queue, not nominated, DRS zero, assumed
    assert len(durations) // 8 > len(rest)    # every cycle's duration


@needs_extension
@settings(max_examples=500, deadline=None)
@given(data=st.binary(max_size=2000), a=st.integers(-5, 2100), b=st.integers(-5, 2100))
def test_random_bytes_never_crash_the_extension(data, a, b):
    fast = fastpath.module()
    for call in (fast.scan, fast.odd, lambda *r: fast.scan(*r, True)):
        try:
            call(data, a, b)
        except ValueError:
            assert not 0 <= a <= b <= len(data)


@needs_extension
def test_mangled_frequent_lines_never_crash_the_extension():
    rng = random.Random(5)
    fast = fastpath.module()
    lines = _log("scheduler", 1 << 16, seed=7, bent=0.3).splitlines(keepends=True)
    for _ in range(3000):
        line = bytearray(rng.choice(lines))
        for _ in range(rng.randrange(1, 4)):
            i = rng.randrange(len(line))
            op = rng.randrange(3)
            if op == 0:
                line[i] = rng.randrange(256)
            elif op == 1:
                del line[i:i + rng.randrange(1, 40)]
            else:
                line[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 8)))
        buf = bytes(line)
        fast.scan(buf, 0, len(buf))
        fast.odd(buf, 0, len(buf))
        fast.scan(buf, 0, len(buf), True)
        fast.scan(buf, 0, rng.randrange(len(buf) + 1))


@needs_extension
def test_the_walk_stops_at_the_first_odd_line_with_what_scan_gives_before_it():
    # scanner.scan_range_compiled reads a range in one walk: the run of JSON lines from a line's
    # start up to the first odd line (fast.odd), what scan gives of that run, its longest line
    fast = fastpath.module()
    rng = random.Random(17)
    head = _TEMPLATES["requeued"][0] % ("Level(-2)", "2026-08-20T10:00:01.5Z", "Workload re-queued", 1, "job-1",
                                        "team-a", "cq-a", "team-a", "NoFit", "")
    error = head.replace('"level":"Level(-2)"', '"level":"error"')
    shapes = [b'{"a":1}', b"", b"{", b"}", b"x", b'{"msg":"' + b"y" * 300 + b'"}', b"  {}", b"{}", head.encode(),
              error.encode(), b"  " + error.encode(), b"x" + head.encode()]
    for _ in range(600):
        buf = b"\n".join(rng.choice(shapes) for _ in range(rng.randrange(1, 30)))
        if rng.random() < 0.8:
            buf += b"\n"
        b = rng.choice([len(buf), buf.find(b"\n") + 1 or len(buf)])
        a = buf.rfind(b"\n", 0, rng.randrange(b + 1)) + 1   # a line's start
        got, stop, longest = fast.scan(buf, a, b, True)
        odd = [p for p in fast.odd(buf, a, b) if p >= a]
        assert stop == (odd[0] if odd else b), (buf, a, b)
        assert longest == max((len(x) for x in buf[a:stop].split(b"\n")), default=0), (buf, a, b)
        assert got == fast.scan(buf, a, stop), (buf, a, b)


@needs_extension
def test_a_mapped_range_with_a_line_past_max_line_is_read_otherwise(tmp_path):
    # parallel._scan_mapped learns of a too long line as it reads: nothing it read is kept
    from kueue_doctor.logs import parallel

    data = _log("scheduler", 1 << 18, seed=5, bent=0.0)
    at = data.find(b"\n", len(data) // 2) + 1
    data = data[:at] + b'{"msg":"' + b"z" * 5000 + b'"}\n' + data[at:]
    path = tmp_path / "kueue.log"
    path.write_bytes(data)
    stats, tape = ReadStats(), []
    with open(path, "rb") as f:
        assert not parallel._scan_mapped(f, 0, len(data), 4096, stats, tape)
        assert stats.astuple() == ReadStats().astuple() and tape == []
        assert parallel._scan_mapped(f, 0, len(data), 8192, stats, tape)
    assert stats.lines == data.count(b"\n") and tape


@needs_extension
def test_an_assumed_workload_marks_its_queue_borrowing_once():
    # Evidence.evaluated of "assumed": only a positive Borrowing counts, the first time per queue,
    # in the queue the line names or (none named) the one its workload was last seen in
    def evaluated(i, wl, cq, borrowing):
        return _TEMPLATES["evaluated"][0] % ("Level(-3)", f"2026-08-20T10:00:0{i}.5Z", _TEMPLATES["evaluated"][1], i,
                                             wl, "team-a", cq, "assumed", "", _BLOB % borrowing)
    admitted = _TEMPLATES["admitted"][0] % ("Level(-2)", "2026-08-20T10:00:00.1Z", _TEMPLATES["admitted"][1], 0,
                                            "job-2", "team-a", "cq-b")
    lines = [admitted, evaluated(1, "job-1", "cq-a", "-1"), evaluated(2, "job-1", "cq-a", "1"),
             evaluated(3, "job-1", "cq-a", "2"), evaluated(4, "job-2", "", "1")]
    data = ("\n".join(lines) + "\n").encode()
    _same_three_ways(data, [len(data)])
    for compiled in (True, False):
        _, state = _state(data, [len(data)], compiled, True)
        assert dict(state["borrowing"]) == {"cq-a": 1787220002.5, "cq-b": 1787220004.5}


@needs_extension
def test_cycle_durations_add_up_as_python_adds_them():
    from kueue_doctor.logs import signatures

    rng = random.Random(11)
    pool = [0.0, -0.0, 1.0, 1.0000001, 0.1, 1e-300, 1e300, -2.5, float("inf"), float("-inf"), float("nan")]
    for case in range(400):
        runs = [[rng.choice(pool) if rng.random() < 0.3 else rng.expovariate(3.0) for _ in range(rng.randrange(40))]
                for _ in range(3)]
        if case % 50 == 0:
            runs[1].append(2)   # an int: the Python loop adds that run
        got, want = Evidence(), Evidence()
        for ds in runs:
            got.durations(ds)
            saved, signatures._summed = signatures._summed, None
            try:
                want.durations(ds)
            finally:
                signatures._summed = saved
        pairs = [(getattr(got, k), getattr(want, k)) for k in ("cycles", "cycle_total", "cycle_max", "cycle_slow")]
        assert all(repr(a) == repr(b) and type(a) is type(b) for a, b in pairs), (runs, pairs)


_MANY_QUEUES = """
import random, sys
sys.path.insert(0, %r)
from tests.logs.test_fastscan import _TEMPLATES, _same_three_ways
rng = random.Random(3)
lines = []
for i in range(3000):
    ts = f"2026-08-20T10:{i // 600 %% 60:02d}:{i // 10 %% 60:02d}.{rng.randrange(1, 10**9)}Z"
    cq, wl = f"cq-{rng.randrange(100)}", f"job-{rng.randrange(500)}"
    kind = rng.choice(["requeued", "admitted"])
    fields = (wl, "team-a", cq, "team-a", "NoFit", "") if kind == "requeued" else (wl, "team-a", cq)
    lines.append(_TEMPLATES[kind][0] %% ("Level(-2)", ts, _TEMPLATES[kind][1], i, *fields))
data = ("\\n".join(lines) + "\\n").encode()
_same_three_ways(data, [len(data)])
print("same")
"""


@needs_extension
def test_the_replay_keeps_its_queues_apart_past_its_first_table():
    # a run over 100 queues grows the replay's queue table while its text ids still point at
    # entries: under Python's debug allocator freed memory is poisoned, so a stale entry crashes
    import subprocess
    import sys

    from tests.paths import REPO

    env = {**os.environ, "PYTHONMALLOC": "debug"}
    done = subprocess.run([sys.executable, "-c", _MANY_QUEUES % str(REPO)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "same", (done.returncode, done.stderr[-2000:])


# --- a run's workload table as keys (ops._workload_keys) ---------------------------------------

def _keys_both_ways(pairs: list, cached: dict) -> tuple:
    """ops._workload_keys of ``pairs`` in C and in Python, each from a copy of ``cached`` as
    ops._KEYS: (C's list, its cache after, Python's list, its cache after)."""
    out = []
    for fast in (fastpath.module(), None):
        saved = ops._KEYS
        ops._KEYS = dict(cached)
        try:
            out += [ops._workload_keys(list(pairs), fast), ops._KEYS]
        finally:
            ops._KEYS = saved
    return tuple(out)


@needs_extension
def test_workload_keys_in_c_are_the_keys_python_makes():
    from kueue_doctor.keys import WorkloadKey

    old = WorkloadKey("team-a", "job-0")
    cached = {("team-a", "job-0"): old}
    pairs = [("team-a", "job-0"), ("", ""), ("team-a", "job-1"), ("team-b", "job-1"), ("team-a", "job-1"),
             ("team-a", "é/x"), ("", "")]
    got, got_cache, want, want_cache = _keys_both_ways(pairs, cached)
    assert got == want == [old, None, WorkloadKey("team-a", "job-1"), WorkloadKey("team-b", "job-1"),
                           WorkloadKey("team-a", "job-1"), WorkloadKey("team-a", "é/x"), None]
    assert [type(k) for k in got] == [type(k) for k in want]
    assert got[0] is old and got[2] is got[4] is got_cache[("team-a", "job-1")]   # one object per workload
    assert list(got_cache.items()) == list(want_cache.items())
    assert all(type(k) is WorkloadKey and k.namespace == ns and k.name == n and str(k) == f"{ns}/{n}"
               for (ns, n), k in got_cache.items())
    assert {got[2]: 1}[WorkloadKey("team-a", "job-1")] == 1   # hashes as the NamedTuple does


@needs_extension
def test_workload_keys_in_c_empty_the_cache_where_python_does(monkeypatch):
    monkeypatch.setattr(ops, "KEYS_BOUND", 3)
    pairs = [("ns", f"job-{i % 7}") for i in range(30)]
    got, got_cache, want, want_cache = _keys_both_ways(pairs, {})
    assert got == want and list(got_cache.items()) == list(want_cache.items())
    assert len(got_cache) <= 4 and len({id(k) for k in got}) == len({id(k) for k in want}) > 7   # made again


@needs_extension
@pytest.mark.parametrize("bound", [2, 1_000_000])
def test_the_scans_keyed_workload_tables_are_the_keys_python_makes(monkeypatch, bound):
    from kueue_doctor.keys import WorkloadKey
    monkeypatch.setattr(ops, "KEYS_BOUND", bound)
    monkeypatch.setattr(fastpath, "_CONFIGURED", False)   # the extension's own key table: bounded likewise
    fast = fastpath.module()
    lines = []
    for i in range(24):
        head = ("Level(-2)", "2026-08-20T10:00:00.5Z", _TEMPLATES["admitted"][1], 3)
        lines.append(_TEMPLATES["admitted"][0] % (*head, f"job-{i % 9}", "" if i == 5 else "team-a", "cq-a"))
    data = ("\n".join(lines) + "\n").encode()
    plain = fast.scan(data, 0, len(data))[9]
    keyed = fast.scan(data, 0, len(data), False, True)[9]
    again = fast.scan(data, 0, len(data), False, True)[9]
    assert keyed == plain == again and len(plain) == 10   # 9 named, one without a namespace
    assert all(type(k) is tuple for k in plain) and ("", "") in plain and ("", "") in keyed
    named = [k for k in keyed if k[0]]
    assert all(type(k) is WorkloadKey for k in named) and all(type(k) is tuple for k in keyed if not k[0])
    # kept across scans while under the bound, made again past it; a namespace's str shared
    assert all((a is b) == (bound > 100) for a, b in zip(named, (k for k in again if k[0]), strict=True))
    assert all((k[0] is named[0][0]) == (bound > 100) for k in named[3:])
    assert ops._workload_keys(keyed, fast) == ops._workload_keys(plain, fast) == ops._workload_keys(plain)
    monkeypatch.undo()
    fastpath._CONFIGURED = False


@needs_extension
def test_workload_keys_refuse_what_is_not_a_pair_or_a_key_type():
    from kueue_doctor.keys import WorkloadKey

    fast = fastpath.module()
    for bad in ([["ns", "a"]], [("ns",)], [("ns", "a", "b")], [None]):
        with pytest.raises(TypeError):
            fast.workload_keys(bad, {}, WorkloadKey, 10)

    class Slotted(tuple):   # a __dict__: not a bare tuple's layout
        pass

    with pytest.raises(TypeError):
        fast.workload_keys([("ns", "a")], {}, Slotted, 10)


# --- victims' lines as operations (ops.OP_ONGOING) ---------------------------------------------

_PER_WORKLOAD = ',"workload":{"name":"%s","namespace":"team-b"},"clusterQueue":{"name":"cq-b"},"parentCohort":{"name":"gpu"}'


def _victim_lines(seed: int, n: int) -> list[str]:
    """Victims' lines ("Preemption ongoing", "... already issued") over few targets, so their
    examples fill up: cycles repeated, absent, at int32's edges and past them; targets and
    preemptors unnamed; the scheduler's per-workload keys before the target; times unreadable;
    and overlap skips and admissions between them that touch the same victims and workloads."""
    rng = random.Random(seed)
    template, _ = _TEMPLATES["ongoing"]
    out = []
    cycle = 100
    for i in range(n):
        ts = rng.choice([f"2026-08-20T10:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(1, 10**9)}Z"] * 8
                        + ["2026-08-20T10:00:00Z", "garbage"])
        cycle += rng.choice([0, 0, 1, 1, 2])
        cyc = rng.choice([str(cycle)] * 6 + ["2147483647", "-2147483647", "-2147483648", "2147483648", "0"])
        msg = rng.choice(["Preemption ongoing", "Preemption already issued, waiting for observation"])
        target = rng.choice([f"job-{rng.randrange(12)}"] * 6 + [""])
        preemptor = rng.choice([f"head-{rng.randrange(5)}"] * 4 + [""])
        line = template % ("Level(-3)", ts, msg, cyc, target, rng.choice(["team-a", "team-a", ""]), preemptor, "team-b")
        if rng.random() < 0.2:
            line = line.replace(',"targetWorkload"', _PER_WORKLOAD % preemptor + ',"targetWorkload"')
        if rng.random() < 0.1:
            line = line.replace(',"schedulingCycle":' + cyc, "")
        if rng.random() < 0.05:
            line = line.replace("team-a", "tëam-a")   # non-ASCII: the per-line path's, at its place
        out.append(line)
        if rng.random() < 0.1:
            blob = ',"nominatedAssignment":{"Borrowing":0},"preempted":[{"name":"job-%d","namespace":"team-a"}]}'
            tmpl, m = _TEMPLATES["evaluated"]
            out.append(tmpl[:-1] % ("Level(-3)", ts, m, cycle, "head-1", "team-b", "cq-b", "skipped",
                                    "Workload has overlapping preemption targets with another workload", "") + blob % rng.randrange(12))
        if rng.random() < 0.1:
            tmpl, m = _TEMPLATES["admitted"]
            out.append(tmpl % ("Level(-2)", ts, m, cycle, f"head-{rng.randrange(5)}", "team-b", "cq-b"))
    return out


def _scanned(lines: list[str]) -> tuple[bytes, bytes, list[int]]:
    """The log of ``lines``, the codes of the operations the extension read from it, and the
    kinds of the lines it left to Python."""
    data = ("\n".join(lines) + "\n").encode()
    got = fastpath.module().scan(data, 0, len(data))
    return data, got[1], [kind for _, _, kind in got[14]]


@needs_extension
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_victims_lines_as_operations_give_the_per_line_evidence(seed):
    data, codes, left = _scanned(_victim_lines(seed, 3000))
    assert codes.count(ops.OP_ONGOING) == codes.count(ops.OP_PREEMPTOR) > 2000   # read by the extension
    assert sum(kind in (candidates.ONGOING, candidates.ALREADY) for kind in left) > 100   # and Python
    _same_three_ways(data, _pieces(data, 1 << 15))
    _, state = _state(data, [len(data)], True, True)
    victims = {k: v for k, v in state["victims"] if k.namespace == "team-a"}
    assert len(victims) == 12 and all(len(v["examples"]) == 3 for v in victims.values())
    assert all(v["cycles"] < v["lines"] and v["preemptors"] and v["skipper_cqs"] for v in victims.values())


@needs_extension
def test_a_victims_cycle_past_int32_is_read_on_the_per_line_path():
    template, msg = _TEMPLATES["ongoing"]
    cycles = ["2147483647", "2147483648", "-2147483647", "-2147483648", "7", "007"]
    data, codes, left = _scanned([template % ("Level(-3)", "2026-08-20T10:00:01.5Z", msg, c, "job-1", "team-a", "head",
                                              "team-b") for c in cycles])
    assert codes.count(ops.OP_ONGOING) == 3 and len(left) == 3   # 2**31, -2**31 and 007 are Python's
    _same_three_ways(data, [len(data)])
    _, state = _state(data, [len(data)], True, True)
    (_, v), = state["victims"]
    assert (v["lines"], v["cycles"], v["last_cycle"]) == (5, 5, 7)   # "007" is not JSON: a malformed line


# --- assumed evaluations with their V(4) blob, read by the extension ------------------------------

_BLOBS = ['"Borrowing":1}', '"Borrowing":0}', '"Borrowing":00}', '"Borrowing":007}', '"Borrowing":-1}',
          '"Borrowing":null,"x":{"Borrowing":2}}', '"Borrowing":null,"x":{"Borrowing":0}}', '"Borrowing":"1"}',
          '"Borrowing":12345678901234567890123}', '"Usage":{"{\\"Flavor\\":\\"h100\\"}":8},"Borrowing":3}',
          '"Borrowing":1,"msg":"Scheduling cycle complete"}', '"Borrowing":1}', '"Borrowing":']


def _assumed_lines(seed: int, n: int) -> list[str]:
    """Assumed evaluations over a few queues: blobs with and without a positive Borrowing (the
    first one with digits counts, whatever comes before it), none, a cycle's key in one, at an
    error level, with the conflict text; queues named or to be looked up; and admissions and
    re-queues between them naming the same workloads in other queues."""
    rng = random.Random(seed)
    tmpl, msg = _TEMPLATES["evaluated"]
    out = []
    for i in range(n):
        ts = f"2026-08-20T10:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(1, 10**9)}Z"
        wl, cq = f"job-{rng.randrange(40)}", rng.choice(["cq-a", "cq-b", "cq-c", "cq-d", ""])
        level = rng.choice(["Level(-3)"] * 20 + ["ERROR"])   # (not "error": its prefix hands the run to Python)
        blob = rng.choice(["", ',"nominatedAssignment":{' + rng.choice(_BLOBS)])
        reason = rng.choice(["", "", "Operation cannot be fulfilled"])
        out.append(tmpl % (level, ts, msg, i, wl, "team-a", cq, "assumed", reason, blob))
        if rng.random() < 0.3:
            kind = rng.choice(["admitted", "requeued"])
            extra = ("team-a", "NoFit", "") if kind == "requeued" else ()
            out.append(_TEMPLATES[kind][0] % ("Level(-2)", ts, _TEMPLATES[kind][1], i, wl, "team-a",
                                              rng.choice(["cq-a", "cq-b", "cq-e"]), *extra))
    return out


@needs_extension
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_assumed_evaluations_read_by_the_extension_give_the_per_line_evidence(seed):
    data, codes, left = _scanned(_assumed_lines(seed, 1500))
    assert codes.count(ops.OP_ASSUMED) > 250   # in C (the rest dropped: no positive borrowing)
    assert left.count(candidates.EVALUATED) > 30   # the cycle's, error and conflict lines in Python
    _same_three_ways(data, _pieces(data, 1 << 14))


@needs_extension
@pytest.mark.parametrize("blob", _BLOBS)
def test_an_assumed_workloads_borrowing_is_the_first_number_after_its_key(blob):
    tmpl, msg = _TEMPLATES["evaluated"]
    line = tmpl % ("Level(-3)", "2026-08-20T10:00:01.5Z", msg, 1, "job-1", "team-a", "cq-a", "assumed", "",
                   ',"nominatedAssignment":{' + blob)
    data = (line + "\n").encode()
    _same_three_ways(data, [len(data)])
    _, state = _state(data, [len(data)], True, True)
    after = blob.split('"Borrowing":')[1:]
    digits = next((b for b in after if b[:1].isdigit()), "0")
    digits = digits[:len(digits) - len(digits.lstrip("0123456789"))]
    # (a first key followed by "0" is dropped before any reading, 007 too: _keep_evaluated)
    assert bool(state["borrowing"]) == (int(digits) > 0 and not after[0].startswith("0")), state["borrowing"]


# --- overlap skips as operations (ops.OP_SKIP) -------------------------------------------------

_TARGET_LISTS = ['[{"name":"job-%d","namespace":"team-a"}]', '[]', '[{"name":"job-%d","namespace":"team-a"},'
                 '{"name":"job-3","namespace":"team-a"},{"name":"job-4","namespace":""}]',
                 '["team-a/job-%d"]', '{"name":"job-%d"}', 'null', '[{"name":"j\\u006fb-%d","namespace":"team-a"}]',
                 '[{"name":"job-%d\\ud800","namespace":"team-a"}]', '[{"namespace":"team-a","name":"job-%d"}]',
                 '[{"name":"job-%d","namespace":"team-a"}] ', '[{"name":"job-%d","namespace":"team-a"}]},"x":{"y":1']


def _skip_lines(seed: int, n: int) -> list[str]:
    """Heads skipped for overlapping targets over a few targets and queues (their examples fill
    up): target lists plain, empty, with unnamed targets, as strings, escaped, in another key
    order, not lists; no blob; cycles past int32; queues to be looked up; other skips; the
    conflict text; and victims' lines and admissions between them on the same workloads."""
    rng = random.Random(seed)
    tmpl, msg = _TEMPLATES["evaluated"]
    overlap = "Workload has overlapping preemption targets with another workload"
    out = []
    for i in range(n):
        ts = f"2026-08-20T10:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(1, 10**9)}Z"
        head, cq = rng.choice([f"head-{rng.randrange(6)}"] * 5 + ["lone"]), rng.choice(["cq-a", "cq-b", "cq-c", ""])
        cq = "" if head == "lone" else cq   # (a head whose queue is never named)
        targets = rng.choice(_TARGET_LISTS * 3 + ['[{"name":"job-%d","namespace":"team-a"}]'] * 20)
        targets = targets.replace("%d", str(rng.randrange(8)))
        blob = rng.choice([',"nominatedAssignment":{"Borrowing":0},"preempted":' + targets] * 9 + [""])
        reason = rng.choice([overlap] * 12 + ["couldn't fit", overlap + " (Operation cannot be fulfilled)"])
        cycle = rng.choice([str(i)] * 8 + ["2147483648", str(i - 1)])
        out.append(tmpl % ("Level(-3)", ts, msg, cycle, head, "team-b", cq, "skipped", reason, blob))
        if rng.random() < 0.2:
            out.append(_TEMPLATES["ongoing"][0] % ("Level(-3)", ts, _TEMPLATES["ongoing"][1], i,
                                                   f"job-{rng.randrange(8)}", "team-a", f"pre-{i % 3}", "team-b"))
        if rng.random() < 0.2:
            out.append(_TEMPLATES["admitted"][0] % ("Level(-2)", ts, _TEMPLATES["admitted"][1], i, head, "team-b",
                                                    rng.choice(["cq-a", "cq-d"])))
    return out


@needs_extension
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_overlap_skips_as_operations_give_the_per_line_evidence(seed):
    data, codes, left = _scanned(_skip_lines(seed, 2000))
    assert codes.count(ops.OP_SKIP) > 800 and codes.count(ops.OP_SKIP_TARGET) > 800   # in C
    assert left.count(candidates.EVALUATED) > 100   # and Python
    _same_three_ways(data, _pieces(data, 1 << 15))
    _, state = _state(data, [len(data)], True, True)
    victims = {k.name: v for k, v in state["victims"] if k.name in {f"job-{i}" for i in range(8)}}
    assert len(victims) == 8
    assert all(v["skipper_cqs"] and v["preemptors"] and v["cycles"] < v["lines"] for v in victims.values())
    assert len(state["skipped"]) == 3 and sum(q["skipped_overlap"] for _, q in state["queues"]) > 1500
