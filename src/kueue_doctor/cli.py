"""The one entry point, ``kueue-doctor``, with one sub-command per job."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import TYPE_CHECKING

import click

from . import __version__
from .errors import EXIT_BAD_INPUT, EXIT_INTERNAL, InputError

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem

# name -> module under kueue_doctor.commands that defines ``command``. Modules are imported
# only when their command runs (or for --help), so a quick command does not pay for numpy.
COMMANDS = {
    "validate": "validate",
    "conformance": "conformance",
    "simulate": "simulate",
    "demo": "demo",
    "diagnose": "diagnose",
    "explain": "explain",
    "forecast": "forecast",
    "whatif": "whatif",
    "diff": "diff",
    "collect": "collect",
    "logs": "logs",
    "frag": "frag",
    "sweep": "sweep",
    "serve": "serve",
    "completion": "completion",
}
SUMMARIES = {
    "validate": "Read YAML/JSON object files or folders and check every object.",
    "conformance": "Run upstream Kueue's unit-test cases against the engine.",
    "simulate": "Run a simulation scenario or Kueue's perf-test config.",
    "demo": "Reproduce the three production failures, affected vs fixed release.",
    "diagnose": "Six-step diagnosis of guarantee violations (snapshot folder or live).",
    "explain": "Why is this workload pending? The chain of reasons.",
    "forecast": "When will this pending workload be admitted? P10/P50/P90 from simulated futures.",
    "whatif": "What would admit this workload now? Verified changes with their patches.",
    "diff": "What would applying these queue objects change? kubectl diff for scheduling.",
    "collect": "Gather a snapshot folder from a live cluster (read-only).",
    "logs": "Scan Kueue controller logs for known failure signatures.",
    "frag": "GPU fragmentation: trace replay and placement-policy comparison.",
    "sweep": "Many quota and fairness configurations x one trace, locally or on Ray.",
    "serve": "Prometheus exporter: violations, pending quota, free slots and causes as metrics.",
    "completion": "Print the shell completion script (bash, zsh, fish).",
}
PROG = "kueue-doctor"
# kubectl runs `kubectl kueue-doctor ARGS` as the executable kubectl-kueue_doctor on PATH; help and
# usage then name the command as the user typed it.
KUBECTL_PROG = "kubectl kueue-doctor"
# click's convention, from PROG: the variable the completion script sets when it calls PROG back.
COMPLETE_VAR = "_KUEUE_DOCTOR_COMPLETE"


class Group(click.Group):
    """Lazy sub-commands; bad input becomes one line on stderr and exit status 2, never a traceback."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [n for n in COMMANDS if importlib.util.find_spec(f"kueue_doctor.commands.{COMMANDS[n]}")]

    def get_command(self, ctx: click.Context, name: str):
        if name not in COMMANDS:
            return None
        try:
            module = importlib.import_module(f"kueue_doctor.commands.{COMMANDS[name]}")
        except ModuleNotFoundError:
            return None
        return module.command

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[CompletionItem]:
        """Sub-command names with their summaries, without importing every command module (a
        <TAB> must not pay for numpy); the options after them come from click."""
        from click.shell_completion import CompletionItem
        items = [CompletionItem(n, help=SUMMARIES.get(n, ""))
                 for n in self.list_commands(ctx) if n.startswith(incomplete)]
        items.extend(click.Command.shell_complete(self, ctx, incomplete))
        return items

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(n, SUMMARIES.get(n, "")) for n in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except InputError as e:
            click.echo(str(e), err=True)
            sys.exit(EXIT_BAD_INPUT)
        except BrokenPipeError:
            # the reader went away (`| head`): exit as a process killed by SIGPIPE would, quietly
            sys.stderr.close()
            os._exit(128 + 13)
        except (click.exceptions.Exit, click.ClickException, click.Abort, KeyboardInterrupt, SystemExit):
            raise
        except Exception as e:  # a bug of ours: one line by default, the traceback on request
            if os.environ.get("KUEUE_DOCTOR_DEBUG"):
                raise
            click.echo(f"kueue-doctor: internal error: {type(e).__name__}: {e} "
                       f"(rerun with KUEUE_DOCTOR_DEBUG=1 for the traceback, and please report it)", err=True)
            sys.exit(EXIT_INTERNAL)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name=PROG)
def cli() -> None:
    """Find Kueue guarantee violations and explain them."""


def main(prog_name: str = PROG) -> None:
    # Loading a cluster creates millions of long-lived objects; the default collector
    # thresholds rescan them over and over (heap.py has the rest of the story).
    import gc
    gc.set_threshold(50_000, 50, 100)
    # numpy's OpenBLAS keeps a thread per core spinning between its calls; the program makes no
    # BLAS call worth a thread, and on 2 cores the spinning took 2-8% of a log scan's CPU
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    cli(prog_name=prog_name, complete_var=COMPLETE_VAR)


def kubectl_main() -> None:
    """``kubectl-kueue_doctor``: the same program, run by kubectl as ``kubectl kueue-doctor``."""
    main(KUBECTL_PROG)


def kubectl_complete() -> None:
    """``kubectl_complete-kueue_doctor``: kubectl's plugin completion (kubectl 1.26+). kubectl
    calls it with the words after ``kubectl kueue-doctor``, the last one being completed, and
    reads Cobra's answer: one ``value<TAB>help`` per line, then ``:DIRECTIVE`` (0: let the shell
    complete file names as well, 4: do not)."""
    from click.shell_completion import ShellComplete
    args = sys.argv[1:]
    incomplete = args.pop() if args else ""
    items = ShellComplete(cli, {}, KUBECTL_PROG, COMPLETE_VAR).get_completions(args, incomplete)
    files = False
    for item in items:
        if item.type in ("file", "dir"):
            files = True
            continue
        help_line = " ".join((item.help or "").split())
        click.echo(f"{item.value}\t{help_line}" if help_line else str(item.value))
    click.echo(":0" if files else ":4")
