"""A file cut into ranges and scanned by worker processes gives the report one pass gives."""
from __future__ import annotations

import io
import itertools
import json
import random
import sys
from pathlib import Path

import pytest

from kueue_doctor.logs import fastpath, parallel, scan
from tests.paths import REPO

from .excerpts import line, zombie_cycles

sys.path.insert(0, str(REPO / "bench"))
import logs_generate

START = 1_787_220_000.0  # 2026-08-20T10:00:00Z, as the generator's main() uses


def _log(tmp_path: Path, size: int = 3 << 20) -> Path:
    out = io.StringIO()
    logs_generate.generate(out, size, seed=7, start=START)
    lines = out.getvalue().splitlines(keepends=True)
    # Odd lines in the middle of clean runs: the scanner must take them line by line wherever
    # a range boundary falls, and count them the same way.
    rng = random.Random(3)
    odd = ["goroutine 7 [running]:\n", "\n", lines[40][:90] + "\n",
           "E0820 10:00:09.000000       1 leaderelection.go:340] failed to renew lease kueue-system/x\n",
           line(5, "Reconciler error", v=0, error="Operation cannot be fulfilled on workloads")
           .replace('"level":"info"', '"level":"error"'),
           line(6, "Skipping ClusterQueue", clusterQueue={"name": "voice"}, reason="NotActive")]
    for text in odd * 3:
        lines.insert(rng.randrange(len(lines)), text)
    path = tmp_path / "kueue.log"
    path.write_text("".join(lines))
    return path


def test_parallel_ranges_give_the_sequential_report(tmp_path):
    path = _log(tmp_path)
    one = scan(str(path), workers=1).to_json()
    # Small chunks make many ranges (8 chunks each), so boundaries fall all over the file.
    many = scan(str(path), workers=1, chunk_size=16 << 10).to_json()
    parallel = scan(str(path), workers=2, chunk_size=16 << 10).to_json()
    assert json.dumps(parallel) == json.dumps(many) == json.dumps(one)
    # The comparison means something: the generated incidents and the odd lines are all seen.
    # (A few MB cover seconds of the generator's hour: too short for its slow releases.)
    assert [f["id"] for f in one["findings"]] == ["stuck-preemption-target", "inactive-queue",
                                                    "controller-unhealthy"]
    # garbage, blank and truncated lines x3; the klog line is read as klog (not malformed)
    assert one["malformed"] == 9 and one["unrecognized"] == 6 and one["health"]["conflicts"] == 3
    assert one["files"][0]["forms"]["klog"] == 3
    assert one["perClusterQueue"]["voice"]["skippedAsInactive"] == {"NotActive": 3}


