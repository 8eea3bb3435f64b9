"""Text for people, kubectl style: plain aligned columns, names never cut, no box drawing.

Every command's text output goes through ``Table`` and ``console``. Columns are padded to their
widest cell and separated by three spaces, so the output reads the same in a terminal, in a file,
under cron and over ssh, and a name is never shortened to fit a width. Tables that would not fit
80 columns keep their secondary columns for ``-o wide``. Colour is used only on a terminal (rich
decides, and honours ``NO_COLOR``); rich's highlighter, which colours numbers and words it
guesses at, is off.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO

from rich.console import Console
from rich.markup import escape

GAP = "   "
STATUS_STYLE = {"pass": "green", "fail": "red", "unknown": "yellow", "skipped": "dim"}


class _Console(Console):
    def on_broken_pipe(self) -> None:
        # rich exits 1 here, which the commands use for "found"; let the entry point exit as a
        # process killed by SIGPIPE would (docs/cli.md, "Exit status")
        raise BrokenPipeError


def console(file: IO[str] | None = None, *, stderr: bool = False) -> Console:
    """A console that never wraps or cuts lines and highlights nothing by itself."""
    return _Console(file=file, stderr=stderr, highlight=False, soft_wrap=True, emoji=False)


@dataclass(frozen=True, slots=True)
class Column:
    header: str
    right: bool = False       # numbers and quantities align right
    wide: bool = False        # shown only with -o wide


@dataclass
class Table:
    columns: Sequence[Column]
    rows: list[list[str]] = field(default_factory=list)

    def add(self, *cells: object) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(["-" if c is None else str(c) for c in cells])

    def lines(self, wide: bool = False) -> list[str]:
        keep = [i for i, c in enumerate(self.columns) if wide or not c.wide]
        head = [self.columns[i].header.upper() for i in keep]
        body = [[r[i] for i in keep] for r in self.rows]
        widths = [max(len(x) for x in col) for col in zip(head, *body, strict=False)]
        out = []
        for row in [head, *body]:
            cells = [(c.rjust(w) if self.columns[i].right else c.ljust(w))
                     for c, w, i in zip(row, widths, keep, strict=True)]
            out.append(GAP.join(cells).rstrip())
        return out

    def print(self, con: Console, wide: bool = False, indent: str = "") -> None:
        for i, line in enumerate(self.lines(wide)):
            con.print(indent + (f"[bold]{escape(line)}[/bold]" if i == 0 else escape(line)))


def plain(con: Console, text: str, style: str | None = None) -> None:
    """Print text as it is: brackets in names and messages are not rich markup."""
    con.print(escape(text), style=style)
