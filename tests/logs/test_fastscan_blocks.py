"""The compiled extractor's one pass reads a run in blocks of 64 bytes (AVX-512, AVX2 or SSE2
compares, or byte by byte at a run's end and where there is no vector unit): what it finds must not depend
on where a line, a message key, the error prefix, the conflict text or a non-ASCII byte falls
against the blocks, on which of the four ways made a block's masks, or on a message sharing its
first bytes with another; each way gives what the pure path gives."""
from __future__ import annotations

import pickle

import pytest

from kueue_doctor.logs import fastpath

from .test_batch import _log
from .test_fastscan import _TEMPLATES, _pieces, _same_three_ways, needs_extension

_LEVELS = [0, 1, 2, 3]   # byte by byte, SSE2, AVX2, AVX-512BW (each capped at what the CPU has)


@pytest.fixture(params=_LEVELS)
def vector(request):
    fast = fastpath.module()
    fast.configure({**fastpath._config(), "vector": request.param})
    yield fast
    fast.configure(fastpath._config())


def _requeued(wl: str = "job-1", reason: str = "NoFit") -> str:
    return _TEMPLATES["requeued"][0] % ("Level(-2)", "2026-08-20T10:00:00.5Z", "Workload re-queued", 1, wl,
                                        "team-a", "cq-a", "team-a", reason, "")


def _pad(n: int) -> str:
    """A line that is no candidate, n + 1 bytes with its newline (n >= 30)."""
    head = '{"level":"info","msg":"other","x":"'
    return head + "y" * max(0, n - len(head) - 2) + '"}'


def _scan(fast, data: bytes, a: int = 0, b: int | None = None):
    return fast.scan(data, a, len(data) if b is None else b)


@needs_extension
@pytest.mark.parametrize("mix", ["v5", "scheduler"])
def test_each_way_of_reading_blocks_gives_the_same_scan(mix):
    fast = fastpath.module()
    data = _log(mix, 1 << 19, seed=23, bent=0.05)
    got = []
    try:
        for level in _LEVELS:
            fast.configure({**fastpath._config(), "vector": level})
            ends = _pieces(data, 1 << 14)
            got.append([pickle.dumps(_scan(fast, data, a, b)) for a, b in zip([0, *ends], ends, strict=False)])
    finally:
        fast.configure(fastpath._config())
    assert got[0] == got[1] == got[2] == got[3]


@needs_extension
def test_a_frequent_line_at_every_offset_against_the_blocks(vector):
    # the line's start, its message key and its newline each cross a block border somewhere here
    lines = []
    for n in range(30, 30 + 130):
        lines += [_pad(n), _requeued(f"job-{n}")]
    data = ("\n".join(lines) + "\n").encode()
    got = _scan(vector, data)
    assert len(got[1]) == 130 and got[14] == []   # every re-queue taken, nothing left to Python
    _same_three_ways(data, [len(data)])


