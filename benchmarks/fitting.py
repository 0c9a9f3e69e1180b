"""Fitting the engines' speed factors: least squares over the speed rows, and the reports it writes.

Used by ``benchmarks/fit.py`` (which writes data/engines.csv and data/cross_validation.csv) and by the tests
that hold those files to a fresh fit. Kept out of the ``hwguide`` package: the kit reads the fitted factors
and the committed report, it never fits (scipy is needed here only).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from hwguide.catalog import engines, lookup_engine
from hwguide.fit import (
    FACTORS,
    INFERENCE_FACTORS,
    TRAINING_FACTORS,
    TRAINING_KINDS,
    SpeedRow,
    fit_rows,
    holdout,
    predict,
)
from hwguide.speed import prefill_time, step_seconds, training_token_seconds

# ---------------------------------------------------------------------------------------------
# Fitting
# ---------------------------------------------------------------------------------------------


def _layout(rows: Sequence[SpeedRow]) -> tuple[list[str], list[tuple[str, str]]]:
    """The engines the rows name, and the (engine, factor) pairs to fit ("" = pooled)."""
    names = sorted({r.engine for r in rows if r.engine})
    pairs = [("", f) for f in FACTORS]
    for name in names:
        kinds = {r.kind for r in rows if r.engine == name}
        own = (INFERENCE_FACTORS if kinds - set(TRAINING_KINDS) else ()) + (
            TRAINING_FACTORS if kinds & set(TRAINING_KINDS) else ()
        )
        pairs += [(name, f) for f in own]
    return names, pairs


def _parent(pair: tuple[str, str], pairs: Sequence[tuple[str, str]]) -> tuple[str, str]:
    """The pair an engine's factor is pulled towards: its family's (engines.csv ``family``) where
    fitted, else the pooled one."""
    engine, factor = pair
    family = lookup_engine(engine).family if engine else None
    return (family, factor) if family and (family, factor) in pairs else ("", factor)


def _factors_of(x: np.ndarray, pairs: Sequence[tuple[str, str]], engine: str) -> dict[str, float]:
    """An engine's factors: its own, else its family's, else the pooled ones."""
    values = dict(zip(pairs, np.exp(x)))
    return {f: float(values.get((engine, f), values[_parent((engine, f), pairs)])) for f in FACTORS}


TRAIN_KEYS = ("hardware_flops", "expert_flops", "attention_flops", "peak", "peak16", "bandwidth", "traffic", "shards",
              "pp_cp", "bubble", "step_tokens", "tp_comm_s", "ep_comm_s", "dp_comm_s", "overlap_share",
              "optimizer_bytes", "dequant_bytes", "step_layers")  # fmt: skip


class _Batch:
    """The rows as arrays, so that one set of factors predicts every row in one numpy pass."""

    def __init__(self, rows: Sequence[SpeedRow], pairs: Sequence[tuple[str, str]]) -> None:
        index = {pair: i for i, pair in enumerate(pairs)}
        self.kind = np.array([r.kind for r in rows])
        self.measured = np.array([r.measured for r in rows])
        # which parameter each row uses for each factor: its engine's own, else the pooled one
        self.which = {f: np.array([index.get((r.engine, f), index[("", f)]) for r in rows], dtype=int) for f in FACTORS}

        def column(part: str, key: str, default: float = 1.0) -> np.ndarray:
            return np.array([float((getattr(r, part) or {}).get(key, default)) for r in rows])

        keys = ("w_16-bit", "w_8-bit", "w_low-bit", "quantised", "kv", "flops", "peak", "bandwidth", "layers",
                "experts", "allreduces", "allreduce_s", "ram_bandwidth")  # fmt: skip
        self.decode = {k: column("decode", k) for k in keys}
        self.decode["w_cpu"] = column("decode", "w_cpu", 0.0)  # expert bytes read from CPU memory
        pre = ("w_16-bit", "w_8-bit", "w_low-bit", "quantised", "flops", "peak", "bandwidth", "layers", "steps",
               "stages", "in_flight", "allreduces", "allreduce_s")  # fmt: skip
        self.prefill = {k: column("prefill", k) for k in pre}
        self.train = {k: column("train", k) for k in TRAIN_KEYS}
        for name in ("batch", "output", "counted", "prompt", "tokens", "gpus_counted"):
            setattr(self, name, np.array([float(getattr(r, name)) for r in rows]))
        self.fp8 = np.array([r.precision == "fp8" for r in rows])

    def predict(self, x: np.ndarray) -> np.ndarray:
        values = np.exp(x)
        f = {name: values[idx] for name, idx in self.which.items()}
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            step = step_seconds(self.decode, f)
            pre = prefill_time(self.prefill, f)
            util = np.where(self.fp8, f["train_util_fp8"], f["train_util"])
            token = training_token_seconds(self.train, {**f, "train_util": util})
            out = np.select(
                [self.kind == "decode_tps", self.kind == "prefill_tps", self.kind == "throughput_tps",
                 np.isin(self.kind, ("training_tps", "finetune_tps"))],
                [self.batch / step, self.batch * self.prompt / pre,
                 self.batch * self.output * self.counted / (pre + self.output * step), self.gpus_counted / token],
                default=self.tokens * token / 3600 / f["train_goodput"],
            )  # fmt: skip
        return out


def fit_factors(rows: Sequence[SpeedRow]) -> dict[str, dict[str, float]]:
    """Factors for every engine the rows name, plus "" (pooled over all engines), fitted together.

    Minimises Σ log(estimate / measured)² over the rows, plus for each engine factor
    ((log factor − log pooled) / spread)² and for each pooled factor a weak prior
    ((log pooled − log prior) / width)² (:data:`FACTORS`), with scipy's bounded least squares.
    """
    from scipy.optimize import least_squares

    names, pairs = _layout(rows)
    batch = _Batch(rows, pairs)
    start = np.log([FACTORS[f][0] for _, f in pairs])
    low = np.log([FACTORS[f][2] for _, f in pairs])
    high = np.log([FACTORS[f][3] for _, f in pairs])
    pooled = np.array([pairs.index(_parent(pair, pairs)) for pair in pairs])  # the centre of each engine factor
    own = np.array([bool(e) for e, _ in pairs])
    centre = np.log([FACTORS[f][0] for _, f in pairs])
    width = np.array([FACTORS[f][1] for _, f in pairs])
    spread = np.array([FACTORS[f][4] for _, f in pairs])

    def residuals(x: np.ndarray) -> np.ndarray:
        fit_part = np.log(np.maximum(batch.predict(x), 1e-30) / batch.measured)
        prior = np.where(own, (x - x[pooled]) / spread, (x - centre) / width)
        return np.concatenate([fit_part, prior])

    # which parameters each residual depends on: a row its engine's factors (or the pooled ones),
    # a prior its own parameter and the pooled one; lets scipy difference many columns at once
    from scipy.sparse import lil_matrix

    sparsity = lil_matrix((len(rows) + len(pairs), len(pairs)), dtype=int)
    for idx in batch.which.values():
        sparsity[np.arange(len(rows)), idx] = 1
    for i in range(len(pairs)):
        sparsity[len(rows) + i, i] = 1
        sparsity[len(rows) + i, pooled[i]] = 1
    result = least_squares(residuals, np.clip(start, low + 1e-9, high - 1e-9), bounds=(low, high),
                           jac_sparsity=sparsity, method="trf")  # fmt: skip
    fitted = ["", *names, *(e for e in engines()["engine"] if lookup_engine(e).family in names)]
    return {engine: _factors_of(result.x, pairs, engine) for engine in dict.fromkeys(fitted)}


def cross_validate(rows: Sequence[SpeedRow]) -> pd.DataFrame:
    """Each row predicted in sample (factors fitted on all fitted rows) and out of sample.

    Out of sample: a row of a fitted author is predicted with factors fitted without that author
    (``split`` "cross-validation"); a row of a held-out author (:func:`holdout`) with the factors
    fitted on every other author, which never see it (``split`` "holdout"). Returns id, kind, engine,
    source, split, measured, in_sample, out_of_sample (estimates) and the two signed errors
    (estimate / measured − 1).
    """
    train = fit_rows(rows)
    everything = fit_factors(train)
    records = []
    for source in sorted({r.source for r in rows}):
        held = [r for r in rows if r.source == source]
        kept_out = source in holdout()
        rest = [r for r in train if r.source != source]
        fitted = everything if kept_out else fit_factors(rest) if rest else {"": {f: v[0] for f, v in FACTORS.items()}}
        for r in held:
            own = fitted.get(r.engine, fitted[""])
            records.append({
                "id": r.id, "kind": r.kind, "engine": r.engine or "(other)", "source": r.source,
                "split": "holdout" if kept_out else "cross-validation", "measured": r.measured,
                "in_sample": predict(r, everything.get(r.engine, everything[""])),
                "out_of_sample": predict(r, own),
            })  # fmt: skip
    frame = pd.DataFrame(records)
    frame["in_sample_err"] = frame["in_sample"] / frame["measured"] - 1
    frame["out_of_sample_err"] = frame["out_of_sample"] / frame["measured"] - 1
    return frame


def engines_frame(factors: Mapping[str, Mapping[str, float]], rows: Sequence[SpeedRow], when: str) -> pd.DataFrame:
    """data/engines.csv with the fitted factors written into its factor columns and a ``fitted`` note per row.

    An engine gets the factors of its ``role`` (inference, training or both): its own where rows
    name it, else its family's (the ``family`` column) where that was fitted, else the pooled ones,
    and says which.
    """
    table = engines()
    for i, name in enumerate(table["engine"]):
        if name == "other":
            table.loc[i, list(FACTORS)] = [round(v, 4) if v < 10 else round(v, 1) for v in factors[""].values()]
            table.loc[i, "fitted"] = f"benchmarks/fit.py {when}: the factors pooled over all engines, {len(rows)} rows"
            continue
        own = [r for r in rows if r.engine == name]
        chosen = factors.get(name, factors[""])
        role = table.loc[i, "role"]
        for factor in FACTORS:
            used = (factor in INFERENCE_FACTORS and role != "training") or (
                factor in TRAINING_FACTORS and role != "inference"
            )
            value = chosen[factor]
            table.loc[i, factor] = (round(value, 4) if value < 10 else round(value, 1)) if used else math.nan
        family = table.loc[i, "family"] if isinstance(table.loc[i, "family"], str) else ""
        towards = f"the factors of {family}" if family and family in factors else "the factors pooled over all engines"
        table.loc[i, "fitted"] = (
            f"benchmarks/fit.py {when}: {len(own)} rows from {len({r.source for r in own})} sources "
            f"(pulled towards {towards})"
            if own
            else f"benchmarks/fit.py {when}: no rows of its own, so {towards}"
        )
    return table
