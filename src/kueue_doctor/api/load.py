"""Reading object files: one object, many ``---`` documents, ``kind: List``, JSON, folders.

Files are never written. A file is told apart by content, not by name: inside a folder
every ``*.yaml``/``*.yml``/``*.json`` file is read (other files such as controller logs
belong to other readers); a path named explicitly is always read. A document that does not
look like a Kubernetes object (no ``apiVersion``, no ``metadata`` and no kind kueue-doctor
reads: a Grafana dashboard, Prometheus rule groups, a promtool test, a kube-state-metrics
config) is not one: its file is listed in ``ClusterState.not_objects``. Of those, a gathered
folder's own metadata (``manifest.json``, an example's ``ANSWER.yaml``) is listed in
``ClusterState.metadata_files`` instead.

Two modes. By default the first problem raises ``InputError`` (one line, what every command
but ``validate`` wants). With a ``Collector`` every problem of every file and object is
collected and loading goes on; with ``Collector(unknown_fields=True)`` the fields the Kueue
CRDs do not declare are also reported, as warnings (``schema.unknown_fields``).
"""
from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .. import heap
from ..errors import InputError
from ..kueue.layout import MANIFEST
from . import schema, yamlfast
from .parse import (
    KINDS,
    KUEUE_GROUP,
    UnknownKind,
    configuration_from_configmap,
    from_record,
    object_ref,
    parse_object,
    records_of,
)
from .state import ClusterState

OBJECT_SUFFIXES = (".yaml", ".yml", ".json")
# Files of a gathered folder that describe it and are not objects: the snapshot's manifest,
# and the answer key of an example incident (examples/incidents, tests/data/public-issues).
METADATA_FILES = (MANIFEST, "ANSWER.yaml")

ERROR = "error"
_NONE = object()
_SKIPPED = object()
WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Problem:
    """One problem of one file or object: ``FILE: Kind/namespace/name: field: message``."""
    file: str
    obj: str
    field: str
    message: str
    severity: str = ERROR            # ERROR or WARNING
    # False when the message names the field itself (``unknown field "spec.x"``, as kubectl says it)
    field_in_line: bool = True

    @classmethod
    def of(cls, e: InputError) -> Problem:
        return cls(file=e.file, obj=e.obj, field=e.field, message=e.problem)

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.obj, self.field if self.field_in_line else "") if p]
        return " ".join(": ".join([*parts, self.message]).split())  # never more than one line

    def to_json(self) -> dict[str, str]:
        return {"file": self.file, "object": self.obj, "field": self.field, "message": self.message,
                "severity": self.severity}


def unknown_field_problem(file: str, obj: str, path: str) -> Problem:
    return Problem(file=file, obj=obj, field=path, message=f'unknown field "{path}"', severity=WARNING,
                   field_in_line=False)


@dataclass
class Collector:
    """The collecting mode of the loader (``validate``): problems are gathered, not raised."""
    unknown_fields: bool = False     # also report fields the Kueue CRDs do not declare (warnings)
    problems: list[Problem] = field(default_factory=list)
    # file -> [objects read, objects skipped]
    per_file: dict[str, list[int]] = field(default_factory=dict)

    def add(self, e: InputError, file: str, obj: str = "") -> None:
        self.problems.append(Problem.of(e.located(file=file, obj=obj)))

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]


