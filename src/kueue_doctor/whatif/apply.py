"""Apply ``whatif``'s patches to decoded object documents, as ``kubectl patch --type merge``
would to the cluster: each patch names one object (kind, name, namespace), found in a
document or in a ``kind: List``'s items, in whichever file of a folder holds it."""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from .merge import merge_patch


def matches(raw: Any, pt: Mapping[str, Any]) -> bool:
    if not isinstance(raw, dict) or raw.get("kind") != pt["kind"]:
        return False
    meta = raw.get("metadata") or {}
    return meta.get("name") == pt["name"] and (meta.get("namespace") or "") == (pt.get("namespace") or "")


def _apply_one(docs: list[Any], pt: Mapping[str, Any]) -> bool:
    """Patch the object in ``docs`` (replacing the documents it changes, never editing them)."""
    for i, doc in enumerate(docs):
        if isinstance(doc, dict) and doc.get("kind") == "List" and isinstance(doc.get("items"), list):
            for j, item in enumerate(doc["items"]):
                if matches(item, pt):
                    items = list(doc["items"])
                    items[j] = merge_patch(item, pt["mergePatch"])
                    docs[i] = {**doc, "items": items}
                    return True
        elif matches(doc, pt):
            docs[i] = merge_patch(doc, pt["mergePatch"])
            return True
    return False


def apply_patches(files: Mapping[str, list[Any]], patches: list[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """File -> documents, with every patch applied; the input is not changed. A patch whose
    object is in none of the files is an InputError (``kubectl patch`` answers NotFound)."""
    out = {f: list(docs) for f, docs in files.items()}
    for pt in patches:
        if not any(_apply_one(docs, pt) for docs in out.values()):
            where = f" in namespace {pt['namespace']}" if pt.get("namespace") else ""
            raise InputError(f"{pt['kind']} {pt['name']}{where} not found: cannot apply its patch")
    return out


class RawObjects:
    """The objects of a folder's files as written, looked up by kind, namespace and name: what
    a patch that must give a list in full (a Workload's ``spec.podSets``) is made from. The
    files are read again on a lookup (rarely needed: not worth keeping every raw object)."""

    def __init__(self, files: list[str]):
        self.files = files

    def get(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        from pathlib import Path

        from ..api.load import decode_documents, raw_objects, read_text
        for f in self.files:
            for doc in decode_documents(read_text(Path(f)), f):
                for raw in raw_objects(doc):
                    if matches(raw, {"kind": kind, "name": name, "namespace": namespace}):
                        return raw
        return None
