"""The fits' out-of-sample reports are committed data (data/cross_validation.csv, data/image_cross_validation.csv),
written by benchmarks/fit.py and benchmarks/fit_image.py: they must be what the fits give on today's data and code."""

import fitting
import image_fitting
import pandas as pd

from hwguide import fit, imagefit


def _same(committed: pd.DataFrame, fresh: pd.DataFrame, keys: list[str]) -> None:
    assert len(committed) == len(fresh), "rerun benchmarks/fit.py (and fit_image.py): the report is stale"
    left, right = (f.sort_values(keys).reset_index(drop=True) for f in (committed, fresh))
    assert list(left.columns) == list(right.columns)
    pd.testing.assert_frame_equal(left, right, check_dtype=False, rtol=1e-5, atol=1e-9)


def test_the_speed_report_is_what_the_fit_gives():
    _same(fit.cross_validation(), fitting.cross_validate(fit.speed_rows()[0]), ["id"])


def test_the_image_report_is_what_the_fit_gives():
    _same(imagefit.cross_validate_images(), image_fitting.cross_validate(imagefit.image_rows()), ["id", "kind"])
