"""A part of the diagnosis computed by a forked child gives what computing it here gives."""
from __future__ import annotations

import os

import pytest

from kueue_doctor.doctor import background
from kueue_doctor.doctor.background import Background


@pytest.fixture
def two_cores(monkeypatch):
    monkeypatch.setattr(background, "_cores", lambda: 2)
    monkeypatch.setattr(background.threading, "active_count", lambda: 1)


def test_the_child_computes_it_on_a_copy_of_this_process(two_cores):
    here = os.getpid()
    big = list(range(100_000))   # more than a pipe holds: the parent reads while the child writes
    job = Background(lambda: (os.getpid(), [x * 2 for x in big]))
    pid, doubled = job.result()
    assert pid != here and doubled == [x * 2 for x in big]


def test_a_failing_child_leaves_the_work_and_its_error_to_this_process(two_cores):
    calls = []

    def work():
        calls.append(os.getpid())
        raise ValueError("bad shape")
    job = Background(work)
    with pytest.raises(ValueError, match="bad shape"):
        job.result()
    assert calls == [os.getpid()]   # the child's attempt is not seen here; this one raised


def test_without_a_second_core_or_with_threads_it_is_computed_here(monkeypatch):
    monkeypatch.setattr(background, "_cores", lambda: 1)
    assert Background(os.getpid).result() == os.getpid()
    monkeypatch.setattr(background, "_cores", lambda: 2)
    monkeypatch.setattr(background.threading, "active_count", lambda: 2)
    assert Background(os.getpid).result() == os.getpid()


def test_the_child_leaves_its_result_and_exits_before_it_is_asked_for(two_cores):
    import time
    job = Background(lambda: [1] * 1_000_000)   # far more than a pipe holds
    child = job._pid
    deadline = time.monotonic() + 20
    while os.waitid(os.P_PID, child, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        assert time.monotonic() < deadline, "the child waits for its result to be read"
        time.sleep(0.01)
    assert job.result() == [1] * 1_000_000
