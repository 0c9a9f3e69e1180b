"""The one result type for "how much memory": :class:`Memory`."""

from __future__ import annotations

import dataclasses
import html
import unicodedata
from collections.abc import Mapping

import pandas as pd

from . import checks, i18n
from .catalog import GPU, lookup_gpu

__all__ = ["GIB", "Memory"]

GIB = 2**30  # bytes in a GiB; a card sold as "80 GB" holds 80 GiB


@dataclasses.dataclass(frozen=True)
class Memory:
    """GPU memory a workload needs, part by part, with the assumptions behind each part.

    ``per_gpu`` maps each component to the bytes **one GPU** holds (the most loaded one when the
    work is split); ``parts`` maps each component to the bytes of the **whole job**, all GPUs
    together. With one GPU they are the same. ``offloaded`` maps what was moved to CPU memory
    (host RAM) to its bytes. ``assumptions`` and ``warnings`` are messages (:class:`hwguide.i18n.Message`),
    each with its source, rendered in the reader's language when shown. Component names (``weights``,
    ``kv_cache``) and ``kind`` are codes; their words are the catalog's labels (contexts ``"component"``
    and ``"memory_kind"``).
    """

    kind: str  # "inference", "finetune", "training" or "image generation"
    per_gpu: Mapping[str, int]
    parts: Mapping[str, int]
    gpus: int = 1
    assumptions: tuple[i18n.Message, ...] = ()
    offloaded: Mapping[str, int] = dataclasses.field(default_factory=dict)
    warnings: tuple[i18n.Message, ...] = ()

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
                i18n.msg(
                    "count={count} differs from the gpus={gpus} this memory was computed for; "
                    "compute it again with gpus={count}",
                    count=count,
                    gpus=self.gpus,
                )
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
        lang = i18n.language()
        kind = i18n.label(self.kind, lang, context="memory_kind")
        head = i18n.text("{kind} memory: {gib:.2f} GiB per GPU", lang, kind=kind, gib=self.per_gpu_gib)
        if self.gpus > 1:
            head += i18n.text(" × {gpus} GPUs ({total:.2f} GiB in total)", lang, gpus=self.gpus, total=self.total_gib)
        lines = [head]
        for name, size in self.per_gpu.items():
            lines.append(f"  {_pad(i18n.label(name, lang, context='component'), 22)} {size / GIB:9.3f} GiB")
        if self.offloaded:
            lines.append(i18n.text("  offloaded to CPU memory: {gib:.2f} GiB", lang, gib=self.offloaded_gib))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        lang = i18n.language()
        total = max(self.per_gpu_bytes, 1)
        rows = "".join(
            f"<tr><td>{html.escape(i18n.label(n, lang, context='component'))}</td>"
            f"<td style='text-align:right'>{b / GIB:,.2f}</td>"
            f"<td style='text-align:right'>{100 * b / total:.0f}%</td></tr>"
            for n, b in self.per_gpu.items()
        )
        split = (
            i18n.text(" × {gpus} GPUs = {total:,.2f} GiB in total", lang, gpus=self.gpus, total=self.total_gib)
            if self.gpus > 1
            else ""
        )
        notes = "".join(f"<li>{html.escape(str(i18n.render(a, lang)))}</li>" for a in self.warnings + self.assumptions)
        extra = (
            "<p>" + i18n.text("Offloaded to CPU memory: {gib:,.2f} GiB", lang, gib=self.offloaded_gib) + "</p>"
            if self.offloaded
            else ""
        )
        kind = i18n.label(self.kind, lang, context="memory_kind").capitalize()
        head = i18n.text("{kind} memory: {gib:,.2f} GiB per GPU", lang, kind=html.escape(kind), gib=self.per_gpu_gib)
        gib_note = i18n.text("(GiB = 2<sup>30</sup> bytes; a card sold as “80 GB” holds 80 GiB)", lang)
        return (
            f"<div><b>{head}{split}</b> {gib_note}"
            f"<table><tr><th>{i18n.text('component', lang)}</th><th>{i18n.text('GiB per GPU', lang)}</th>"
            f"<th>{i18n.text('share', lang)}</th></tr>{rows}</table>"
            f"{extra}<details><summary>{i18n.text('Assumptions', lang)}</summary><ul>{notes}</ul></details></div>"
        )


def _pad(words: str, width: int) -> str:
    """``words`` padded with spaces to ``width`` columns, a Chinese character counting two (as a terminal shows it)."""
    shown = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in words)
    return words + " " * max(0, width - shown)
