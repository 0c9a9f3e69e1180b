"""Fit the engines' speed factors to published measurements, and judge them on sources left out.

The physics of a step is in :mod:`hwguide.speed` (:func:`~hwguide.speed.step_seconds`,
:func:`~hwguide.speed.prefill_time`, :func:`~hwguide.speed.training_token_seconds`); what an
engine adds are a few factors per engine (achievable bandwidth per weight class, MFU, per-step,
per-layer and per-expert overheads, training utilisation). This module:

* turns every usable speed row of data/measurements.csv into the cost of its workload
  (:func:`speed_rows`), computed by the same functions the kit answers with;
* fits all engines' factors at once by least squares on log(estimate / measured)
  (:func:`fit_factors`), each engine's factors pulled towards factors pooled over all engines
  (a ridge in log space, so an engine with few rows borrows from the others, and an engine with
  none gets the pooled values);
* predicts each author's rows with factors fitted without any of them (:func:`cross_validate`,
  leave one author out, :func:`source_group`): the only error figures the kit quotes.

``python benchmarks/fit.py`` writes the factors fitted on all rows into data/engines.csv.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import numpy as np
import pandas as pd

from .catalog import engines, load_table, lookup_engine, lookup_gpu, lookup_model
from .memory import check_weights, cpu_moe_layers
from .speed import (
    DEFAULT_GLOBAL_TOKENS,
    FEW_SEQUENCES,
    SPEED_FACTORS,
    harness_for,
    link_for,
    prefill_cost,
    prefill_time,
    step_cost,
    step_seconds,
    training_cost,
    training_token_seconds,
)

__all__ = ["FACTORS", "SPEED_KINDS", "cross_validate", "fit_factors", "parse_args", "source_group", "speed_rows"]

SPEED_KINDS = ("decode_tps", "prefill_tps", "throughput_tps", "training_tps", "training_gpu_hours", "finetune_tps")
TRAINING_KINDS = ("training_tps", "training_gpu_hours", "finetune_tps")

# Each factor: (starting value and prior centre, prior width in log units, lower and upper bound,
# how far one engine may stray from the pooled value in log units). The priors are weak (e^1 ≈ ×2.7):
# they matter only where no row says anything about a factor. Efficiencies differ little between
# engines (0.5 ≈ ×1.65 costs as much as one row that far off); fixed overheads differ by orders of
# magnitude (a Python loop per layer against CUDA graphs), so they may stray by e^2.5 ≈ ×12.
FACTORS: dict[str, tuple[float, float, float, float, float]] = {
    "bw_16bit": (0.8, 1.0, 0.05, 1.0, 0.5),
    "bw_8bit": (0.7, 1.0, 0.05, 1.0, 0.5),
    "bw_lowbit": (0.6, 1.0, 0.05, 1.0, 0.5),
    "decode_mfu": (0.3, 1.0, 0.01, 1.0, 0.5),
    "prefill_mfu": (0.4, 1.0, 0.01, 1.0, 0.5),
    "dequant_compute": (0.7, 1.0, 0.05, 1.0, 0.5),
    "step_us": (200.0, 2.0, 1.0, 1e6, 2.5),
    "layer_us": (20.0, 2.0, 0.01, 1e5, 2.5),
    "expert_us": (5.0, 2.0, 0.01, 1e5, 2.5),
    "allreduce_latency_us": (30.0, 2.0, 0.1, 1e5, 2.5),
    "cpu_bw": (0.6, 1.0, 0.05, 1.0, 0.5),  # share of the CPU's peak memory bandwidth expert kernels reach
    "train_util": (0.5, 1.0, 0.05, 1.0, 0.5),
    "train_util_fp8": (0.4, 1.0, 0.05, 1.0, 0.5),
    "train_act_bytes": (100.0, 2.0, 1.0, 1e5, 1.0),
    "train_moe_eff": (0.7, 1.0, 0.05, 1.0, 0.5),
    "train_attn_util": (0.4, 1.0, 0.05, 1.0, 0.5),  # FlashAttention's share of the 16-bit peak
    "train_comm_exposed": (0.2, 1.0, 0.01, 1.0, 0.5),  # share of overlappable data-parallel traffic still exposed
    "train_layer_us": (30.0, 2.0, 0.01, 1e5, 2.5),  # fixed time per layer and micro-batch
    # share of a whole run's GPU time spent in training steps (failures and restarts, checkpoints, evaluation
    # take the rest): Llama 3's 16k-GPU run had "higher than 90% effective training time" (Dubey et al. 2024, §3.3.4)
    "train_goodput": (0.9, 1.0, 0.2, 1.0, 0.5),
}
INFERENCE_FACTORS = SPEED_FACTORS
TRAINING_FACTORS = ("train_util", "train_util_fp8", "train_act_bytes", "train_moe_eff", "train_attn_util",
                    "train_comm_exposed", "train_layer_us", "train_goodput")  # fmt: skip


# GitHub organisations that publish as one author: one team's harnesses and habits (the same benchmark script,
# the same launcher flags) run through all their repositories, so they are left out together.
SAME_AUTHOR = {"nvidia-nemo": "nvidia", "pytorch-labs": "pytorch", "meta-llama": "meta", "facebookresearch": "meta",
               "qwenlm": "qwen", "ggerganov": "ggml-org", "vllm-project": "vllm", "sgl-project": "sglang"}  # fmt: skip


def source_group(url: str) -> str:
    """The author a row comes from, for leaving sources out: a GitHub owner (organisations of one team joined,
    :data:`SAME_AUTHOR`) with all its repositories, or a site. Leaving out one page or one repository would keep
    the same author's other pages, with the same harness, in the fit, which hides the errors a new source shows."""
    first = (url or "").split(" ; ")[0].strip()
    parsed = urlparse(first)
    parts = [p for p in parsed.path.split("/") if p]
    host = parsed.netloc.lower().removeprefix("www.")
    if host in ("github.com", "raw.githubusercontent.com") and parts:
        owner = parts[0].lower()
        return f"github.com/{SAME_AUTHOR.get(owner, owner)}"
    if host == "huggingface.co" and parts and parts[0] not in ("docs", "blog", "datasets", "spaces", "papers"):
        return f"huggingface.co/{parts[0].lower()}"  # a model card: its publisher
    return host


