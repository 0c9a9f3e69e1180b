"""How fast: roofline, decode tokens/s, prefill time, multi-GPU links and training time.

Models, each stated where it is used:

* **Roofline** (Williams et al. 2009): a step takes the longer of its memory time (bytes read /
  bandwidth) and its compute time (FLOPs / peak), each derated by an efficiency factor.
* **Decode** reads every active weight once per step plus the KV cache of every sequence; it does
  2 FLOPs per active parameter per token (Kaplan et al. 2020, §2.1) plus attention over the context.
  At batch 1 it is memory-bound; it turns compute-bound once batch × 2 FLOP/byte passes the ridge.
* **Prefill** is compute-bound: 2 FLOPs per active parameter per prompt token plus attention.
* **Tensor parallelism** splits weights and KV cache over the GPUs and adds two all-reduces of the
  hidden state per layer (Megatron-LM, Shoeybi et al. 2019, §3), timed as a ring all-reduce:
  2(t−1)/t × bytes / link bandwidth, plus a fixed latency per collective.
* **Training** costs 6 FLOPs per parameter per token (8 with full recomputation) (Kaplan et al.
  2020; Korthikanti et al. 2022), at a model-FLOPs utilisation (MFU).

Efficiency factors are data (``data/engines.csv``), fitted to the measurements in
``data/measurements.csv``; no efficiency constant lives in this file.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from . import checks, i18n
from .architecture import LINEAR_KINDS, Model, param_count, tensors
from .catalog import GPU, Engine, closest_model, interconnects, lookup_engine, lookup_gpu, lookup_model
from .memory import (
    KV_DTYPES,
    RECOMPUTE,
    check_weights,
    cpu_moe_layers,
    is_gguf,
    kv_cache_bytes,
    lora_params,
    tensor_bytes,
    weights_bytes,
)

__all__ = [
    "BOUNDS",
    "COMPUTE_COLUMN",
    "TRAINING_METHODS",
    "TrainingTime",
    "allreduce_seconds",
    "arithmetic_intensity",
    "break_even_days",
    "decode_breakdown",
    "decode_tokens_per_s",
    "default_link",
    "peak_flops",
    "prefill_seconds",
    "roofline",
    "roofline_table",
    "WEIGHT_CLASSES",
    "engine_factors",
    "inference_engines",
    "prefill_time",
    "serving_tokens_per_s",
    "step_parts",
    "step_seconds",
    "training_efficiency",
    "training_flops_per_token",
    "training_layout",
    "training_time",
    "training_token_seconds",
    "training_tokens_per_s",
    "weight_class",
]

# Which catalog column gives the dense Tensor rate a precision runs at.
COMPUTE_COLUMN = {
    "fp32": "fp32_tflops",
    "fp16": "fp16_tflops",
    "fp16-acc16": "fp16_acc16_tflops",
    "bf16": "bf16_tflops",
    "fp8": "fp8_tflops",
    "int8": "int8_tops",
    "fp4": "fp4_tflops",
}


def peak_flops(card: str | GPU, precision: str = "fp16") -> float:
    """Dense peak of ``card`` at ``precision``, in FLOP/s (fp16/bf16/fp8: Tensor, FP32 accumulate).

    Raises ValueError when the card does not support the precision or no source gave the figure.
    """
    g = lookup_gpu(card, "card")
    precision = checks.choice(precision, "precision", COMPUTE_COLUMN)
    value = getattr(g, COMPUTE_COLUMN[precision])
    if value is None:
        raise ValueError(i18n.msg(
            "card={card!r} has no {precision} Tensor rate in the catalog (unsupported, or not confirmed "
            "by a source: see data/README.md); choose another precision or card", card=g.name, precision=precision,
        ))  # fmt: skip
    return float(value) * 1e12


def roofline(card: str | GPU, precision: str = "fp16") -> dict[str, float]:
    """Peak TFLOPS, bandwidth (GB/s) and ridge point (FLOPs per byte) of ``card`` at ``precision``.

    A workload whose arithmetic intensity is below the ridge is memory-bound on this card.
    """
    g = lookup_gpu(card, "card")
    peak = peak_flops(g, precision)
    return {
        "peak_tflops": peak / 1e12,
        "bandwidth_gbs": g.bandwidth_gbs,
        "ridge_flops_per_byte": peak / (g.bandwidth_gbs * 1e9),
    }


def roofline_table(cards: Sequence[str] | None = None, *, precision: str = "fp16") -> pd.DataFrame:
    """:func:`roofline` for several cards (default: every card with a figure at ``precision``)."""
    from .catalog import gpus

    precision = checks.choice(precision, "precision", COMPUTE_COLUMN)
    names = checks.names(cards, "cards") if cards is not None else list(gpus()["name"])
    rows = []
    for name in names:
        card = lookup_gpu(name, "cards")
        try:
            rows.append({"gpu": card.name, **roofline(card, precision)})
        except ValueError:
            if cards is not None:
                raise
    return pd.DataFrame(rows, columns=["gpu", "peak_tflops", "bandwidth_gbs", "ridge_flops_per_byte"])


def _compute_precision(weights: str, eng: Engine, card: GPU) -> str:
    """The Tensor precision the matrix multiplies run at, for a weight format on an engine.

    The engine's columns say it (data/engines.csv): ``f16_matmul`` for 16-bit weights (``native``:
    the weights' own fp16/bf16 with FP32 accumulation; ``fp16-acc16``: llama.cpp's cuBLAS path)
    and ``gguf_matmul`` for quantised GGUF weights (``int8``: llama.cpp's MMQ kernels). Other
    quantised formats (int4/int8/NF4/GPTQ/AWQ) are dequantised and multiplied at the FP16 rate;
    fp32 and fp8 weights run at their own rate. A card without the rate falls back to its FP16 rate.
    """
    w = weights.lower()
    if w in ("fp16", "f16", "bf16"):
        wanted = eng.f16_matmul if eng.f16_matmul != "native" else ("bf16" if w == "bf16" else "fp16")
    elif is_gguf(weights):
        wanted = eng.gguf_matmul
    elif w in ("fp32", "fp8"):
        wanted = w
    else:
        wanted = "fp16"
    return wanted if getattr(card, COMPUTE_COLUMN[wanted]) is not None else "fp16"


def _flops_per_token(m: Model, context: int) -> float:
    """Forward FLOPs for one token attending to ``context`` earlier tokens.

    2 per active parameter (Kaplan et al. 2020, §2.1, excluding embeddings) plus attention:
    2 × 2 × layers × context × (heads × head_dim) for QKᵀ and AV. With DeepSeek sparse attention the
    context attended is at most ``index_topk`` tokens, plus the indexer's 2 × index heads × index head dim
    per earlier token and layer.
    """
    active = param_count(m, active=True) - m.vocab_size * m.hidden_size  # the lookup does no math
    window = min(context, m.sliding_window) if m.sliding_window else context
    windowed = m.sliding_window_layers if m.sliding_window else 0
    attended = (m.attention_layers - windowed) * context + windowed * window  # linear layers attend to no context
    if m.index_topk:
        # DeepSeek sparse attention (DeepSeek-V3.2): each query attends to the index_topk tokens its lightning
        # indexer picks, and the indexer scores every earlier token with index_heads dot products of index_head_dim
        attended = m.attention_layers * min(context, m.index_topk)
        indexer = 2 * m.attention_layers * context * (m.index_heads or 0) * (m.index_head_dim or 0)
        return 2 * active + 4 * attended * m.heads * m.head_dim + indexer
    return 2 * active + 4 * attended * m.heads * m.head_dim


def arithmetic_intensity(
    model: Model | str,
    phase: str = "decode",
    *,
    batch: int = 1,
    context: int = 1024,
    weights: str = "fp16",
) -> float:
    """FLOPs per byte of memory traffic for one step of ``phase`` (decode, prefill or training).

    decode: one token for each of ``batch`` sequences at ``context``; prefill: ``context`` prompt
    tokens per sequence; training: forward + backward (3 × forward FLOPs) over ``context`` tokens,
    with the 16-bit weights read three times.
    """
    m = lookup_model(model)
    phase = checks.choice(phase, "phase", ("decode", "prefill", "training"))
    batch, context = checks.whole(batch, "batch"), checks.whole(context, "context")
    w = weights_bytes(m, weights, active=True)
    if phase == "decode":
        flops = batch * _flops_per_token(m, context)
        traffic = w + kv_cache_bytes(m, context, batch=batch)
    elif phase == "prefill":
        flops = batch * context * _flops_per_token(m, context // 2)
        traffic = w + kv_cache_bytes(m, context, batch=batch)
    else:
        flops = 3 * batch * context * _flops_per_token(m, context // 2)
        traffic = 3 * weights_bytes(m, "bf16")
    return flops / traffic


# ---------------------------------------------------------------------------------------------
# Multi-GPU links
# ---------------------------------------------------------------------------------------------


@functools.cache
def _links() -> dict[str, dict[str, object]]:
    return {str(row["name"]): row for row in interconnects().astype(object).to_dict("records")}


def default_link(card: str | GPU, *, gpus: int) -> str:
    """The link a machine with ``gpus`` of ``card`` most likely has: NVLink where the card has it
    (bridges join two cards; SXM boards eight), else its PCIe generation, x16."""
    g = lookup_gpu(card, "card")
    gpus = checks.whole(gpus, "gpus")
    if gpus > 1 and (g.nvlink_gbs or 0) > 0:
        limit = 8 if (g.form_factor or "").upper().startswith(("SXM", "SUPERCHIP")) else 2
        if gpus <= limit:
            for name, row in _links().items():
                if row["kind"] == "nvlink" and g.name in str(row["used_by"]).split(";"):
                    return name
    return f"PCIe {g.pcie_gen or 4}.0 x16"


def allreduce_seconds(nbytes: float, *, gpus: int, link: str, engine: str = "vllm") -> float:
    """Time of one ring all-reduce of ``nbytes`` bytes over ``gpus`` GPUs joined by ``link``, in seconds.

    2(t−1)/t × bytes / (per-direction bandwidth × efficiency) + a fixed latency per collective;
    both factors are data (engines.csv: allreduce_efficiency, allreduce_latency_us).
    """
    nbytes = checks.number(nbytes, "nbytes", high=1e18, unit="bytes")
    gpus = checks.whole(gpus, "gpus")
    links = _links()
    info = links[checks.choice(link, "link", list(links))]
    eng = lookup_engine(engine, "engine")
    if gpus <= 1:
        return 0.0
    bandwidth = float(info["per_direction_gbs"]) * 1e9 * eng.allreduce_efficiency
    return 2 * (gpus - 1) / gpus * nbytes / bandwidth + (eng.allreduce_latency_us or 0.0) * 1e-6


def link_for(interconnect: object, card: GPU, gpus: int) -> str:
    if interconnect is None:
        return default_link(card, gpus=gpus)
    return checks.choice(interconnect, "interconnect", list(_links()))


# ---------------------------------------------------------------------------------------------
# Decode and prefill: the cost of a step (physics) and its time (engine factors)
# ---------------------------------------------------------------------------------------------

# Weight-storage classes with their own achievable bandwidth: unquantised (fp32/fp16/bf16), 8-bit
# (fp8, int8, Q8_0, LLM.int8) and low-bit (4-6 bits: GGUF K-quants, NF4, GPTQ/AWQ int4). Low-bit
# kernels dequantise on the fly, which costs them a share of the bandwidth (issue 14's item 2).
WEIGHT_CLASSES = ("16-bit", "8-bit", "low-bit")
_BITS = re.compile(r"(?:^q|int|fp|^f|^bf|-)(\d+)", re.IGNORECASE)


@functools.lru_cache(maxsize=256)  # a handful of storage types, asked about once per tensor per step
def weight_class(storage: str) -> str:
    """The class of one tensor's storage type: "16-bit" (fp32/fp16/bf16, F32/F16), "8-bit" or "low-bit"."""
    if storage.lower() in ("fp32", "fp16", "bf16", "16-bit", "f32", "f16") or storage == "BF16":
        return "16-bit"
    if storage.lower() in ("bnb-int8",):
        return "8-bit"
    match = _BITS.search(storage)
    bits = int(match.group(1)) if match else 4
    return "16-bit" if bits >= 16 else ("8-bit" if bits >= 8 else "low-bit")


def _experts_touched(m: Model, batch: int) -> float:
    """Distinct experts a batch of ``batch`` tokens routes to in one MoE layer, on average.

    With k of E experts chosen per token independently: E × (1 − (1 − k/E)^batch).
    """
    if not m.experts:
        return 0.0
    return m.experts * (1 - (1 - m.experts_per_token / m.experts) ** batch)


def _weights_read(m: Model, weights: str, batch: int, cpu_layers: int = 0, gpu_layers: int | None = None
                  ) -> dict[str, float]:  # fmt: skip
    return dict(_weights_read_cached(m, weights, batch, cpu_layers, gpu_layers))


@functools.lru_cache(maxsize=4096)  # a pure function of a frozen Model and four plain values
def _weights_read_cached(m: Model, weights: str, batch: int, cpu_layers: int, gpu_layers: int | None
                         ) -> tuple[tuple[str, float], ...]:  # fmt: skip
    """Bytes of weights one forward step reads, by storage class (:data:`WEIGHT_CLASSES`), and under
    "cpu" the expert bytes read from CPU memory.

    The embedding table is not streamed (each token reads one row of it); MoE expert tensors count
    the experts the batch routes to; everything else is read once per step. With ``cpu_layers``
    of the model's MoE layers keeping their experts in CPU memory, that share of the expert bytes
    is read there instead. With ``gpu_layers`` of ``m.layers`` on the GPU (llama.cpp's ``-ngl``), the
    other layers' share and the output layer are read from CPU memory.
    """
    touched = _experts_touched(m, batch)
    layers_off = (m.layers - gpu_layers) / m.layers if gpu_layers is not None and gpu_layers < m.layers else 0.0
    on_cpu = cpu_layers / m.moe_layers if m.moe_layers else 0.0
    out = dict.fromkeys((*WEIGHT_CLASSES, "cpu"), 0.0)
    for t, size, storage in tensor_bytes(m, weights):
        if t.kind in ("embedding", "position"):
            continue
        expert = t.count > 1 and t.kind.startswith("expert_")
        read = size * (touched / t.count if expert else 1.0)
        if expert and on_cpu:
            out["cpu"] += read * on_cpu
            read *= 1 - on_cpu
        if layers_off:
            off = 1.0 if t.kind == "lm_head" else layers_off
            out["cpu"] += read * off
            read *= 1 - off
        out[weight_class(storage)] += read
    return tuple(out.items())


def step_cost(
    m: Model, g: GPU, eng: Engine, *, weights: str, batch: int, context: int, gpus: int, link: str | None, kv: str,
    cpu_layers: int = 0, ram_gbs: float | None = None, unknown_peak: bool = False, gpu_layers: int | None = None,
    harness: Mapping[str, Any] | None = None,
) -> dict[str, float]:  # fmt: skip
    """What one decode step of ``batch`` sequences at ``context`` tokens costs, before engine factors.

    ``harness`` (a row of data/harnesses.csv, :func:`harness_for`) adds how the engine is called: its
    time per token and per layer (``harness_us``, µs per step).

    Bytes read by class (per GPU), KV-cache bytes, FLOPs, the peak they run at, the bandwidth,
    the layer and expert counts that fixed per-kernel overheads scale with, and the tensor-parallel
    all-reduce time; with experts of ``cpu_layers`` MoE layers in CPU memory, the expert bytes read
    there (``w_cpu``) and the system-memory bandwidth ``ram_gbs`` (GB/s) they are read at.
    With ``unknown_peak``, a card whose Tensor rate the catalog lacks gets no compute term
    (``peak`` infinite, ``peak_unknown`` 1): decode of a few sequences is bound by memory bandwidth.
    """
    read = _weights_read(m, weights, batch, cpu_layers, gpu_layers)
    cost = {f"w_{c}": read[c] / gpus for c in WEIGHT_CLASSES}
    cost["w_cpu"] = read["cpu"]
    cost["ram_bandwidth"] = (ram_gbs or 1.0) * 1e9
    cost["quantised"] = _quantised_share(read)
    cost["kv"] = kv_cache_bytes(m, context, batch=batch, kv=kv) / gpus
    if gpu_layers is not None and gpu_layers < m.layers:  # the CPU layers' KV cache is read there too
        kv_cpu = cost["kv"] * (m.layers - gpu_layers) / m.layers
        cost["kv"] -= kv_cpu
        cost["w_cpu"] += kv_cpu
    cost["flops"] = batch * _flops_per_token(m, context) / gpus
    try:
        cost["peak"], cost["peak_unknown"] = peak_flops(g, _compute_precision(weights, eng, g)), 0.0
    except ValueError:
        if not unknown_peak:
            raise
        cost["peak"], cost["peak_unknown"] = math.inf, 1.0
    cost["bandwidth"] = g.bandwidth_gbs * 1e9
    cost["layers"] = float(m.layers)
    per_layer = {"all": float(m.experts), "routed": _experts_touched(m, batch), "fused": 0.0}[eng.expert_loop]
    cost["experts"] = float(m.moe_layers) * per_layer
    cost.update(_allreduces(m, batch * m.hidden_size * 2, gpus, link))
    h = harness or {}
    cost["harness_us"] = float(h.get("token_us", 0.0)) + m.layers * float(h.get("layer_us", 0.0))
    cost["kernel_us"] = _linear_layers(m) * _kernel_us().get(weights, 0.0)  # data/kernels.csv
    return cost


@functools.cache
def _kernel_us() -> dict[str, float]:
    from .catalog import kernels

    return {str(w): float(us) for w, us in zip(kernels()["weights"], kernels()["linear_us"])}


@functools.lru_cache(maxsize=256)  # a pure function of a frozen Model
def _linear_layers(m: Model) -> float:
    """Linear layers one token passes through in one decode step (a routed expert counts once per use)."""
    return float(sum(t.active if t.kind.startswith("expert_") else t.count for t in tensors(m)
                     if t.kind in LINEAR_KINDS))  # fmt: skip


def _quantised_share(read: Mapping[str, float]) -> float:
    """The share of the weight bytes a step reads that are quantised (8-bit or low-bit)."""
    total = sum(read.values())
    return (read["8-bit"] + read["low-bit"]) / total if total else 0.0


def _compute_seconds(cost: Mapping[str, Any], factors: Mapping[str, Any], mfu: str) -> Any:
    """FLOPs / (peak × MFU), slower by 1 / dequant_compute on the quantised share of the weights:
    kernels that dequantise in the matrix multiply spend Tensor-core time unpacking the weights."""
    slow = 1 + cost["quantised"] * (1 / factors["dequant_compute"] - 1)
    return cost["flops"] / (cost["peak"] * factors[mfu]) * slow


def _allreduces(m: Model, nbytes: float, gpus: int, link: str | None) -> dict[str, float]:
    """Tensor parallelism's two all-reduces per layer: how many, and the seconds of each at the link's full rate."""
    if gpus <= 1 or link is None:
        return {"allreduces": 0.0, "allreduce_s": 0.0}
    per_direction = float(_links()[link]["per_direction_gbs"]) * 1e9
    return {"allreduces": 2.0 * m.layers, "allreduce_s": 2 * (gpus - 1) / gpus * nbytes / per_direction}


def _comm_seconds(cost: Mapping[str, Any], factors: Mapping[str, Any]) -> Any:
    return cost["allreduces"] * (cost["allreduce_s"] + 1e-6 * factors["allreduce_latency_us"])


def step_seconds(cost: Mapping[str, Any], factors: Mapping[str, Any]) -> Any:
    """Seconds of one decode step: the longer of its memory and compute times, plus overheads.

    memory = (16-bit weights + KV cache) / (bandwidth × bw_16bit) + 8-bit weights / (bandwidth ×
    bw_8bit) + low-bit weights / (bandwidth × bw_lowbit); compute = FLOPs / (peak × decode_mfu), slower
    on quantised weights by 1 / dequant_compute;
    overheads = step_us + layers × layer_us + expert calls × expert_us (µs: kernel launches and
    the engine's own work per step, per layer, and per expert where the engine loops over experts:
    every expert of each MoE layer for ``expert_loop`` = all, the routed ones for routed, none for
    fused kernels), plus the tensor-parallel all-reduces: 2 per layer, each at the link's full
    rate plus ``allreduce_latency_us``; plus, for experts kept in CPU memory, their bytes /
    (system-memory bandwidth × cpu_bw), in series with the GPU's work because each layer waits for
    its experts (llama.cpp and KTransformers run the routed experts of those layers on the CPU).
    The factors are an engine's fitted columns of data/engines.csv. Works element-wise on numpy
    arrays (benchmarks/fit.py fits with it).
    """
    p = step_parts(cost, factors)
    return np.maximum(p["memory"], p["compute"]) + p["overhead"] + p["link"] + p["cpu"]


def step_parts(cost: Mapping[str, Any], factors: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of :func:`step_seconds`, in seconds: ``memory``, ``compute``, ``overhead``, ``link``
    (tensor-parallel all-reduces) and ``cpu`` (experts read from CPU memory); element-wise on arrays."""
    bw = cost["bandwidth"]
    memory = (
        (cost["w_16-bit"] + cost["kv"]) / (bw * factors["bw_16bit"])
        + cost["w_8-bit"] / (bw * factors["bw_8bit"])
        + cost["w_low-bit"] / (bw * factors["bw_lowbit"])
    )
    overhead = (factors["step_us"] + cost["layers"] * factors["layer_us"] + cost["experts"] * factors["expert_us"]
                + cost.get("harness_us", 0.0) + cost.get("kernel_us", 0.0))  # fmt: skip
    return {
        "memory": memory,
        "compute": _compute_seconds(cost, factors, "decode_mfu"),
        "overhead": 1e-6 * overhead,
        "link": _comm_seconds(cost, factors),
        "cpu": cost["w_cpu"] / (cost["ram_bandwidth"] * factors["cpu_bw"]),
    }


def prefill_cost(
    m: Model,
    g: GPU,
    eng: Engine,
    *,
    weights: str,
    batch: int,
    context: int,
    gpus: int,
    link: str | None,
    stages: int = 1,
) -> dict[str, float]:
    """What processing ``batch`` prompts of ``context`` tokens costs, before engine factors.

    ``gpus`` splits every layer (tensor parallelism); ``stages`` GPUs each hold a run of whole
    layers (llama.cpp's default layer split), which lets the prompt's micro-batches pipeline.
    """
    tokens = batch * context
    read = _weights_read(m, weights, tokens)
    cost = {f"w_{c}": read[c] / gpus for c in WEIGHT_CLASSES}
    cost["quantised"] = _quantised_share(read)
    cost["flops"] = tokens * _flops_per_token(m, context // 2) / gpus  # causal: a token sees half on average
    cost["peak"] = peak_flops(g, _compute_precision(weights, eng, g))
    cost["bandwidth"] = g.bandwidth_gbs * 1e9
    cost["layers"] = float(m.layers)
    cost["steps"] = float(math.ceil(tokens / (eng.prefill_chunk_tokens or eng.ubatch_tokens or tokens)))
    # micro-batches that pipeline over layer-split GPUs: those of one logical batch (llama.cpp's n_batch)
    cost["stages"] = float(stages)
    cost["in_flight"] = float(math.ceil(min(tokens, eng.batch_tokens or tokens) / (eng.ubatch_tokens or tokens)))
    cost.update(_allreduces(m, tokens * m.hidden_size * 2, gpus, link))
    return cost


def pipeline_speedup(steps: Any, stages: Any) -> Any:
    """How much faster ``steps`` micro-batches run through ``stages`` pipelined GPUs than through one.

    Each stage holds 1/stages of the layers; the last micro-batch leaves after steps + stages − 1
    stage-times instead of steps × stages: speedup = steps × stages / (steps + stages − 1)
    (the pipeline "bubble" of GPipe, Huang et al. 2019, section 2.2). One micro-batch: no speedup.
    """
    return steps * stages / (steps + stages - 1)


def prefill_time(cost: Mapping[str, Any], factors: Mapping[str, Any]) -> Any:
    """Seconds of prompt processing: FLOPs / (peak × prefill_mfu), never faster than reading the
    weights once, plus the per-step and per-layer overheads of each forward step (chunk) and the
    all-reduces; over layer-split GPUs, divided by the :func:`pipeline_speedup` of the micro-batches in flight.
    Element-wise on numpy arrays, like :func:`step_seconds`."""
    bw = cost["bandwidth"]
    memory = (
        cost["w_16-bit"] / (bw * factors["bw_16bit"])
        + cost["w_8-bit"] / (bw * factors["bw_8bit"])
        + cost["w_low-bit"] / (bw * factors["bw_lowbit"])
    )
    compute = _compute_seconds(cost, factors, "prefill_mfu")
    overhead = cost["steps"] * (factors["step_us"] + cost["layers"] * factors["layer_us"])
    serial = np.maximum(memory, compute) + 1e-6 * overhead + _comm_seconds(cost, factors)
    return serial / pipeline_speedup(cost.get("in_flight", 1.0), cost.get("stages", 1.0))


SPEED_FACTORS = ("bw_16bit", "bw_8bit", "bw_lowbit", "decode_mfu", "prefill_mfu", "dequant_compute", "step_us",
                 "layer_us", "expert_us", "allreduce_latency_us", "cpu_bw")  # fmt: skip


def engine_factors(eng: Engine) -> dict[str, float]:
    """An inference engine's fitted speed factors, or a ValueError for a training-only framework."""
    factors = {name: getattr(eng, name) for name in SPEED_FACTORS}
    if any(v is None for v in factors.values()):
        raise ValueError(i18n.msg("engine={engine!r} has no fitted inference factors (a training framework?); "
                                  "choose one of: {choices}", engine=eng.name,
                                  choices=", ".join(inference_engines())))  # fmt: skip
    return factors


@functools.cache
def _harness_rows() -> dict[str, list[dict[str, Any]]]:
    from .catalog import harnesses

    rows: dict[str, list[dict[str, Any]]] = {}
    for r in harnesses().to_dict("records"):
        rows.setdefault(str(r["engine"]), []).append(r)
    return rows


def harness_for(eng: Engine, harness: object = None) -> dict[str, Any]:
    """How ``eng`` is called (data/harnesses.csv): ``harness`` by name, or the engine's default (what its users
    most likely run). An engine with no harness rows has no added times (``harness`` "" then)."""
    rows = _harness_rows().get(eng.name) or _harness_rows().get(eng.family or "", [])  # a version family's
    if harness is None:
        chosen = [r for r in rows if r["default"]]
        return chosen[0] if chosen else {"harness": "", "token_us": 0.0, "layer_us": 0.0}
    name = checks.choice(harness, "harness", [str(r["harness"]) for r in rows] or ["(none for this engine)"])
    return next(r for r in rows if r["harness"] == name)


def inference_engines() -> list[str]:
    """Engines with fitted inference speed factors."""
    from .catalog import engines

    table = engines()
    return [str(e) for e, v in zip(table["engine"], table["bw_16bit"]) if v == v]


_Inputs = tuple[Model, GPU, str, int, int, int, int, Engine, "str | None"]


def _speed_inputs(model: object, card: object, weights: object, batch: object, context: object, gpus: object,
                  engine: object, interconnect: object) -> _Inputs:  # fmt: skip
    m, g = lookup_model(model), lookup_gpu(card, "card")
    batch, context, gpus = checks.whole(batch, "batch"), checks.whole(context, "context"), checks.whole(gpus, "gpus")
    weights = check_weights(weights)
    eng = lookup_engine(engine, "engine")
    link = link_for(interconnect, g, gpus) if gpus > 1 or interconnect is not None else None
    tp, stages = gpu_split(eng, gpus)
    return m, g, weights, batch, context, tp, stages, eng, link if gpus > 1 else None


def gpu_split(eng: Engine, gpus: int) -> tuple[int, int]:
    """(tensor-parallel GPUs, pipeline stages) for ``gpus`` GPUs under the engine's ``multi_gpu`` mode
    (data/engines.csv): tensor splits every layer; layer gives each GPU a run of whole layers."""
    return (1, gpus) if eng.multi_gpu == "layer" else (gpus, 1)


def decode_tokens_per_s(
    model: Model | str,
    card: str | GPU,
    *,
    weights: str = "fp16",
    batch: int = 1,
    context: int = 1024,
    gpus: int = 1,
    engine: str = "llama.cpp",
    interconnect: str | None = None,
    kv: str = "fp16",
    cpu_moe: int | str = 0,
    ram_gbs: float | None = None,
    gpu_layers: int | None = None,
    harness: str | None = None,
) -> float:
    """Aggregate decode speed of ``batch`` sequences, in tokens/s (per user: divide by ``batch``).

    One step reads the active weights (MoE: the experts the batch routes to) and every sequence's
    KV cache at ``context`` tokens, and computes 2 FLOPs per active parameter per sequence plus
    attention (:func:`step_seconds`, with the engine's fitted factors). With ``gpus`` > 1 the
    engine's ``multi_gpu`` mode decides (:func:`gpu_split`): tensor parallelism splits the work and
    adds two all-reduces per layer over ``interconnect`` (default: :func:`default_link`); a layer
    split (llama.cpp) passes each token through the GPUs in turn, no faster than one GPU.
    ``cpu_moe`` keeps the routed experts of that many MoE layers (or ``"all"``) in CPU memory, read
    at ``ram_gbs`` (GB/s: channels × MT/s × 8 / 1000, :func:`hwguide.ram_bandwidth_gbs`) times the
    engine's fitted ``cpu_bw``, in series with the GPU's share (llama.cpp ``--n-cpu-moe`` /
    ``--cpu-moe``, KTransformers). ``gpu_layers`` keeps only that many layers on the GPU (llama.cpp
    ``-ngl``): the other layers' weights and KV cache are read from CPU memory at ``ram_gbs``, after
    the GPU's part. This assumes the workload fits: :func:`inference_speed` checks the memory first
    and says so when it does not. ``harness`` says how the engine is called (data/harnesses.csv:
    llama.cpp's llama-server, llama-bench or llama-cpp-python, vLLM's server or eager mode, AutoAWQ's
    generate() or its benchmark loop …); None is the engine's default, what its users most likely run.
    """
    parts = decode_breakdown(model, card, weights=weights, batch=batch, context=context, gpus=gpus, engine=engine,
                             interconnect=interconnect, kv=kv, cpu_moe=cpu_moe, ram_gbs=ram_gbs,
                             gpu_layers=gpu_layers, harness=harness)  # fmt: skip
    return parts["tokens_per_s"]


# Up to this many sequences a decode step is bound by memory bandwidth on any card, so a card whose
# Tensor rate the catalog lacks still gets a decode estimate; beyond it the compute term matters.
FEW_SEQUENCES = 4

# What takes most of a decode step (``decode_breakdown()["bound"]``, a code), and its words.
BOUNDS = {
    "memory": i18n.N_("GPU memory bandwidth"),
    "compute": i18n.N_("compute"),
    "overhead": i18n.N_("fixed overheads"),
    "link": i18n.N_("the link"),
    "cpu": i18n.N_("CPU memory bandwidth"),
}


def decode_breakdown(
    model: Model | str,
    card: str | GPU,
    *,
    weights: str = "fp16",
    batch: int = 1,
    context: int = 1024,
    gpus: int = 1,
    engine: str = "llama.cpp",
    interconnect: str | None = None,
    kv: str = "fp16",
    cpu_moe: int | str = 0,
    ram_gbs: float | None = None,
    gpu_layers: int | None = None,
    harness: str | None = None,
) -> dict[str, Any]:
    """:func:`decode_tokens_per_s` with its working: the parts of one step in seconds and sentences.

    Returns ``tokens_per_s``, ``step_s`` and its parts ``memory_s`` (bytes read ÷ achieved
    bandwidth), ``compute_s`` (FLOPs ÷ achieved Tensor rate), ``overhead_s`` (fixed times per step,
    layer and expert), ``link_s`` (tensor-parallel all-reduces), ``cpu_s`` (experts read from CPU
    memory), ``bound`` (the code of the part that takes longest: "memory", "compute", "overhead",
    "link" or "cpu"; its words are :data:`BOUNDS`) and ``working`` (the formula with the numbers put
    in, one message per part, rendered in the reader's language when shown).
    """
    m, g, weights, batch, context, tp, _, eng, link = _speed_inputs(  # layer split: stages run one after another
        model, card, weights, batch, context, gpus, engine, interconnect
    )
    kv = checks.choice(kv, "kv", KV_DTYPES)
    cpu_layers = cpu_moe_layers(m, cpu_moe)
    if cpu_layers and ram_gbs is None:
        raise ValueError(
            i18n.msg("cpu_moe needs ram_gbs, the system-memory bandwidth in GB/s (hg.ram_bandwidth_gbs(cpu))")
        )
    if gpu_layers is not None:
        gpu_layers = checks.whole(gpu_layers, "gpu_layers", low=0, high=m.layers)
        if gpu_layers < m.layers and ram_gbs is None:
            raise ValueError(
                i18n.msg("gpu_layers needs ram_gbs, the system-memory bandwidth in GB/s (hg.ram_bandwidth_gbs(cpu))")
            )
    if ram_gbs is not None:
        ram_gbs = checks.number(ram_gbs, "ram_gbs", open_low=True, high=100_000, unit="GB/s")
    run = harness_for(eng, harness)
    cost = step_cost(m, g, eng, weights=weights, batch=batch, context=context, gpus=tp, link=link, kv=kv,
                     cpu_layers=cpu_layers, ram_gbs=ram_gbs, unknown_peak=batch <= FEW_SEQUENCES,
                     gpu_layers=gpu_layers, harness=run)  # fmt: skip
    f = engine_factors(eng)
    step = float(step_seconds(cost, f))
    memory, compute, overhead, comm, cpu = (float(v) for v in step_parts(cost, f).values())
    read = cost["w_16-bit"] + cost["w_8-bit"] + cost["w_low-bit"]
    ms = 1e3  # seconds to milliseconds
    working = [
        i18n.msg("Memory: {weights_gb:.2f} GB of weights + {kv_gb:.2f} GB of KV cache per step and GPU, read at "
                 "{bandwidth:,.0f} GB/s × the engine's achieved share ({bw_16bit:.2f} for 16-bit, "
                 "{bw_8bit:.2f} 8-bit, {bw_lowbit:.2f} low-bit) = {ms:.2f} ms.", weights_gb=read / 1e9,
                 kv_gb=cost["kv"] / 1e9,
                 bandwidth=g.bandwidth_gbs, bw_16bit=f["bw_16bit"], bw_8bit=f["bw_8bit"], bw_lowbit=f["bw_lowbit"],
                 ms=memory * ms),
        i18n.msg("Compute: {gflop:.1f} GFLOP per step at {tflops:.0f} TFLOPS × {mfu:.2f} = {ms:.2f} ms.",
                 gflop=cost["flops"] / 1e9, tflops=cost["peak"] / 1e12, mfu=f["decode_mfu"], ms=compute * ms)
        if not cost["peak_unknown"] else
        i18n.msg("Compute: left out, {gflop:.1f} GFLOP per step: the catalog has no Tensor rate for {card}, so the "
                 "estimate assumes memory bandwidth bounds the step, as it does for a few sequences; with many "
                 "sequences it is too fast.", gflop=cost["flops"] / 1e9, card=g.name),
        i18n.msg("Fixed times: {step_us:.0f} µs per step + {layers:.0f} layers × {layer_us:.1f} µs{experts}{harness} "
                 "= {ms:.2f} ms ({engine}'s fitted factors, data/engines.csv).", step_us=f["step_us"],
                 layers=cost["layers"], layer_us=f["layer_us"], ms=overhead * ms, engine=eng.name,
                 experts=i18n.msg(" + {calls:.0f} expert calls × {expert_us:.1f} µs", calls=cost["experts"],
                                  expert_us=f["expert_us"]) if cost["experts"] else "",
                 harness=i18n.msg(" + {us:,.0f} µs for how it is called ({harness}, data/harnesses.csv)",
                                  us=cost["harness_us"], harness=run["harness"]) if cost["harness_us"] else ""),
    ]  # fmt: skip
    if cost["kernel_us"]:
        working.append(i18n.msg("Of those, the {weights} kernels: {linears:.0f} linear layers × {us:.0f} µs = "
                                "{ms:.2f} ms (data/kernels.csv).", weights=weights, linears=_linear_layers(m),
                                us=_kernel_us()[weights], ms=cost["kernel_us"] / 1000))  # fmt: skip
    if comm:
        working.append(i18n.msg("Tensor-parallel all-reduces: {count:.0f} per step over {link} = {ms:.2f} ms.",
                                count=cost["allreduces"], link=link, ms=comm * ms))  # fmt: skip
    if cpu and gpu_layers is not None and gpu_layers < m.layers:
        working.append(i18n.msg("Layers in CPU memory: {cpu_layers} of {layers} layers, {gb:.2f} GB of weights and "
                                "KV cache per step at {ram_gbs:g} GB/s × {cpu_bw:.2f} = {ms:.2f} ms, after the GPU's "
                                "part (the CPU's own compute left out).", cpu_layers=m.layers - gpu_layers,
                                layers=m.layers, gb=cost["w_cpu"] / 1e9, ram_gbs=ram_gbs, cpu_bw=f["cpu_bw"],
                                ms=cpu * ms))  # fmt: skip
    elif cpu:
        working.append(i18n.msg("Experts in CPU memory: {gb:.2f} GB per step at {ram_gbs:g} GB/s × {cpu_bw:.2f} = "
                                "{ms:.2f} ms, after the GPU's part.", gb=cost["w_cpu"] / 1e9, ram_gbs=ram_gbs,
                                cpu_bw=f["cpu_bw"], ms=cpu * ms))  # fmt: skip
    parts = {"memory": max(memory, compute) if memory >= compute else 0.0,
             "compute": compute if compute > memory else 0.0, "overhead": overhead, "link": comm,
             "cpu": cpu}  # fmt: skip
    bound = max(parts, key=lambda k: parts[k])
    working.append(i18n.msg("Step = max(memory, compute) + the rest = {ms:.2f} ms, most of it {bound}; "
                            "{batch} sequence(s) ÷ step = {rate:,.1f} tokens/s.", ms=step * ms,
                            bound=i18n.Message(BOUNDS[bound]), batch=batch, rate=batch / step))  # fmt: skip
    return {"tokens_per_s": batch / step, "step_s": step, "memory_s": memory, "compute_s": compute,
            "overhead_s": overhead, "link_s": comm, "cpu_s": cpu, "bound": bound,
            "working": tuple(working)}  # fmt: skip


def prefill_seconds(
    model: Model | str,
    card: str | GPU,
    context: int,
    *,
    weights: str = "fp16",
    batch: int = 1,
    gpus: int = 1,
    engine: str = "llama.cpp",
    interconnect: str | None = None,
) -> float:
    """Time to first token: seconds to process ``batch`` prompts of ``context`` tokens each.

    Compute-bound: 2 FLOPs per active parameter per token plus causal attention, at the card's
    dense Tensor peak × the engine's prefill MFU; never faster than reading the weights once; plus
    the engine's per-step overheads (:func:`prefill_time`). Tensor parallelism adds two
    all-reduces of the prompt's hidden states per layer; a layer split pipelines the prompt's
    micro-batches (:func:`pipeline_speedup`).
    """
    m, g, weights, batch, context, tp, stages, eng, link = _speed_inputs(
        model, card, weights, batch, context, gpus, engine, interconnect
    )
    cost = prefill_cost(m, g, eng, weights=weights, batch=batch, context=context, gpus=tp, link=link, stages=stages)
    return float(prefill_time(cost, engine_factors(eng)))


def serving_tokens_per_s(
    model: Model | str,
    card: str | GPU,
    *,
    prompt: int,
    output: int,
    weights: str = "fp16",
    batch: int = 1,
    gpus: int = 1,
    engine: str = "vllm",
    interconnect: str | None = None,
    kv: str = "fp16",
) -> float:
    """Output tokens/s of a server that keeps ``batch`` requests of ``prompt`` + ``output`` tokens in flight.

    Each wave of ``batch`` requests costs the prefill of their prompts plus ``output`` decode steps
    at the mean context (prompt + output/2): batch × output / (prefill + output × step). Benchmarks
    of serving engines (offline throughput at a fixed concurrency) report this number.
    """
    m, g, weights, batch, _, tp, stages, eng, link = _speed_inputs(model, card, weights, batch, 1, gpus, engine,
                                                                   interconnect)  # fmt: skip
    top = checks.LIMITS["context"]
    prompt, output = checks.whole(prompt, "prompt", high=top), checks.whole(output, "output", high=top)
    kv = checks.choice(kv, "kv", KV_DTYPES)
    factors = engine_factors(eng)
    pre = prefill_cost(m, g, eng, weights=weights, batch=batch, context=prompt, gpus=tp, link=link, stages=stages)
    step = step_cost(m, g, eng, weights=weights, batch=batch, context=prompt + output // 2, gpus=tp, link=link,
                      kv=kv)  # fmt: skip
    return float(batch * output / (prefill_time(pre, factors) + output * step_seconds(step, factors)))


# ---------------------------------------------------------------------------------------------
# Training time, energy and cost
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TrainingTime:
    """Time, energy and cost to train on ``tokens`` tokens (one result type for training runs)."""

    flops: float
    gpu: str
    gpus: int
    mfu: float
    gpu_hours: float
    days: float
    energy_kwh: float
    electricity_cost: float | None
    currency: str | None
    assumptions: tuple[i18n.Message, ...]

    def message(self) -> i18n.Message:
        """The result in one sentence, rendered in the reader's language when shown."""
        cost = (i18n.msg(", electricity {cost:,.0f} {currency}", cost=self.electricity_cost,
                         currency=i18n.Message(self.currency or ""))
                if self.electricity_cost else "")  # fmt: skip
        return i18n.msg("{flops:.3g} FLOPs on {gpus} × {gpu} at {mfu:.0%} MFU: {gpu_hours:,.0f} GPU-hours, "
                        "{days:,.1f} days, {energy:,.0f} kWh{cost}", flops=self.flops, gpus=self.gpus, gpu=self.gpu,
                        mfu=self.mfu, gpu_hours=self.gpu_hours, days=self.days, energy=self.energy_kwh,
                        cost=cost)  # fmt: skip

    def __str__(self) -> str:
        return str(self.message())


def training_flops_per_token(model: Model | str, *, context: int = 2048) -> float:
    """Model FLOPs to train on one token of a ``context``-token sequence, forward and backward.

    6 × N (the non-embedding active parameters: a mixture-of-experts counts only the experts a
    token is routed to) + 12 × layers × heads × head dim × context for attention (PaLM, Chowdhery
    et al. 2022, Appendix B — the convention published MFU figures use: full, not causal,
    attention). Recomputation is not in it: MFU counts model FLOPs only. The time model counts
    the work the GPU really does instead (:func:`training_cost`: causal attention, recomputation).
    """
    m = lookup_model(model)
    return 3 * _flops_per_token(m, checks.whole(context, "context"))


@functools.lru_cache(maxsize=512)  # a pure function of a frozen Model
def _expert_params_active(m: Model) -> int:
    """Routed-expert parameters one token uses (each of its ``experts_per_token`` experts)."""
    return sum(t.size * t.active for t in tensors(m) if t.kind.startswith("expert_"))


TRAINING_METHODS = ("full", "lora", "qlora")
# Bytes AdamW moves per trainable parameter and optimizer step: it reads the fp32 master weight, both
# moments (12 B) and a 16-bit gradient (2 B), and writes the master weight, both moments and the 16-bit
# weight (14 B) (ZeRO paper, Rajbhandari et al. 2020, §3.1, for the 16 B/param of mixed-precision Adam).
ADAM_STEP_BYTES = 28.0
# QLoRA dequantises every frozen 4-bit (NF4) weight to bf16 before each matrix multiply: it reads
# 0.5 B (+ one fp8 block scale per 64 weights, double quantisation) and writes 2 B per weight, in the
# forward pass, again in the backward pass, and again when the forward is recomputed (Dettmers et al.
# 2023, §3; bitsandbytes' dequantize_4bit).
NF4_DEQUANT_BYTES = 0.5 + 1 / 64 + 2.0
# The default global batch when none is given: 4M tokens, Llama 2's (Touvron et al. 2023, §2.2).
DEFAULT_GLOBAL_TOKENS = 4 * 2**20
GPUS_PER_SERVER = 8  # an HGX/DGX board: NVLink inside, one InfiniBand port per GPU between servers


def _network_link() -> str:
    """The link between servers (data/interconnects.csv, kind "network")."""
    return next(name for name, row in _links().items() if row["kind"] == "network")


def _link_bandwidth(link: str) -> float:
    return float(_links()[link]["per_direction_gbs"]) * 1e9


def _group_link(g: GPU, gpus: int) -> str:
    """The link a group of ``gpus`` GPUs of ``g`` talks over: the server's NVLink or PCIe
    (:func:`default_link`) up to :data:`GPUS_PER_SERVER`, an NVSwitch domain as large as its
    ``domain_gpus`` (interconnects.csv: a GB200 NVL72 rack joins 72), else the network."""
    if gpus <= GPUS_PER_SERVER:
        return default_link(g, gpus=gpus)
    for name, row in _links().items():
        domain = row.get("domain_gpus")
        if domain == domain and domain and gpus <= int(domain) and g.name in str(row["used_by"]).split(";"):
            return name
    return _network_link()


def training_cost(
    m: Model, g: GPU, precision: str, context: int, recompute: str, *, method: str = "full", rank: int = 16,
    targets: str | Sequence[str] = "all-linear", tp: int = 1, pp: int = 1, cp: int = 1, gpus: int | None = None,
    batch: int = 1, micro_batches: float = 1.0, interleave: int = 1, zero: int = 0, ep: int = 1,
    tp_link: str | None = None, dp_link: str | None = None,
) -> dict[str, float]:  # fmt: skip
    """What training costs, before engine factors: the work per token and per optimizer step of one replica.

    Per token of a ``context``-token sequence (whole model, all GPUs of a replica together):

    * ``hardware_flops`` / ``expert_flops``: the dense matrix multiplies / a mixture of experts'
      routed ones; 6 FLOPs per trained parameter (2 forward, 4 backward: activation and weight
      gradients), 4 per frozen one (LoRA/QLoRA: no weight gradients), + 2 per parameter again with
      full recomputation (the forward runs twice; Korthikanti et al. 2022, §4);
    * ``attention_flops``: causal attention as FlashAttention computes it: each token attends to
      context/2 earlier ones on average (2 × layers × heads × head dim × context forward), the
      backward pass 2.5 × the forward (it recomputes QKᵀ; Dao 2023, §3.2), and one more forward
      with full or selective recomputation (selective recomputation re-runs the attention core
      only, Korthikanti et al. 2022, §5); run at the 16-bit rate (``peak16``: FP8 recipes keep
      attention in bf16);
    * ``traffic``: layers × hidden, the memory-bound element-wise work per token.

    The parallel layout: ``tp`` × ``pp`` × ``cp`` GPUs hold one replica (``shards``), ``gpus`` /
    shards replicas share each step; a replica runs ``micro_batches`` micro-batches of ``batch``
    sequences per optimizer step (``step_tokens``), through ``pp`` stages with a pipeline bubble:
    ``bubble`` = 1 + (pp − 1) / (interleave × micro_batches), i.e. the GPipe/1F1B bubble share
    (pp − 1) / (m + pp − 1) of the step (Narayanan et al. 2021, §2.2). Communication, in seconds
    at the link's bandwidth: ``tp_comm_s`` per token, Megatron's four all-reduces of the hidden
    state per layer (two forward, two backward; six with full recomputation), ring 2(t−1)/t;
    ``ep_comm_s`` per token, a mixture of experts' all-to-alls over ``ep`` expert-parallel GPUs
    (dispatch and combine of each token's hidden state to its routed experts, forward and backward;
    once more each with full recomputation), (e−1)/e of it leaving the GPU;
    ``dp_comm_s`` per step, the gradients' all-reduce 2(d−1)/d × 2 B per trained parameter of a
    shard (ZeRO-3/FSDP: all-gather twice and reduce-scatter in every micro-batch, 3(d−1)/d) among
    the gpus / pp GPUs of one pipeline stage (the stages are the outermost split),
    over NVLink inside a server (or an NVSwitch domain, interconnects.csv ``domain_gpus``) and
    InfiniBand between servers; ``overlap_share``, the share of
    the step's compute it can hide behind (the last micro-batch's backward; all of it with
    ZeRO-3). ``optimizer_bytes`` (AdamW, per GPU and step) and ``dequant_bytes`` (QLoRA, per
    GPU and step) are read at the card's bandwidth; ``step_layers`` counts the layer launches of
    a step (a fixed overhead each).
    """
    method = checks.choice(method, "method", TRAINING_METHODS)
    shards = tp * pp * cp
    gpus = shards if gpus is None else gpus
    dp = max(gpus // shards, 1)
    forward = _flops_per_token(m, context)
    attended = forward - 2 * (param_count(m, active=True) - m.vocab_size * m.hidden_size)  # full attention, fwd
    dense = (forward - attended) / 2  # non-embedding active parameters
    experts = float(_expert_params_active(m))
    dense -= experts
    passes = 3.0 if method == "full" else 2.0  # forward + backward (activation and weight gradients, or only the first)
    rerun = 1.0 if recompute == "full" else 0.0
    adapter = float(lora_params(m, rank=rank, targets=targets)) if method != "full" else 0.0
    trained = (dense + experts + m.vocab_size * m.hidden_size) if method == "full" else adapter
    causal = attended / 2  # each query attends to half the context on average
    attn_passes = 3.5 + (1.0 if recompute in ("full", "selective") else 0.0)
    peak = peak_flops(g, precision)
    wide = "fp16" if precision == "fp16" or g.bf16_tflops is None else "bf16"
    step_tokens = batch * context * micro_batches
    if dp > 1:
        link = dp_link or _group_link(g, gpus // pp)  # pipeline stages outermost (Megatron's and torchtitan's order)
        grad_bytes = 2.0 * trained / (tp * pp)
        volume = 3 * micro_batches if zero == 3 else 2.0
        dp_comm = volume * (dp - 1) / dp * grad_bytes / _link_bandwidth(link)
    else:
        dp_comm = 0.0
    if tp > 1:
        link = tp_link or _group_link(g, tp)
        per_layer = (4 + 2 * rerun) * m.hidden_size * 2.0 * 2 * (tp - 1) / tp
        tp_comm = m.layers * per_layer / _link_bandwidth(link)
    else:
        tp_comm = 0.0
    if ep > 1 and m.experts:
        link = _group_link(g, ep * tp)
        routed = (4 + 2 * rerun) * m.moe_layers * m.hidden_size * m.experts_per_token * 2.0 * (ep - 1) / ep
        ep_comm = routed / _link_bandwidth(link)
    else:
        ep_comm = 0.0
    optimizer_share = tp * pp * (dp if zero >= 1 else 1)
    dequant = NF4_DEQUANT_BYTES * dense / (tp * pp) * (2 + rerun) * micro_batches if method == "qlora" else 0.0
    return {
        "flops": 3 * forward if method == "full" else 2 * (forward - attended) + 3 * attended + 6 * adapter,
        "hardware_flops": 2 * (passes + rerun) * dense + 2 * (3 + rerun) * adapter,
        "expert_flops": 2 * (passes + rerun) * experts,  # routed experts: grouped GEMMs behind an all-to-all
        "attention_flops": attn_passes * causal,
        "peak": peak,
        "peak16": peak_flops(g, wide),
        "bandwidth": g.bandwidth_gbs * 1e9,
        "traffic": float(m.layers * m.hidden_size),  # per token: activation reads/writes scale with layers × hidden
        "shards": float(shards),
        "pp_cp": float(pp * cp),
        "bubble": 1 + (pp - 1) / (interleave * micro_batches),
        "step_tokens": float(step_tokens),
        "tp_comm_s": tp_comm,
        "ep_comm_s": ep_comm,
        "dp_comm_s": dp_comm,
        "overlap_share": 1.0 if zero == 3 else 2 / (3 * micro_batches),
        "optimizer_bytes": ADAM_STEP_BYTES * trained / optimizer_share,
        "dequant_bytes": dequant,
        "step_layers": micro_batches * m.layers / pp,
    }


def training_token_seconds(cost: Mapping[str, Any], factors: Mapping[str, Any]) -> Any:
    """GPU-seconds to train on one token (:func:`training_cost`'s terms, the engine's fitted factors).

    A token's compute: hardware FLOPs / (peak × ``train_util``) (routed experts slower by
    1 / ``train_moe_eff``: token dispatch and grouped matrix multiplies) + attention FLOPs / (16-bit
    peak × ``train_attn_util``) + traffic × ``train_act_bytes`` / bandwidth (the memory-bound
    element-wise work: norms, activations, softmax; why a high-ridge card and a small model reach
    a lower MFU). A replica's step: its tokens × (compute / shards + tensor- and expert-parallel
    communication / (pp × cp)) × the pipeline bubble; + the data-parallel communication it cannot hide: all of
    what exceeds the compute it overlaps with (the roofline max of the JAX scaling book) and a
    fitted share ``train_comm_exposed`` of the rest; + the optimizer's and QLoRA's dequantisation
    traffic at the card's bandwidth; + ``train_layer_us`` per layer and micro-batch (kernel launches,
    Python). GPU-seconds per token = step × shards / step tokens. Element-wise on numpy arrays.
    """
    matmul = cost["hardware_flops"] + cost["expert_flops"] / factors["train_moe_eff"]
    compute = (
        matmul / (cost["peak"] * factors["train_util"])
        + cost["attention_flops"] / (cost["peak16"] * factors["train_attn_util"])
        + cost["traffic"] * factors["train_act_bytes"] / cost["bandwidth"]
    )
    comm = (cost["tp_comm_s"] + cost["ep_comm_s"]) / cost["pp_cp"]
    step = cost["step_tokens"] * (compute / cost["shards"] + comm) * cost["bubble"]
    window = cost["overlap_share"] * step
    comm = cost["dp_comm_s"]
    exposed = np.maximum(comm - window, 0.0) + factors["train_comm_exposed"] * np.minimum(comm, window)
    fixed = (cost["optimizer_bytes"] + cost["dequant_bytes"]) / cost["bandwidth"]
    fixed = fixed + cost["step_layers"] * factors["train_layer_us"] * 1e-6
    return (step + exposed + fixed) * cost["shards"] / cost["step_tokens"]


def training_factors(eng: Engine, precision: str) -> dict[str, float]:
    util = eng.train_util_fp8 if precision == "fp8" else eng.train_util
    if util is None or eng.train_act_bytes is None:
        from .catalog import engines

        table = engines()
        known = [str(e) for e, v in zip(table["engine"], table["train_util"]) if v == v]
        raise ValueError(
            i18n.msg(
                "engine={engine!r} has no fitted training factors; choose one of: {choices}",
                engine=eng.name,
                choices=", ".join(known),
            )
        )
    return {"train_util": util, "train_act_bytes": eng.train_act_bytes, "train_moe_eff": eng.train_moe_eff,
            "train_attn_util": eng.train_attn_util, "train_comm_exposed": eng.train_comm_exposed,
            "train_layer_us": eng.train_layer_us, "train_goodput": eng.train_goodput or 1.0}  # fmt: skip


@dataclasses.dataclass(frozen=True)
class TrainingLayout:
    """A checked parallel layout of a training job (argument names as :func:`hwguide.training_memory`)."""

    gpus: int
    tp: int
    pp: int
    cp: int
    dp: int
    batch: int  # sequences per micro-batch
    micro_batches: float  # per replica and optimizer step
    interleave: int
    zero: int
    global_batch: float  # sequences per optimizer step, all replicas

    def cost_args(self) -> dict[str, Any]:
        return dict(tp=self.tp, pp=self.pp, cp=self.cp, gpus=self.gpus, batch=self.batch,
                    micro_batches=self.micro_batches, interleave=self.interleave, zero=self.zero)  # fmt: skip


def training_layout(
    *, context: int, gpus: object = 1, tp: object = 1, pp: object = 1, cp: object = 1, batch: object = 1,
    micro_batches: object = None, global_batch: object = None, interleave: object = 1, zero: object = 0,
) -> TrainingLayout:  # fmt: skip
    """Check a layout: ``gpus`` a multiple of tp × pp × cp; ``micro_batches`` per replica and step, or
    ``global_batch`` sequences per step (default: 4M tokens, :data:`DEFAULT_GLOBAL_TOKENS`), not both."""
    gpus, tp, pp, cp = (checks.whole(v, n) for v, n in ((gpus, "gpus"), (tp, "tp"), (pp, "pp"), (cp, "cp")))
    batch, interleave = checks.whole(batch, "batch"), checks.whole(interleave, "interleave")
    zero = checks.choice(zero, "zero", (0, 1, 2, 3))
    if gpus % (tp * pp * cp):
        raise ValueError(i18n.msg("gpus={gpus} is not a multiple of tp × pp × cp = {product}", gpus=gpus,
                                  product=tp * pp * cp))  # fmt: skip
    dp = gpus // (tp * pp * cp)
    if micro_batches is not None and global_batch is not None:
        raise ValueError(i18n.msg("give micro_batches or global_batch, not both"))
    if micro_batches is not None:
        micro = float(checks.whole(micro_batches, "micro_batches"))
    else:
        if global_batch is None:
            sequences = max(DEFAULT_GLOBAL_TOKENS / context, 1.0)
        else:
            sequences = float(checks.whole(global_batch, "global_batch"))
        micro = max(sequences / (dp * batch), 1.0)
    return TrainingLayout(gpus, tp, pp, cp, dp, batch, micro, interleave, zero, micro * dp * batch)


def training_tokens_per_s(
    model: Model | str,
    card: str | GPU,
    *,
    context: int = 2048,
    precision: str = "bf16",
    recompute: str = "none",
    engine: str = "megatron",
    method: str = "full",
    rank: int = 16,
    targets: str | Sequence[str] = "all-linear",
    gpus: int = 1,
    tp: int = 1,
    pp: int = 1,
    cp: int = 1,
    batch: int = 1,
    micro_batches: int | None = None,
    global_batch: int | None = None,
    interleave: int = 1,
    zero: int = 0,
) -> float:
    """Training throughput of one GPU, tokens/s, with the engine's fitted factors (:func:`training_token_seconds`).

    ``precision`` is the Tensor rate the matrix multiplies run at (bf16, fp16 or fp8). ``method``:
    "full" (every weight trained), "lora" or "qlora" (a frozen 16-bit / 4-bit base with adapters of
    ``rank`` on ``targets``, as :func:`hwguide.finetune_memory`). The layout: ``gpus`` GPUs, each
    replica split ``tp`` × ``pp`` × ``cp`` ways (tensor, pipeline, context parallel), ``batch``
    sequences per micro-batch, ``micro_batches`` per replica and optimizer step or ``global_batch``
    sequences per step (default 4M tokens), ``interleave`` virtual pipeline stages, ``zero`` the
    ZeRO stage (3 = FSDP). Per GPU: the whole job's tokens/s ÷ ``gpus``.
    """
    m, g = lookup_model(model), lookup_gpu(card, "card")
    context = checks.whole(context, "context")
    precision = checks.choice(precision, "precision", ("bf16", "fp16", "fp8"))
    recompute = checks.choice(recompute, "recompute", RECOMPUTE)
    method = checks.choice(method, "method", TRAINING_METHODS)
    rank = checks.whole(rank, "rank")
    eng = lookup_engine(engine, "engine")
    layout = training_layout(context=context, gpus=gpus, tp=tp, pp=pp, cp=cp, batch=batch,
                             micro_batches=micro_batches, global_batch=global_batch, interleave=interleave,
                             zero=zero)  # fmt: skip
    cost = training_cost(m, g, precision, context, recompute, method=method, rank=rank, targets=targets,
                         **layout.cost_args())  # fmt: skip
    return float(1 / training_token_seconds(cost, training_factors(eng, precision)))


def training_time(
    model: Model | str | float,
    card: str | GPU,
    *,
    tokens: float,
    gpus: int = 1,
    mfu: float | None = None,
    precision: str = "bf16",
    context: int = 2048,
    recompute: str = "none",
    electricity_price: float | None = None,
    currency: str = "CNY",
    engine: str = "megatron",
    tp: int = 1,
    pp: int = 1,
    cp: int = 1,
    batch: int = 1,
    global_batch: int | None = None,
    interleave: int = 1,
    zero: int = 0,
    method: str = "full",
    rank: int = 16,
    targets: str | Sequence[str] = "all-linear",
) -> TrainingTime:
    """Time to train ``model`` (a catalog model, a Model or a parameter count) on ``tokens`` tokens.

    Model FLOPs per token: :func:`training_flops_per_token` (6N with N the *active* parameters,
    plus attention at ``context`` tokens, PaLM's full-attention convention for MFU); a bare
    parameter count gives 6N. Time per token: the engine's fitted model
    (:func:`training_token_seconds`: causal attention, Tensor work at a fitted utilisation,
    memory-bound element-wise work, recomputation, the pipeline bubble and the tensor- and
    data-parallel communication of the layout — ``gpus`` split ``tp`` × ``pp`` × ``cp`` ways,
    ``batch`` sequences per micro-batch, ``global_batch`` sequences per step, default 4M tokens;
    with more GPUs each one's share of a step shrinks and the communication it cannot hide grows,
    so the GPU-hours grow too; ``method`` lora/qlora trains adapters on a frozen base, as
    :func:`training_tokens_per_s`; a bare parameter count is shaped like the closest dense catalog
    model and trained in full), or, when ``mfu`` is given, model FLOPs / (peak × mfu). Energy = GPU-hours × the card's
    TDP (the GPUs alone: no host, network or cooling). ``electricity_price`` is per kWh, in ``currency``.
    """
    g = lookup_gpu(card, "card")
    precision = checks.choice(precision, "precision", ("bf16", "fp16", "fp8", "fp32"))
    context = checks.whole(context, "context")
    recompute = checks.choice(recompute, "recompute", RECOMPUTE)
    tokens = checks.number(tokens, "tokens", high=1e16, open_low=True, unit="training tokens")
    gpus = checks.whole(gpus, "gpus")
    method = checks.choice(method, "method", TRAINING_METHODS)
    rank = checks.whole(rank, "rank")
    eng = lookup_engine(engine, "engine")
    currency = checks.currency(currency)
    layout = training_layout(context=context, gpus=gpus, tp=tp, pp=pp, cp=cp, batch=batch, global_batch=global_batch,
                             interleave=interleave, zero=zero)  # fmt: skip
    if mfu is not None:
        mfu = checks.fraction(mfu, "mfu")
    if electricity_price is not None:
        electricity_price = checks.number(electricity_price, "electricity_price", high=1e6, unit="per kWh")
    peak = peak_flops(g, precision)
    parts: dict[str, float] = {}
    if isinstance(model, (int, float)) and not isinstance(model, bool):
        n = checks.number(model, "model", high=1e15, open_low=True, unit="parameters")
        label, per_token = i18n.msg("{params:.2f}B parameters", params=n / 1e9), 6 * n
        if mfu is None:  # the fitted model needs an architecture: the closest dense catalog model, scaled to n
            stand_in = closest_model(n)
            cost = training_cost(stand_in, g, precision, context, recompute, **layout.cost_args())
            scale = n / (param_count(stand_in, active=True) - stand_in.vocab_size * stand_in.hidden_size)
            cost = {**cost, "hardware_flops": cost["hardware_flops"] * scale, "expert_flops": 0.0,
                    "dp_comm_s": cost["dp_comm_s"] * scale,
                    "optimizer_bytes": cost["optimizer_bytes"] * scale}  # fmt: skip
            label = i18n.msg(
                "{params:.2f}B parameters (shaped like {model}, the closest dense catalog model)",
                params=n / 1e9,
                model=stand_in.name,
            )
            seconds_per_token = float(training_token_seconds(cost, training_factors(eng, precision)))
            parts = cost
        else:
            seconds_per_token = per_token / (peak * mfu)
    else:
        m = lookup_model(model)
        label = i18n.msg(
            "{model} ({active:.2f}B active parameters)", model=m.name, active=param_count(m, active=True) / 1e9
        )
        cost = training_cost(m, g, precision, context, recompute, method=method, rank=rank, targets=targets,
                             **layout.cost_args())  # fmt: skip
        per_token = cost["flops"]
        if mfu is None:
            seconds_per_token = float(training_token_seconds(cost, training_factors(eng, precision)))
            parts = cost
        else:
            seconds_per_token = per_token / (peak * mfu)
    fitted = mfu is None
    achieved = per_token / (seconds_per_token * peak)
    flops = per_token * tokens
    goodput = training_factors(eng, precision)["train_goodput"] if fitted else 1.0
    gpu_hours = tokens * seconds_per_token / 3600 / goodput  # a whole run: its steps and the time lost between
    energy = gpu_hours * g.tdp_w / 1000 if g.tdp_w else math.nan  # NaN: the vendor publishes no power figure
    cost_money = energy * electricity_price if electricity_price is not None and g.tdp_w else None
    rate = dict(card=g.name, tflops=peak / 1e12, precision=precision, mfu=achieved)
    assumptions = [
        i18n.msg("{model} × {tokens:.3g} tokens × {per_token:.3g} FLOPs per token = {flops:.3g} model FLOPs "
                 "(6N + attention, PaLM Appendix B; N counts the active parameters of a mixture of experts).",
                 model=label, tokens=tokens, per_token=per_token, flops=flops)
        if method == "full"
        else i18n.msg("{model} × {tokens:.3g} tokens × {per_token:.3g} FLOPs per token = {flops:.3g} model FLOPs "
                      "({method}: 4 per frozen parameter, no weight gradients, + 6 per adapter parameter + "
                      "attention, PaLM Appendix B).", model=label, tokens=tokens, per_token=per_token, flops=flops,
                      method=method),
        i18n.msg("{card}: {tflops:,.0f} dense {precision} TFLOPS at {mfu:.0%} MFU ({engine}'s fitted training "
                 "factors, data/engines.csv; recompute={recompute}).", engine=eng.name, recompute=recompute, **rate)
        if fitted
        else i18n.msg("{card}: {tflops:,.0f} dense {precision} TFLOPS at {mfu:.0%} MFU.", **rate),
    ]  # fmt: skip
    if fitted:
        assumptions.append(_layout_message(layout, context, parts, training_factors(eng, precision)))
        assumptions.append(i18n.msg("A whole run spends {goodput:.0%} of its GPU time in training steps ({engine}'s "
                                    "fitted goodput: failures and restarts, checkpoints and evaluation take the rest; "
                                    "Llama 3 reported over 90% on 16,384 GPUs).", goodput=goodput,
                                    engine=eng.name))  # fmt: skip
    assumptions.append(
        i18n.msg("Energy: GPU-hours × {tdp:.0f} W TDP; host, network and cooling (PUE) not included.", tdp=g.tdp_w)
        if g.tdp_w
        else i18n.msg("Energy: not estimated, {card} has no published power figure.", card=g.name)
    )
    return TrainingTime(flops, g.name, gpus, achieved, gpu_hours, gpu_hours / gpus / 24, energy, cost_money,
                        currency if cost_money is not None else None, tuple(assumptions))  # fmt: skip


def training_efficiency(cost: Mapping[str, Any], factors: Mapping[str, Any]) -> float:
    """Share of a step the GPUs spend computing: the single-replica, bubble-free compute time of the
    step's tokens ÷ the whole step (:func:`training_token_seconds`) — the layout's scaling efficiency."""
    alone = {**cost, "tp_comm_s": 0.0, "ep_comm_s": 0.0, "dp_comm_s": 0.0, "bubble": 1.0, "optimizer_bytes": 0.0,
             "dequant_bytes": 0.0, "step_layers": 0.0}  # fmt: skip
    return float(training_token_seconds(alone, factors) / training_token_seconds(cost, factors))


def _layout_message(layout: TrainingLayout, context: int, cost: Mapping[str, Any],
                    factors: Mapping[str, Any]) -> i18n.Message:  # fmt: skip
    return i18n.msg(
        "Layout: {gpus} GPUs = {dp} data-parallel × TP {tp} × PP {pp} × CP {cp}, {batch} × {tokens}-token "
        "sequences per micro-batch, {micro:,.0f} micro-batches per step ({step:,.3g} tokens per step); pipeline "
        "bubble {bubble:.1%}, {efficiency:.0%} of each step spent computing (the rest: communication the "
        "compute cannot hide, the optimizer, fixed overheads).",
        gpus=layout.gpus, dp=layout.dp, tp=layout.tp, pp=layout.pp, cp=layout.cp, batch=layout.batch,
        tokens=context, micro=layout.micro_batches, step=layout.global_batch * context,
        bubble=1 - 1 / float(cost["bubble"]), efficiency=training_efficiency(cost, factors),
    )  # fmt: skip


def break_even_days(
    purchase_price: float,
    *,
    cloud_hourly: float,
    utilization: float = 1.0,
    power_w: float = 0.0,
    electricity_price: float = 0.0,
) -> float:
    """Days of use after which buying a card costs less than renting it.

    purchase / (cloud price × 24 × utilisation − power in kW × 24 × utilisation × electricity
    price) (Dettmers, "Which GPU for deep learning", cloud vs desktop). All prices in one currency;
    ``cloud_hourly`` per GPU-hour, ``electricity_price`` per kWh, ``power_w`` in watts. Returns
    ``math.inf`` when renting is always cheaper.
    """
    purchase_price = checks.number(purchase_price, "purchase_price", high=1e12)
    cloud_hourly = checks.number(cloud_hourly, "cloud_hourly", high=1e6, unit="per hour")
    power_w = checks.number(power_w, "power_w", high=1e7, unit="W")
    electricity_price = checks.number(electricity_price, "electricity_price", high=1e6, unit="per kWh")
    utilization = checks.fraction(utilization, "utilization")
    saving_per_day = 24 * utilization * (cloud_hourly - power_w / 1000 * electricity_price)
    return math.inf if saving_per_day <= 0 else purchase_price / saving_per_day


# ---------------------------------------------------------------------------------------------
# The questions people ask: does it fit, how fast, how long a context, how many users
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Speed:
    """A checked speed answer: whether the workload fits, and only then how fast it runs.

    ``tokens_per_s`` (all sequences together), ``tokens_per_s_per_user`` and
    ``time_to_first_token_s`` are None when the workload does not fit; ``reason`` then says why.
    """

    fits: bool
    per_gpu_gib: float
    card_gib: float
    gpus: int
    tokens_per_s: float | None
    tokens_per_s_per_user: float | None
    time_to_first_token_s: float | None
    reason: i18n.Message | str  # a message when it does not fit, "" when it does

    def message(self) -> i18n.Message:
        """The answer in one sentence, rendered in the reader's language when shown."""
        if not self.fits:
            return i18n.msg("does not fit: {reason}", reason=self.reason)
        return i18n.msg("{total:,.1f} tokens/s in all ({per_user:,.1f} per user), first token after {first:,.2f} s; "
                        "{gib:.1f} of {card_gib:g} GiB per GPU", total=self.tokens_per_s,
                        per_user=self.tokens_per_s_per_user, first=self.time_to_first_token_s, gib=self.per_gpu_gib,
                        card_gib=self.card_gib)  # fmt: skip

    def __str__(self) -> str:
        return str(self.message())


def inference_speed(
    model: Model | str,
    card: str | GPU,
    *,
    weights: str = "fp16",
    kv: str = "fp16",
    batch: int = 1,
    context: int = 4096,
    gpus: int = 1,
    engine: str = "vllm",
    interconnect: str | None = None,
    headroom: float = 0.1,
    cpu_moe: int | str = 0,
    ram_gbs: float | None = None,
) -> Speed:
    """Decode speed and time to first token of ``batch`` users at ``context`` tokens — if the workload fits.

    The memory comes first (:func:`hwguide.inference_memory` against ``gpus`` × ``card`` with
    ``headroom`` to spare); when it does not fit, the answer says so and gives no speed. The time
    to first token is for a prompt that fills the context (the slowest case); with experts in CPU
    memory (``cpu_moe``, ``ram_gbs`` as for :func:`decode_tokens_per_s`) it is the GPU's prefill,
    a lower bound (engines copy or stream the experts to the GPU for long prompts).
    """
    from .memory import inference_memory
    from .result import GIB

    g = lookup_gpu(card, "card")
    mem = inference_memory(model, weights=weights, kv=kv, batch=batch, context=context, engine=engine, gpus=gpus,
                           cpu_moe=cpu_moe)  # fmt: skip
    fits = mem.fits(g, headroom=headroom)
    card_gib = g.memory_bytes / GIB  # on a unified-memory machine, the share its GPU may use
    base = dict(per_gpu_gib=mem.per_gpu_bytes / GIB, card_gib=card_gib, gpus=mem.gpus)
    if not fits:
        usable = card_gib * (1 - headroom)
        reason = i18n.msg("needs {gib:.1f} GiB per GPU on {count} × {card}, which holds {usable:.1f} of its "
                          "{card_gib:g} GiB with {headroom:.0%} kept free", gib=mem.per_gpu_bytes / GIB,
                          count=mem.gpus, card=g.name, usable=usable, card_gib=card_gib, headroom=headroom)  # fmt: skip
        return Speed(False, **base, tokens_per_s=None, tokens_per_s_per_user=None, time_to_first_token_s=None,
                     reason=reason)  # fmt: skip
    kw = dict(weights=weights, gpus=gpus, engine=engine, interconnect=interconnect)
    total = decode_tokens_per_s(model, g, batch=batch, context=context, kv=kv, cpu_moe=cpu_moe, ram_gbs=ram_gbs, **kw)
    first = prefill_seconds(model, g, context, batch=1, **kw)
    return Speed(True, **base, tokens_per_s=total, tokens_per_s_per_user=total / batch,
                 time_to_first_token_s=first, reason="")  # fmt: skip
