"""Reading object files: one object, many ``---`` documents, ``kind: List``, JSON, folders.

Files are never written. A file is told apart by content, not by name: inside a folder
every ``*.yaml``/``*.yml``/``*.json`` file is read (other files such as controller logs
belong to other readers); a path named explicitly is always read.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError
from .parse import UnknownKind, configuration_from_configmap, object_ref, parse_object
from .state import ClusterState

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
OBJECT_SUFFIXES = (".yaml", ".yml", ".json")


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
                return [d for d in yaml.load_all(text, Loader=_LOADER) if d is not None]
            except yaml.YAMLError:
                raise InputError(f"line {e.lineno} column {e.colno}: invalid JSON: {e.msg}", file=file) from None
    try:
        return [d for d in yaml.load_all(text, Loader=_LOADER) if d is not None]
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


def is_object_document(doc: Any) -> bool:
    return isinstance(doc, dict) and ("kind" in doc or "apiVersion" in doc or is_scenario(doc))


def add_documents(state: ClusterState, docs: Iterable[Any], file: str) -> None:
    for doc in docs:
        if not is_object_document(doc):
            state.skipped["(not a Kubernetes object)"] += 1
            continue
        try:
            raws = list(raw_objects(doc))
        except InputError as e:
            raise e.located(file=file) from None
        for raw in raws:
            try:
                obj = parse_object(raw)
            except UnknownKind as e:
                state.skipped[str(e)] += 1
                continue
            except InputError as e:
                raise e.located(file=file) from None
            if obj.kind == "ConfigMap":
                try:
                    cfg = configuration_from_configmap(obj)
                except InputError as e:
                    raise e.located(file=file, obj=object_ref(raw)) from None
                if cfg is not None:
                    state.configuration = cfg
            state.add(obj)


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


def load_paths(paths: Iterable[str | Path], state: ClusterState | None = None) -> ClusterState:
    state = state or ClusterState()
    for p in paths:
        for f in object_files(Path(p)):
            add_documents(state, decode_documents(read_text(f), str(f)), str(f))
            state.files.append(str(f))
    return state


def load_documents(docs: Iterable[Any], file: str = "<input>") -> ClusterState:
    state = ClusterState()
    add_documents(state, docs, file)
    return state