def parse_args(text: str | None) -> dict[str, str]:
    """The ``args`` cell of a measurement row ("input=512;output=128;tp=2") as a dict of strings."""
    return dict(item.split("=", 1) for item in filter(None, (text or "").split(";")) if "=" in item)


@dataclass(frozen=True)
class SpeedRow:
    """One usable speed measurement and the cost of its workload."""

    id: str
    kind: str
    engine: str  # an engine of data/engines.csv, or "" for one the table does not know (gets the pooled factors)
    source: str
    measured: float
    decode: Mapping[str, float] | None = None  # cost of one decode step
    prefill: Mapping[str, float] | None = None  # cost of the prompts
    train: Mapping[str, float] | None = None  # cost of one training token
    batch: float = 1.0
    output: float = 1.0  # decode steps per request (throughput rows)
    counted: float = 1.0  # tokens counted per decode step and sequence (throughput rows: output, or total)
    prompt: float = 1.0
    tokens: float = 1.0  # training tokens (GPU-hours rows)
    gpus_counted: float = 1.0  # training rows: GPUs whose tokens/s the row adds up (1: per GPU)
    precision: str = "bf16"


def _known_engine(name: str | None) -> str:
    """The engine of data/engines.csv a row names, or "" (the pooled factors, the table's "other" row)."""
    try:
        found = lookup_engine(name or "", "engine").name
    except ValueError:
        return ""
    return "" if found == "other" else found


