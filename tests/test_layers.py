"""The import graph of kueue_doctor: no cycles, and no import against the layers.

Every module's imports are read with ``ast`` (imports inside functions too, relative imports
resolved), so this holds without importing anything. Layers, lowest first (DESIGN.md,
"Architecture: data flows one way"):

  L0  errors, heap, duration,   leaf utilities (keys: WorkloadKey, the name of a workload);
      keys, kueue, samples      facts about Kueue: releases, wire vocabulary; the packaged
                                trace samples and the one resolver of trace paths
  L1  api                       object model, parsing
  L2  engine, sources, logs     pure admission semantics; folder/live/collect; the log scanner
  L3  guarantee, frag           the one guarantee; fragmentation measure and placement
  L4  sim, doctor, whatif
  L5  metrics, report, sweep
  L6  commands, cli, conformance, __main__

A module may import from its own top-level package (or module) and from lower layers only:
packages of one layer are siblings and import none of each other. The one exception is the top
layer, the entry points, which call into one another by design (``__main__`` runs ``cli``,
``cli`` loads ``commands``, the ``conformance`` command runs ``conformance``); the cycle check
still covers them. The top package's ``__init__`` runs before any module of the package, so it
counts as L0. Imports made by name at run time (``importlib``, as ``cli`` loads commands) are
not seen.

``frag`` sits at L3 beside the guarantee: it reads the object model and the engine's pod
requests (L1, L2), and the doctor, the simulator and the exporter (L4, L5) read it.

``KNOWN_VIOLATIONS`` lists the imports that break the layers on this branch today; fixes are
under way elsewhere. It may only shrink: an entry that no longer occurs fails the test, so that
the fix that removes it also removes the entry.
"""
from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = "kueue_doctor"

LAYERS: dict[str, int] = {
    "errors": 0, "heap": 0, "forking": 0, "duration": 0, "keys": 0, "kueue": 0, "samples": 0,
    "api": 1,
    "engine": 2, "sources": 2, "logs": 2,
    "guarantee": 3, "frag": 3,
    "sim": 4, "doctor": 4, "whatif": 4,
    "metrics": 5, "report": 5, "sweep": 5,
    "commands": 6, "cli": 6, "conformance": 6, "__main__": 6,
}
ENTRY_POINTS = 6  # the top layer: its members may import one another
# layers whose members may import one another: the entry points, and L0's leaf utilities
# (``kueue`` words its errors with ``errors``)
OPEN_LAYERS = frozenset({0, ENTRY_POINTS})
ROOT = ""         # kueue_doctor/__init__.py

# (importer, imported), module names relative to kueue_doctor. Remove an entry with the fix.
KNOWN_VIOLATIONS: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True, slots=True)
class Import:
    file: Path          # relative to the parent of the source root (src/kueue_doctor/...)
    line: int
    importer: str       # dotted module names, without the package prefix
    imported: str
    at_import_time: bool  # module level (not in a function, not under TYPE_CHECKING)


@dataclass(frozen=True, slots=True)
class Violation:
    imp: Import
    from_layer: int
    to_layer: int

    def __str__(self) -> str:
        i = self.imp
        return (f"{i.file}:{i.line}: {i.importer} imports {i.imported} "
                f"(layer L{self.from_layer} -> L{self.to_layer})")


# -- reading the imports -----------------------------------------------------------------------

