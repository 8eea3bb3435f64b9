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

Faster still, a single document in that block style is decoded by _blockyaml.c, which resolves
scalars the YAML 1.1 way itself (refusing what it cannot be sure of), so it needs no
``needs_reference``; what it refuses goes the way above (tests/api/test_blockyaml.py compares it
with PyYAML type for type). On 100,000 kubectl-written Workloads (54 MB) it takes about a fifth of
``fast_yaml``'s time (1.4 s against 6.8 s, loaded).
"""
from __future__ import annotations

import importlib
import itertools
import marshal
import multiprocessing as mp
import os
import re
import threading
from collections.abc import Callable, Generator
from typing import Any

import yaml

from ..forking import threads_stopped

_fast: Any
try:  # without the accelerator every text goes to PyYAML
    import fast_yaml as _fast
except ImportError:  # pragma: no cover - the wheel is a declared dependency
    _fast = None

_block: Any
try:  # the compiled block-style decoder (setup.py builds it where a C compiler is found)
    _block = importlib.import_module("._blockyaml", __package__)
except ImportError:  # pragma: no cover - built by every install with a compiler
    _block = None

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
    # Every pattern lies within one line (it may take the newline before and after it, and a
    # line's end and the text's end are alike to it), so each distinct line is searched once:
    # a kubectl-written List repeats most of its lines (an eighth of the text is distinct).
    # Each line after a newline, so that the first line is a line like the others.
    lines = "\n" + "\n".join(set(text.split("\n")))
    return _odd_characters(text) or any(p.search(lines) for p in _NEEDS_REFERENCE)


def reference_load_all(text: str) -> list[Any]:
    """All documents as PyYAML's safe (C) loader reads them; raises yaml.YAMLError."""
    return list(yaml.load_all(text, Loader=_LOADER))


def block_load(text: str) -> Any:
    """The one document of a text in the block style kubectl writes, as PyYAML reads it, decoded
    by _blockyaml.c (about five times faster than ``fast_yaml``, which builds the same objects);
    None when the text holds anything else (more documents, comments, flow style, a scalar PyYAML
    might not read as a string...: the C file lists what it refuses), or when it was not built.
    It resolves scalars as PyYAML does itself, so it needs no ``needs_reference``."""
    if _block is None or text.startswith(("---", "%")) or "\n---" in text or "\n..." in text:
        return None
    return _block.decode(text)


def fast_load_all(text: str) -> list[Any] | None:
    """All documents, decoded fast, or None when the text is for PyYAML to read."""
    doc = block_load(text)
    if doc is not None:
        return [doc]
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
    docs = parallel_load_all(text) if len(text) >= PARALLEL_FROM else None
    if docs is None:
        docs = fast_load_all(text)
    return reference_load_all(text) if docs is None else docs


# -- a large List decoded on several cores ---------------------------------------------------
# Decoding builds Python objects, so it holds the GIL: the cores are used by worker processes,
# each decoding a run of the List's items and sending them back marshalled (marshal keeps every
# type the decoder makes, and reading it back is about four times cheaper than decoding). On
# 100,000 kubectl-written Workloads (54 MB) on two cores, the busier process spends about 60% of
# the CPU time one process alone takes.
PARALLEL_FROM = 8 * 2**20        # characters; below, the processes cost more than they save
_ITEMS = "\nitems:\n"
# where a List's items block ends: the first line that is neither an item's first line ("- ")
# nor one of its lines (indented)
_BLOCK_END = re.compile(r"\n(?!- | )")
_text = ""                       # what forked workers decode parts of


