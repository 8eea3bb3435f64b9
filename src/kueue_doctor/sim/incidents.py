"""The built-in incident scenarios: one per production failure (shared/DESIGN.md)."""
from __future__ import annotations

from pathlib import Path

INCIDENTS = ("slow-preemption-release", "zombie-pod", "drs-rounding")


def incident_path(name: str) -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "incidents" / f"{name}.yaml"
