import sys
from pathlib import Path

import pytest

import hwguide as hg

# the fitting code lives in benchmarks/ (the package never fits): tests that refit import it from there
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))


@pytest.fixture(scope="session")
def gpu_table():
    return hg.gpus()


@pytest.fixture(autouse=True)
def _english_after_each_test():
    """A test that sets the course's language (hg.setup(lang="zh")) does not change the next test's."""
    yield
    from hwguide import i18n

    i18n.set_language("en")