def split_list(text: str, parts: int) -> tuple[str, list[tuple[int, int]]] | None:
    """A single-document ``kind: List`` as kubectl writes it (``items:`` at column 0, its items
    at column 0): the text with ``items: []`` in place of the items, and the items block cut at
    item boundaries into ``parts`` runs of about equal size (start, end offsets). None for any
    other shape."""
    at = text.find(_ITEMS)
    if at < 0 or not text.startswith("apiVersion:") or "\n---" in text or "\n..." in text:
        return None
    start = at + len(_ITEMS)
    if not text.startswith("- ", start):
        return None
    m = _BLOCK_END.search(text, start)
    end = m.start() + 1 if m else len(text)
    head = text[:at + 1] + "items: []\n" + text[end:]
    cuts = [start]
    for i in range(1, parts):
        cut = text.find("\n- ", max(cuts[-1], start + (end - start) * i // parts))
        if cut < 0 or cut + 1 >= end:
            break
        cuts.append(cut + 1)
    cuts.append(end)
    return head, list(itertools.pairwise(cuts))


def _decode_part(span: tuple[int, int], text: str | None = None) -> list[Any] | None:
    part = (_text if text is None else text)[span[0]:span[1]]
    items = block_load(part)
    if items is not None:
        return items if isinstance(items, list) else None
    if needs_reference(part):
        return None
    try:
        items = _fast.safe_load(part)
    except Exception:  # for PyYAML to find and word, on the whole text
        return None
    return items if isinstance(items, list) else None


def _worker_part(span: tuple[int, int]) -> bytes | None:
    items = _decode_part(span)
    if items is None:
        return None
    if _prepare is not None:
        items = _prepare(items)
    try:
        return marshal.dumps(items)
    except ValueError:  # what ``prepare`` made is not plain data: the ordinary way
        return None


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return 1


def _can_fork(cores: int) -> bool:
    # forking a process that runs other threads (``serve``) may copy a lock some thread holds; a
    # progress spinner's thread is stopped for the fork (forking.py)
    with threads_stopped():
        return _fast is not None and cores >= 2 and "fork" in mp.get_all_start_methods() \
            and threading.active_count() == 1


def _fork_pool(ctx: Any, processes: int, cores: int) -> Any:
    """A Pool of forked workers, made while no other thread runs; None where that cannot be."""
    with threads_stopped():
        return ctx.Pool(processes) if _can_fork(cores) else None


def parallel_load_all(text: str, cores: int | None = None) -> list[Any] | None:
    """The documents of a large kubectl-written List decoded by ``cores`` processes (this one
    and forked workers), exactly as ``fast_load_all`` decodes them; None when the text is not
    such a List, when any part of it is for PyYAML to read, or when no worker can be started."""
    global _text
    cores = cores or usable_cores()
    if not _can_fork(cores):
        return None
    split = split_list(text, cores)
    if split is None or len(split[1]) < 2:
        return None
    head, spans = split
    _text = text
    try:
        pool = _fork_pool(mp.get_context("fork"), len(spans) - 1, cores)
        if pool is None:
            return None
        with pool:
            pending = pool.map_async(_worker_part, spans[1:])
            first = _decode_part(spans[0])
            rest = pending.get()
    except Exception:  # no worker here (a daemon, a process limit) or one failed: one core
        return None
    finally:
        _text = ""
    if first is None or any(r is None for r in rest):
        return None
    docs = fast_load_all(head)
    if not docs or len(docs) != 1 or not isinstance(docs[0], dict) or docs[0].get("items") != []:
        return None
    items = first
    for r in rest:
        assert r is not None
        items += marshal.loads(r)
    docs[0]["items"] = items
    return docs


# -- a large List handed out part by part, for its objects to be built while the rest decodes --
# parallel_load_all leaves the building of typed objects (as long as the decoding on one core) to
# the end, with the workers idle. Streamed, the parts are decoded by forked workers and handed out
# in order as soon as each is there: the caller builds the objects of one part while the workers
# decode the next ones. Decoding a part costs more than building its objects (on two cores, for
# 100,000 Workloads, about 5 s of decoding in the worker against 4 s of building here), so while
# the next part is not there yet this process decodes one itself, from the end of the List (its
# own parts need no marshalling either); a part is decoded by whoever claims it first.
STREAM_PART = 2 * 2**20          # characters per part: the first objects are built early
_prepare: Callable[[list[Any]], list[Any]] | None = None   # what forked workers do to their parts' items
_spans: list[tuple[int, int]] = []
_claims: Any = None              # one byte per part, set by whoever decodes it (shared, locked)
_TAKEN = b""                     # a worker's answer for a part this process claimed


class NotFast(Exception):
    """A part of a streamed List is for PyYAML to read (or no worker could decode it): the whole
    text is to be read again the ordinary way."""


def stream_list(text: str, cores: int | None = None, prepare: Callable[[list[Any]], list[Any]] | None = None,
                ) -> tuple[dict, Generator[list[Any], None, None]] | None:
    """A large kubectl-written List as its head (the List with ``items: []``) and the runs of its
    items in order, decoded by ``cores - 1`` forked workers and this process as ``fast_load_all``
    decodes them; None when the text is not such a List or no worker can be started. The
    iterator raises NotFast when a part is not for the fast decoder; closing it stops the workers.

    ``prepare``: what a worker does to the items of a part it decoded before sending them back
    (it must return what marshal carries: a part of which it does not is read the ordinary way);
    the parts this process decodes come as decoded, so the caller tells them apart."""
    cores = cores or usable_cores()
    if len(text) < PARALLEL_FROM or not _can_fork(cores):
        return None
    split = split_list(text, max(cores, len(text) // STREAM_PART))
    if split is None or len(split[1]) < 2:
        return None
    head_text, spans = split
    docs = fast_load_all(head_text)
    if not docs or len(docs) != 1 or not isinstance(docs[0], dict) or docs[0].get("items") != []:
        return None
    return docs[0], _streamed_parts(text, spans, cores, prepare)


def _claim(i: int, claims: Any = None) -> bool:
    claims = _claims if claims is None else claims
    with claims.get_lock():
        if claims[i]:
            return False
        claims[i] = 1
        return True


def _worker_claimed(i: int) -> bytes | None:
    if not _claim(i):
        return _TAKEN
    return _worker_part(_spans[i])


def _streamed_parts(text: str, spans: list[tuple[int, int]], cores: int,
                    prepare: Callable[[list[Any]], list[Any]] | None) -> Generator[list[Any], None, None]:
    global _text, _spans, _claims, _prepare
    ctx = mp.get_context("fork")
    _text, _spans, _prepare = text, spans, prepare
    try:
        _claims = ctx.Array("b", len(spans))
        # one worker fewer than cores: this process builds the objects (and decodes when idle)
        pool = _fork_pool(ctx, max(1, cores - 1), cores)
    except Exception:  # no worker here (a daemon, a process limit)
        raise NotFast from None
    finally:
        _text, _spans, _prepare = "", [], None
    if pool is None:   # another thread started meanwhile
        _claims = None
        raise NotFast
    claims = _claims
    mine: dict[int, list[Any]] = {}   # parts this process decoded, by index
    back = len(spans) - 1             # the next part to claim from the end
    try:
        results = pool.imap(_worker_claimed, range(len(spans)))
        for i in range(len(spans)):
            while True:   # the worker's answer for part i (in order), decoding from the end meanwhile
                try:
                    part = results.next(timeout=0) if back > i else results.next()
                    break
                except mp.TimeoutError:
                    j, back = back, back - 1
                    if not _claim(j, claims):
                        back = i   # the worker reached it: nothing is left to claim
                        continue
                    items = _decode_part(spans[j], text)
                    if items is None:
                        raise NotFast from None
                    mine[j] = items
            if part is None:
                raise NotFast
            yield mine.pop(i) if part == _TAKEN else marshal.loads(part)
    except NotFast:
        raise
    except Exception:  # a worker failed (or no part i anywhere)
        raise NotFast from None
    finally:
        pool.terminate()
        pool.join()
        _claims = None
