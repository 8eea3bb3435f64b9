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


# Exit status, the same for every command (docs/cli.md, "Exit status"). Here, beside the error
# that gives status 2, so the entry point reads them without importing any command.
EXIT_OK = 0          # healthy, or the command did what was asked
EXIT_FOUND = 1       # a guarantee violation or a cause found (see --fail-on); failed conformance cases
EXIT_BAD_INPUT = 2   # bad input or usage: one line on stderr naming file, object and field
EXIT_UNKNOWN = 3     # not enough data to decide: the output says what to collect
EXIT_INTERNAL = 70   # a bug of ours (EX_SOFTWARE); KUEUE_DOCTOR_DEBUG=1 shows the traceback
