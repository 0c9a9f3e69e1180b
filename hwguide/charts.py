"""Figures for the course (matplotlib; every axis labelled with its unit).

Titles, axes and legends are in the language set by ``hg.setup(lang=...)``; a title or label passed
in (a workload mark, a bar's name) is translated too when the message catalog has it, so a notebook's
code stays the same in both languages."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from . import checks
from .i18n import N_, text

# Labels the course's notebooks pass to these charts, marked so the catalog keeps their Chinese: the
# roofline's workload marks and the fine-tuning chart's methods (rendered by text() when drawn).
PASSED_LABELS = (
    N_("decode, 1 user"),
    N_("decode, 32 users"),
    N_("prefill, 2,048 tokens"),
    N_("full"),
    N_("LoRA (bf16 base)"),
    N_("QLoRA (NF4 base)"),
    N_("Fine-tuning Llama-3.1-8B (gradient checkpointing on), GiB per GPU"),
    N_("Inference score, Llama-3.1-8B fp16 (A100 SXM4 80GB = 100)"),
    N_("Training score, Qwen2.5-1.5B bf16 (A100 SXM4 80GB = 100)"),
    N_("Inference score per 1,000 CNY (cards it fits on)"),
)
# The parts of a hwguide.Memory result, as the memory chart's legend names them.
MEMORY_PARTS = {
    "weights": N_("weights"),
    "kv_cache": N_("kv cache"),
    "activations": N_("activations"),
    "cuda_context": N_("cuda context"),
    "cuda_graphs": N_("cuda graphs"),
    "allocator_reserve": N_("allocator reserve"),
    "workspace": N_("library memory"),
    "kv_copy": N_("kv cache copy"),
    "state": N_("linear-attention state"),
    "gradients": N_("gradients"),
    "master_weights": N_("master weights"),
    "optimizer_states": N_("optimizer states"),
    "logits_and_loss": N_("logits and loss"),
}
# Column names a ranking chart may plot, as its axis names them.
RANKED = {
    "score": N_("score"),
    "score_per_1000": N_("score per 1000"),
    "training_per_1000": N_("training per 1000"),
    "training_score": N_("training score"),
    "inference_score": N_("inference score"),
}

__all__ = ["decode_vs_batch", "memory_breakdown", "memory_vs_bandwidth", "ranking", "roofline"]

SEGMENT_COLORS = {"consumer": "tab:green", "workstation": "tab:orange", "datacenter": "tab:blue"}


ADJUST_ITERATIONS = 60


# The cards the course discusses, labelled on the catalog chart; with all 95 named the labels
# cannot all be kept apart (label="all" names every point anyway).
LABELLED = ("RTX 3060 12GB", "RTX 4060 Ti 16GB", "RTX 2080 Ti 22GB", "RTX 3090", "RTX 4090", "RTX 5090", "T4", "A10",
            "L20", "L40S", "RTX 6000 Ada", "RTX PRO 6000 Blackwell", "A100 SXM4 80GB", "H100 SXM", "H20", "H200 SXM",
            "B200", "MI300X", "Apple M3 Ultra 512GB", "DGX Spark", "Ryzen AI Max+ 395 128GB",
            "Ascend 910B")  # fmt: skip


def memory_vs_bandwidth(table: pd.DataFrame | None = None, *, label: bool | str | Sequence[str] = True) -> Figure:
    """Scatter of memory size (GiB) against memory bandwidth (GB/s), one point per GPU, by segment.

    Both axes are logarithmic. ``table`` defaults to :func:`hwguide.gpus`; pass a filtered copy
    to show fewer cards. ``label``: True names the cards the course discusses (:data:`LABELLED`),
    "all" every point, a list of names those cards, False none; adjustText keeps the labels apart.
    """
    from .catalog import gpus

    table = gpus() if table is None else table
    fig = Figure(figsize=(11, 7.5))
    ax = fig.subplots()
    for segment, color in SEGMENT_COLORS.items():
        part = table[table["segment"] == segment]
        ax.scatter(part["memory_gib"], part["bandwidth_gbs"], s=36, color=color, label=text(segment))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    if label is not False:  # one label per point: cards with identical figures share it
        from adjustText import adjust_text

        wanted = None if label == "all" else set(LABELLED if label is True else checks.names(label, "label"))
        shown = table if wanted is None else table[table["name"].isin(wanted)]
        groups = shown.groupby(["memory_gib", "bandwidth_gbs"], sort=True)["name"]
        texts = [ax.text(memory, bandwidth, " / ".join(names), fontsize=7) for (memory, bandwidth), names in groups]
        # a fixed number of iterations, not adjustText's default time limit: the same figure on every machine
        adjust_text(texts, ax=ax, expand=(1.15, 1.4), iter_lim=ADJUST_ITERATIONS,
                    arrowprops=dict(arrowstyle="-", color="0.6", lw=0.5))  # fmt: skip
    ax.set_xticks([8, 12, 16, 24, 32, 48, 64, 96, 141, 192, 288, 512])
    ax.set_yticks([200, 300, 500, 1000, 2000, 3000, 5000, 8000])
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(text("GPU memory (GiB, log scale)"))
    ax.set_ylabel(text("Memory bandwidth (GB/s, log scale)"))
    ax.set_title(text("How much a card holds vs how fast it can read it"))
    ax.legend(title=text("segment"), loc="upper left")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig


def roofline(cards: list[str], *, precision: str = "fp16", intensities: dict[str, float] | None = None) -> Figure:
    """Roofline of each card (attainable TFLOPS against FLOPs per byte, log-log) with workload marks.

    ``intensities`` maps a label to an arithmetic intensity (FLOPs/byte), drawn as vertical lines;
    :func:`hwguide.arithmetic_intensity` computes them.
    """
    import numpy as np

    from .speed import roofline as card_roofline

    fig = Figure(figsize=(8.5, 5.2))
    ax = fig.subplots()
    x = np.logspace(-1, 4, 200)
    for name in cards:
        r = card_roofline(name, precision)
        y = np.minimum(r["peak_tflops"], x * r["bandwidth_gbs"] / 1000)
        ax.plot(x, y, label=text("{name} (ridge {ridge} FLOP/B)", name=name, ridge=f"{r['ridge_flops_per_byte']:.0f}"))
    for label, value in (intensities or {}).items():
        ax.axvline(value, color="grey", linestyle="--", linewidth=1)
        ax.annotate(text(label), (value, 1.0), rotation=90, fontsize=7, xytext=(3, 5), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(text("Arithmetic intensity (FLOPs per byte read, log scale)"))
    ax.set_ylabel(text("Attainable {precision} TFLOPS (dense, log scale)", precision=precision))
    ax.set_title(text("Roofline: below the ridge the memory bandwidth sets the speed"))
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def memory_breakdown(results: dict[str, object], *, title: str | None = None) -> Figure:
    """Stacked bars of :class:`hwguide.Memory` results, one bar per label, in GiB per GPU."""
    title = text("GPU memory per GPU, part by part") if title is None else text(title)
    fig = Figure(figsize=(8.5, 4.8))
    ax = fig.subplots()
    labels = [text(str(label)) for label in results]
    parts: list[str] = []
    for mem in results.values():
        parts += [p for p in mem.per_gpu if p not in parts]  # type: ignore[attr-defined]
    bottom = [0.0] * len(labels)
    for part in parts:
        values = [mem.per_gpu.get(part, 0) / 2**30 for mem in results.values()]  # type: ignore[attr-defined]
        if any(values):
            ax.bar(labels, values, bottom=bottom, label=text(MEMORY_PARTS.get(part, part.replace("_", " "))))
            bottom = [b + v for b, v in zip(bottom, values)]
    for i, total in enumerate(bottom):
        ax.annotate(f"{total:.1f}", (i, total), ha="center", xytext=(0, 3), textcoords="offset points", fontsize=8)
    ax.set_ylabel(text("GiB per GPU"))
    ax.set_title(title)
    ax.legend(fontsize=8)
    ax.tick_params(axis="x", labelsize=8, labelrotation=15)
    fig.tight_layout()
    return fig


def ranking(table: pd.DataFrame, *, column: str = "score", top: int = 25, title: str = "") -> Figure:
    """Horizontal bars of ``column`` for the first ``top`` rows of a ranking (rows without a value skipped)."""
    data = table.dropna(subset=[column]).head(top).iloc[::-1]
    fig = Figure(figsize=(8.5, max(3.0, 0.24 * len(data) + 1)))
    ax = fig.subplots()
    colors = [SEGMENT_COLORS.get(_segment(n), "grey") for n in data["gpu"]]
    ax.barh(data["gpu"], data[column], color=colors)
    ax.set_xlabel(text(RANKED.get(column, column.replace("_", " "))))
    ax.set_title(text(title or RANKED.get(column, column.replace("_", " "))))
    ax.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    return fig


def _segment(name: str) -> str:
    from .catalog import gpu

    return gpu(name).segment


def decode_vs_batch(
    model: str,
    cards: list[str],
    *,
    weights: str = "fp16",
    context: int = 2048,
    batches: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64, 128),
    engine: str = "vllm",
) -> Figure:
    """Aggregate decode tokens/s against batch size for several cards (log-log)."""
    from .speed import decode_tokens_per_s

    fig = Figure(figsize=(8.5, 4.8))
    ax = fig.subplots()
    for name in cards:
        speeds = [decode_tokens_per_s(model, name, weights=weights, batch=b, context=context, engine=engine)
                  for b in batches]  # fmt: skip
        ax.plot(batches, speeds, marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel(text("Concurrent sequences (batch, log scale)"))
    ax.set_ylabel(text("Aggregate decode tokens/s (log scale)"))
    ax.set_title(
        text(
            "{model} ({weights}, {tokens}-token context): batching turns bandwidth into throughput",
            model=model,
            weights=weights,
            tokens=f"{context:,}",
        )
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
