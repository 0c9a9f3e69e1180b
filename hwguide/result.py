"""The one result type for "how much memory": :class:`Memory`."""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping

import pandas as pd

from . import checks
from .catalog import GPU, lookup_gpu

__all__ = ["GIB", "Memory"]

GIB = 2**30  # bytes in a GiB; a card sold as "80 GB" holds 80 GiB


@dataclasses.dataclass(frozen=True)
class Memory:
    """GPU memory a workload needs, part by part, with the assumptions behind each part.

    ``per_gpu`` maps each component to the bytes **one GPU** holds (the most loaded one when the
    work is split); ``parts`` maps each component to the bytes of the **whole job**, all GPUs
    together. With one GPU they are the same. ``offloaded`` maps what was moved to CPU memory
    (host RAM) to its bytes. ``assumptions`` are plain sentences, each with its source.
    """

    kind: str  # "inference", "finetune" or "training"
    per_gpu: Mapping[str, int]
    parts: Mapping[str, int]
    gpus: int = 1
    assumptions: tuple[str, ...] = ()
    offloaded: Mapping[str, int] = dataclasses.field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def total_bytes(self) -> int:
        """Bytes of the whole job, all GPUs together."""
        return int(sum(self.parts.values()))

    @property
    def total_gib(self) -> float:
        """The whole job in GiB (2**30 bytes)."""
        return self.total_bytes / GIB

    @property
    def per_gpu_bytes(self) -> int:
        """Bytes one GPU must hold: the number to compare with a card's memory."""
        return int(sum(self.per_gpu.values()))

    @property
    def per_gpu_gib(self) -> float:
        """Per-GPU need in GiB."""
        return self.per_gpu_bytes / GIB

    @property
    def offloaded_gib(self) -> float:
        """CPU memory (GiB) taken by what was offloaded."""
        return sum(self.offloaded.values()) / GIB

    def fits(self, card: str | GPU, *, count: int | None = None, headroom: float = 0.1) -> bool:
        """Whether each GPU of type ``card`` holds its share with ``headroom`` (a fraction) to spare.

        ``count`` defaults to the number of GPUs this result was computed for; another count
        needs the workload recomputed (splitting is not simple division), so it is refused.
        """
        card = lookup_gpu(card, "card")
        if count is not None and checks.whole(count, "count") != self.gpus:
            raise ValueError(
                f"count={count} differs from the gpus={self.gpus} this memory was computed for; "
                f"compute it again with gpus={count}"
            )
        headroom = checks.fraction(headroom, "headroom", zero_ok=True, one_ok=False)
        return self.per_gpu_bytes <= card.memory_bytes * (1 - headroom)

    def to_frame(self) -> pd.DataFrame:
        """One row per component: bytes and GiB per GPU, and for the whole job."""
        rows = [
            {
                "component": name,
                "per_gpu_gib": self.per_gpu[name] / GIB,
                "total_gib": self.parts[name] / GIB,
                "per_gpu_bytes": int(self.per_gpu[name]),
                "total_bytes": int(self.parts[name]),
            }
            for name in self.parts
        ]
        rows.append(
            {
                "component": "total",
                "per_gpu_gib": self.per_gpu_gib,
                "total_gib": self.total_gib,
                "per_gpu_bytes": self.per_gpu_bytes,
                "total_bytes": self.total_bytes,
            }
        )
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        head = f"{self.kind} memory: {self.per_gpu_gib:.2f} GiB per GPU"
        if self.gpus > 1:
            head += f" × {self.gpus} GPUs ({self.total_gib:.2f} GiB in total)"
        lines = [head]
        lines += [f"  {n:<22} {b / GIB:9.3f} GiB" for n, b in self.per_gpu.items()]
        if self.offloaded:
            lines.append(f"  offloaded to CPU memory: {self.offloaded_gib:.2f} GiB")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        total = max(self.per_gpu_bytes, 1)
        rows = "".join(
            f"<tr><td>{html.escape(n)}</td><td style='text-align:right'>{b / GIB:,.2f}</td>"
            f"<td style='text-align:right'>{100 * b / total:.0f}%</td></tr>"
            for n, b in self.per_gpu.items()
        )
        split = f" × {self.gpus} GPUs = {self.total_gib:,.2f} GiB in total" if self.gpus > 1 else ""
        notes = "".join(f"<li>{html.escape(a)}</li>" for a in self.warnings + self.assumptions)
        extra = f"<p>Offloaded to CPU memory: {self.offloaded_gib:,.2f} GiB</p>" if self.offloaded else ""
        return (
            f"<div><b>{html.escape(self.kind.capitalize())} memory: {self.per_gpu_gib:,.2f} GiB per GPU"
            f"{split}</b> (GiB = 2<sup>30</sup> bytes; a card sold as “80 GB” holds 80 GiB)"
            f"<table><tr><th>component</th><th>GiB per GPU</th><th>share</th></tr>{rows}</table>"
            f"{extra}<details><summary>Assumptions</summary><ul>{notes}</ul></details></div>"
        )
