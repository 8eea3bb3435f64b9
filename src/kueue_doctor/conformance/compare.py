"""Differences between what a scenario expects and what the engine did, as readable lines."""
from __future__ import annotations

from collections.abc import Iterable

from ..keys import WorkloadKey


def workload_keys(texts: Iterable[str]) -> list[WorkloadKey]:
    """The case file's ``"ns/name"`` workload names, as keys (a malformed one fails the case)."""
    return [WorkloadKey.parse(str(t)) for t in texts]


def compare_maps(label: str, want: dict, got: dict, exact: bool = True) -> list[str]:
    diffs = []
    for k, v in want.items():
        if k not in got:
            diffs.append(f"{label}[{k}]: expected {v!r}, got nothing")
        elif got[k] != v:
            diffs.append(f"{label}[{k}]: expected {v!r}, got {got[k]!r}")
    if exact:
        for k in got:
            if k not in want:
                diffs.append(f"{label}[{k}]: not expected, got {got[k]!r}")
    return diffs


def compare_keys(label: str, want: Iterable[WorkloadKey], got: Iterable[WorkloadKey]) -> list[str]:
    """Workloads expected and found, each difference listed as the case file names them."""
    want, got = set(want), set(got)
    diffs = []
    if want - got:
        diffs.append(f"{label}: expected but missing {sorted(str(k) for k in want - got)}")
    if got - want:
        diffs.append(f"{label}: not expected {sorted(str(k) for k in got - want)}")
    return diffs
