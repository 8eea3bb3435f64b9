"""Which kueue_doctor modules a diagnosis walks through, from loading a folder to a verdict.

    python bench/walk.py diagnose FOLDER
    python bench/walk.py explain FOLDER NAMESPACE/NAME

Counts the distinct modules (and functions) of the package whose code runs, as a measure of
how many places take part in one answer; the closing notes compare it before and after a
refactor. Modules are counted by file, under src/kueue_doctor.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from click.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1] / "src" / "kueue_doctor"


def main() -> None:
    from kueue_doctor.cli import cli
    args = sys.argv[1:]
    if args[0] == "explain":
        argv = ["explain", args[2], args[1]]
    else:
        argv = ["diagnose", args[1], "-o", "json"] if "--new" in args else ["diagnose", args[1], "--format", "json"]
    modules: Counter = Counter()
    functions: set = set()

    def prof(frame, event, arg):
        if event != "call":
            return
        f = frame.f_code.co_filename
        if f.startswith(str(ROOT)):
            rel = Path(f).relative_to(ROOT).as_posix()
            modules[rel] += 1
            functions.add((rel, frame.f_code.co_name))

    sys.setprofile(prof)
    result = CliRunner().invoke(cli, argv)
    sys.setprofile(None)
    skip = ("cli.py", "commands/")
    walked = {m: n for m, n in modules.items() if not m.startswith(skip)}
    print(f"exit {result.exit_code}; {len(walked)} modules, "
          f"{len({f for f in functions if not f[0].startswith(skip)})} functions (cli and commands/ not counted)")
    for m, n in sorted(walked.items()):
        print(f"  {m:40s} {n:>8d} calls")


if __name__ == "__main__":
    main()
