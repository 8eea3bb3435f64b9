"""The fast YAML decoder gives the same objects as PyYAML's safe C loader, or hands the text to it."""
from __future__ import annotations

from pathlib import Path

import fast_yaml
import pytest
import yaml

from kueue_doctor.api import yamlfast
from tests.paths import REPO, SHARED

_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _object_files() -> list[Path]:
    roots = [REPO / "tests", REPO / "examples", REPO / "src" / "kueue_doctor" / "data", REPO / "deploy",
             SHARED]  # the shared incidents and data, where this checkout has them
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*")
                  if p.suffix in (".yaml", ".yml") and ".venv" not in p.parts)


def _reference(text: str):
    try:
        return yamlfast.reference_load_all(text)
    except yaml.YAMLError as e:
        return type(e)


def _ours(text: str):
    try:
        return yamlfast.load_all(text)
    except yaml.YAMLError as e:
        return type(e)


def test_every_yaml_file_of_the_repository_decodes_as_pyyaml_does():
    files = _object_files()
    assert len(files) > 300
    fast = 0
    for p in files:
        try:
            text = p.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            continue
        assert _ours(text) == _reference(text), p
        docs = yamlfast.fast_load_all(text)
        if docs is not None:
            fast += 1
            assert docs == yamlfast.reference_load_all(text), p
    assert fast > 0


def test_the_same_objects_written_as_kubectl_writes_them_take_the_fast_path():
    """Hand-written test files use flow style and so mostly go to PyYAML; written again in block
    style (as kubectl and collect write objects) the same objects must decode fast and the same."""
    fast = total = 0
    for p in _object_files():
        try:
            docs = [d for d in yamlfast.reference_load_all(p.read_bytes().decode("utf-8-sig")) if d is not None]
        except (yaml.YAMLError, UnicodeDecodeError):
            continue
        if not docs:
            continue
        try:
            text = yaml.dump_all(docs, Dumper=_DUMPER, default_flow_style=False, sort_keys=True, allow_unicode=True)
        except yaml.YAMLError:
            continue
        total += 1
        got = yamlfast.fast_load_all(text)
        if got is not None:
            fast += 1
            assert got == yamlfast.reference_load_all(text), p
    assert fast > total * 0.6, (fast, total)


# Plain scalars YAML 1.1 (PyYAML) and 1.2 (the fast decoder) read differently, and constructs it
# has no exact match for: each must go to PyYAML.
QUIRKS = [
    "a: yes\n", "a: No\n", "a: on\n", "a: OFF\n", "- y\n- n\n", "yes: 1\n", "on: x\n",
    "mode: 0755\n", "a: 0o17\n", "a: 0b101\n", "a: 1_000\n", "a: 1e5\n", "a: 1.5e3\n", "a: 190:20:30\n",
    "a: .inf\n", "a: -.inf\n", "a: .NaN\n", "a: ~\n", "a: Null\n", "a: NULL\n", "a: +12\n", "a: -5\n", "a: 1.5\n",
    "t: 2026-01-01T00:00:00Z\n", "d: 2026-01-01\n", "t: 2001-12-14 21:59:43.10 -5\n", "- 2026-01-01\n",
    "a: &x {b: 1}\nc: *x\n", "a: &x\n  b: 1\nc: *x\n", "base: &b\n  x: 1\nd:\n  <<: *b\n  y: 2\n",
    "a: !!str 12\n", "a: !!python/name:os.system\n", "? a\n: b\n", "%YAML 1.1\n---\na: 1\n",
    "a: [yes, 0755]\n", "a: {b: on}\n", "a:\tb\n", "a: b\r\nc: d\r\n", "a: \"\\x85\"\nb: c\x85d\n",
    "a: =\n", "1: a\n2: b\n", "--- 0755\n", "0755\n", "a: b\u2028c\n",
]


@pytest.mark.parametrize("text", QUIRKS)
def test_yaml_1_1_quirks_go_to_pyyaml(text, monkeypatch):
    assert _ours(text) == _reference(text)
    # fast_yaml's side (the compiled block decoder resolves scalars itself: tests/api/test_blockyaml.py)
    monkeypatch.setattr(yamlfast, "_block", None)
    assert yamlfast.fast_load_all(text) is None  # the guard, or the fast decoder's refusal (a duplicate key)
    assert _ours(text) == _reference(text)


