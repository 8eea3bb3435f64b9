"""Issue 15's done-when: on the shared incident folders and the simulated incidents' snapshots,
``whatif`` on each pending head returns changes that, applied to the folder's YAML as JSON merge
patches, make ``whatif`` on the patched folder say ``admitsNow: true``; one unit less does not
(quota: one step of the searched resource; priority: one below the lowest value; finish: no
smaller set of running workloads)."""
from __future__ import annotations

import pytest

from tests.whatif.folders import GATHERED, SIMULATED, Folder, check_suggestions, simulate


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    out = {p.name: Folder.read(p) for p in GATHERED}
    for name in SIMULATED:
        out[f"sim-{name}"] = Folder.read(simulate(name, tmp_path_factory.mktemp(name)))
    return out


NAMES = [p.name for p in GATHERED] + [f"sim-{n}" for n in SIMULATED]


@pytest.mark.parametrize("name", NAMES)
def test_each_head_admits_after_its_patches_and_not_one_step_less(folders, name):
    folder = folders[name]
    heads = folder.heads()
    assert heads, f"{name}: no pending head"
    checked = sum(len(check_suggestions(folder, key)) for key in heads)
    assert checked, f"{name}: every head admits already: nothing was checked"
