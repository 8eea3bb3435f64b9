"""One test per upstream conformance case (the case files beside this one, copied from shared/conformance)."""
from pathlib import Path

import pytest

from kueue_doctor.conformance.runner import PASSED, SKIPPED, run_file
from kueue_doctor.conformance.scenario import scenario_files

CASES = scenario_files([Path(__file__).resolve().parent])


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.stem}" for p in CASES])
def test_case(path):
    result = run_file(path)
    if result.status == SKIPPED:
        pytest.skip(result.detail)
    assert result.status == PASSED, "\n".join(result.differences) or result.detail


def test_all_cases_are_present():
    # 192 cases were transcribed from upstream, plus the 100 TAS tas-assign cases (tas/);
    # losing one silently would hide a regression.
    assert len(CASES) == 292
    assert sum(1 for p in CASES if p.parent.name == "tas") == 100
