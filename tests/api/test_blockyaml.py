"""The compiled block-style decoder (api/_blockyaml.c) builds what PyYAML's safe loader builds, or
refuses: compared type for type (``True == 1`` and ``1 == 1.0`` for ``==``), on every YAML file
of the repository, the same objects dumped in block style, the YAML 1.1 quirks and random texts."""
from __future__ import annotations

import random

import pytest
import yaml

from kueue_doctor.api import yamlfast
from tests.api.test_yamlfast import KUBECTL, QUIRKS, _object_files

pytestmark = pytest.mark.skipif(yamlfast._block is None, reason="the C decoder was not built")
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _typed(x):
    """A value with every scalar's type beside it, to compare without ``==``'s leniency."""
    if isinstance(x, dict):
        return ("map", [(_typed(k), _typed(v)) for k, v in x.items()])
    if isinstance(x, list):
        return ("seq", [_typed(v) for v in x])
    return (type(x).__name__, x)


def _reference(text: str):
    """The one document PyYAML reads, or a marker when it reads no single document (or fails)."""
    try:
        docs = yamlfast.reference_load_all(text)
    except yaml.YAMLError:
        return "error"
    return _typed(docs[0]) if len(docs) == 1 else "not one document"


def _check(text: str) -> bool:
    """Whether the decoder took the text; when it did, it read it as PyYAML does."""
    got = yamlfast.block_load(text)
    if got is None:
        return False
    assert _typed(got) == _reference(text), repr(text[:300])
    return True


def test_every_yaml_file_of_the_repository():
    taken = 0
    for p in _object_files():
        try:
            text = p.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            continue
        taken += _check(text)
    assert taken > 20


def test_the_repository_s_objects_dumped_in_block_style_are_taken():
    taken = total = 0
    for p in _object_files():
        try:
            docs = [d for d in yamlfast.reference_load_all(p.read_bytes().decode("utf-8-sig")) if d is not None]
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        for doc in docs:
            for width in (80, 30):   # a narrow width folds long strings onto continuation lines
                try:
                    text = yaml.dump(doc, Dumper=_DUMPER, default_flow_style=False, width=width)
                except yaml.YAMLError:
                    continue
                total += 1
                taken += _check(text)
    assert taken > total * 0.7, (taken, total)


@pytest.mark.parametrize("text", QUIRKS)
def test_yaml_1_1_quirks_are_read_as_pyyaml_reads_them_or_refused(text):
    _check(text)


def test_what_kubectl_writes_is_taken():
    text = KUBECTL.replace("indented: |2\n          starts with spaces\n", "")   # "|2" is left to the others
    assert _check(text)
    message = yamlfast.block_load(text)["items"][0]["status"]["conditions"][1]["message"]
    assert message == "tab\tand \u00e9 and a long double-quoted message that kubectl folds onto the next line"
    assert not _check(KUBECTL)


@pytest.mark.parametrize("text", [
    "a: b\n c: d\n", "a: 1\n\nb: 2\n", "a: 1 # note\n", "# c\na: 1\n", "a:  1\n", "a: 1 \n", "a:\tb\n",
    "- - a\n", "a: >\n  x\n", "a: |2\n   x\n", "a: 'x\n", "a: \"x\n\n", "a: [b]\n", "a: {b: c}\n",
    "a: b: c\n", "a\n", "- a\nb\n", "---\na: 1\n", "a: 1\n---\nb: 2\n", "a: 1\n...\n", " a: 1\n", "",
    "a: caf\u00e9\n", "a: b\r\n", "1Ti: 2026-01-01\n", "a: 10.5\n", "a: 0x1F\n", "a: -012\n",
])
def test_what_it_leaves_to_the_other_decoders(text):
    assert yamlfast.block_load(text) is None
    assert yamlfast.load_all(text) == yamlfast.reference_load_all(text) if _reference(text) != "error" else True


