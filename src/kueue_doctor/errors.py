"""The one error type bad input produces: it prints as a single line."""
from __future__ import annotations


class InputError(Exception):
    """``FILE: Kind/namespace/name: field: problem``; parts that do not apply are left out."""

    def __init__(self, problem: str, *, file: str = "", obj: str = "", field: str = ""):
        super().__init__(problem)
        self.problem = problem
        self.file = file
        self.obj = obj
        self.field = field

    def located(self, *, file: str = "", obj: str = "") -> InputError:
        if file and not self.file:
            self.file = file
        if obj and not self.obj:
            self.obj = obj
        return self

    def __str__(self) -> str:
        parts = [p for p in (self.file, self.obj, self.field) if p]
        line = ": ".join([*parts, self.problem])
        return " ".join(line.split())  # never more than one line
