"""A progress spinner's thread is stopped for a fork, so the fast paths that fork still do."""
from __future__ import annotations

import os

from kueue_doctor.forking import pausable, threads_stopped


def test_registered_threads_stop_for_the_outermost_fork_only():
    calls: list[str] = []
    with pausable(lambda: calls.append("stop"), lambda: calls.append("start")):
        with threads_stopped():
            with threads_stopped():   # nested: already stopped, and not restarted at its end
                assert calls == ["stop"]
            assert calls == ["stop"]
        assert calls == ["stop", "start"]
    with threads_stopped():   # no longer registered
        pass
    assert calls == ["stop", "start"]


def test_a_child_forked_inside_does_not_restart_them():
    calls: list[str] = []
    read, write = os.pipe()
    with pausable(lambda: calls.append("stop"), lambda: calls.append("start")), threads_stopped():
        pid = os.fork()
        if pid == 0:   # pragma: no cover - the child
            try:
                pass
            finally:
                os._exit(0)
    if pid == 0:   # pragma: no cover - the child, after the with-block
        os.write(write, str(len(calls)).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    os.close(write)
    assert os.read(read, 16) in (b"", b"1")   # the child's list holds its parent's "stop" only
    os.close(read)
    assert calls == ["stop", "start"]


_SCENARIO = """
import io, os, threading
from rich.console import Console
from kueue_doctor.api import yamlfast
from kueue_doctor.commands.progress import _stopper
from kueue_doctor.doctor.background import Background
from kueue_doctor.forking import pausable

status = Console(file=io.StringIO(), force_terminal=True).status("working")
status.start()
out = [threading.active_count() > 1]   # the spinner's thread runs
with pausable(_stopper(status, status._live), status.start):
    bg = Background(lambda: os.getpid())
    out.append(bg._pid != 0)                          # forked, not computed here
    out.append(bg.result() != os.getpid())
    out.append(yamlfast._can_fork(2) is (yamlfast._fast is not None))
    out.append(threading.active_count() > 1)          # and spinning again
# an unregistered thread still keeps every fork away
out.append(Background(lambda: os.getpid()).result() == os.getpid())
out.append(not yamlfast._can_fork(2))
status.stop()
print(out)
"""


def test_the_diagnosis_and_the_yaml_decoder_fork_beside_a_spinner():
    # in a process of its own: a test runner's process may run threads of its own, which
    # (rightly) keep every fork away
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _SCENARIO], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([True] * 7)
