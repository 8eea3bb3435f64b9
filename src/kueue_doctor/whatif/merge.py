"""JSON Merge Patch (RFC 7386): what ``kubectl patch --type merge`` applies.

A patch's object members replace or (``null``) delete the target's; anything that is not an
object, lists included, replaces the target wholesale. Fifteen lines need no library.
"""
from __future__ import annotations

import copy
from typing import Any


def merge_patch(target: Any, patch: Any) -> Any:
    """``target`` with ``patch`` applied (RFC 7386 §2 MergePatch); neither argument is changed."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out
