"""Differences between what a scenario expects and what the engine did, as readable lines."""
from __future__ import annotations


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


def compare_sets(label: str, want, got) -> list[str]:
    want, got = set(want), set(got)
    diffs = []
    if want - got:
        diffs.append(f"{label}: expected but missing {sorted(want - got)}")
    if got - want:
        diffs.append(f"{label}: not expected {sorted(got - want)}")
    return diffs
