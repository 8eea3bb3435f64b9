"""The inputs of the golden comparison: today's reports (made by the scanner before the
multi-pattern scan and the bulk aggregation, kept in golden_reports.json) against the scanner's
now, on generated logs of both bench mixes and on every controller log in the repository, plain
and as container runtimes store them (CRI, CRI with lines split into partial parts, Docker),
gzipped. Regenerate (only when a report is meant to change) with
``python -m tests.logs.golden tests/logs/golden_reports.json``."""
from __future__ import annotations

import gzip
import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.paths import REPO

sys.path.insert(0, str(REPO / "bench"))
import logs_generate

START = 1_787_220_000.0  # 2026-08-20T10:00:00Z, as the generator's main() uses
LOGS = sorted(p for pattern in ("tests/**/*.log", "tests/**/*.log.gz", "examples/**/*.log", "examples/**/*.log.gz")
              for p in REPO.glob(pattern))
_STAMP = b"2026-08-06T15:41:28.950000000Z"


def _plain(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def _generated(mix: str, size: int) -> bytes:
    out = io.StringIO()
    write = logs_generate.generate_scheduler if mix == "scheduler" else logs_generate.generate
    write(out, size, 5, START)
    return out.getvalue().encode()


def cri(data: bytes, split: int = 0) -> bytes:
    """CRI lines; with ``split``, every line is cut into ``P`` parts of that many bytes."""
    out = []
    for line in data.split(b"\n")[:-1] if data.endswith(b"\n") else data.split(b"\n"):
        stream = b" stderr " if len(line) % 2 else b" stdout "
        while split and len(line) > split:
            out.append(_STAMP + stream + b"P " + line[:split] + b"\n")
            line = line[split:]
        out.append(_STAMP + stream + b"F " + line + b"\n")
    return b"".join(out)


def docker(data: bytes) -> bytes:
    return b"".join(json.dumps({"log": line.decode(errors="replace") + "\n", "stream": "stderr",
                                "time": "2026-08-06T15:41:28.95Z"}).encode() + b"\n"
                    for line in data.splitlines())


def cases() -> Iterator[tuple[str, Callable[[], bytes]]]:
    """(name, the file's bytes); a name ending in .gz is written gzipped."""
    for mix, size in (("v5", 3 << 20), ("scheduler", 2 << 20)):
        yield f"generated-{mix}.log", lambda mix=mix, size=size: _generated(mix, size)
        yield f"generated-{mix}-cri-partial.log", lambda mix=mix, size=size: cri(_generated(mix, size), split=700)
    for path in LOGS:
        name = str(path.relative_to(REPO)).replace("/", "_").removesuffix(".gz")
        yield name, lambda path=path: _plain(path)
        yield name + ".gz", lambda path=path: _plain(path)
        yield name + "-cri", lambda path=path: cri(_plain(path))
        yield name + "-cri-partial", lambda path=path: cri(_plain(path), split=97)
        yield name + "-docker", lambda path=path: docker(_plain(path))


def write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(gzip.compress(data, mtime=0) if name.endswith(".gz") else data)
    return path


def report(path: Path, **kw) -> dict:
    """The report as the golden file keeps it: everything but the input's own name."""
    from kueue_doctor.logs import scan

    doc = scan(str(path), **kw).to_json()
    for f in doc["files"]:
        f["file"] = Path(f["file"]).name
    return doc


def main(argv: list[str]) -> int:
    import tempfile

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in cases():
            out[name] = report(write(Path(tmp), name, make()), workers=1)
    Path(argv[0]).write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
