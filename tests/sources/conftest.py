from __future__ import annotations

from pathlib import Path

import pytest

from tests.paths import INCIDENTS

from .fakeapi import FakeAPI


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch):
    # The client honours proxy variables; the fake server is only ever reached directly.
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")


@pytest.fixture
def incident() -> Path:
    (folder,) = INCIDENTS.glob("01-*")
    return folder


@pytest.fixture
def api(incident):
    # A page cap below the incident's list sizes makes every big list take several pages.
    with FakeAPI(incident, page_size_cap=40) as fake:
        yield fake


@pytest.fixture
def kubeconfig(api, tmp_path) -> Path:
    return api.kubeconfig(tmp_path / "kubeconfig")
