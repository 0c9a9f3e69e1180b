"""Figures for the course (matplotlib; every axis labelled with its unit)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

__all__ = ["memory_vs_bandwidth"]

SEGMENT_COLORS = {"consumer": "tab:green", "workstation": "tab:orange", "datacenter": "tab:blue"}


def memory_vs_bandwidth(table: pd.DataFrame | None = None, label: bool = True) -> Figure:
    """Scatter of memory size (GiB) against memory bandwidth (GB/s), one point per GPU, by segment.

    Both axes are logarithmic. ``table`` defaults to :func:`hwguide.gpus`; pass a filtered copy
    to show fewer cards.
    """
    from .catalog import gpus

    table = gpus() if table is None else table
    fig = Figure(figsize=(10, 6.5))
    ax = fig.subplots()
    for segment, color in SEGMENT_COLORS.items():
        part = table[table["segment"] == segment]
        ax.scatter(part["memory_gib"], part["bandwidth_gbs"], s=36, color=color, label=segment)
    if label:  # one label per point: cards with identical figures share it
        groups = table.groupby(["memory_gib", "bandwidth_gbs"], sort=True)["name"]
        for (memory, bandwidth), names in groups:
            ax.annotate(
                " / ".join(names),
                (memory, bandwidth),
                fontsize=6.5,
                xytext=(4, -2),
                textcoords="offset points",
            )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks([8, 12, 16, 24, 32, 48, 64, 96, 141, 192])
    ax.set_yticks([200, 300, 500, 1000, 2000, 3000, 5000, 8000])
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(ScalarFormatter())
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("GPU memory (GiB, log scale)")
    ax.set_ylabel("Memory bandwidth (GB/s, log scale)")
    ax.set_title("How much a card holds vs how fast it can read it")
    ax.legend(title="segment", loc="lower right")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    return fig