def read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise InputError("is a directory", file=str(path)) from None
    except OSError as e:
        raise InputError(f"cannot read: {e.strerror}", file=str(path)) from None
    if b"\x00" in data[:8192]:
        raise InputError("not a text file (binary content)", file=str(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text (byte {e.start})", file=str(path)) from None


def decode_documents(text: str, file: str) -> list[Any]:
    """All documents of a YAML or JSON text."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return [json.loads(text)]
        except json.JSONDecodeError as e:
            # JSON is also YAML; only report JSON's message if YAML cannot read it either.
            try:
                return [d for d in yamlfast.reference_load_all(text) if d is not None]
            except yaml.YAMLError:
                raise InputError(f"line {e.lineno} column {e.colno}: invalid JSON: {e.msg}", file=file) from None
    try:
        return [d for d in yamlfast.load_all(text) if d is not None]
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        problem = e.problem or e.context or "invalid YAML"
        raise InputError(f"{where}invalid YAML: {problem}", file=file) from None
    except yaml.YAMLError as e:
        raise InputError(f"invalid YAML: {str(e).splitlines()[0]}", file=file) from None


def is_scenario(doc: Any) -> bool:
    """A conformance scenario (objects plus a run, no kind) or a simulation scenario
    (``kind: Simulation``): the Kubernetes objects are in its ``objects`` list."""
    return isinstance(doc, dict) and doc.get("kind", "Simulation") == "Simulation" \
        and "apiVersion" not in doc and isinstance(doc.get("objects", []), list) \
        and ("objects" in doc or doc.get("kind") == "Simulation")


def raw_objects(doc: Any) -> Iterator[Any]:
    """The objects a decoded document holds (a List is flattened)."""
    if isinstance(doc, dict) and isinstance(doc.get("kind"), str) and doc["kind"].endswith("List") \
            and "items" in doc:
        items = doc.get("items") or []
        if not isinstance(items, list):
            raise InputError("must be a list", obj=doc["kind"], field="items")
        for item in items:
            yield from raw_objects(item)

    elif is_scenario(doc):
        yield from doc.get("objects") or []
    else:
        yield doc


def consume_raw_objects(doc: Any) -> Iterator[Any]:
    """``raw_objects``, letting go of each item of a List once it is handed out, so that a
    100,000-item List's raw dicts are freed while its objects are built instead of being held
    beside them to the end (the document is emptied). Problems are raised before the first item."""
    if isinstance(doc, dict) and isinstance(doc.get("kind"), str) and doc["kind"].endswith("List") \
            and isinstance(doc.get("items"), list) \
            and not any(isinstance(i, dict) and isinstance(i.get("kind"), str) and i["kind"].endswith("List")
                        for i in doc["items"]):
        items = doc["items"]
        for i, item in enumerate(items):
            items[i] = None
            yield from raw_objects(item)
        items.clear()
    else:
        yield from list(raw_objects(doc))


def is_object_document(doc: Any) -> bool:
    """A document that is, or means to be, a Kubernetes object (or a List or scenario of them):
    it has an apiVersion or metadata, or names a kind kueue-doctor reads. A broken object
    (metadata but no kind, a ClusterQueue without apiVersion) is one, and is reported as broken;
    a dashboard, rule groups or another tool's config (``kind: CustomResourceStateMetrics`` and
    nothing else of an object) are not."""
    if not isinstance(doc, dict):
        return False
    kind = doc.get("kind")
    return "apiVersion" in doc or "metadata" in doc or is_scenario(doc) \
        or (isinstance(kind, str) and (kind in KINDS or (kind.endswith("List") and "items" in doc)))


def _unknown_fields(raw: Any, file: str, collect: Collector) -> None:
    if not isinstance(raw, dict):
        return
    api_version, kind = raw.get("apiVersion"), raw.get("kind")
    if isinstance(api_version, str) and api_version.startswith(KUEUE_GROUP + "/") and isinstance(kind, str):
        ref = object_ref(raw)
        collect.problems.extend(unknown_field_problem(file, ref, path) for path in schema.unknown_fields(raw, kind))


def unknown_field_problems(docs: Iterable[Any], file: str = "<input>") -> list[Problem]:
    """The unknown-field warnings of decoded documents (Kueue kinds only), without loading them."""
    collect = Collector(unknown_fields=True)
    for doc in docs:
        if not is_object_document(doc):
            continue
        try:
            raws = list(raw_objects(doc))
        except InputError:
            continue
        for raw in raws:
            _unknown_fields(raw, file, collect)
    return collect.problems


def add_documents(state: ClusterState, docs: Iterable[Any], file: str, collect: Collector | None = None,
                  consume: bool = False) -> None:
    """Load decoded documents into ``state``. Without ``collect`` the first problem raises
    InputError; with it, every problem is added to ``collect`` and the rest still loads. With
    ``consume`` the documents are the loader's own: each List item is let go once read."""
    read = skipped = 0
    not_object = False
    for doc in docs:
        if not is_object_document(doc):
            not_object = True
            continue
        try:
            raws = consume_raw_objects(doc) if consume else iter(list(raw_objects(doc)))
            first = next(raws, _NONE)
        except InputError as e:
            if collect is None:
                raise e.located(file=file) from None
            collect.add(e, file)
            continue
        if first is _NONE:
            continue
        for raw in itertools.chain((first,), raws):
            try:
                obj = parse_object(raw)
            except UnknownKind as e:
                state.skipped[str(e)] += 1
                skipped += 1
                continue
            except InputError as e:
                if collect is None:
                    raise e.located(file=file) from None
                collect.add(e, file)
                if collect.unknown_fields:
                    _unknown_fields(raw, file, collect)
                continue
            if collect is not None and collect.unknown_fields:
                _unknown_fields(raw, file, collect)
            if obj.kind == "ConfigMap":
                try:
                    cfg = configuration_from_configmap(obj)
                except InputError as e:
                    if collect is None:
                        raise e.located(file=file, obj=object_ref(raw)) from None
                    collect.add(e, file, object_ref(raw))
                    continue
                if cfg is not None:
                    state.configuration = cfg
            state.add(obj)
            read += 1
    if not_object:
        if read or skipped or Path(file).name not in METADATA_FILES:
            state.not_objects.append(file)
        else:
            state.metadata_files.append(file)
    if collect is not None:
        collect.per_file[file] = [read, skipped]


def stream_documents(state: ClusterState, text: str, file: str) -> bool:
    """Load a large kubectl-written List (``yamlfast.stream_list``) into ``state``, building its
    objects while its later parts are still being decoded; False, with ``state`` untouched, when
    the text is not such a List or anything in it is not plain: a part for PyYAML, an item that
    is a List or a scenario, an object that does not parse. Then the text is for the ordinary
    way, which decodes it again and raises the first problem where it would have anyway."""
    # the workers also read each Workload as far as plain data goes (parse.records_of), leaving
    # this process only the building of its typed object
    streamed = yamlfast.stream_list(text, prepare=records_of)
    if streamed is None:
        return False
    head, parts = streamed
    if not isinstance(head.get("kind"), str) or not head["kind"].endswith("List") or not is_object_document(head):
        parts.close()
        return False
    built: list[tuple[Any, Any]] = []   # (object, its Configuration) or (_SKIPPED, what), in order
    try:
        for items in parts:
            for raw in items:
                if type(raw) is tuple:   # a worker's object_record
                    built.append((from_record(raw), None))
                    continue
                if isinstance(raw, dict) and (is_scenario(raw) or (
                        isinstance(raw.get("kind"), str) and raw["kind"].endswith("List"))):
                    return False
                try:
                    obj = parse_object(raw)
                    cfg = configuration_from_configmap(obj) if obj.kind == "ConfigMap" else None
                except UnknownKind as e:
                    built.append((_SKIPPED, str(e)))
                    continue
                except Exception:  # a problem (or a fault): raised where the ordinary way raises it
                    return False
                built.append((obj, cfg))
            del items
    except yamlfast.NotFast:
        return False
    finally:
        parts.close()
    # as add_documents would have added them, now that every part was read
    for obj, more in built:
        if obj is _SKIPPED:
            state.skipped[more] += 1
            continue
        if more is not None:
            state.configuration = more
        state.add(obj)
    return True


def object_files(path: Path) -> list[Path]:
    """The object files a path names: itself, or the object files found under a folder."""
    if path.is_dir():
        found = []
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found += [Path(root) / f for f in sorted(files)
                      if not f.startswith(".") and f.lower().endswith(OBJECT_SUFFIXES)]
        return found
    if not path.exists():
        raise InputError("no such file or directory", file=str(path))
    return [path]


def load_paths(paths: Iterable[str | Path], state: ClusterState | None = None,
               collect: Collector | None = None) -> ClusterState:
    """Every object of the files and folders named. Without ``collect`` the first problem
    raises InputError; with it every problem is collected (a file that cannot be read or
    decoded is one problem, then the next file is read)."""
    state = state or ClusterState()
    with heap.paused():
        for p in paths:
            try:
                found = object_files(Path(p))
            except InputError as e:
                if collect is None:
                    raise
                collect.add(e, str(p))
                continue
            for f in found:
                try:
                    text = read_text(f)
                    if collect is None and stream_documents(state, text, str(f)):
                        del text
                        state.files.append(str(f))
                        continue
                    docs = decode_documents(text, str(f))
                    del text
                except InputError as e:
                    if collect is None:
                        raise
                    collect.add(e, str(f))
                    collect.per_file[str(f)] = [0, 0]
                    state.files.append(str(f))
                    continue
                add_documents(state, docs, str(f), collect, consume=True)
                del docs
                state.files.append(str(f))
    return state


def load_documents(docs: Iterable[Any], file: str = "<input>") -> ClusterState:
    state = ClusterState()
    add_documents(state, docs, file)
    return state
