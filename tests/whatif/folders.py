"""The folders whatif is tested on: the shared incident folders and snapshots of the simulated
incidents, read once as raw documents so that patches can be applied to them as to YAML."""
from __future__ import annotations

import copy
import dataclasses
import itertools
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from kueue_doctor.api.load import add_documents, decode_documents, object_files, raw_objects, read_text
from kueue_doctor.api.quantity import Quantity, format_amount
from kueue_doctor.api.state import ClusterState
from kueue_doctor.cli import cli
from kueue_doctor.commands.whatif import engine_config
from kueue_doctor.doctor.gather import snapshot_time
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.sim.incidents import INCIDENTS as SIMULATED  # noqa: F401 - re-exported for the tests
from kueue_doctor.sim.incidents import incident_path
from kueue_doctor.sources.snapshot import load_folder
from kueue_doctor.whatif.apply import apply_patches, matches
from kueue_doctor.whatif.patches import deactivated
from kueue_doctor.whatif.replay import replay, scoped, tree_of
from kueue_doctor.whatif.whatif import what_if
from tests.paths import INCIDENTS

GATHERED = sorted(p for p in INCIDENTS.iterdir() if p.is_dir())


def simulate(name: str, out: Path) -> Path:
    res = CliRunner().invoke(cli, ["simulate", str(incident_path(name)), "--snapshot-at", "100m",
                                   "--snapshot-dir", str(out), "--json", "--omit-wall-time"])
    assert res.exit_code == 0, res.output
    return out


@dataclasses.dataclass
class Folder:
    path: Path
    docs: dict[str, list[Any]]     # file -> decoded documents
    now: Any

    @classmethod
    def read(cls, path: Path) -> Folder:
        docs = {str(f): decode_documents(read_text(f), str(f)) for f in object_files(path)}
        return cls(path, docs, snapshot_time(load_folder(str(path)), None)[0])

    def state(self, patches: list[dict[str, Any]] = ()) -> ClusterState:   # type: ignore[assignment]
        state = ClusterState()
        for f, docs in apply_patches(self.docs, list(patches)).items():
            add_documents(state, docs, f)
        return state

    def without_pods(self, gone: set[tuple[str, ...]]) -> Folder:
        """The folder with these (namespace, name) pods deleted from its Pod lists."""
        docs = copy.deepcopy(self.docs)
        for ds in docs.values():
            for d in ds:
                if isinstance(d, dict) and isinstance(d.get("items"), list):
                    d["items"] = [i for i in d["items"] if not (
                        isinstance(i, dict) and i.get("kind", "Pod") == "Pod"
                        and (i.get("metadata", {}).get("namespace"), i.get("metadata", {}).get("name")) in gone)]
        return Folder(self.path, docs, self.now)

    def whatif(self, key, patches=()) -> dict[str, Any]:
        state = self.state(patches)
        docs = apply_patches(self.docs, list(patches))

        def raw(kind: str, namespace: str, name: str):
            want = {"kind": kind, "namespace": namespace, "name": name}
            return next((r for ds in docs.values() for d in ds for r in raw_objects(d) if matches(r, want)), None)
        return what_if(state, engine_config(state), key, self.now, raw)

    def heads(self) -> list:
        """The head of every ClusterQueue with pending work, as the engine orders them."""
        state = self.state()
        model = AdmissionModel(state, engine_config(state))
        out = []
        for cq in sorted({**model.snapshot.cluster_queues, **model.snapshot.inactive}):
            pending = model.queues.pending_in_order(cq)
            if pending:
                out.append(pending[0].key)
        return out


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

def check_suggestions(folder: Folder, key) -> list[dict[str, Any]]:
    """Every suggestion for ``key``, applied to the folder's documents, admits it; one step
    less does not. Returns the suggestions checked ([] when it admits already)."""
    doc = folder.whatif(key)
    if doc["admitsNow"]:
        return []
    name = folder.path.name
    assert doc["suggestions"], (name, key, doc["notes"])
    for sug in doc["suggestions"]:
        if sug["kind"] == "move":   # no patch: the pods run elsewhere, so they leave the documents
            moved = {tuple(b["pod"].split("/", 1)) for b in sug["pods"]}
            after = folder.without_pods(moved).whatif(key)
            assert after["admitsNow"] is True, (name, key, sug["summary"], after["notes"])
            for b in moved:   # no pod of the set can stay
                assert folder.without_pods(moved - {b}).whatif(key)["admitsNow"] is False, (name, key, b)
            continue
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
    return doc["suggestions"]
