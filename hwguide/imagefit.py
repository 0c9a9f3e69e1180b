"""Fit the image engines' factors to published timings and peaks, and judge them on sources left out.

The physics is :func:`hwguide.image.image_seconds` and :func:`~hwguide.image.image_memory`; each
engine class (data/image_engines.csv) adds six factors: the denoiser's and the VAE's compute
efficiency, a fixed overhead per step, activation bytes per pixel for the denoiser and the VAE
decoder, and the allocator's reserve as a share of the activations. As in :mod:`hwguide.fit`, all
engines are fitted at once by least squares on log(estimate / measured), each engine's factors
pulled towards factors pooled over all engines, and :func:`cross_validate_images` predicts each
author's rows (:func:`hwguide.fit.source_group`) with factors fitted without any of them. Each
peak is compared with the quantity its source read (``reading``: allocated, reserved or nvidia-smi).

:func:`simple_rules` gives the errors of the rules of thumb on the same rows, also out of sample.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from .catalog import _table
from .fit import _committed, source_group
from .image import _layout, image_weights_bytes, read, time_terms, timing
from .result import GIB

__all__ = ["IMAGE_FACTORS", "cross_validate_images", "image_rows", "image_summary",
           "simple_rules"]  # fmt: skip

# factor: (start, lower, upper, how far one engine may stray from the pooled value in log units)
IMAGE_FACTORS: dict[str, tuple[float, float, float, float]] = {
    "mfu": (0.4, 0.01, 1.0, 0.5),
    "vae_mfu": (0.3, 0.01, 1.0, 0.5),
    "step_ms": (5.0, 0.01, 1000.0, 2.5),
    "act_bytes_per_channel": (40.0, 0.2, 2e4, 1.0),
    "vae_bytes_per_px": (1000.0, 1.0, 1e5, 1.0),
    "reserve_frac": (0.3, 0.01, 2.0, 0.5),
}
SPEED_FACTORS = ("mfu", "vae_mfu", "step_ms")
MEMORY_FACTORS = ("act_bytes_per_channel", "vae_bytes_per_px", "reserve_frac")


def image_rows() -> pd.DataFrame:
    """The usable rows of data/image_measurements.csv (no ``excluded_because``), with their source group."""
    t = _table("image_measurements")
    t = t[t["excluded_because"].isna() | (t["excluded_because"] == "")].copy()
    t["group"] = t["source"].map(source_group)
    return t.reset_index(drop=True)


def _args(row: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "weights": row["weights"],
        "text_weights": row["text_weights"] or None,
        "width": row["width"] or None,
        "height": row["height"] or None,
        "batch": int(row["batch"]),
        "offload": row["offload"],
        "vae_slicing": row.get("vae_slicing") is True,
    }


def _terms(rows: pd.DataFrame) -> list[dict[str, Any]]:
    # it/s rows need no step count: a missing one takes the model's default
    return [time_terms(r["model"], r["gpu"], steps=r["steps"] or None, **_args(r)) for r in rows.to_dict("records")]


def _accumulates() -> dict[str, bool]:
    t = _table("image_engines")
    return {str(e): bool(v) for e, v in zip(t["engine"], t["fp16_accumulate"])}


def predict(row: Mapping[str, Any], terms: Mapping[str, Any], factors: Mapping[str, Any]) -> tuple[float, float | None]:
    """The estimate of a row's timing (its own unit) and of its peak memory (GiB, where measured), the
    peak as the row's source read it (``reading``; allocated where the row does not say)."""
    fac = {"engine": row["engine"], "fp16_accumulate": _accumulates()[row["engine"]], **factors}
    r = timing(terms, fac, explain=False)
    speed = r["it_per_s"] if row["unit"] == "it_per_s" else r["per_image_s"]
    if not _has_peak(row):
        return speed, None
    held = read(_layout(terms["cost"], fac)["held"], row.get("reading") or "allocated")
    return speed, sum(held.values()) / GIB


def _has_peak(row: Mapping[str, Any]) -> bool:
    value = row["peak_vram_gb"]
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def cross_validate_images() -> pd.DataFrame:
    """The image fit's out-of-sample report as ``benchmarks/fit_image.py`` wrote it (data/image_cross_validation.csv):
    each author's rows estimated with factors fitted on the other authors (``error`` = estimate / measured − 1),
    beside the in-sample estimate (``error_in``). Committed data, not computed at run time; the fit itself
    is ``benchmarks/image_fitting.py``."""
    return _all_images()


def _rule_cost(row: Mapping[str, Any], terms: Mapping[str, Any]) -> float:
    """Seconds per step, per image and megapixel, times the card's FP16 Tensor rate (TFLOPS): what the
    one-reference-card rule holds constant within a model."""
    steps = terms["steps"]
    step = 1 / row["measured"] if row["unit"] == "it_per_s" else row["measured"] * terms["batch"] / steps
    mp = terms["cost"]["pixels"] / 1e6  # pixels of the whole batch
    return step / mp * terms["peak16"] / terms["board_fraction"] / 1e12


def simple_rules(rows: pd.DataFrame) -> pd.DataFrame:
    """The rules of thumb on the rows of :func:`image_rows`, out of sample like the kit (``error`` = rule /
    measured − 1):

    - ``tflops`` (speed): a reference run of the same model scaled by the cards' FP16 Tensor rates (datasheet)
      and by pixels × batch × steps; the reference is the median over the other authors' rows of that model.
    - ``weights x1.2`` (peak memory): 1.2 × the bytes of all the pipeline's weights in their formats.
    """
    out = []
    records = rows.to_dict("records")
    terms = _terms(rows)
    costs = [_rule_cost(r, t) for r, t in zip(records, terms)]
    for i, row in enumerate(records):
        others = [c for j, (r, c) in enumerate(zip(records, costs)) if r["model"] == row["model"]
                  and r["group"] != row["group"] and j != i]  # fmt: skip
        if others:
            ratio = float(np.median(others)) / costs[i]  # estimated step time over measured
            error = 1 / ratio - 1 if row["unit"] == "it_per_s" else ratio - 1
            out.append({"id": row["id"], "group": row["group"], "kind": "speed", "rule": "tflops", "error": error})
        if _has_peak(row):
            weights = sum(image_weights_bytes(row["model"], weights=row["weights"],
                                              text_weights=row["text_weights"] or None).values())  # fmt: skip
            out.append({"id": row["id"], "group": row["group"], "kind": "peak memory", "rule": "weights x1.2",
                        "error": 1.2 * weights / GIB / row["peak_vram_gb"] - 1})  # fmt: skip
    return pd.DataFrame(out)


def image_summary(report: pd.DataFrame) -> pd.DataFrame:
    """Median absolute error out of sample and in sample, per kind and in all."""
    rows = []
    for kind, part in [*report.groupby("kind"), ("all", report)]:
        rows.append({"kind": kind, "rows": len(part), "sources": part["group"].nunique(),
                     "median_abs_error_out": part["error"].abs().median(),
                     "median_abs_error_in": part["error_in"].abs().median(),
                     "within_25pct_out": (part["error"].abs() <= 0.25).mean()})  # fmt: skip
    return pd.DataFrame(rows)


IMAGE_CROSS_VALIDATION_FILE = "image_cross_validation.csv"  # in data/, written by benchmarks/fit_image.py


def _all_images() -> pd.DataFrame:
    """The committed report of ``benchmarks/fit_image.py`` (data/image_cross_validation.csv), not computed at
    run time; a test holds the file to a fresh computation."""
    return _committed(IMAGE_CROSS_VALIDATION_FILE).copy()
