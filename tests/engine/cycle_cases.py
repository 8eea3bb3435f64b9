"""Run a conformance case file's cycle and hand back what the engine wrote (for the tests that
check what the case format keeps in ``notes``: conditions, FlavorMigration evictions)."""
from __future__ import annotations

from pathlib import Path

from kueue_doctor.conformance.runner import gate_runs
from kueue_doctor.conformance.scenario import load_scenario
from kueue_doctor.conformance.setup import engine_config, prepare_state
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.engine.scheduler import CycleResult, Entry
from kueue_doctor.keys import WorkloadKey

CURRENT = Path(__file__).resolve().parent.parent / "conformance" / "current"


def case(prefix: str) -> Path:
    found = sorted(CURRENT.glob(f"{prefix}-*.yaml"))
    assert len(found) == 1, f"{prefix}: {found}"
    return found[0]


def run_case(prefix: str, **gates: bool) -> tuple[AdmissionModel, CycleResult]:
    scn = load_scenario(case(prefix))
    cfg = engine_config(scn, {**gate_runs(scn.config)[0], **gates})
    model = AdmissionModel(prepare_state(scn), cfg)
    assert scn.now is not None
    return model, model.cycle(scn.now)


def entry(res: CycleResult, key: str) -> Entry:
    k = WorkloadKey.parse(key)
    for e in res.entries + res.inadmissible:
        if e.key == k:
            return e
    raise AssertionError(f"{key} was not a head of the cycle")


def conditions(e: Entry) -> list[tuple[str, str, str, str]]:
    return [(c.type, c.status, c.reason, c.message) for c in e.conditions()]
