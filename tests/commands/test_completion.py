"""`kueue-doctor completion`, click's completion protocol over the lazy sub-commands, and the
`kubectl kueue-doctor` plugin (its console scripts, and kubectl's own plugin discovery)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.shell_completion import get_completion_class
from click.testing import CliRunner

from kueue_doctor import __version__
from kueue_doctor.cli import COMPLETE_VAR, cli

BIN = Path(sys.executable).parent


def script(name: str) -> str:
    path = BIN / name
    assert path.exists(), f"{path} is not installed (pip install -e .)"
    return str(path)


def env(**extra: str) -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}", **extra}


def complete(line: str, shell: str = "bash") -> list[str]:
    """What the script `completion SHELL` installs asks: kueue-doctor called back with the words
    typed so far (COMP_WORDS, COMP_CWORD: the word being completed) and _KUEUE_DOCTOR_COMPLETE."""
    words = line.split(" ")
    res = subprocess.run([script("kueue-doctor")], capture_output=True, text=True, timeout=120,
                         env=env(COMP_WORDS=line, COMP_CWORD=str(len(words) - 1),
                                 **{COMPLETE_VAR: f"{shell}_complete"}))
    assert res.returncode == 0, res.stderr
    return res.stdout.splitlines()


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_completion_prints_clicks_script(shell):
    res = CliRunner().invoke(cli, ["completion", shell])
    assert res.exit_code == 0, res.output
    comp_cls = get_completion_class(shell)
    assert comp_cls is not None
    assert res.output == comp_cls(cli, {}, "kueue-doctor", COMPLETE_VAR).source()
    assert f"{COMPLETE_VAR}={shell}_complete" in res.output and "kueue-doctor" in res.output


def test_completion_help_says_how_to_install():
    res = CliRunner().invoke(cli, ["completion", "--help"])
    assert res.exit_code == 0 and "source <(kueue-doctor completion bash)" in res.output
    bad = CliRunner().invoke(cli, ["completion", "tcsh"])
    assert bad.exit_code == 2


def test_sub_command_names_complete():
    assert complete("kueue-doctor diag") == ["plain,diagnose"]
    assert complete("kueue-doctor co") == ["plain,conformance", "plain,collect", "plain,completion"]
    # zsh gets each name with its summary
    assert complete("kueue-doctor diag", "zsh") == ["plain", "diagnose",
                                                  "Six-step diagnosis of guarantee violations (snapshot folder or live)."]


def test_options_and_choices_of_lazy_sub_commands_complete():
    assert complete("kueue-doctor collect --ku") == ["plain,--kubeconfig", "plain,--kueue-pods-only"]
    assert "plain,--in-cluster" in complete("kueue-doctor collect --")
    assert complete("kueue-doctor completion ") == ["plain,bash", "plain,zsh", "plain,fish"]
    assert complete("kueue-doctor collect --kubeconfig ") == ["file,"]   # the shell completes file names


def test_naming_sub_commands_imports_none_of_them():
    code = ("import sys; from click.shell_completion import ShellComplete; from kueue_doctor.cli import cli; "
            "items = ShellComplete(cli, {}, 'kueue-doctor', 'X').get_completions([], ''); "
            "print(len(items), sorted(m for m in sys.modules if m.startswith('kueue_doctor.commands.')))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    n, mods = res.stdout.split(" ", 1)
    assert int(n) >= 11 and mods.strip() == "[]"


def test_plugin_is_the_same_program_named_as_kubectl_shows_it():
    res = subprocess.run([script("kubectl-kueue_doctor"), "--help"], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.startswith("Usage: kubectl kueue-doctor [OPTIONS] COMMAND")
    plain = subprocess.run([script("kueue-doctor"), "--help"], capture_output=True, text=True, timeout=120)
    assert res.stdout.replace("kubectl kueue-doctor", "kueue-doctor") == plain.stdout
    sub = subprocess.run([script("kubectl-kueue_doctor"), "collect", "--help"], capture_output=True, text=True,
                         timeout=120)
    assert sub.stdout.startswith("Usage: kubectl kueue-doctor collect [OPTIONS]")
    bad = subprocess.run([script("kubectl-kueue_doctor"), "diagnose", "--no-such-flag"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "kubectl kueue-doctor diagnose" in bad.stderr


def test_kubectl_plugin_completion_executable():
    def ask(*words: str) -> list[str]:
        res = subprocess.run([script("kubectl_complete-kueue_doctor"), *words], capture_output=True, text=True,
                             timeout=120)
        assert res.returncode == 0, res.stderr
        return res.stdout.splitlines()
    assert ask("diag") == ["diagnose\tSix-step diagnosis of guarantee violations (snapshot folder or live).", ":4"]
    assert [line.split("\t")[0] for line in ask("collect", "--ku")] == ["--kubeconfig", "--kueue-pods-only", ":4"]
    assert ask("validate", "") == [":0"]   # a path argument: kubectl lets the shell complete file names


def kubectl_minor() -> int:
    out = subprocess.run(["kubectl", "version", "--client", "-o", "json"], capture_output=True, text=True,
                         timeout=60).stdout
    try:
        return int("".join(ch for ch in json.loads(out)["clientVersion"]["minor"] if ch.isdigit()))
    except (ValueError, KeyError):
        return 0


needs_kubectl = pytest.mark.skipif(not shutil.which("kubectl"), reason="kubectl not installed")


@needs_kubectl
def test_kubectl_finds_the_plugin():
    res = subprocess.run(["kubectl", "kueue-doctor", "--version"], capture_output=True, text=True, env=env(),
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"kueue-doctor, version {__version__}"
    listed = subprocess.run(["kubectl", "plugin", "list", "--name-only"], capture_output=True, text=True, env=env(),
                            timeout=120)
    assert "kubectl-kueue_doctor" in listed.stdout


@needs_kubectl
def test_kubectl_completes_the_plugin():
    if kubectl_minor() < 26:
        pytest.skip("kubectl before 1.26 does not complete plugins")
    res = subprocess.run(["kubectl", "__complete", "kueue-doctor", "diag"], capture_output=True, text=True, env=env(),
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines()[0].startswith("diagnose") and ":4" in res.stdout.splitlines()
