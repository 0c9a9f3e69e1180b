import pytest

import hwguide as hg


@pytest.fixture(scope="session")
def gpu_table():
    return hg.gpus()
