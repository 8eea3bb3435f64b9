"""The fast validity closures and jsonschema give every Kueue object in tests/broken the same verdict."""
from __future__ import annotations

import pytest

from kueue_doctor.errors import InputError
from tests.paths import TESTS

BROKEN = TESTS / "broken"
FILES = sorted(p.name for p in BROKEN.iterdir() if p.is_file())


@pytest.mark.parametrize("name", FILES)
def test_fast_check_agrees_with_jsonschema(name):
    # The closures decide validity; jsonschema only describes. Every Kueue object in the
    # corpus must get the same verdict from both.
    from kueue_doctor.api import load, schema
    try:
        docs = load.decode_documents(load.read_text(BROKEN / name), name)
        raws = [r for d in docs if load.is_object_document(d) for r in load.raw_objects(d)]
    except InputError:
        return
    for raw in raws:
        if isinstance(raw, dict) and str(raw.get("apiVersion", "")).startswith("kueue.x-k8s.io/"):
            kind, version = raw.get("kind"), raw["apiVersion"].rpartition("/")[2]
            if schema.compiled(kind, version) is None:
                continue
            fast_ok = schema.compiled(kind, version)[1](raw)
            assert fast_ok == (schema.first_error(raw, kind, version, fast=False) is None), raw
