"""Issue 15's done-when: on the shared incident folders and the simulated incidents' snapshots,
``whatif`` on each pending head returns changes that, applied to the folder's YAML as JSON merge
patches, make ``whatif`` on the patched folder say ``admitsNow: true``; one unit less does not
(quota: one step of the searched resource; priority: one below the lowest value; finish: no
smaller set of running workloads)."""
from __future__ import annotations

import copy
import itertools

import pytest

from kueue_doctor.api.quantity import Quantity, format_amount
from kueue_doctor.commands.whatif import engine_config
from kueue_doctor.whatif.patches import deactivated
from kueue_doctor.whatif.replay import replay, scoped, tree_of
from tests.whatif.folders import GATHERED, SIMULATED, Folder, simulate


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    out = {p.name: Folder.read(p) for p in GATHERED}
    for name in SIMULATED:
        out[f"sim-{name}"] = Folder.read(simulate(name, tmp_path_factory.mktemp(name)))
    return out


NAMES = [p.name for p in GATHERED] + [f"sim-{n}" for n in SIMULATED]


def one_step_less(sug: dict, change: dict) -> dict:
    """The quota suggestion's patch with one resource one step lower."""
    pt = copy.deepcopy(sug["patches"][0])
    r = change["resource"]
    lower = Quantity.parse(change["to"]).amount(r) - Quantity.parse(change["step"]).amount(r)
    for g in pt["mergePatch"]["spec"]["resourceGroups"]:
        for f in g["flavors"]:
            if f["name"] == sug["flavor"]:
                for res in f["resources"]:
                    if res["name"] == r:
                        assert res[sug["field"]] == change["to"]
                        res[sug["field"]] = format_amount(r, lower)
    return pt


def smaller_finish_set_admits(folder: Folder, key, size: int) -> list:
    """Any set of fewer than ``size`` running workloads of the tree whose end admits it."""
    state = folder.state()
    cfg = engine_config(state)
    cq = state.local_queues[(key.namespace, state.workloads[key].queue_name)].cluster_queue
    part = scoped(state, cq)
    tree = tree_of(state, cq)
    running = sorted(k for k, w in part.workloads.items()
                     if w.status.admission is not None and w.is_true("QuotaReserved")
                     and w.status.admission.cluster_queue in tree and w.active and not w.is_true("Finished"))
    for n in range(1, size):
        for combo in itertools.combinations(running, n):
            if replay(deactivated(part, list(combo)), cfg, key, folder.now).admitted:
                return list(combo)
    return []


@pytest.mark.parametrize("name", NAMES)
def test_each_head_admits_after_its_patches_and_not_one_step_less(folders, name):
    folder = folders[name]
    heads = folder.heads()
    assert heads, f"{name}: no pending head"
    checked = 0
    for key in heads:
        doc = folder.whatif(key)
        if doc["admitsNow"]:
            continue
        assert doc["suggestions"], (name, key, doc["notes"])
        for sug in doc["suggestions"]:
            after = folder.whatif(key, sug["patches"])
            assert after["admitsNow"] is True, (name, key, sug["summary"], after["notes"])
            assert after["preempts"] == sug["preempts"]
            if sug["kind"] == "quota":
                for change in sug["changes"]:
                    less = folder.whatif(key, [one_step_less(sug, change)])
                    assert less["admitsNow"] is False, (name, key, sug["summary"], change)
            elif sug["kind"] == "priority":
                pt = {**sug["patches"][0], "mergePatch": {"spec": {"priority": sug["lowestValue"] - 1}}}
                assert folder.whatif(key, [pt])["admitsNow"] is False, (name, key, sug["summary"])
            elif sug["kind"] == "finish" and sug["minimal"] == "fewest":
                assert smaller_finish_set_admits(folder, key, len(sug["workloads"])) == [], (name, key)
            checked += 1
    assert checked, f"{name}: every head admits already: nothing was checked"