def test_the_quirks_are_real():
    """Without the guard the fast decoder would get most of the quirks wrong (so the test above
    can fail): booleans, octal, timestamps, underscores, exponents."""
    wrong = 0
    for text in QUIRKS:
        try:
            wrong += list(fast_yaml.safe_load_all(text)) != yamlfast.reference_load_all(text)
        except Exception:
            wrong += 1
    assert wrong >= 25


KUBECTL = """\
apiVersion: v1
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: Workload
  metadata:
    annotations:
      note: |
        two
        lines
      trimmed: |-
        kept
      indented: |2
          starts with spaces
    creationTimestamp: "2026-01-01T00:00:00Z"
    generation: 1
    labels:
      kueue.x-k8s.io/queue-name: main
      "yes": "no"
    name: w0
    namespace: team-a
    resourceVersion: "1234"
    uid: 0e4b2c1a-1234-4abc-9def-0123456789ab
  spec:
    active: true
    podSets:
    - count: 1
      name: main
      template:
        metadata:
          creationTimestamp: null
        spec:
          containers:
          - name: c
            resources:
              requests:
                cpu: 500m
                memory: 16Gi
                nvidia.com/gpu: "8"
    priority: 0
    queueName: main
  status:
    conditions:
    - lastTransitionTime: "2026-01-01T00:00:00Z"
      message: 'couldn''t assign flavors to pod set main: insufficient quota for nvidia.com/gpu
        in flavor gpu, request > maximum capacity (8 > 4)'
      reason: Pending
      status: "False"
      type: QuotaReserved
    - message: "tab\\tand \\u00e9 and a long double-quoted message that kubectl folds onto
        the next line"
      status: "True"
      type: X
    empty: {}
    none: []
kind: List
metadata:
  resourceVersion: ""
"""


def test_what_kubectl_writes_decodes_fast_and_the_same():
    """kubectl's quoting (timestamps, numeric strings, "yes"), null, true, block scalars with their
    chomping and indentation indicators, folded long strings, '' escapes: the fast path, exactly."""
    assert not yamlfast.needs_reference(KUBECTL)
    docs = yamlfast.fast_load_all(KUBECTL)
    assert docs is not None and docs == yamlfast.reference_load_all(KUBECTL)
    w = docs[0]["items"][0]
    assert w["metadata"]["creationTimestamp"] == "2026-01-01T00:00:00Z"  # quoted: a string, as PyYAML keeps it
    assert w["metadata"]["labels"]["yes"] == "no"
    assert w["metadata"]["annotations"]["indented"] == "  starts with spaces\n"


def test_several_documents_and_empty_ones():
    text = "---\na: 1\n---\n---\nb: null\n...\n---\n- c\n"
    assert yamlfast.fast_load_all(text) == yamlfast.reference_load_all(text) == [{"a": 1}, None, {"b": None}, ["c"]]
    assert yamlfast.load_all("") == yamlfast.reference_load_all("") == []
    assert yamlfast.load_all("# only a comment\n") == []
    assert yamlfast.load_all("a: 1\na: 2\n") == yamlfast.reference_load_all("a: 1\na: 2\n") == [{"a": 2}]


def test_errors_are_pyyaml_s():
    with pytest.raises(yaml.MarkedYAMLError) as e:
        yamlfast.load_all("a: b\n c: d\n")
    assert e.value.problem_mark is not None


def _big_list(n: int, odd_item: int | None = None) -> str:
    """A kubectl-written List of ``n`` Workloads like KUBECTL's (item ``odd_item`` with a value
    for PyYAML to read)."""
    head, _, rest = KUBECTL.partition("items:\n")
    item, _, tail = rest.partition("kind: List\n")
    items = [item.replace("name: w0", f"name: w{i}") for i in range(n)]
    if odd_item is not None:
        items[odd_item] = items[odd_item].replace("generation: 1", "generation: 0755")
    return head + "items:\n" + "".join(items) + "kind: List\n" + tail


def test_a_large_list_decoded_on_several_cores_is_the_same():
    text = _big_list(60)
    split = yamlfast.split_list(text, 3)
    assert split is not None and len(split[1]) == 3
    assert split[0] == 'apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n'
    docs = yamlfast.parallel_load_all(text, cores=3)
    assert docs is not None and docs == yamlfast.reference_load_all(text)
    assert [w["metadata"]["name"] for w in docs[0]["items"]] == [f"w{i}" for i in range(60)]


