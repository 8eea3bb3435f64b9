"""Run scenarios, compare with ``expect``, report differences."""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from .scenario import Scenario, load_scenario

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"

# run.kind -> handler(scenario, feature_gates) -> list of differences ("" list = pass).
# A handler that cannot run the scenario raises NotSupported.
Handler = Callable[[Scenario, dict[str, bool]], list[str]]
HANDLERS: dict[str, Handler] = {}


class NotSupported(Exception):
    """The engine does not implement what this scenario needs (reported as skipped)."""


@dataclass
class CaseResult:
    case: str
    path: str
    name: str
    kind: str
    status: str
    differences: list[str] = field(default_factory=list)
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"case": self.case, "path": self.path, "name": self.name, "kind": self.kind,
                "status": self.status, "differences": self.differences, "detail": self.detail}


def gate_runs(config: dict) -> list[dict[str, bool]]:
    """The feature-gate settings a scenario must hold under (featureGateMatrix expands)."""
    base = dict(config.get("featureGates") or {})
    matrix = config.get("featureGateMatrix") or {}
    if not matrix:
        return [base]
    names = sorted(matrix)
    runs = []
    for values in itertools.product(*(matrix[n] for n in names)):
        runs.append({**base, **dict(zip(names, values, strict=True))})
    return runs


def run_scenario(scn: Scenario) -> CaseResult:
    result = CaseResult(case=scn.case_id, path=scn.path, name=scn.name, kind=scn.kind, status=PASSED)
    handler = HANDLERS.get(scn.kind)
    if handler is None:
        result.status, result.detail = SKIPPED, f"run kind {scn.kind!r} is not supported yet"
        return result
    for gates in gate_runs(scn.config):
        try:
            diffs = handler(scn, gates)
        except NotSupported as e:
            result.status, result.detail = SKIPPED, str(e)
            return result
        except InputError as e:
            diffs = [f"bad scenario: {e}"]
        except Exception as e:  # an engine bug must fail this case, not the whole run
            diffs = [f"engine error: {type(e).__name__}: {e}"]
        if diffs:
            matrix = scn.config.get("featureGateMatrix") or {}
            label = ", ".join(f"{k}={v}" for k, v in sorted(gates.items()) if k in matrix)
            result.status = FAILED
            result.differences += [f"[{label}] {d}" if label else d for d in diffs]
    return result


def run_file(path) -> CaseResult:
    from . import handlers  # noqa: F401  (registers the run kinds)

    try:
        scn = load_scenario(path)
    except InputError as e:
        return CaseResult(case=str(path), path=str(path), name="", kind="", status=FAILED,
                          differences=[f"cannot load: {e}"])
    return run_scenario(scn)
