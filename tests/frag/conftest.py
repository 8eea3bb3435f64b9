from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture
def sample_paths():
    return str(DATA / "openb_nodes_sample.csv"), str(DATA / "openb_pods_sample.csv")