@pytest.mark.parametrize("odd_item", [0, 30, 59])
def test_a_part_for_pyyaml_sends_the_whole_list_to_it(odd_item, monkeypatch):
    text = _big_list(60, odd_item)
    assert yamlfast.parallel_load_all(text, cores=3) is None
    monkeypatch.setattr(yamlfast, "PARALLEL_FROM", 1)
    docs = yamlfast.load_all(text)
    assert docs == yamlfast.reference_load_all(text)
    assert docs[0]["items"][odd_item]["metadata"]["generation"] == 493   # YAML 1.1 octal, as PyYAML reads it


@pytest.mark.parametrize("text", [
    "apiVersion: v1\nkind: List\n",                                  # no items
    "apiVersion: v1\nitems:\n  - a: 1\n  - b: 2\nkind: List\n",      # indented items
    "apiVersion: v1\nitems:\n- a: 1\n---\napiVersion: v1\nitems:\n- b: 2\n",  # two documents
    "items:\n- a: 1\n- b: 2\n",                                      # not kubectl's order
])
def test_other_shapes_are_decoded_on_one_core(text):
    assert yamlfast.parallel_load_all(text, cores=2) is None


def test_a_list_with_a_blank_line_or_comment_in_its_items_is_still_read_right(monkeypatch):
    monkeypatch.setattr(yamlfast, "PARALLEL_FROM", 1)
    for text in ("apiVersion: v1\nitems:\n- a: 1\n- b: |\n    x\n\n    y\n- c: 3\n- d: 4\nkind: List\n",
                 "apiVersion: v1\nitems:\n- a: 1\n# note\n- b: 2\n- c: 3\nkind: List\n"):
        assert yamlfast.load_all(text) == yamlfast.reference_load_all(text), text


def test_every_yaml_file_of_the_repository_decodes_on_several_cores_as_pyyaml_does():
    checked = 0
    for p in _object_files():
        try:
            text = p.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError:
            continue
        docs = yamlfast.parallel_load_all(text, cores=2)
        if docs is not None:
            checked += 1
            assert docs == yamlfast.reference_load_all(text), p
    assert checked > 0


def _whole_text_needs_reference(text: str) -> bool:
    """needs_reference as it was, searching the whole text: the reference for the line-wise one."""
    lines = "\n" + text
    return yamlfast._odd_characters(text) or any(p.search(lines) for p in yamlfast._NEEDS_REFERENCE)


def test_distinct_lines_tell_what_the_whole_text_tells():
    import random
    rng = random.Random(5)
    texts = []
    for p in _object_files():
        try:
            texts.append(p.read_bytes().decode("utf-8-sig"))
        except UnicodeDecodeError:
            continue
    snippets = [*QUIRKS, "a: 1\n", "- b\n", "  c: 'yes'\n", "key: \"0755\"\n", "x: |\n  on\n", "- - 12\n",
                "--- \n", "a:\n- 1\n", "b: [ ]\n", "c: {}\n", " ", "\n", "d: 1 # yes\n", "e: 2026-01-01 "]
    for _ in range(3000):   # quirks and harmless lines shuffled, with and without a final newline
        lines = [rng.choice(snippets) for _ in range(rng.randint(1, 6))]
        text = "".join(lines)
        texts.append(text if rng.random() < 0.7 else text.rstrip("\n"))
    assert sum(map(_whole_text_needs_reference, texts)) > 1000
    for text in texts:
        assert yamlfast.needs_reference(text) == _whole_text_needs_reference(text), repr(text[:200])


def test_the_block_decoder_is_built_where_a_compiler_is():
    """`pip install -e .` compiles api/_blockyaml.c (setup.py, optional): with gcc and Python's
    headers, as in CI, it must be there, or its tests would all be skipped and big folders read
    at the YAML libraries' pace without a word."""
    from tests.logs.test_fastscan import _compiler_here

    if not _compiler_here():
        pytest.skip("no C compiler or Python headers: the YAML libraries read everything")
    assert yamlfast._block is not None, "api/_blockyaml.c was not built: reinstall with `pip install -e .`"
