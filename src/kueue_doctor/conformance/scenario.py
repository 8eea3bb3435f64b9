"""A conformance scenario file: objects, one run, what upstream Kueue does."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..api.fields import to_time
from ..api.load import decode_documents, load_documents, read_text
from ..api.state import ClusterState
from ..errors import InputError


@dataclass
class Scenario:
    path: str
    name: str
    source: dict
    config: dict
    state: ClusterState
    run: dict
    expect: dict
    notes: str = ""
    raw_objects: list = field(default_factory=list)

    @property
    def kind(self) -> str:
        return str(self.run.get("kind", ""))

    @property
    def now(self) -> datetime | None:
        v = self.config.get("now")
        return to_time(v, "config.now") if v is not None else None

    @property
    def case_id(self) -> str:
        p = Path(self.path)
        return f"{p.parent.name}/{p.stem}"


def load_scenario(path: str | Path) -> Scenario:
    path = str(path)
    docs = decode_documents(read_text(Path(path)), path)
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise InputError("a scenario file holds exactly one YAML mapping", file=path)
    doc = docs[0]
    for key in ("objects", "run"):
        if key not in doc:
            raise InputError("required field is missing", file=path, field=key)
    run = doc["run"]
    if not isinstance(run, dict) or not isinstance(run.get("kind"), str):
        raise InputError("must be a mapping with a kind", file=path, field="run")
    if not isinstance(doc["objects"], list):
        raise InputError("must be a list", file=path, field="objects")
    state = load_documents(doc["objects"], path)
    return Scenario(path=path, name=str(doc.get("name", Path(path).stem)), source=doc.get("source") or {},
                    config=doc.get("config") or {}, state=state, run=run, expect=doc.get("expect") or {},
                    notes=str(doc.get("notes", "")), raw_objects=doc["objects"])


def scenario_files(paths: list[str | Path]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(q for q in p.rglob("*") if q.suffix in (".yaml", ".yml") and q.is_file())
        elif p.exists():
            out.append(p)
        else:
            raise InputError("no such file or directory", file=str(p))
    return out
