from __future__ import annotations

from datetime import timedelta

import pytest

from tests.paths import INCIDENTS


@pytest.fixture(scope="session")
def hol_source():
    from kueue_doctor.metrics.sources import FolderSource
    folder = next(INCIDENTS.glob("01-*"))
    return FolderSource(str(folder), timedelta(minutes=5), 30.0)
