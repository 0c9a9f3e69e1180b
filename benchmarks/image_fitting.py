"""Fitting the image-generation factors: least squares over data/image_measurements.csv, and the report.

Used by ``benchmarks/fit_image.py`` (which writes data/image_engines.csv and data/image_cross_validation.csv)
and by the tests that hold those files to a fresh fit. Kept out of the ``hwguide`` package: the kit reads
the fitted factors and the committed report, it never fits (scipy is needed here only).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from hwguide.catalog import _table
from hwguide.imagefit import IMAGE_FACTORS, _terms, predict


def _unpack(theta: np.ndarray, engines: Sequence[str]) -> dict[str, dict[str, float]]:
    n = len(IMAGE_FACTORS)
    pooled = theta[:n]
    out = {}
    for i, e in enumerate(engines):
        dev = theta[n * (i + 1) : n * (i + 2)]
        out[e] = {}
        for j, (name, (_, low, high, _)) in enumerate(IMAGE_FACTORS.items()):
            out[e][name] = float(np.clip(math.exp(pooled[j] + dev[j]), low, high))
    return out


def fit_image_factors(rows: pd.DataFrame) -> dict[str, dict[str, float]]:
    """Factors per engine class fitted on ``rows`` (from :func:`image_rows`); every engine of
    data/image_engines.csv gets factors, the pooled ones where it has no rows."""
    from scipy.optimize import least_squares

    engines = list(_table("image_engines")["engine"])
    n = len(IMAGE_FACTORS)
    start = np.zeros(n * (len(engines) + 1))
    start[:n] = [math.log(v[0]) for v in IMAGE_FACTORS.values()]
    widths = np.array([v[3] for v in IMAGE_FACTORS.values()])
    records = rows.to_dict("records")
    terms = _terms(rows)

    def residuals(theta: np.ndarray) -> np.ndarray:
        fac = _unpack(theta, engines)
        out = []
        for row, t in zip(records, terms):
            speed, peak = predict(row, t, fac[row["engine"]])
            out.append(math.log(speed / row["measured"]))
            if peak is not None:
                out.append(math.log(peak / row["peak_vram_gb"]))
        out.extend((theta[n:] / np.tile(widths, len(engines))).tolist())  # engines stay near the pool
        return np.array(out)

    # Each row depends on the pooled factors and on its own engine's: a sparse Jacobian, which
    # lets the finite differences perturb all engines' deviations at once.
    owners = []
    for row, t in zip(records, terms):
        owners += [engines.index(row["engine"])] * (
            2 if predict(row, t, _unpack(start, engines)[row["engine"]])[1] is not None else 1
        )
    sparsity = np.zeros((len(owners) + n * len(engines), len(start)), dtype=bool)
    for i, e in enumerate(owners):
        sparsity[i, :n] = True
        sparsity[i, n * (e + 1) : n * (e + 2)] = True
    sparsity[len(owners) :, n:] = np.eye(n * len(engines), dtype=bool)
    result = least_squares(residuals, start, method="trf", x_scale=1.0, max_nfev=200, jac_sparsity=sparsity)
    return _unpack(result.x, engines)


def _errors(rows: pd.DataFrame, factors: Mapping[str, Mapping[str, float]]) -> pd.DataFrame:
    out = []
    for row, t in zip(rows.to_dict("records"), _terms(rows)):
        speed, peak = predict(row, t, factors[row["engine"]])
        out.append({"id": row["id"], "group": row["group"], "model": row["model"], "gpu": row["gpu"],
                    "engine": row["engine"], "kind": "speed", "measured": row["measured"], "unit": row["unit"],
                    "estimate": speed, "error": speed / row["measured"] - 1})  # fmt: skip
        if peak is not None:
            out.append({"id": row["id"], "group": row["group"], "model": row["model"], "gpu": row["gpu"],
                        "engine": row["engine"], "kind": "peak memory", "measured": row["peak_vram_gb"],
                        "unit": "GiB", "estimate": peak, "error": peak / row["peak_vram_gb"] - 1})  # fmt: skip
    return pd.DataFrame(out)


def cross_validate(rows: pd.DataFrame) -> pd.DataFrame:
    """Each author's rows estimated with factors fitted on all other authors (``error`` = estimate /
    measured − 1), next to the in-sample estimate (``error_in``) from factors fitted on all rows."""
    inside = _errors(rows, fit_image_factors(rows)).rename(columns={"estimate": "estimate_in", "error": "error_in"})
    parts = []
    for group in sorted(rows["group"].unique()):
        train, test = rows[rows["group"] != group], rows[rows["group"] == group]
        parts.append(_errors(test, fit_image_factors(train)))
    out = pd.concat(parts, ignore_index=True)
    return out.merge(inside[["id", "kind", "estimate_in", "error_in"]], on=["id", "kind"])