def workload(r: Mapping[str, Any]) -> SpeedRow:
    """The workload of one measurement row, through the same cost functions the kit answers with."""
    args = parse_args(r.get("args"))
    m, g = lookup_model(r["model"]), lookup_gpu(r["gpu"])
    engine = _known_engine(r.get("engine"))
    eng = lookup_engine(engine or "other")  # the cost's engine-specific parts: matmul precision, chunking
    gpus = int(args.get("tp") or r.get("gpu_count") or 1) if r["kind"] not in TRAINING_KINDS else 1
    stages = int(args.get("pp") or 1) if r["kind"] not in TRAINING_KINDS else 1  # llama.cpp's layer split
    link = link_for(args.get("interconnect"), g, gpus) if gpus > 1 else None
    batch = int(r.get("batch") or 1)
    measured = float(r["measured"])
    common = dict(id=r["id"], kind=r["kind"], engine=engine, source=source_group(r["source"]), measured=measured)
    weights = check_weights(r.get("weights") or "fp16") if r["kind"] not in TRAINING_KINDS else "bf16"
    kv = r.get("kv_dtype") or "fp16"
    run = harness_for(eng, args.get("harness"))  # how the source called the engine (data/harnesses.csv)
    if r["kind"] == "decode_tps":
        if "input" in args and "output" in args:
            context = int(args["input"]) + int(args["output"]) // 2
        else:
            context = max(1, int(r.get("context") or 128) // 2)  # the context grows over the measured tokens
        cpu_layers = cpu_moe_layers(m, args.get("cpu_moe", 0))
        ram = float(args["ram_gbs"]) if "ram_gbs" in args else None
        cost = step_cost(m, g, eng, weights=weights, batch=batch, context=context, gpus=gpus, link=link, kv=kv,
                         cpu_layers=cpu_layers, ram_gbs=ram, harness=run,
                         unknown_peak=batch <= FEW_SEQUENCES)  # as decode_tokens_per_s: bandwidth-bound  # fmt: skip
        return SpeedRow(**common, decode=cost, batch=batch)
    if r["kind"] == "prefill_tps":
        context = int(r.get("context") or args.get("input") or 512)
        cost = prefill_cost(m, g, eng, weights=weights, batch=batch, context=context, gpus=gpus, link=link,
                            stages=stages)  # fmt: skip
        return SpeedRow(**common, prefill=cost, batch=batch, prompt=context)
    if r["kind"] == "throughput_tps":
        prompt, output = int(args["input"]), int(args["output"])
        pre = prefill_cost(m, g, eng, weights=weights, batch=batch, context=prompt, gpus=gpus, link=link,
                           stages=stages)  # fmt: skip
        step = step_cost(m, g, eng, weights=weights, batch=batch, context=prompt + output // 2, gpus=gpus,
                          link=link, kv=kv, harness=run)  # fmt: skip
        counted = (prompt + output) / output if args.get("counts") == "total" else 1.0
        if args.get("per_gpu_throughput") == "true":
            common["measured"] = measured * max(int(r.get("gpu_count") or 1), 1)
        return SpeedRow(**common, decode=step, prefill=pre, batch=batch, output=output, counted=counted, prompt=prompt)
    precision = "fp8" if "fp8" in str(r.get("precision") or "").lower() else "bf16"
    context = int(r.get("context") or args.get("seq_len") or 4096)
    recompute = r.get("recompute") or "none"
    cost = training_cost(m, g, precision, context, recompute, **training_layout(r, args))
    tokens = float(args.get("tokens") or 1.0)
    total = r.get("scope") == "all_gpus" and r["kind"] != "training_gpu_hours"  # the row adds up its GPUs
    counted = float(r.get("gpu_count") or 1) if total else 1.0
    return SpeedRow(**common, train=cost, tokens=tokens, precision=precision, gpus_counted=counted)


_TARGETS = {"q,v": "qv", "q,k,v,o": "attention", "q,k,v,o,gate,up,down": "all-linear"}


def training_layout(r: Mapping[str, Any], args: Mapping[str, str]) -> dict[str, Any]:
    """A training row's method and parallel layout, as :func:`hwguide.speed.training_cost` takes them.

    From the row's ``method``, ``lora_rank``/``lora_targets``, ``gpu_count`` and ``batch`` (sequences
    per micro-batch) and its args: tp, pp, cp, vp (interleaved stages), dp, fsdp (> 0: ZeRO-3), zero,
    grad_accum (micro-batches per step) or global_batch (sequences per step).
    """
    tp, pp, cp = (int(args.get(k) or 1) for k in ("tp", "pp", "cp"))
    gpus = int(r.get("gpu_count") or 0) or int(args.get("gpus") or 0) or tp * pp * cp
    gpus = max(gpus, tp * pp * cp)
    dp = int(args.get("dp") or max(gpus // (tp * pp * cp), 1))
    batch = int(r.get("batch") or 1)
    context = int(r.get("context") or args.get("seq_len") or 4096)
    if "pp_microbatch" in args:  # a local batch split into pipeline micro-batches of this size
        micro, batch = batch / int(args["pp_microbatch"]), int(args["pp_microbatch"])
    elif "grad_accum" in args:
        micro = float(args["grad_accum"])
    elif "global_batch" in args:
        micro = max(float(args["global_batch"]) / (dp * batch), 1.0)
    elif r["kind"] == "training_gpu_hours":  # a whole pre-training run: the kit's default global batch
        micro = max(DEFAULT_GLOBAL_TOKENS / context / (dp * batch), 1.0)
    else:
        micro = 1.0
    zero = 3 if int(args.get("fsdp") or 0) > 0 else int(float(r.get("zero") or args.get("zero") or 0))
    method = (r.get("method") or "full").lower()
    method = method if method in ("lora", "qlora") else "full"
    targets = _TARGETS.get(r.get("lora_targets") or "", r.get("lora_targets") or "all-linear")
    targets = targets.split(",") if "," in targets else targets
    return dict(method=method, rank=int(float(r.get("lora_rank") or 16)), targets=targets, tp=tp, pp=pp, cp=cp,
                gpus=tp * pp * cp * dp, batch=batch, micro_batches=micro, interleave=int(args.get("vp") or 1),
                zero=min(zero, 3), ep=int(args.get("ep") or 1))  # fmt: skip


def speed_rows(table: pd.DataFrame | None = None) -> tuple[list[SpeedRow], pd.DataFrame]:
    """The usable speed rows of data/measurements.csv as workloads, and the rows left out with the reason."""
    table = load_table("measurements") if table is None else table
    rows, skipped = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in table.astype(object).where(table.notna(), None).to_dict("records"):
            if r["kind"] not in SPEED_KINDS or r.get("excluded_because"):
                continue
            try:
                rows.append(workload(r))
            except (ValueError, LookupError, KeyError) as err:
                skipped.append({"id": r["id"], "reason": str(err).splitlines()[0]})
    return rows, pd.DataFrame(skipped, columns=["id", "reason"])


# ---------------------------------------------------------------------------------------------
# Prediction with a set of factors
# ---------------------------------------------------------------------------------------------


def predict(row: SpeedRow, factors: Mapping[str, float]) -> float:
    """The kit's estimate for one row with the given factors of its engine."""
    if row.kind == "decode_tps":
        return row.batch / float(step_seconds(row.decode, factors))
    if row.kind == "prefill_tps":
        return row.batch * row.prompt / float(prefill_time(row.prefill, factors))
    if row.kind == "throughput_tps":
        seconds = float(prefill_time(row.prefill, factors)) + row.output * float(step_seconds(row.decode, factors))
        return row.batch * row.output * row.counted / seconds
    train = dict(factors, train_util=factors["train_util_fp8"] if row.precision == "fp8" else factors["train_util"])
    seconds = float(training_token_seconds(row.train, train))
    if row.kind == "training_gpu_hours":  # a whole run: its steps and the time lost between them
        return row.tokens * seconds / 3600 / factors["train_goodput"]
    return row.gpus_counted / seconds


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


@functools.cache
def holdout() -> frozenset[str]:
    """The authors (:func:`source_group`) kept out of every fit (data/holdout.csv): the kit's own unseen sources."""
    from .catalog import data_dir

    return frozenset(pd.read_csv(data_dir() / "holdout.csv")["group"])


def fit_rows(rows: Sequence[SpeedRow]) -> list[SpeedRow]:
    """``rows`` without the held-out authors (:func:`holdout`): what every fit sees."""
    kept = holdout()
    return [r for r in rows if r.source not in kept]


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


CROSS_VALIDATION_FILE = "cross_validation.csv"  # in data/, written by benchmarks/fit.py


def cross_validation() -> pd.DataFrame:
    """:func:`cross_validate` on every usable speed row of data/measurements.csv, as ``benchmarks/fit.py``
    computed it when it fitted data/engines.csv (data/cross_validation.csv): committed data, not computed at
    run time (it takes about 15 s). A test holds the file to a fresh computation."""
    return _committed(CROSS_VALIDATION_FILE).copy()


@functools.cache
def _committed(name: str) -> pd.DataFrame:
    from .catalog import data_dir

    return pd.read_csv(data_dir() / name, dtype={"id": str}, keep_default_na=False, na_values=[""])


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Median absolute error per kind and split (cross-validation, holdout), in and out of sample, with counts."""
    out = []
    if "split" not in frame:
        frame = frame.assign(split="cross-validation")
    for (kind, split), part in frame.groupby(["kind", "split"]):
        out.append({
            "kind": kind, "split": split, "rows": len(part), "sources": part["source"].nunique(),
            "engines": part["engine"].nunique(),
            "in_sample_median": part["in_sample_err"].abs().median(),
            "out_of_sample_median": part["out_of_sample_err"].abs().median(),
            "out_of_sample_signed": part["out_of_sample_err"].median(),
        })  # fmt: skip
    return pd.DataFrame(out)


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