def modules(src: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``src``: dotted name (without the package) -> file.
    A package is named by its own name (``engine`` for engine/__init__.py); the top package's
    __init__ is ``""``."""
    root = src / package
    out: dict[str, Path] = {}
    for f in sorted(root.rglob("*.py")):
        parts = list(f.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = f
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _statements(tree: ast.Module) -> Iterable[tuple[ast.stmt, bool]]:
    """Every import statement with whether it runs when the module is imported."""
    def walk(nodes: Iterable[ast.AST], runtime: bool) -> Iterable[tuple[ast.stmt, bool]]:
        for node in nodes:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                yield node, runtime
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                yield from walk(ast.iter_child_nodes(node), False)
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                yield from walk(node.body, False)
                yield from walk(node.orelse, runtime)
            else:
                yield from walk(ast.iter_child_nodes(node), runtime)
    return walk(tree.body, True)


def _resolve(name: str, mods: Mapping[str, Path]) -> str | None:
    """The module a dotted name (without the package) refers to: itself, or the closest
    enclosing module (``engine.flavors.FlavorAssigner`` -> ``engine.flavors``)."""
    parts = name.split(".") if name else []
    while parts:
        candidate = ".".join(parts)
        if candidate in mods:
            return candidate
        parts.pop()
    return None


def read_imports(src: Path, package: str) -> list[Import]:
    """Every import of one module of the package by another, one per (statement, module)."""
    mods = modules(src, package)
    out: dict[tuple[Path, int, str, str], Import] = {}
    for importer, f in mods.items():
        is_pkg = f.name == "__init__.py"
        here = importer.split(".") if importer else []
        base_pkg = here if is_pkg else here[:-1]   # the package relative imports start from
        for node, runtime in _statements(ast.parse(f.read_text(), str(f))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name == package or alias.name.startswith(package + "."):
                        targets.append(alias.name[len(package) + 1:])
            else:
                if node.level:
                    if node.level - 1 > len(base_pkg):
                        raise AssertionError(f"{f}:{node.lineno}: relative import beyond the package")
                    start = base_pkg[:len(base_pkg) - (node.level - 1)]
                    mod = ".".join(start + (node.module.split(".") if node.module else []))
                elif node.module == package or (node.module or "").startswith(package + "."):
                    mod = (node.module or "")[len(package) + 1:]
                else:
                    continue
                # ``from X import n``: n is a submodule of X, or a name defined in X
                for alias in node.names:
                    sub = f"{mod}.{alias.name}" if mod else alias.name
                    targets.append(sub if sub in mods else mod)
            for t in targets:
                resolved = _resolve(t, mods)
                if resolved is None:
                    if t == "":  # the top package itself
                        resolved = ""
                    else:
                        raise AssertionError(f"{f}:{node.lineno}: {importer} imports unknown module {t}")
                if resolved != importer:
                    i = Import(f.relative_to(src.parent), node.lineno, importer, resolved, runtime)
                    out.setdefault((i.file, i.line, i.importer, i.imported), i)
    return list(out.values())


# -- checking ---------------------------------------------------------------------------------

def unit(module: str) -> str:
    """The top-level sub-package or module a module belongs to (``engine`` for engine.flavors)."""
    return module.split(".")[0]


def layer_violations(imports: Iterable[Import], layers: Mapping[str, int],
                     open_layers: Iterable[int] = ()) -> list[Violation]:
    """Imports of a sibling or a higher layer (siblings may import each other in ``open_layers``)."""
    open_layers = set(open_layers)
    out = []
    for i in imports:
        a, b = unit(i.importer), unit(i.imported)
        if a == b or b == ROOT:
            continue
        for u in (a, b):
            if u != ROOT and u not in layers:
                raise AssertionError(f"{i.file}:{i.line}: {u!r} has no layer: add it to LAYERS")
        la, lb = layers.get(a, 0), layers[b]
        if lb > la or (lb == la and la not in open_layers):
            out.append(Violation(i, la, lb))
    return out


def _cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def _cycle_report(comp: list[str], imports: Iterable[Import], by_unit: bool) -> str:
    """The members of a cycle, then every import between them."""
    members = set(comp)
    name = unit if by_unit else (lambda m: m)
    lines = {f"  {i.file}:{i.line}: {i.importer} imports {i.imported}" for i in imports
             if name(i.importer) in members and name(i.imported) in members}
    return " <-> ".join(comp) + "\n" + "\n".join(sorted(lines))


def package_cycles(imports: Iterable[Import], allowed: Iterable[tuple[str, str]] = ()) -> list[str]:
    """Cycles between top-level sub-packages/modules, over every import (functions included).
    Imports in ``allowed`` are left out: a cycle they close is reported as their violation."""
    allowed = set(allowed)
    kept = [i for i in imports if (i.importer, i.imported) not in allowed
            and i.imported and unit(i.importer) != unit(i.imported)]
    edges: dict[str, set[str]] = {}
    for i in kept:
        edges.setdefault(unit(i.importer), set()).add(unit(i.imported))
    return [_cycle_report(c, kept, by_unit=True) for c in _cycles(edges)]


def module_cycles(imports: Iterable[Import]) -> list[str]:
    """Cycles between modules through the imports that run when a module is imported.
    Importing ``a.b.c`` also runs the packages ``a`` and ``a.b`` (unless the importer is inside
    them, when they are already being imported)."""
    runtime = [i for i in imports if i.at_import_time]
    edges: dict[str, set[str]] = {}
    for i in runtime:
        targets = [i.imported]
        parts = i.imported.split(".")
        for n in range(1, len(parts)):
            parent = ".".join(parts[:n])
            if not (i.importer == parent or i.importer.startswith(parent + ".")):
                targets.append(parent)
        for t in targets:
            if t and t != i.importer:
                edges.setdefault(i.importer, set()).add(t)
    return [_cycle_report(c, runtime, by_unit=False) for c in _cycles(edges)]


def check(src: Path, package: str, layers: Mapping[str, int],
          known: Iterable[tuple[str, str]] = (), open_layers: Iterable[int] = ()) -> list[str]:
    """Every problem, one message each: violations not in ``known``, entries of ``known`` that
    no longer occur, package cycles not closed by a known violation, and module cycles."""
    known = set(known)
    imports = read_imports(src, package)
    problems: list[str] = []
    violations = layer_violations(imports, layers, open_layers)
    seen = {(v.imp.importer, v.imp.imported) for v in violations}
    problems += [str(v) for v in violations if (v.imp.importer, v.imp.imported) not in known]
    problems += [f"KNOWN_VIOLATIONS: ({a!r}, {b!r}) no longer occurs: remove it"
                 for a, b in sorted(known - seen)]
    problems += [f"import cycle between packages: {c}" for c in package_cycles(imports, known)]
    problems += [f"import cycle at import time between modules: {c}" for c in module_cycles(imports)]
    return problems


# -- the tests --------------------------------------------------------------------------------

def test_imports_follow_the_layers_and_form_no_cycle():
    problems = check(SRC, PACKAGE, LAYERS, KNOWN_VIOLATIONS, OPEN_LAYERS)
    for p in problems:
        print(p)
    assert not problems, "\n" + "\n".join(problems)


def test_every_top_level_unit_has_a_layer():
    units = {unit(m) for m in modules(SRC, PACKAGE) if m}
    assert units <= set(LAYERS), f"no layer for {sorted(units - set(LAYERS))}: add them to LAYERS"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def test_the_checker_reports_a_cycle_and_an_upward_import(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low/__init__.py": "",
        "pkg/low/a.py": """\
            from . import b          # a and b import each other at import time
            """,
        "pkg/low/b.py": """\
            from .a import thing


            def late():
                from ..high.c import up   # upward, and inside a function
                return up
            """,
        "pkg/high/__init__.py": "",
        "pkg/high/c.py": """\
            import pkg.low.a
            up = 1
            """,
    })
    layers = {"low": 0, "high": 1}
    problems = check(tmp_path, "pkg", layers)
    upward = f"{tmp_path.name}/pkg/low/b.py:5: low.b imports high.c (layer L0 -> L1)"
    assert upward in problems
    assert any(p.startswith("import cycle between packages: high <-> low") for p in problems), problems
    assert any(p.startswith("import cycle at import time between modules: low.a <-> low.b")
               for p in problems), problems
    assert len(problems) == 3, problems
    # allow-listed, the upward import is not reported and closes no cycle; the module cycle stays
    problems = check(tmp_path, "pkg", layers, known={("low.b", "high.c")})
    assert len(problems) == 1, problems
    assert problems[0].startswith("import cycle at import time between modules")
    # and an allow-list entry that no longer occurs is reported
    problems = check(tmp_path, "pkg", layers, known={("low.b", "high.c"), ("low.a", "high.c")})
    assert "KNOWN_VIOLATIONS: ('low.a', 'high.c') no longer occurs: remove it" in problems
