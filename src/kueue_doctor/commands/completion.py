"""``kueue-doctor completion bash|zsh|fish``: the shell completion script, from click's own
machinery (the script calls ``kueue-doctor`` back with ``_KUEUE_DOCTOR_COMPLETE`` set)."""
from __future__ import annotations

import click

SHELLS = ("bash", "zsh", "fish")


@click.command("completion")
@click.argument("shell", type=click.Choice(SHELLS))
def command(shell: str) -> None:
    """Print the completion script of SHELL for kueue-doctor: sub-commands, options and their
    choices complete on <TAB>.

    \b
    bash (~/.bashrc):                      source <(kueue-doctor completion bash)
    zsh (~/.zshrc, after compinit):        source <(kueue-doctor completion zsh)
    fish:                                  kueue-doctor completion fish > ~/.config/fish/completions/kueue-doctor.fish

    \b
    `kubectl kueue-doctor` completes through kubectl's own completion
    (`source <(kubectl completion bash)`, kubectl 1.26 or later): kubectl asks the
    kubectl_complete-kueue_doctor executable this package installs next to kubectl-kueue_doctor.
    """
    from click.shell_completion import get_completion_class

    from ..cli import COMPLETE_VAR, PROG, cli
    comp_cls = get_completion_class(shell)
    assert comp_cls is not None  # every name in SHELLS is one of click's
    click.echo(comp_cls(cli, {}, PROG, COMPLETE_VAR).source(), nl=False)
