"""Imports go one way: library code never imports commands/, and kueue/ (facts about Kueue that
every layer reads) imports nothing of the project but errors."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PKG = SRC / "kueue_doctor"


def _module(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Absolute names of the modules ``path`` imports, lazy imports inside functions included."""
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            out.add(prefix)
            # "from . import x" may name a submodule
            out.update(f"{prefix}.{a.name}" for a in node.names)
    return out


def _files(under: str = "") -> list[Path]:
    return sorted((PKG / under).rglob("*.py"))


@pytest.mark.parametrize("path", [p for p in _files() if p.relative_to(PKG).parts[0] not in
                                  ("commands", "cli.py", "__main__.py")], ids=lambda p: str(p.relative_to(PKG)))
def test_library_never_imports_commands(path):
    assert not {m for m in imports(path) if m.startswith("kueue_doctor.commands")}


@pytest.mark.parametrize("path", _files("kueue"), ids=lambda p: str(p.relative_to(PKG)))
def test_kueue_imports_only_the_standard_library_and_errors(path):
    ours = {m for m in imports(path) if m.split(".")[0] == "kueue_doctor"}
    allowed = {"kueue_doctor", "kueue_doctor.errors", "kueue_doctor.errors.InputError"}
    assert ours <= allowed | {m for m in ours if m.startswith("kueue_doctor.kueue")}
    others = {m.split(".")[0] for m in imports(path)} - {"kueue_doctor", "__future__"}
    assert others <= set(sys.stdlib_module_names), others
