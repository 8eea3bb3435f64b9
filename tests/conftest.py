import pytest

from tests.paths import TESTS

FRAG_DATA = TESTS / "frag" / "data"


@pytest.fixture
def sample_paths():
    """The openb sample (tests/frag/data/README.md), read by the frag modules and the frag command."""
    return str(FRAG_DATA / "openb_nodes_sample.csv"), str(FRAG_DATA / "openb_pods_sample.csv")
