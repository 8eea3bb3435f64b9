"""One test per upstream conformance case (the case files beside this one, copied from shared/conformance)."""
from pathlib import Path

import pytest

from kueue_doctor.conformance.runner import PASSED, SKIPPED, run_file
from kueue_doctor.conformance.scenario import scenario_files

CASES = scenario_files([Path(__file__).resolve().parent])
KNOWN_FAILING_FILE = Path(__file__).resolve().parent / "tas" / "KNOWN_FAILING.md"


def known_failing() -> dict[str, str]:
    """tas/KNOWN_FAILING.md: ``- <case file stem>: why`` per line; those cases are strict xfails
    (one that starts passing fails the suite until it is taken off the list)."""
    out: dict[str, str] = {}
    if KNOWN_FAILING_FILE.exists():
        for line in KNOWN_FAILING_FILE.read_text().splitlines():
            if line.startswith("- ") and ":" in line:
                stem, why = line[2:].split(":", 1)
                out[stem.strip().strip("`")] = why.strip()
    return out


KNOWN_FAILING = known_failing()


def _param(p: Path):
    marks = []
    if p.parent.name == "tas" and p.stem in KNOWN_FAILING:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_FAILING[p.stem]))
    return pytest.param(p, marks=marks, id=f"{p.parent.name}/{p.stem}")


@pytest.mark.parametrize("path", [_param(p) for p in CASES])
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
    # tas/: the 100 tas-assign cases (assign-, replace-) and the 63 TAS cycle cases (sched-, preempt-, cohort-)
    assert sum(1 for p in CASES if p.parent == TAS) == 163
    assert sum(1 for p in CASES if p.parent == TAS and p.name.startswith(("sched-", "preempt-", "cohort-"))) == 63


def test_known_failing_names_existing_cases():
    stems = {p.stem for p in CASES if p.parent == TAS}
    assert set(KNOWN_FAILING) <= stems
    # current/: the newer features' cases (shared/conformance/current)
    assert len([p for p in CASES if p.parent == CURRENT and p.name.startswith("afs-")]) == 6
    prefixes = {p.stem.split("-", 2)[0] + "-" + p.stem.split("-", 2)[1] for p in CASES if p.parent == CURRENT}
    assert {"concurrent-001", "concurrent-002", "concurrent-003",
            "schedule-061", "schedule-062", "schedule-063"} <= prefixes
