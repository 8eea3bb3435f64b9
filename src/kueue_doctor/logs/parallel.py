"""Regular files: scan byte ranges cut at newlines, in threads or worker processes, apply tapes in order.

A range always starts at a line start, and every line means the same wherever the ranges are
cut (see scanner.py), so the tapes applied in file order give the report one pass would. The
ranges depend only on the file and ``chunk_size``, never on the number of workers, and a
sequential scan walks the very same ranges. Streams (.gz, stdin) cannot be cut and stay in
one process. Threads where the compiled extractor reads every range (its pass holds no GIL),
processes where the per-line path, Python code, does (_threads_do).
"""
from __future__ import annotations

import contextlib
import gc
import io
import itertools
import mmap
import os
import stat
from collections import deque
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import cast

from ..errors import InputError
from ..forking import threads_stopped
from .brief import Unwrapper, complete_line
from .reader import ReadStats, chunks
from .signatures import Evidence

PIECES_PER_RANGE = 8      # a range is this many read chunks (32 MiB with the default 4 MiB)
AUTO_MIN_SIZE = 64 << 20  # below this, starting processes costs more than it saves
IN_FLIGHT = 2             # ranges queued per worker: enough to keep workers busy, memory bounded
THREADS = True            # threads where the compiled pass can run them (_threads_do); the tests turn it off


def regular_file(name: str, stream) -> bool:
    if name in ("-", "<stream>", "<lines>") or not isinstance(stream, io.BufferedReader):
        return False
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (OSError, ValueError):
        return False


class _Slice:
    """read() over bytes [start, stop) of a file: what chunks() needs."""

    def __init__(self, f, start: int, stop: int):
        f.seek(start)
        self.f = f
        self.left = stop - start

    def read(self, n: int) -> bytes:
        if self.left <= 0:
            return b""
        data = self.f.read(min(n, self.left))
        self.left -= len(data)
        return data


def _next_line(f, pos: int, size: int) -> int:
    """The start of the first line that begins after byte ``pos - 1`` (or ``size``)."""
    f.seek(pos - 1)
    at = pos - 1
    while True:
        data = f.read(1 << 16)
        if not data:
            return size
        i = data.find(b"\n")
        if i >= 0:
            return at + i + 1
        at += len(data)


def _line_before(f, at: int) -> bytes | None:
    """The line that ends just before ``at``; None if longer than a runtime's partial part
    can be (runtimes split at 16 KiB), so it is a whole line."""
    start = max(0, at - 1 - (1 << 16))
    f.seek(start)
    data = f.read(at - 1 - start)
    i = data.rfind(b"\n")
    if i < 0 and start > 0:
        return None
    return data[i + 1:]


def _bounds(f, size: int, step: int, fmt: str | None = None) -> list[int]:
    """Line starts at or just after each multiple of ``step``, plus 0 and the end. In a
    container runtime's log (``fmt``) a range never starts inside a line the runtime split:
    the line before a bound is a whole one (CRI ``F``, a Docker entry ending its line)."""
    out = [0]
    pos = step
    while pos < size:
        at = _next_line(f, pos, size)
        while fmt and at < size:
            before = _line_before(f, at)
            if before is None or complete_line(before, fmt):
                break
            at = _next_line(f, at + 1, size)
        if at >= size:
            break
        if at > out[-1]:
            out.append(at)
        pos = max(pos + step, at + 1)
    out.append(size)
    return out


def _scan_mapped(f, start: int, stop: int, max_line: int, stats: ReadStats, tape: list) -> bool:
    """scan_range over the range mapped from the page cache, without reading it into new bytes
    (the copies and their page faults were a fifth of a worker's time). Only where reading it
    with chunks() gives the same lines: the compiled extractor is there, every line ends in a
    newline and none is longer than ``max_line`` (which chunks() would skip; found as the range is
    read, which is then read again otherwise: rare). False: not done, ``stats`` and ``tape`` as
    they were."""
    from . import fastpath, scanner

    fast = fastpath.module()
    if fast is None or not scanner.BATCH or stop <= start:   # (BATCH off: the per-line path, tests)
        return False
    base = start - start % mmap.ALLOCATIONGRANULARITY
    try:
        buf = mmap.mmap(f.fileno(), stop - base, access=mmap.ACCESS_READ, offset=base)
    except (OSError, ValueError):
        return False   # not mappable (a special file): read as a stream
    try:
        a, b = start - base, stop - base
        if buf[b - 1:b] != b"\n":
            return False
        # the compiled path uses what a mapping has (find, slices, the buffer); scan_range hands
        # every other path bytes
        got = ReadStats()
        lines: list = []
        if not scanner.scan_range_compiled(fast, cast(bytes, buf), a, b, got, lines, base, max_line):
            return False
        stats.add(got)
        tape += lines
        return True
    finally:
        with contextlib.suppress(BufferError):   # a view still open: the mapping goes with it
            buf.close()


# In a worker process: the workloads its tapes named so far (ops.share_keys); None elsewhere.
_worker_keys: dict | None = None


