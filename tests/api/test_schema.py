"""The fast validity closures and jsonschema give every Kueue object in tests/broken the same verdict."""
from __future__ import annotations

import pytest

from kueue_doctor.api import load, schema
from kueue_doctor.errors import InputError
from tests.paths import TESTS

BROKEN = TESTS / "broken"
# Files with no Kueue object to compare: they do not decode into objects at all (their errors are
# pinned in tests/api/test_broken_inputs.py) ...
UNDECODABLE = {"binary-gzip-named-yaml.yaml", "json-missing-comma.json", "json-unclosed-object.json",
               "list-items-not-a-list.yaml", "not-utf8-latin1.yaml", "yaml-bad-indentation.yaml",
               "yaml-python-tag.yaml", "yaml-second-document-broken.yaml", "yaml-tab-indentation.yaml",
               "yaml-unclosed-flow-sequence.yaml", "yaml-unclosed-quote.yaml", "yaml-undefined-alias.yaml"}
# ... or their Kueue object names a version or kind that has no schema.
NO_SCHEMA = {"clusterqueue-unknown-version-v1alpha9.yaml", "empty-kind-string.yaml", "missing-kind.yaml"}


def _corpus() -> tuple[list[tuple[str, dict]], set[str], set[str]]:
    """(file, object) for each Kueue object with a schema; the files that do not decode; those with no schema."""
    objects, undecodable, no_schema = [], set(), set()
    for path in sorted(p for p in BROKEN.iterdir() if p.is_file()):
        try:
            docs = load.decode_documents(load.read_text(path), path.name)
            raws = [r for d in docs if load.is_object_document(d) for r in load.raw_objects(d)]
        except InputError:
            undecodable.add(path.name)
            continue
        for raw in raws:
            if isinstance(raw, dict) and str(raw.get("apiVersion", "")).startswith("kueue.x-k8s.io/"):
                if schema.compiled(raw.get("kind"), raw["apiVersion"].rpartition("/")[2]) is None:
                    no_schema.add(path.name)
                else:
                    objects.append((path.name, raw))
    return objects, undecodable, no_schema


OBJECTS, SKIPPED_UNDECODABLE, SKIPPED_NO_SCHEMA = _corpus()


def test_only_the_expected_files_have_nothing_to_compare():
    assert SKIPPED_UNDECODABLE == UNDECODABLE
    assert SKIPPED_NO_SCHEMA == NO_SCHEMA


def test_the_corpus_holds_objects_of_both_verdicts():
    verdicts = [schema.compiled(raw["kind"], raw["apiVersion"].rpartition("/")[2])[1](raw) for _, raw in OBJECTS]
    assert len(verdicts) >= 60
    assert verdicts.count(True) >= 30 and verdicts.count(False) >= 15


@pytest.mark.parametrize(("name", "raw"), OBJECTS, ids=[f"{n}#{i}" for i, (n, _) in enumerate(OBJECTS)])
def test_fast_check_agrees_with_jsonschema(name, raw):
    # The closures decide validity; jsonschema only describes. Every Kueue object in the
    # corpus must get the same verdict from both.
    kind, version = raw["kind"], raw["apiVersion"].rpartition("/")[2]
    fast_ok = schema.compiled(kind, version)[1](raw)
    assert fast_ok == (schema.first_error(raw, kind, version, fast=False) is None), raw
