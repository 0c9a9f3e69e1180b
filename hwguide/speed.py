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
from collections.abc import Sequence

import pandas as pd

from . import checks
from .architecture import Model, param_count
from .catalog import GPU, Engine, interconnects, lookup_engine, lookup_gpu, lookup_model
from .memory import RECOMPUTE, check_weights, is_gguf, kv_cache_bytes, tensor_bytes, weights_bytes

__all__ = [
    "COMPUTE_COLUMN",
    "TrainingTime",
    "allreduce_seconds",
    "arithmetic_intensity",
    "break_even_days",
    "decode_tokens_per_s",
    "default_link",
    "peak_flops",
    "prefill_seconds",
    "roofline",
    "roofline_table",
    "training_time",
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
        raise ValueError(
            f"card={g.name!r} has no {precision} Tensor rate in the catalog (unsupported, or not confirmed "
            f"by a source: see data/README.md); choose another precision or card"
        )
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


def _streamed_bytes(m: Model, weights: str, batch: int) -> float:
    """Weight bytes one decode step reads: active weights without the embedding table (a token
    reads one row of it), MoE layers counting the experts the batch routes to."""
    embedding = sum(size for t, size, _ in tensor_bytes(m, weights) if t.kind in ("embedding", "position"))
    return _expert_weights_read(m, weights, batch) - embedding


def _flops_per_token(m: Model, context: int) -> float:
    """Forward FLOPs for one token attending to ``context`` earlier tokens.

    2 per active parameter (Kaplan et al. 2020, §2.1, excluding embeddings) plus attention:
    2 × 2 × layers × context × (heads × head_dim) for QKᵀ and AV.
    """
    active = param_count(m, active=True) - m.vocab_size * m.hidden_size  # the lookup does no math
    window = min(context, m.sliding_window) if m.sliding_window else context
    windowed = m.sliding_window_layers if m.sliding_window else 0
    attended = (m.layers - windowed) * context + windowed * window
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
    return 2 * (gpus - 1) / gpus * nbytes / bandwidth + eng.allreduce_latency_us * 1e-6


def _interconnect(interconnect: object, card: GPU, gpus: int) -> str:
    if interconnect is None:
        return default_link(card, gpus=gpus)
    return checks.choice(interconnect, "interconnect", list(_links()))


# ---------------------------------------------------------------------------------------------
# Decode and prefill
# ---------------------------------------------------------------------------------------------


def _expert_weights_read(m: Model, weights: str, batch: int) -> float:
    """Bytes of weights one decode step reads: MoE layers read the experts the batch routes to.

    With k of E experts per token chosen independently, a batch of b tokens touches
    E × (1 − (1 − k/E)^b) distinct experts per layer on average.
    """
    active = weights_bytes(m, weights, active=True)
    if not m.experts or m.experts == m.experts_per_token:
        return active
    total = weights_bytes(m, weights)
    per_expert_set = (total - active) / (m.experts - m.experts_per_token)  # bytes of one expert, all layers
    touched = m.experts * (1 - (1 - m.experts_per_token / m.experts) ** batch)
    return active + per_expert_set * (touched - m.experts_per_token)


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
) -> float:
    """Aggregate decode speed of ``batch`` sequences, in tokens/s (per user: divide by ``batch``).

    One step reads the active weights (MoE: the experts the batch routes to) and every sequence's
    KV cache at ``context`` tokens, and computes 2 FLOPs per active parameter per sequence plus
    attention; it takes the longer of the memory and compute times, each derated by the engine's
    efficiency (engines.csv: decode_bw_efficiency, decode_mfu), plus a fixed per-step overhead.
    With ``gpus`` > 1 tensor parallelism splits the work and adds two all-reduces per layer
    over ``interconnect`` (default: :func:`default_link`).
    """
    m, g = lookup_model(model), lookup_gpu(card, "card")
    batch, context, gpus = checks.whole(batch, "batch"), checks.whole(context, "context"), checks.whole(gpus, "gpus")
    weights = check_weights(weights)
    eng = lookup_engine(engine, "engine")
    memory_bytes = (_streamed_bytes(m, weights, batch) + kv_cache_bytes(m, context, batch=batch, kv=kv)) / gpus
    flops = batch * _flops_per_token(m, context) / gpus
    t_memory = memory_bytes / (g.bandwidth_gbs * 1e9 * eng.decode_bw_efficiency)
    t_compute = flops / (peak_flops(g, _compute_precision(weights, eng, g)) * eng.decode_mfu)
    step = max(t_memory, t_compute) + eng.decode_overhead_us * 1e-6
    if gpus > 1:
        link = _interconnect(interconnect, g, gpus)
        step += 2 * m.layers * allreduce_seconds(batch * m.hidden_size * 2, gpus=gpus, link=link, engine=eng.name)
    return batch / step


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
    dense Tensor peak × the engine's prefill MFU (engines.csv: prefill_mfu); never faster than
    reading the weights once. Tensor parallelism adds two all-reduces of the prompt's hidden
    states per layer.
    """
    m, g = lookup_model(model), lookup_gpu(card, "card")
    tokens = checks.whole(context, "context")
    batch, gpus = checks.whole(batch, "batch"), checks.whole(gpus, "gpus")
    weights = check_weights(weights)
    eng = lookup_engine(engine, "engine")
    flops = batch * tokens * _flops_per_token(m, tokens // 2) / gpus
    t_compute = flops / (peak_flops(g, _compute_precision(weights, eng, g)) * eng.prefill_mfu)
    t_memory = _streamed_bytes(m, weights, 1) / gpus / (g.bandwidth_gbs * 1e9 * eng.decode_bw_efficiency)
    seconds = max(t_compute, t_memory)
    if gpus > 1:
        link = _interconnect(interconnect, g, gpus)
        hidden = batch * tokens * m.hidden_size * 2
        seconds += 2 * m.layers * allreduce_seconds(hidden, gpus=gpus, link=link, engine=eng.name)
    return seconds


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
    assumptions: tuple[str, ...]

    def __str__(self) -> str:
        cost = f", electricity {self.electricity_cost:,.0f} {self.currency}" if self.electricity_cost else ""
        return (
            f"{self.flops:.3g} FLOPs on {self.gpus} × {self.gpu} at {self.mfu:.0%} MFU: "
            f"{self.gpu_hours:,.0f} GPU-hours, {self.days:,.1f} days, {self.energy_kwh:,.0f} kWh{cost}"
        )


def training_time(
    model: Model | str | float,
    card: str | GPU,
    *,
    tokens: float,
    gpus: int = 1,
    mfu: float | None = None,
    precision: str = "bf16",
    recompute: str = "none",
    electricity_price: float | None = None,
    currency: str = "CNY",
    engine: str = "transformers",
) -> TrainingTime:
    """Time to train ``model`` (a catalog model, a Model or a parameter count) on ``tokens`` tokens.

    FLOPs = 6 × N × D (8 × N × D with ``recompute="full"``: the forward pass runs twice) (Kaplan
    et al. 2020; Korthikanti et al. 2022). Time = FLOPs / (``gpus`` × dense peak × MFU). Energy =
    GPU-hours × the card's TDP (the GPUs alone: no host, network or cooling). ``mfu`` defaults to
    the engine's training_mfu in engines.csv, fitted to published pre-training GPU-hours.
    ``electricity_price`` is per kWh, in ``currency``.
    """
    if isinstance(model, (int, float)) and not isinstance(model, bool):
        n = checks.number(model, "model", high=1e15, open_low=True, unit="parameters")
        label = f"{n / 1e9:.2f}B parameters"
    else:
        m = lookup_model(model)
        n = float(param_count(m))
        label = f"{m.name} ({n / 1e9:.2f}B parameters)"
    tokens = checks.number(tokens, "tokens", high=1e16, open_low=True, unit="training tokens")
    g = lookup_gpu(card, "card")
    gpus = checks.whole(gpus, "gpus")
    recompute = checks.choice(recompute, "recompute", RECOMPUTE)
    eng = lookup_engine(engine, "engine")
    currency = checks.currency(currency)
    fitted = mfu is None
    mfu = (eng.training_mfu or 0.4) if mfu is None else checks.fraction(mfu, "mfu")
    if electricity_price is not None:
        electricity_price = checks.number(electricity_price, "electricity_price", high=1e6, unit="per kWh")
    factor = 8 if recompute == "full" else 6
    flops = factor * n * tokens
    peak = peak_flops(g, precision)
    seconds = flops / (gpus * peak * mfu)
    gpu_hours = seconds * gpus / 3600
    energy = gpu_hours * g.tdp_w / 1000
    cost = energy * electricity_price if electricity_price is not None else None
    assumptions = (
        f"{label} × {tokens:.3g} tokens × {factor} FLOPs = {flops:.3g} FLOPs "
        "(Kaplan et al. 2020, C ≈ 6ND; 8ND with full activation recomputation; selective recomputation "
        "re-runs only the attention scores, whose FLOPs 6ND leaves out).",
        f"{g.name}: {peak / 1e12:,.0f} dense {precision} TFLOPS at {mfu:.0%} MFU"
        + (" (engines.csv training_mfu, fitted to published pre-training GPU-hours)." if fitted else "."),
        f"Energy: GPU-hours × {g.tdp_w:.0f} W TDP; host, network and cooling (PUE) not included.",
    )
    return TrainingTime(flops, g.name, gpus, mfu, gpu_hours, seconds / 86400, energy, cost,
                        currency if cost is not None else None, assumptions)  # fmt: skip


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