def _worker_start() -> None:
    global _worker_keys
    from . import scanner

    gc.enable()   # off in the main process while the Evidence grows (scanner.scan)
    _worker_keys = {}
    scanner.KEYED = False


def scan_piece(path: str, start: int, stop: int, chunk_size: int, max_line: int, window: bool,
               fmt: str | None = None):
    """One range of a file: its line counts and its tape. A runtime's log (``fmt``) is
    unwrapped first; its ranges start after whole lines, so no split line crosses one."""
    stats, tape = _scan_piece(path, start, stop, chunk_size, max_line, window, fmt)
    if _worker_keys is None:   # in this process (threads, or one worker): the tape is not shipped
        return stats, tape
    from .ops import share_keys
    from .scanner import _OPS, thin_examples

    if not window:
        thin_examples(tape)
    worker = os.getpid()
    tape = [(_OPS, share_keys(e[1], _worker_keys, worker)) if e[0] == _OPS else e for e in tape]
    return stats, tape


def _scan_piece(path: str, start: int, stop: int, chunk_size: int, max_line: int, window: bool,
                fmt: str | None):
    from .scanner import scan_range

    stats = ReadStats()
    tape: list = []
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by `with f` below; only open() errors are input errors
    except OSError as e:
        raise InputError(e.strerror or str(e), file=path) from None
    unwrap = Unwrapper(fmt) if fmt else None
    with f:
        if unwrap is None and not window and _scan_mapped(f, start, stop, max_line, stats, tape):
            return stats, tape
        for buf, end in chunks(_Slice(f, start, stop), stats, path, size=chunk_size, max_line=max_line):
            if unwrap is not None:
                buf = unwrap.feed(buf[:end])
                end = len(buf)
            if end:
                scan_range(buf, 0, end, stats, tape, window)
    if unwrap is not None:
        rest = unwrap.finish()
        if rest:
            scan_range(rest, 0, len(rest), stats, tape, window)
    return stats, tape


def _lines_of(f):
    """Evidence.line_at over the open file ``f``: the line that starts at a place, without its
    newline (read again for the few that become examples; see scanner.scan_range's origin)."""
    def line_at(place: int) -> bytes:
        parts = []
        while True:
            data = os.pread(f.fileno(), 1 << 16, place)
            i = data.find(b"\n")
            if i >= 0 or not data:
                parts.append(data if i < 0 else data[:i])
                return b"".join(parts)
            parts.append(data)
            place += len(data)
    return line_at


def _threads_do(window: bool, fmt: str | None) -> bool:
    """Threads, not processes, scan the ranges: where each range is a mapped one read by the
    compiled extractor, whose pass holds no GIL (_fastscan.scan), so the threads run at once and
    the tapes need neither pickling nor a copy-on-write heap. Elsewhere the per-line path is
    Python code, which only processes run side by side."""
    from . import fastpath, scanner

    return THREADS and not window and fmt is None and scanner.BATCH and fastpath.module() is not None


def scan_file(name: str, stream, stats: ReadStats, ev: Evidence, *, workers: int | None,
              chunk_size: int, max_line: int, fmt: str | None = None) -> None:
    before = ev.line_at
    ev.line_at = _lines_of(stream)
    try:
        _scan_file(name, stream, stats, ev, workers, chunk_size, max_line, fmt)
    finally:
        ev.line_at = before
        ev.worker_keys = {}   # a pool's workers only: the next file's may be given the same pids


def _scan_file(name: str, stream, stats: ReadStats, ev: Evidence, workers: int | None,
               chunk_size: int, max_line: int, fmt: str | None) -> None:
    from .scanner import apply

    size = os.fstat(stream.fileno()).st_size
    bounds = _bounds(stream, size, chunk_size * PIECES_PER_RANGE, fmt)
    ranges = [(a, b) for a, b in itertools.pairwise(bounds) if b > a]
    window = ev.since is not None or ev.until is not None
    if workers is None:
        workers = (os.cpu_count() or 1) if size >= AUTO_MIN_SIZE else 1
    workers = max(1, min(workers, len(ranges)))
    if workers == 1:
        for a, b in ranges:
            part, tape = scan_piece(name, a, b, chunk_size, max_line, window, fmt)
            stats.add(part)
            apply(ev, tape)
        return
    threads = _threads_do(window, fmt)
    pool: Executor
    if threads:
        pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kueue-doctor-scan")
    else:
        # fork: workers start in milliseconds with everything already imported. (Imported here:
        # a tenth of the start-up the threads' scan does not need.)
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else None)
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_start)
    with pool:
        todo = iter(ranges)
        pending: deque = deque()
        # the workers are forked as the first ranges are handed out
        with contextlib.nullcontext() if threads else threads_stopped():
            for a, b in todo:
                pending.append(pool.submit(scan_piece, name, a, b, chunk_size, max_line, window, fmt))
                if len(pending) >= workers * IN_FLIGHT:
                    break
        while pending:
            part, tape = pending.popleft().result()
            nxt = next(todo, None)
            if nxt is not None:
                pending.append(pool.submit(scan_piece, name, *nxt, chunk_size, max_line, window, fmt))
            stats.add(part)
            apply(ev, tape)
