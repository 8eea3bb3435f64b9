"""Controller logs as container runtimes store them (what `kubectl logs` does not show but node
files, log shippers and support bundles hold): the same findings as the plain log."""
from __future__ import annotations

import gzip
import json

import pytest

from kueue_doctor.logs import scan
from tests.paths import INCIDENTS


@pytest.fixture(scope="module")
def plain_log():
    (folder,) = INCIDENTS.glob("01-*")
    return (folder / "kueue-controller-manager.log").read_bytes()


def cri(data: bytes) -> bytes:
    return b"".join(b"2026-08-06T15:41:28.950000000Z stderr F " + line + b"\n" for line in data.splitlines())


def docker(data: bytes) -> bytes:
    return b"".join(json.dumps({"log": line.decode() + "\n", "stream": "stderr",
                                "time": "2026-08-06T15:41:28.95Z"}).encode() + b"\n" for line in data.splitlines())


def summary(report):
    j = report.to_json()
    return j["lines"], j["parsed"], [(f["id"], f["count"], f["summary"]) for f in j["findings"]], j["perClusterQueue"]


@pytest.mark.parametrize("wrap", [cri, docker])
@pytest.mark.parametrize("how", ["file", "gzip", "stream"])
def test_runtime_log_reads_like_the_plain_one(plain_log, tmp_path, wrap, how):
    expected = summary(scan(str(_write(tmp_path / "plain.log", plain_log))))
    assert expected[2], "the incident's log has findings"
    data = wrap(plain_log)
    if how == "gzip":
        path = tmp_path / "wrapped.log.gz"
        path.write_bytes(gzip.compress(data))
        got = scan(str(path))
    elif how == "stream":
        got = scan([line + b"\n" for line in data.splitlines()])
    else:
        got = scan(str(_write(tmp_path / "wrapped.log", data)), workers=2, chunk_size=1 << 16)
    assert summary(got) == expected


def _write(path, data):
    path.write_bytes(data)
    return path
