"""How every command prints its result: ``-o text|wide|json|yaml``, ``--output-file``, the
documents' ``apiVersion``/``kind``, and the exit status (docs/cli.md).

A command builds one document (a dict) and a text renderer for it; ``Output.emit`` prints one
of the two. JSON and YAML carry the same keys as the document, with ``apiVersion`` and ``kind``
first, and each kind has a JSON Schema under ``kueue_doctor/data/schemas`` (``schema``).
"""
from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import click

from ..errors import (  # noqa: F401 - the exit statuses are part of this module's interface
    EXIT_BAD_INPUT,
    EXIT_FOUND,
    EXIT_INTERNAL,
    EXIT_OK,
    EXIT_UNKNOWN,
    InputError,
)

if TYPE_CHECKING:
    from rich.console import Console

API_VERSION = "kueue-doctor.dev/v1alpha1"
FORMATS = ("text", "wide", "json", "yaml")

TextRenderer = Callable[["Console", bool], None]


def document(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": kind, **body}


def schema(kind: str) -> dict[str, Any]:
    from importlib import resources  # (here: about 7 ms of every command's start-up otherwise)

    path = resources.files("kueue_doctor") / "data" / "schemas" / f"{kind}.schema.json"
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise KeyError(f"no schema for kind {kind}") from None


def dumps(doc: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        return json.dumps(doc, indent=2, default=str)
    import yaml
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    return yaml.dump(json.loads(json.dumps(doc, default=str)), Dumper=dumper, sort_keys=False,
                     allow_unicode=True, width=1 << 20).rstrip("\n")


@dataclass(frozen=True, slots=True)
class Output:
    fmt: str                 # one of FORMATS
    file: str | None         # --output-file; None or "-" is stdout

    @property
    def wide(self) -> bool:
        return self.fmt == "wide"

    @property
    def structured(self) -> bool:
        return self.fmt in ("json", "yaml")

    def emit(self, kind: str, body: dict[str, Any], text: TextRenderer) -> None:
        if self.structured:
            self.write(dumps(document(kind, body), self.fmt) + "\n")
            return
        # rich only for text: a document's start-up is the logs scan's (bench/logs_throughput.py)
        from ..report.text import console

        if self.file in (None, "-"):
            text(console(), self.wide)
            return
        try:
            with open(self.file, "w", encoding="utf-8") as fh:
                text(console(fh), self.wide)
        except OSError as e:
            raise InputError(f"cannot write: {e.strerror or e}", file=self.file) from None

    def write(self, payload: str) -> None:
        write_file(self.file, payload)


def write_file(path: str | None, payload: str) -> None:
    if path in (None, "-"):
        sys.stdout.write(payload)
        sys.stdout.flush()
        return
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(payload)
    except OSError as e:
        raise InputError(f"cannot write: {e.strerror or e}", file=path) from None


def output_options(func: Callable[..., Any] | None = None, *, html: bool = False,
                   legacy_json: bool = False) -> Any:
    """Adds ``-o/--output``, ``--output-file`` (and ``--html FILE``) and passes ``out: Output``
    (and ``html: str | None``) to the command. ``legacy_json`` keeps a hidden ``--json`` flag
    (the form before ``-o``) working as ``-o json``."""
    def wrap(f: Callable[..., Any]) -> Any:
        @functools.wraps(f)
        def run(*args: Any, output: str, output_file: str | None, json_flag: bool = False, **kw: Any) -> Any:
            fmt = "json" if json_flag else output
            return f(*args, out=Output(fmt, output_file), **kw)
        run = click.option("--output-file", type=click.Path(dir_okay=False, allow_dash=True), default=None,
                           metavar="FILE", help="Write the result to FILE instead of stdout.")(run)
        run = click.option("-o", "--output", type=click.Choice(FORMATS), default="text", show_default=True,
                           help="text (columns that fit 80 characters), wide (every column), json or yaml "
                                "(documents with apiVersion and kind).")(run)
        if legacy_json:
            run = click.option("--json", "json_flag", is_flag=True, hidden=True, help="Same as -o json.")(run)
        if html:
            run = click.option("--html", "html", type=click.Path(dir_okay=False), default=None,
                               metavar="FILE", help="Also write a single-file offline HTML report to FILE.")(run)
        return run
    return wrap(func) if func is not None else wrap


def fail_on_option(choices: tuple[str, ...], default: str, help_text: str) -> Callable[..., Any]:
    return click.option("--fail-on", "fail_on", type=click.Choice(choices), default=default, show_default=True,
                        help=help_text)


def progress_wanted() -> bool:
    """Progress goes to stderr, only when it is a terminal (never into a file, cron or CI log)."""
    return sys.stderr.isatty() and not os.environ.get("KUEUE_DOCTOR_NO_PROGRESS")
