"""Real traces as workload arrivals (Philly per-tenant jobs, Alibaba openb pods)."""
from __future__ import annotations

from pathlib import Path

from ..api.fields import Fields
from ..errors import InputError
from .scenario import Scenario, WorkloadSpec


def load_trace(f: Fields, base: Path, scn: Scenario) -> list[WorkloadSpec]:
    raise InputError("trace inputs are not supported yet", field=f.path)
