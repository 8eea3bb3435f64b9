"""kueue/ is read by every layer, so it imports only the standard library and the project's
error type (stricter than L0 in tests/test_layers.py, which lets L0 members import each other)."""
from __future__ import annotations

import ast
import sys

import pytest

from tests.paths import REPO

KUEUE = REPO / "src" / "kueue_doctor" / "kueue"


def _imported(path) -> set[str]:
    """Top-level names of what ``path`` imports; relative imports as "." plus their module."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
    return out


@pytest.mark.parametrize("path", sorted(KUEUE.glob("*.py")), ids=lambda p: p.name)
def test_kueue_imports_only_the_standard_library_and_errors(path):
    for name in _imported(path):
        if name.startswith(".."):
            assert name == "..errors", name           # kueue_doctor.errors, nothing else
        elif name.startswith("."):
            continue                                  # kueue's own modules
        else:
            assert name.split(".")[0] in sys.stdlib_module_names or name == "__future__", name
