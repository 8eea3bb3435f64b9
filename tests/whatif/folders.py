"""The folders whatif is tested on: the shared incident folders and snapshots of the simulated
incidents, read once as raw documents so that patches can be applied to them as to YAML."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from kueue_doctor.api.load import add_documents, decode_documents, object_files, read_text
from kueue_doctor.api.state import ClusterState
from kueue_doctor.cli import cli
from kueue_doctor.commands.whatif import engine_config
from kueue_doctor.doctor.gather import snapshot_time
from kueue_doctor.engine.model import AdmissionModel
from kueue_doctor.sim.incidents import INCIDENTS as SIMULATED  # noqa: F401 - re-exported for the tests
from kueue_doctor.sim.incidents import incident_path
from kueue_doctor.sources.snapshot import load_folder
from kueue_doctor.whatif.apply import apply_patches
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

    def whatif(self, key, patches=()) -> dict[str, Any]:
        state = self.state(patches)
        return what_if(state, engine_config(state), key, self.now)

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