@pytest.mark.skipif(fastpath.module() is None, reason="the compiled extractor is not built")
def test_threads_and_processes_give_the_same_report(tmp_path, monkeypatch):
    path = _log(tmp_path)
    one = json.dumps(scan(str(path), workers=1, chunk_size=16 << 10).to_json())
    pools: list = []
    real = parallel.ThreadPoolExecutor

    def counted(*args, **kwargs):
        pools.append(args or kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(parallel, "ThreadPoolExecutor", counted)
    threaded = json.dumps(scan(str(path), workers=2, chunk_size=16 << 10).to_json())
    assert len(pools) == 1   # the compiled pass's ranges ran in threads
    monkeypatch.setattr(parallel, "THREADS", False)
    forked = json.dumps(scan(str(path), workers=2, chunk_size=16 << 10).to_json())
    assert len(pools) == 1
    assert threaded == forked == one
    # a window, or the per-line path, is Python code per line: processes, not threads
    monkeypatch.setattr(parallel, "THREADS", True)
    first = scan(str(path), workers=1).first
    scan(str(path), since=first + 10, workers=2, chunk_size=16 << 10)
    assert len(pools) == 1


def test_a_window_gives_the_same_report_in_parallel(tmp_path):
    path = _log(tmp_path, 1 << 20)
    first = scan(str(path), workers=1).first
    since, until = first + 60, first + 600
    seq = scan(str(path), since=since, until=until, workers=1, chunk_size=16 << 10).to_json()
    par = scan(str(path), since=since, until=until, workers=2, chunk_size=16 << 10).to_json()
    assert json.dumps(par) == json.dumps(seq)
    assert seq["lines"] == scan(str(path), workers=1).lines


def test_streams_and_files_agree(tmp_path):
    path = _log(tmp_path, 1 << 20)
    with open(path, "rb") as f:
        streamed = scan(io.BytesIO(f.read()), chunk_size=16 << 10).to_json()
    filed = scan(str(path), workers=2, chunk_size=16 << 10).to_json()
    assert [f.pop("file") for f in streamed["files"] + filed["files"]] == ["<stream>", str(path)]
    assert json.dumps(streamed) == json.dumps(filed)


def test_a_mapped_range_reads_what_chunks_read(tmp_path, monkeypatch):
    """A range is scanned straight from the page cache (parallel._scan_mapped) only where
    chunks() would give the same lines: a too long line or a last line without its newline
    sends the range through chunks(), and every way gives the report the stream path gives."""
    from kueue_doctor.logs import fastpath, parallel

    if fastpath.module() is None:
        return   # without the extension every range is read with chunks()
    mapped: list[bool] = []
    real = parallel._scan_mapped
    monkeypatch.setattr(parallel, "_scan_mapped", lambda *a: mapped.append(real(*a)) or mapped[-1])
    good = [text.encode() for text in zombie_cycles(12)]
    long_line = b'{"level":"info","msg":"dump","blob":"' + b"x" * 5000 + b'"}\n'
    cases = {"plain": (good, True), "too long": ([*good[:5], long_line, *good[5:]], False),
             "no last newline": ([*good[:-1], good[-1].rstrip(b"\n")], False)}
    for name, (lines, maps) in cases.items():
        path = tmp_path / f"{name}.log"
        path.write_bytes(b"".join(lines))
        mapped.clear()
        got = scan(str(path), workers=1, chunk_size=1024, max_line=2048).to_json()
        want = scan(lines, chunk_size=1024, max_line=2048).to_json()
        got.pop("files"), want.pop("files")
        assert got == want, name
        # the range that holds the odd line is read with chunks(), the others are mapped
        assert mapped and all(mapped) is maps and any(mapped), (name, mapped)


def _whole_evidence(tapes: list, line_at=None) -> dict:
    from kueue_doctor.logs import scanner
    from kueue_doctor.logs.signatures import Evidence

    from .test_batch import _ordered

    ev = Evidence()
    if line_at is not None:
        ev.line_at = line_at
    for tape in tapes:
        scanner.apply(ev, tape)
    ev.finish()
    state = {k: _ordered(v) for k, v in vars(ev).items() if k not in ("queues", "victims", "retries", "line_at")}
    for name in ("queues", "victims", "retries"):
        state[name] = [(k, {f: _ordered(x) for f, x in vars(v).items()}) for k, v in getattr(ev, name).items()]
    return state


@pytest.mark.parametrize("batched", [True, False])
def test_thinned_tapes_give_the_same_evidence(tmp_path, monkeypatch, batched):
    """A worker drops the raw lines no example can come from (scanner.thin_examples): the
    Evidence, examples included, is the one of the full tapes, on a mix full of overlap skips
    and victims' lines cut into many small ranges. Batched, those lines are operations (their
    raw lines named by place) and only the few left as events are thinned; per line, all are."""
    from kueue_doctor.logs import parallel, scanner
    from kueue_doctor.logs.reader import MAX_LINE

    from .test_batch import _log as bent_log

    monkeypatch.setattr(scanner, "BATCH", batched)
    path = tmp_path / "kueue.log"
    path.write_bytes(bent_log("v5", 2 << 20, seed=23, bent=0.02))
    size = path.stat().st_size
    for step in (1 << 20, 64 << 10):   # ranges with many such lines each, and with one or two
        with open(path, "rb") as f:
            bounds = parallel._bounds(f, size, step)
        full, thinned = [], []
        dropped = 0
        for a, b in itertools.pairwise(bounds):
            _, tape = parallel._scan_piece(str(path), a, b, 1 << 16, MAX_LINE, False, None)
            full.append(tape)
            _, tape = parallel._scan_piece(str(path), a, b, 1 << 16, MAX_LINE, False, None)
            scanner.thin_examples(tape)
            thinned.append(tape)
            dropped += sum(1 for e in _events(tape) if _raw(e) is None)
        assert batched or dropped > 20, step   # the test means something: raw lines are dropped
        with open(path, "rb") as f:
            assert _whole_evidence(thinned, parallel._lines_of(f)) == _whole_evidence(full, parallel._lines_of(f)), step


def _raw(e: tuple):
    from kueue_doctor.logs import scanner

    # the raw line of an evaluation or a victim's line (the two thin_examples thins)
    return e[10] if e[0] == scanner._EV_EVAL else e[7] if e[0] == scanner._EV_ONGOING else b""


def _events(tape: list):
    for e in tape:
        if e[0] == 10:   # scanner._OPS: its per-line events among the extras
            yield from (x for x in e[1][7] if type(x) is tuple)
        else:
            yield e


def test_drs_lines_named_by_their_place_give_the_same_evidence(tmp_path):
    """A worker's tape names the raw lines of DRS tournaments by their place in the file
    instead of copying them (they were most of a scheduler log's tape); the main process reads
    back the few that become examples. The Evidence is the one of tapes with the copies."""
    from kueue_doctor.logs import fastpath, parallel, scanner
    from kueue_doctor.logs.reader import MAX_LINE, ReadStats

    from .test_batch import _log as bent_log

    if fastpath.module() is None:
        return   # only mapped ranges (which need the extension) name lines by place
    data = bent_log("scheduler", 1 << 20, seed=29, bent=0.0)
    path = tmp_path / "kueue.log"
    path.write_bytes(data)
    with open(path, "rb") as f:
        bounds = parallel._bounds(f, len(data), 48 << 10)
    by_place, copies = [], []
    for a, b in itertools.pairwise(bounds):
        by_place.append(parallel._scan_piece(str(path), a, b, 1 << 16, MAX_LINE, False, None)[1])
        copies.append([])
        scanner.scan_range(data, a, b, ReadStats(), copies[-1], False)
    named = [x for tape in by_place for e in tape if e[0] == 10 for x in e[1][7] if type(x) is int]
    assert len(named) > 100 and len(set(named)) == len(named)   # the test means something
    assert all(data[p - 1:p] == b"\n" and data.startswith(b"{", p) for p in named if p)
    with open(path, "rb") as f:
        got = _whole_evidence(by_place, parallel._lines_of(f))
    want = _whole_evidence(copies)
    assert sum(len(z[3]) for _, z in want["drs_zero"]) >= 6   # examples in several queues
    assert got == want