@needs_extension
def test_a_non_ascii_byte_at_every_offset_sends_its_line_to_python(vector):
    line = _requeued()
    for n in range(30, 30 + 70):
        for at in (0, len(line) // 2, len(line) - 1):
            bent = line[:at] + "é" + line[at:]
            data = ("\n".join([_pad(n), bent, _requeued("job-2")]) + "\n").encode()
            got = _scan(vector, data)
            assert len(got[1]) == 1, (n, at)      # the bent line only goes back, not its neighbour
            assert [kind for _, _, kind in got[14]] == [2]
            start, end, _ = got[14][0]
            assert data[start:end] == bent.encode()
    _same_three_ways(data, [len(data)])


@needs_extension
def test_the_error_prefix_anywhere_hands_the_run_to_the_general_path(vector):
    error = '{"level":"error","ts":"2026-08-20T10:00:00.5Z","msg":"boom"}'
    for n in range(30, 30 + 70):
        for tail in ("", "\n" + _requeued()):
            data = ("\n".join([_requeued(), _pad(n), error]) + tail + "\n").encode()
            assert _scan(vector, data) is None, n
            end = data.index(b"error") + len("error")
            assert _scan(vector, data, 0, end) is None               # the prefix ends the range
            assert _scan(vector, data, 0, end - 1) is not None       # cut by the range's end
            assert _scan(vector, data, data.index(b"error") - 9, len(data)) is not None   # its start cut off
        # within a line, after bytes that only look like its start (its filter's bytes in place)
        decoy = '{"level":"info","msg":"m","x":"{abcdefghijkrlr{zzzzzzzzzzzrzr","y":' + error + '}'
        data = ("\n".join([_pad(n), decoy, _requeued()]) + "\n").encode()
        assert _scan(vector, data) is None, n
        assert _scan(vector, data.replace(b'"error', b'"erroR')) is not None
    _same_three_ways(data, [len(data)])


@needs_extension
def test_the_conflict_text_anywhere_is_found(vector):
    conflict = "Operation cannot be fulfilled"
    for n in range(30, 30 + 70):
        data = ("\n".join([_pad(n), _requeued(reason=conflict), _requeued("job-2")]) + "\n").encode()
        got = _scan(vector, data)
        assert got[17] is True and len(got[1]) == 1 and [k for _, _, k in got[14]] == [2], n
        cut = data.index(conflict.encode()) + len(conflict) - 1   # its last byte cut by the range
        assert _scan(vector, data, 0, cut)[17] is False
        other = ("\n".join([_pad(n), _requeued(), '{"level":"info","msg":"x","e":"' + conflict + '"}']) + "\n").encode()
        got = _scan(vector, other)
        assert got[17] is True and len(got[1]) == 1 and got[14] == []   # in a line that is no candidate
    _same_three_ways(data, [len(data)])


_HEAD = '{"level":"Level(-2)","ts":"2026-08-20T10:00:00.5Z","logger":"scheduler","caller":"x.go:1",'


@needs_extension
@pytest.mark.parametrize(("line", "kinds"), [
    # the key before the other head fields: the message is found, the line read in Python
    ('{"msg":"Workload re-queued","level":"info","ts":"2026-08-20T10:00:00.5Z"}', [2]),
    # a first message that is none of the alternation's, a later one that is
    (_HEAD + '"msg":"Obtained heads","x":{"msg":"Preemption ongoing"}}', [4]),
    (_HEAD + '"msg":"Preemption ongoing"}', [4]),
    # messages that share their first bytes (one bucket): the one that matches whole, in order
    (_HEAD + '"msg":"Workload re-queued for second pass"}', [8]),
    (_HEAD + '"msg":"Workload re-queuedX"}', []),
    (_HEAD + '"msg":"Workload re-queue"}', []),
    (_HEAD + '"msg":"Workload"}', []),
    (_HEAD + '"msg":"Preemption already issued, waiting for observation"}', [5]),
    (_HEAD + '"msg":"Preemption ongoin"}', []),
    (_HEAD + '"msg":"starting manager and more"}', [8]),
    # a key split by what only looks like it
    (_HEAD + '"msg" :"Preemption ongoing"}', []),
    (_HEAD + '"msx":"Preemption ongoing","m":"msg":"Preemption ongoing"}', [4]),
])
def test_the_first_message_of_a_line(vector, line, kinds):
    for n in (30, 61, 62, 63, 64, 65):
        data = ("\n".join([_pad(n), line, _pad(n)]) + "\n").encode()
        got = _scan(vector, data)
        assert [k for _, _, k in got[14]] == kinds, n
        if kinds:
            start, end, _ = got[14][0]
            assert data[start:end] == line.encode()
        _same_three_ways(data, [len(data)])


@needs_extension
def test_a_message_at_the_end_of_a_run_without_its_newline(vector):
    line = _HEAD + '"msg":"Preemption ongoing"}'
    for n in range(30, 30 + 70):
        data = (_pad(n) + "\n" + line).encode()
        got = _scan(vector, data)
        assert got[0] == 1 and [k for _, _, k in got[14]] == [4], n
        assert _scan(vector, data, 0, len(data) - len('ongoing"}'))[14] == []   # the message cut
        assert _scan(vector, data, 0, len(data) - 2)[14] == []   # by its last byte only


@needs_extension
@pytest.mark.parametrize("size", [1, 20, 47, 48, 49, 200])
def test_each_distinct_workload_is_one_key_whatever_its_length(size):
    # the table keeps a value in its slot where it fits, else beside it: either way one id each
    fast = fastpath.module()
    names = ["a" * size, "b" * size, "a" * (size + 1), "a" * size + "/", "a" * (size - 1) + "c"]
    lines = [_requeued(names[i % len(names)]) for i in range(40)]
    got = _scan(fast, ("\n".join(lines) + "\n").encode())
    assert len(got[1]) == 40
    assert sorted(got[9]) == sorted(("team-a", n) for n in names)


@needs_extension
def test_values_whose_hashes_collide_keep_their_own_ids():
    # every hash made 0: only the comparison of the bytes (and their split) tells values apart
    fast = fastpath.module()
    names = ["a" * n for n in (1, 2, 47, 48, 49, 60)] + ["ab", "ba", "b" * 48]
    lines = [_requeued(names[i % len(names)]) for i in range(60)]
    lines += [_TEMPLATES["requeued"][0] % ("Level(-2)", "2026-08-20T10:00:00.5Z", "Workload re-queued", 1, name,
                                           ns, "cq-a", "team-a", "NoFit", "")
              for ns, name in (("team-a", "xyz"), ("team-a", "x"), ("team-ax", ""), ("team-", "ax"), ("", "team-ax"))]
    data = ("\n".join(lines) + "\n").encode() + _log("scheduler", 1 << 17, seed=29, bent=0.05)
    want = _scan(fast, data)
    try:
        fast.configure({**fastpath._config(), "hash_mask": 0})
        got = _scan(fast, data)
    finally:
        fast.configure(fastpath._config())
    assert pickle.dumps(got) == pickle.dumps(want)
    assert len(set(want[9])) > len(names)   # the names, the pairs and the mix's own


@needs_extension
@pytest.mark.parametrize("key", ["a", "z", "A", "Z", "aZ-zA", "-", "cohort"])
def test_a_drs_line_with_any_field_key_of_letters_and_dashes_is_taken(key):
    # scanner._FIELD's key class [A-Za-z-], read in C by one comparison a byte
    fast = fastpath.module()
    items = '{"parentCohort":"gpu","workload":"team-a/job-1","drs":"0"}'
    line = _TEMPLATES["drs"][0] % ("Level(-2)", "2026-08-20T10:00:00.5Z", _TEMPLATES["drs"][1], 1, "cq-a", items)
    taken = line.replace(',"drsValues"', f',"{key}":"x","{key}":{{"name":"y"}},"drsValues"')
    for text, ops, rest in ((taken, 1, 0), (taken.replace(f'"{key}":"x"', f'"{key}@":"x"'), 0, 1),
                            (taken.replace(f'"{key}":"x"', f'"{key}[":"x"'), 0, 1)):
        data = (text + "\n").encode()
        got = _scan(fast, data)
        assert (len(got[1]), len(got[14])) == (ops, rest), text
        _same_three_ways(data, [len(data)])
