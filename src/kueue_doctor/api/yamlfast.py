"""Decoding YAML fast, with PyYAML's safe C loader as the reference and the fallback.

PyYAML's C loader still builds every node and object in Python (about 2 MB/s on a kubectl-written
Workload list); ``fast_yaml`` (the ``fastyaml-rs`` wheel, a Rust YAML 1.2 parser) builds the same
dicts, lists and scalars roughly ten times faster. The two read plain scalars differently where YAML
1.1 and 1.2 differ (``yes``/``on`` booleans, ``0755`` octal, ``1_000``, ``1e5``, sexagesimal,
timestamps, ``=``, ``<<`` merge keys), and the fast one has no tags, and words errors its own way.
So the fast decoder only sees texts in which none of those can occur: ``needs_reference`` looks
for any plain scalar, key or construct where the two might disagree, and such a text (and anything
the fast decoder refuses) goes to PyYAML, which also words every error. tests/api/test_yamlfast.py
decodes every YAML file of the repository both ways and compares.

What kubectl writes (``kubectl get -o yaml``: block style, quoted timestamps and numeric strings,
``null``, ``true``, decimal integers, ``{}``/``[]``, ``|``/``|-`` block scalars) passes.
"""
from __future__ import annotations

import re
from typing import Any

import yaml

_fast: Any
try:  # without the accelerator every text goes to PyYAML
    import fast_yaml as _fast
except ImportError:  # pragma: no cover - the wheel is a declared dependency
    _fast = None

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# What a plain scalar, key or construct may start with where the two readers might disagree:
# PyYAML's YAML 1.1 implicit resolvers (yaml.resolver: bool, int, float, null, timestamp, merge,
# value) against the YAML 1.2 core schema, plus tags, anchors, aliases, flow collections, complex
# keys and directives. A superset: a false alarm only costs the fast path. Only the forms both read
# the same pass: decimal integers without a sign, ``null``, ``true``, ``false``, ``{}``, ``[]``.
# Each pattern starts with a literal (": ", "- ", a newline) so that ``re`` skips ahead fast, and
# quantifiers are possessive so that it never backtracks over indentation.
_WORDS = r"(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF|true|True|TRUE|false|False|FALSE|null|Null|NULL|~|=|<<)"
# numbers of either schema (PyYAML's int and float, with its sexagesimal forms; 1.2's 0o, 0x, 1e5)
_NUMBER = (r"[-+]?+(?:0[bBoOxX][0-9a-fA-F_]*+|[0-9][0-9_]*+(?::[0-5]?[0-9])*+(?:\.[0-9_]*+)?(?:[eE][-+]?[0-9]++)?"
           r"|\.[0-9_]++(?:[eE][-+]?[0-9]++)?|\.[a-zA-Z]++)")
_TIMESTAMP = (r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}"
              r"(?:(?:[Tt]| ++)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*+)?(?: *+(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?")
_TOKEN = rf"(?:{_NUMBER}|{_TIMESTAMP}|{_WORDS})"
_AGREED = r"(?:[1-9][0-9]*+|0|null|true|false)(?: *+#[^\n]*+)?(?:\n|$)"
_END = r" *+(?:#[^\n]*+)?(?:\n|$)"
_VALUE = rf"(?:(?!{_AGREED}){_TOKEN}{_END}|[!&*%]|[\[{{](?![\]}}]{_END}))"
_NEEDS_REFERENCE = [re.compile(p) for p in (
    rf": {_VALUE}",                                          # a value after "key: "
    rf"- {_VALUE}",                                          # a sequence item
    # a line's first token: a key, a document that is one scalar (or a continuation line), a
    # tag, anchor, alias, flow collection, complex key or directive
    rf"\n *+(?:- |--- )*+(?=[-+.0-9yYnNoOtTfF~=<!&*\[{{%?])"
    rf"(?:{_TOKEN} *+:(?:[ \n]|$)|(?!{_AGREED}){_TOKEN}{_END}|[!&*\[{{%]|\?(?:[ \n]|$))",
)]
# Characters PyYAML refuses (yaml.reader: its message is the one to give), tabs, CR, NEL, the
# Unicode line breaks, a BOM inside the text: the readers treat them differently.
_ODD_ASCII = bytes([c for c in range(128) if c in (9, 13) or (c < 32 and c != 10) or c == 127])
_ODD_CHAR = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
_ASCII_OK = bytes(c for c in range(128) if c not in _ODD_ASCII)


def _odd_characters(text: str) -> bool:
    if text.isascii():
        # bytes.translate deletes the harmless bytes at memcpy speed; re scans far slower
        return bool(text.encode("ascii").translate(None, _ASCII_OK))
    return _ODD_CHAR.search(text) is not None


def needs_reference(text: str) -> bool:
    """Whether the text holds anything the fast decoder might read differently from PyYAML."""
    lines = "\n" + text  # so that the first line is a line like the others
    return _odd_characters(text) or any(p.search(lines) for p in _NEEDS_REFERENCE)


def reference_load_all(text: str) -> list[Any]:
    """All documents as PyYAML's safe (C) loader reads them; raises yaml.YAMLError."""
    return list(yaml.load_all(text, Loader=_LOADER))


def fast_load_all(text: str) -> list[Any] | None:
    """All documents, decoded fast, or None when the text is for PyYAML to read."""
    if _fast is None or needs_reference(text):
        return None
    try:
        docs = list(_fast.safe_load_all(text))
    except Exception:  # its errors are for PyYAML to find and word
        return None
    # a text of comments alone is one empty document to it and none to PyYAML
    return None if docs == [None] else docs


def load_all(text: str) -> list[Any]:
    """All documents of a YAML text, exactly as PyYAML's safe loader reads them (raises
    yaml.YAMLError as it does)."""
    docs = fast_load_all(text)
    return reference_load_all(text) if docs is None else docs
