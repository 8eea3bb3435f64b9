"""The run kinds the engine supports, registered with the runner."""
from __future__ import annotations

from . import run_assign, run_cycle, run_drs, run_preemption, run_tas_assign
from .runner import HANDLERS

HANDLERS.update({
    "drs": run_drs.run,
    "assign": run_assign.run_assign,
    "totalRequests": run_assign.run_total_requests,
    "preemption": run_preemption.run,
    "cycle": run_cycle.run,
    "tas-assign": run_tas_assign.run,
})