def test_scalars_as_pyyaml_resolves_them():
    got = yamlfast.block_load("a: 12\nb: 0\nc: null\nd: true\ne: false\nf: 1Ti\ng: 16Gi\nh: 500m\ni: 1e5\n"
                              "j: 'it''s'\nk: \"\\x41\\u00e9\\t\"\nl:\nm: {}\nn: []\no: y\np: 123456789012345678901234\n")
    assert _typed(got) == _typed({"a": 12, "b": 0, "c": None, "d": True, "e": False, "f": "1Ti", "g": "16Gi",
                                  "h": "500m", "i": "1e5", "j": "it's", "k": "A\u00e9\t", "l": None, "m": {},
                                  "n": [], "o": "y", "p": 123456789012345678901234})


def test_literal_blocks_with_their_chomping():
    for text in ("a: |\n  x\n\n  y\n\n\nb: 1\n", "a: |-\n  x\n  y\n\nb: 1\n", "a: |+\n  x\n\n\nb: 1\n",
                 "- |\n  x\n   more\n- |+\n  y\n", "a: |\n  x", "a:\n  b: |-\n    x\n  c: 1\n"):
        assert _check(text), text


_ALPHABET = "ab yYnNoOtTfF01789:#-'\"\\|>.eExZ_~=<!&*[]{},%@`?\u00e9\t"


def _random_scalar(rng: random.Random):
    r = rng.random()
    if r < 0.1:
        return rng.choice([None, True, False, 0, 7, 10**20, -3, 1.5, ""])
    word = "".join(rng.choice(_ALPHABET) for _ in range(rng.randint(1, 12)))
    if r < 0.2:
        return rng.choice(["yes", "No", "on", "null", "~", "2026-01-01", "2026-01-01T00:00:00Z", "0755",
                           "1_000", "190:20:30", ".inf", "=", "<<", "1Ti", "12", "true"]) + word * (r < 0.15)
    return word * rng.randint(1, 8)


def _random_value(rng: random.Random, depth: int = 0):
    r = rng.random()
    if depth > 3 or r < 0.5:
        return _random_scalar(rng)
    if r < 0.75:
        return {str(_random_scalar(rng)): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def test_random_objects_dumped_by_pyyaml():
    rng = random.Random(17)
    taken = 0
    for _ in range(3000):
        doc = {"k" + str(i): _random_value(rng) for i in range(rng.randint(1, 4))}
        for style in (None, "'", '"', "|"):
            text = yaml.dump(doc, Dumper=_DUMPER, default_flow_style=False, default_style=style,
                             width=rng.choice([20, 80]), allow_unicode=rng.random() < 0.5)
            taken += _check(text)
    assert taken > 2000


def test_random_line_soup():
    """Lines of every shape shuffled: whatever the decoder takes, PyYAML reads the same (and where
    PyYAML fails, it refuses)."""
    rng = random.Random(3)
    lines = ["a: 1", "b:", "- c", "- d: e", "  f: g", "  - h", "    i: 'j", "    k'", "l: |", "  m", "",
             "n: 'o''p'", "q: \"r\\ns\"", "t: u v", "  w", "x: {}", "- []", "  y: |-", "    z", "- - 1", "'q': 2",
             "   3", "A: yes", "B: 2026-01-01", "C: 1Ti", "D: -1", "E: .5", "F: x:y", "G: x #", "H: |+", "-"]
    taken = 0
    for _ in range(20000):
        text = "\n".join(rng.choice(lines) for _ in range(rng.randint(1, 7)))
        if rng.random() < 0.7:
            text += "\n"
        taken += _check(text)
    assert taken > 1000


def test_nesting_deeper_than_any_object_is_refused():
    def deep(n: int) -> str:
        return "".join(" " * i + "k:\n" for i in range(n))
    assert _check(deep(200))
    assert yamlfast.block_load(deep(600)) is None   # before its C stack could run out
