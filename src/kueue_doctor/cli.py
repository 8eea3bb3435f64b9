"""The one entry point, ``kueue-doctor``, with one sub-command per job."""
from __future__ import annotations

import sys

import click

from . import __version__
from .errors import InputError


class Group(click.Group):
    """Turns bad input into one line on stderr and exit status 2, never a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except InputError as e:
            click.echo(f"kueue-doctor: {e}", err=True)
            sys.exit(2)
        except BrokenPipeError:
            sys.exit(1)


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kueue-doctor")
def cli() -> None:
    """Find Kueue guarantee violations and explain them."""


def _register() -> None:
    # Each command lives in its own module under kueue_doctor.commands.
    from .commands import conformance, frag, logs, validate

    for module in (validate, conformance, frag, logs):
        cli.add_command(module.command)


_register()


def main() -> None:
    cli(prog_name="kueue-doctor")
