"""Reports identical to the ones the scanner gave before the multi-pattern scan and the bulk
aggregation (golden_reports.json, see golden.py), sequential and in worker processes, with the
multi-pattern library and with the pure fallback it needs where no wheel exists, with the compiled
extractor and without it."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kueue_doctor.logs import candidates, fastpath

from .golden import cases, report, write

GOLDEN = json.loads((Path(__file__).parent / "golden_reports.json").read_text())
CASES = dict(cases())


REGENERATE = ("a repository log file was added or removed: write its golden report with the scanner as it "
              "was before the multi-pattern scan (a worktree at commit ba95e6e): "
              "PYTHONPATH=<that worktree>/src:. python -m tests.logs.golden tests/logs/golden_reports.json")


DIFFERS = ("the report is not the one the scanner before the multi-pattern scan gave (golden_reports.json): "
           "a change of the scanner's results, not of its speed. Only if the report is meant to change, "
           "regenerate with the scanner that makes the new reports: "
           "PYTHONPATH=src:. python -m tests.logs.golden tests/logs/golden_reports.json; for a new log file "
           "alone: " + REGENERATE.split(": ", 1)[1])


def test_every_case_has_a_golden_report():
    assert sorted(CASES) == sorted(GOLDEN), REGENERATE


@pytest.mark.parametrize("mode", ["compiled", "library", "pure"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_report_is_todays(tmp_path, monkeypatch, name, mode):
    if mode != "compiled":   # the compiled extractor (fastpath.py) off: hyperscan, or neither
        monkeypatch.setattr(fastpath, "ENABLED", False)
    if mode == "pure":
        monkeypatch.setattr(candidates, "hyperscan", None)
    assert name in GOLDEN, REGENERATE
    path = write(tmp_path, name, CASES[name]())
    assert report(path, workers=1) == GOLDEN[name], DIFFERS
    if not name.endswith(".gz"):
        assert report(path, workers=2, chunk_size=1 << 16) == GOLDEN[name], DIFFERS
