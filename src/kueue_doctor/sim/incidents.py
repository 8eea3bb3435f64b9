"""The built-in incident scenarios: one per production failure (shared/DESIGN.md), and the
incidents whose fix is a change of configuration rather than of release (``REMEDIES``)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..api.fields import Fields
from .scenario import Scenario, topology_request_of

INCIDENTS = ("slow-preemption-release", "zombie-pod", "drs-rounding")
# fixed by the scenario's ``demo.fixed`` remedy (same release): shown by ``demo`` after INCIDENTS
REMEDIES = ("topology-fragmentation",)


def incident_path(name: str) -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "incidents" / f"{name}.yaml"


def apply_fix(scn: Scenario) -> str | None:
    """Turn ``scn`` into its ``demo.fixed`` side: the fixed release and feature gates, and with
    ``topology`` every workload that asks for a topology asks for that one instead. Returns the
    ``remedy`` text (None: the fix is the release)."""
    fixed = scn.demo.get("fixed") or {}
    scn.version = str(fixed.get("version", scn.version))
    scn.gates.update({str(k): bool(v) for k, v in (fixed.get("featureGates") or {}).items()})
    if fixed.get("topology"):
        new = topology_request_of(Fields({"topology": fixed["topology"]}, "demo.fixed"))
        scn.workloads = [replace(w, **new) if w.topology else w for w in scn.workloads]
    remedy = fixed.get("remedy")
    return str(remedy) if remedy else None
