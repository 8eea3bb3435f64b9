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


# current/: admission features of current releases (shared/conformance/current), counted per prefix
CURRENT = Path(__file__).resolve().parent / "current"
TAS = Path(__file__).resolve().parent / "tas"


def test_all_cases_are_present():
    # 192 cases were transcribed from upstream; losing one silently would hide a regression.
    assert len([p for p in CASES if p.parent not in (CURRENT, TAS)]) == 192
    # tas/: the 100 tas-assign cases (assign-, replace-); the TAS cycle cases come with the scheduler integration
    assert sum(1 for p in CASES if p.parent == TAS) == 100
    # current/: the newer features' cases (shared/conformance/current)
    assert len([p for p in CASES if p.parent == CURRENT and p.name.startswith("afs-")]) == 6
    prefixes = {p.stem.split("-", 2)[0] + "-" + p.stem.split("-", 2)[1] for p in CASES if p.parent == CURRENT}
    assert {"concurrent-001", "concurrent-002", "concurrent-003",
            "schedule-061", "schedule-062", "schedule-063"} <= prefixes
