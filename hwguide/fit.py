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
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlparse

import pandas as pd

from .catalog import load_table, lookup_engine, lookup_gpu, lookup_model
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

__all__ = ["FACTORS", "SPEED_KINDS", "cross_validation", "parse_args", "predict", "source_group", "speed_rows"]

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


@functools.cache
def holdout() -> frozenset[str]:
    """The authors (:func:`source_group`) kept out of every fit (data/holdout.csv): the kit's own unseen sources."""
    from .catalog import data_dir

    return frozenset(pd.read_csv(data_dir() / "holdout.csv")["group"])


def fit_rows(rows: Sequence[SpeedRow]) -> list[SpeedRow]:
    """``rows`` without the held-out authors (:func:`holdout`): what every fit sees."""
    kept = holdout()
    return [r for r in rows if r.source not in kept]


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
