"""The disk cache of the slow fits: the same result as computing, recomputed when it cannot be read."""

import pandas as pd

from hwguide import cache


def test_a_cached_frame_is_computed_once_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("HWGUIDE_CACHE", str(tmp_path))
    calls = []

    @cache.cached_frame
    def slow() -> pd.DataFrame:
        calls.append(1)
        return pd.DataFrame({"x": [1.5, 2.5]})

    first, second = slow(), slow()
    assert len(calls) == 1 and first.equals(second)
    second.loc[0, "x"] = 99  # a caller's change does not reach the next reader
    assert slow().loc[0, "x"] == 1.5
    for path in tmp_path.iterdir():  # a damaged file is computed again, not an error
        path.write_bytes(b"not a pickle")
    assert slow().equals(first) and len(calls) == 2


def test_the_key_follows_the_data_and_the_code():
    key = cache._version()
    assert len(key) == 16 and key == cache._version()


def test_an_unwritable_cache_folder_only_costs_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would go")
    monkeypatch.setenv("HWGUIDE_CACHE", str(blocker / "cache"))

    @cache.cached_frame
    def quick() -> pd.DataFrame:
        return pd.DataFrame({"y": [1]})

    assert quick()["y"].tolist() == [1]
