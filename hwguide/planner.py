"""The planner: from a need and a budget to ranked builds (GPU × count + platform), with reasons.

:func:`recommend` tries every allowed card at every allowed count against the need (inference,
fine-tuning, pre-training, any combination), using the memory and speed models, and returns a
:class:`Plan`: the builds that meet the need, ranked by price, and the builds that fail, each with
its status (a code of :data:`STATUSES`) and its reasons, messages shown in the reader's language.
:func:`build_system` completes a build with the platform. :func:`evaluate_scenario` checks the
source material's own builds.

Platform rules (stated here and in the notebook; sources where they exist):

* platform class by GPU count: up to 2 cards on a consumer desktop, up to 4 on a workstation, more
  on a server, as the source material's builds do (data/platforms.csv); server modules (SXM, OAM,
  Huawei's Atlas modules: ``form_factor``) need a server (a baseboard such as NVIDIA's HGX);
* system RAM: at least the total GPU memory, rounded up to 64/128/256/512/1024 GB (the kit's
  rule: weights are staged in host memory when loading and offloading), never below the
  platform's RAM in the source's builds;
* disk: data scale (GB → 2 TB, TB → 4 TB, 10TB → 16 TB) plus checkpoints; the kit's rule;
* power: GPU TDPs + the platform's host draw (``host_w`` in data/platforms.csv: 100 W for CPU and board
  on a desktop or workstation, as in Dettmers' worked example; 4,600 W on a server, the NVIDIA DGX H100's
  10.2 kW maximum system power less its 8 × 700 W GPUs), power supply = 1.25 × that, rounded up to
  50 W (a margin for load spikes; the kit's rule).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import html
import math
import re
import types
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from . import checks, i18n
from .architecture import Model, param_count
from .catalog import (
    GPU,
    closest_model,
    export_status,
    gpus,
    load_table,
    lookup_engine,
    lookup_gpu,
    lookup_model,
    platform,
    ram_bandwidth_gbs,
    ram_price_per_gb,
    scenarios,
    support_of,
)
from .catalog import cpu as catalog_cpu
from .catalog import prices as price_table
from .cost import HOURS_PER_YEAR
from .fit import SPEED_KINDS
from .i18n import Message
from .image import image_memory, image_model, image_seconds
from .memory import check_weights, finetune_memory, inference_memory, is_gguf, training_memory
from .speed import _links, decode_tokens_per_s, default_link, training_time
from .value import _CONDITION_KINDS, _is_module, _months_before, price_rows, priced

__all__ = ["Plan", "build_system", "evaluate_scenario", "host_link", "recommend"]

RAM_SIZES = (64, 128, 256, 512, 1024, 2048, 4096)
DISK_TB = {"GB": 2, "TB": 4, "10TB": 16}
# What became of a build: "ok" (it meets the need), else the first reason it fails. Codes that code compares;
# their words are in the catalog (msgctxt "status"), and ``why`` says the rest in the reader's language.
STATUSES = ("ok", "unsupported", "export_controlled", "does_not_fit", "too_slow", "over_budget", "no_price",
            "not_buildable", "cannot_be_estimated")  # fmt: skip
# Where the buyer buys: "china" states every build's export status for China and can leave controlled cards out;
# "global" does not. The default follows the currency: CNY → china.
MARKETS = ("global", "china")
# What export controls mean for a card bought in China (hg.export_status, data/export_controls.csv), as codes:
# a US licence is required (or reviewed case by case, or granted one by one), Chinese authorities discourage
# or review its use, the US needs no licence (a China SKU), or the data holds no event for the card.
EXPORT = ("licence_required", "discouraged", "no_licence_needed", "none_on_record")
CONTROLLED = ("licence_required", "discouraged")
RANKS = ("price", "token_cost")
# How far back a price in the buyer's own currency still prices a card that has none in the window (marked old,
# ranked after fresh prices), as the value ranking looks back 36 months.
STALE_LIMIT_MONTHS = 36
# Owning cost per million tokens when ranking by it: hg.token_cost's defaults (3 years, 50% of hours in use,
# electricity not counted), applied to the whole build's price.
OWNED_YEARS, OWNED_UTILIZATION = 3.0, 0.5


def _joined(parts: Sequence[Any]) -> Message | str:
    """Several sentences shown as one message ("; " between them in English, "；" in Chinese), "" for none."""
    return Message("{parts}", {"parts": tuple(parts)}) if parts else ""


def _said(err: Exception) -> Message | str:
    """What an error says: its message (rendered when shown), or its text."""
    return err.args[0] if err.args and isinstance(err.args[0], Message) else str(err)


def china_export(card: str | GPU) -> tuple[str, Message]:
    """A card's export status for a buyer in China: a code of :data:`EXPORT` and a message saying it.

    From :func:`hwguide.export_status` today: a US licence requirement (also under case-by-case review or
    licences granted one by one) is ``licence_required``; a Chinese notice discouraging or reviewing its use
    is ``discouraged``; a US "no licence needed" event (a China SKU) is ``no_licence_needed``; no event at
    all is ``none_on_record``, which means the kit has no data, not that the card is free of controls.
    """
    g = lookup_gpu(card, "card")
    status = export_status(g)
    us, china = status["us"], status["china"]
    if us is not None and us["status"] in ("licence required", "case-by-case", "licences granted"):
        code = "licence_required"
    elif china is not None and china["status"] in ("use discouraged", "under review"):
        code = "discouraged"
    elif us is not None:
        code = "no_licence_needed"
    else:
        return "none_on_record", i18n.msg("export to China: no event on record in data/export_controls.csv")
    if code == "no_licence_needed":
        return code, i18n.msg("export to China: no US licence needed since {date}", date=us["date"])
    return code, i18n.msg("export to China: {status}", status=status["label"])


def _as_model(value: Model | str | float, what: str) -> Model:
    """A catalog model, a Model, or the dense catalog model closest to a parameter count."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return closest_model(value)
        except ValueError as err:
            raise ValueError(i18n.msg("{what} {error}", what=what, error=_said(err))) from None
    if isinstance(value, (str, Model)):
        return lookup_model(value, f"{what} model")
    raise ValueError(i18n.msg("{what} model must be a catalog name, a Model or a parameter count, not {value!r}",
                              what=what, value=value))  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Plan:
    """The planner's answer: ``builds`` that meet the need (best first) and ``failed`` ones, with reasons.

    In both frames ``status`` is a code of :data:`STATUSES`, ``problems`` the codes of every reason a build
    fails (the first is its status; empty for a build that meets the need) and ``why`` a message saying it
    all, shown in the reader's language; ``assumptions`` are messages too.
    """

    builds: pd.DataFrame
    failed: pd.DataFrame
    need: Mapping[str, Any]
    assumptions: tuple[Message | str, ...]

    def _repr_html_(self) -> str:
        show = ["gpu", "gpus", "build_price", "per_gpu_gib", "tokens_per_s_per_user", "days", "why"]
        cols = [c for c in show if c in self.builds.columns]
        head = self.builds[cols].head(10)
        if i18n.language() != "en":  # English shows the machine names, as pandas does
            head = i18n.labelled(head)
        head = head.to_html(index=False, float_format=lambda x: f"{x:,.1f}")
        notes = "".join(f"<li>{html.escape(str(a))}</li>" for a in self.assumptions)
        summary = i18n.text("{meet} builds meet the need; {fail} do not", meet=len(self.builds), fail=len(self.failed))
        see = i18n.text("(see {failed} for why)", failed="<code>.failed</code>")
        return (
            f"<div><b>{html.escape(summary)}</b> {see}{head}<details><summary>"
            f"{html.escape(i18n.text('Assumptions'))}</summary><ul>{notes}</ul></details></div>"
        )


def build_system(
    card: str | GPU,
    gpus: int = 1,
    *,
    data_scale: str = "GB",
    currency: str = "CNY",
    gpu_price: float | None = None,
    offload_gb: float = 0,
) -> dict[str, Any]:
    """Complete a build of ``gpus`` × ``card`` with its platform: CPU class, RAM, disk, power, price.

    ``data_scale`` is GB, TB or 10TB (the source's scales). ``gpu_price`` is per card, in
    ``currency``; the platform price comes from data/platforms.csv (CNY only). Prices that are not
    known (no ``gpu_price``, or a platform with no sourced price) are NaN, and ``platform_priced``
    says whether the platform's is in ``build_price``.

    ``offload_gb`` is weights kept in CPU memory (GB, e.g. MoE experts with ``cpu_moe``): the RAM
    grows by that much on top of the platform's own, the platform moves up to a workstation or a
    server when its CPU cannot take that much memory (data/cpus.csv, ``max_memory_gb``), and the
    added RAM is priced per GB from data/ram_prices.csv (``ram_price``, in ``build_price``).
    ``ram_gbs`` is the platform CPU's memory bandwidth, which bounds work done in that memory.
    """
    g = lookup_gpu(card, "card")
    count = checks.whole(gpus, "gpus")
    data_scale = checks.choice(data_scale, "data_scale", DISK_TB)
    currency = checks.currency(currency)
    if gpu_price is not None:
        gpu_price = checks.number(gpu_price, "gpu_price", open_low=True, high=1e9, unit=currency)
    if g.unified_memory:
        if count > 1:
            raise ValueError(i18n.msg("{card} is a complete machine with unified memory; the planner builds one of "
                                      "it, not gpus={count}", card=g.name, count=count))  # fmt: skip
        return _complete_machine(g, gpu_price)
    offload_gb = checks.number(offload_gb, "offload_gb", high=1e6, unit="GB")
    # the planner completes the same card × count many times over (each need, each compromise): the platform
    # is a pure function of these and of today's export status, so it is worked out once per day
    return dict(_platform_for(g, count, data_scale, currency, gpu_price, offload_gb, _dt.date.today()))


@functools.lru_cache(maxsize=4096)
def _platform_for(g: GPU, count: int, data_scale: str, currency: str, gpu_price: float | None, offload_gb: float,
                  today: _dt.date) -> dict[str, Any]:  # fmt: skip
    """:func:`build_system` for checked arguments (``today`` keys the export status it reports; never changed
    in place: build_system returns a copy)."""
    sxm = _is_module(g.name)
    smallest = "server" if sxm or count > 4 else ("workstation" if count > 2 else "desktop")
    most = int(platform("server")["max_gpus"])
    servers = 1
    if count > most:  # several whole servers joined by a network
        if count % most:
            raise ValueError(i18n.msg("gpus={count} is more than one server holds ({most}); several servers hold a "
                                      "multiple of {most} GPUs", count=count, most=most))  # fmt: skip
        servers, count = count // most, most
    vram = g.memory_gib * count
    order = ["desktop", "workstation", "server"]
    for name in order[order.index(smallest) :]:
        p = platform(name)
        base = float(p["ram_gb"])
        ram = next((size for size in RAM_SIZES if size >= max(vram, base + offload_gb)), math.inf)
        most_ram = catalog_cpu(str(p["cpu"]))["max_memory_gb"]
        if not offload_gb or most_ram is None or ram <= most_ram * int(p["sockets"]):
            break
    if math.isinf(ram) or (offload_gb and most_ram is not None and ram > most_ram * int(p["sockets"])):
        raise ValueError(i18n.msg("offload_gb={offload_gb:,.0f}: more CPU memory than the largest platform takes",
                                  offload_gb=offload_gb))  # fmt: skip
    ram_price, ram_note = 0.0, None
    if offload_gb:
        kind = "ddr5-udimm" if name == "desktop" else "ddr5-rdimm"
        per = ram_price_per_gb(kind, currency=currency)
        ram_price = (ram - base) * per["per_gb"]
        ram_note = i18n.msg("{gb:,.0f} GB of RAM added for weights in CPU memory at {price}", gb=ram - base,
                            price=per["note"])  # fmt: skip
    disk = max(DISK_TB[data_scale], float(p["disk_tb"]))
    # the GPUs' board power and the platform's own draw (CPUs, board; on a server also switches, NICs, fans)
    draw = (g.tdp_w or math.nan) * count + float(p["host_w"])  # NaN where the vendor publishes no power figure
    psu = math.nan if math.isnan(draw) else math.ceil(1.25 * draw / 50) * 50
    platform_price = float(p["price_cny"]) if currency == "CNY" and p["price_cny"] is not None else math.nan
    gpus_total = gpu_price * count * servers if gpu_price is not None else math.nan
    notes: list[Message] = []
    if count >= 3 and not sxm and "blower" not in (g.form_factor or "").lower() and g.segment == "consumer":
        notes.append(i18n.msg(
            "3+ consumer cards: take blower-style or 2-slot models, or risers; triple-slot coolers "
            "do not fit side by side (Dettmers: blower fans for 4× builds)"
        ))  # fmt: skip
    if sxm:
        notes.append(i18n.msg("server modules (SXM, OAM, Huawei's Atlas modules) sit on a baseboard in a server; they "
                              "are not sold as single cards"))  # fmt: skip
    if name != "server" and draw > HOUSEHOLD_CIRCUIT_W:
        notes.append(i18n.msg(
            "draws about {draw:,.0f} W, more than one household circuit carries ({circuit:,} W = 220 V × "
            "10 A, a standard Chinese socket): use two circuits or a dedicated 16 A line, or cap the cards' power",
            draw=draw, circuit=HOUSEHOLD_CIRCUIT_W,
        ))  # fmt: skip
    if name == "server" and not math.isnan(draw):
        notes.append(i18n.msg(
            "power: {count} × {tdp:g} W for the GPUs + {host:,.0f} W for the rest of the server (CPUs, switches, "
            "network cards, fans; host_w in data/platforms.csv); for a server of PCIe cards it is an upper figure",
            count=count, tdp=g.tdp_w, host=float(p["host_w"]),
        ))  # fmt: skip
    if g.market == "modded":
        notes.append(i18n.msg("aftermarket memory mod: no NVIDIA warranty, check the seller's"))
    link = host_link(g, count, cpu=str(p["cpu"]), sockets=int(p["sockets"]))
    if link is not None and link["limited"]:
        notes.append(i18n.msg("on this platform's reference CPU ({cpu}), {note}; the speed estimates assume "
                              "full x16 links", cpu=link["cpu"], note=link["note"]))  # fmt: skip
    if export := export_status(g)["label"]:
        notes.append(i18n.msg("export control for China: {status} (hg.export_status); check before buying there",
                              status=export))  # fmt: skip
    if ram_note:
        notes.append(ram_note)
    network = ""
    if servers > 1:
        network = _network()
        notes.append(i18n.msg(
            "{servers} servers of {count} GPUs, joined by {network}: RAM, disk, power and the power supply are per "
            "server; the network's switches and cables are not priced (no sourced price in the data)",
            servers=servers, count=count, network=network,
        ))  # fmt: skip
    return {
        "gpu": g.name,
        "gpus": count * servers,
        "servers": servers,
        "network": network,
        "platform": name,
        "cpu": str(p["cpu_class"]),
        "host_link": "" if link is None else f"PCIe {link['gen']}.0 x{link['lanes']}",
        "gpu_memory_gib": vram,
        "ram_gb": ram,
        "disk_tb": disk,
        "power_w": draw * servers,
        "psu_w": psu,
        "gpu_price": gpus_total,
        "platform_price": platform_price * servers,
        "ram_price": ram_price * servers,
        "ram_gbs": ram_bandwidth_gbs(str(p["cpu"]), sockets=int(p["sockets"])),
        "build_price": gpus_total
        + (0 if math.isnan(platform_price) else platform_price * servers)
        + ram_price * servers,
        "platform_priced": not math.isnan(platform_price),
        "network_priced": servers == 1,
        "notes": _joined(notes),
    }


def _network() -> str:
    """The network that joins servers for training: the ``network`` row of data/interconnects.csv."""
    rows = [name for name, row in _links().items() if row["kind"] == "network"]
    return rows[0]


def host_link(card: str | GPU, gpus: int = 1, *, cpu: str, sockets: int = 1) -> dict[str, Any] | None:
    """How each of ``gpus`` × ``card`` reaches the host CPU over PCIe (data/cpus.csv).

    The generation is the lower of the card's and the CPU's; each card gets the CPU's lanes shared
    out evenly (``sockets`` × lanes / gpus), rounded down to x16, x8 or x4 and at most the card's own
    width: the kit's rule, since a board may wire the slots differently and a PCIe switch changes
    the picture. Returns ``gen``, ``lanes``, ``per_direction_gbs`` (each way, per card, from the
    PCIe x16 rows of data/interconnects.csv), ``full_gbs`` (the card's own x16 link), ``limited``
    and a ``note`` saying what limits it; None for modules and SoCs, which have no PCIe slot.
    """
    g = lookup_gpu(card, "card")
    count = checks.whole(gpus, "gpus")
    sockets = checks.whole(sockets, "sockets", high=8)
    host = catalog_cpu(cpu)
    if g.unified_memory or _is_module(g.name) or g.pcie_gen is None:
        return None
    card_lanes = g.pcie_lanes or 16
    gen = min(g.pcie_gen, int(host["pcie_gen"]))
    lanes, why = card_lanes, []
    if host["pcie_lanes"] is None:
        why.append(i18n.msg("{cpu} publishes no lane count: assumed enough", cpu=host["name"]))
    else:
        share = int(host["pcie_lanes"]) * sockets // count
        lanes = min(card_lanes, next((w for w in (16, 8, 4, 2, 1) if w <= share), 1))
        if lanes < card_lanes:
            why.append(i18n.msg("{count} cards share {lanes} CPU lanes", count=count,
                                lanes=int(host["pcie_lanes"]) * sockets))  # fmt: skip
    if gen < g.pcie_gen:
        why.append(i18n.msg("{cpu} has PCIe {cpu_gen}.0, the card {card_gen}.0", cpu=host["name"],
                            cpu_gen=host["pcie_gen"], card_gen=g.pcie_gen))  # fmt: skip
    links = _links()
    full = float(links[f"PCIe {g.pcie_gen}.0 x16"]["per_direction_gbs"]) * card_lanes / 16
    each = float(links[f"PCIe {gen}.0 x16"]["per_direction_gbs"]) * lanes / 16
    limited = each < full
    note = (i18n.msg("each card at PCIe {gen}.0 x{lanes}, {each:.1f} GB/s each way instead of {full:.1f} ({why})",
                     gen=gen, lanes=lanes, each=each, full=full, why=_joined(why))
            if limited else "")  # fmt: skip
    return {"cpu": host["name"], "gen": gen, "lanes": lanes, "per_direction_gbs": each, "full_gbs": full,
            "limited": limited, "note": note}  # fmt: skip


def _complete_machine(g: GPU, price: float | None) -> dict[str, Any]:
    """A unified-memory machine (DGX Spark, Apple M, Strix Halo): its price is the whole build."""
    total = math.nan if price is None else price
    return {
        "gpu": g.name, "gpus": 1, "platform": "complete machine", "cpu": i18n.msg("built in (unified memory)"),
        "gpu_memory_gib": g.memory_gib, "ram_gb": g.memory_gib, "disk_tb": math.nan, "power_w": g.tdp_w,
        "psu_w": math.nan, "gpu_price": total, "platform_price": 0.0, "ram_price": 0.0, "ram_gbs": g.bandwidth_gbs,
        "build_price": total, "platform_priced": True, "servers": 1, "network": "", "network_priced": True,
        "notes": i18n.msg("a complete machine: CPU and GPU share its memory, so the model and the system use the "
                          "same RAM"),
    }  # fmt: skip


# One household circuit: P = U × I = 220 V × 10 A. Chinese household sockets are rated 10 A / 250 V
# (GB/T 2099.1 and GB/T 1002; 16 A sockets are for air conditioners and water heaters).
HOUSEHOLD_CIRCUIT_W = 220 * 10


def _card_prices(currency: str, condition: str, table: pd.DataFrame,
                 convert: bool) -> dict[str, tuple[float, Message | str, str, bool]]:  # fmt: skip
    """Each card's price, a note saying which observation it is ("street-new 2025-06-01"; a price in the
    other currency converted when ``convert``, the note says so), the price's kind (a code) and whether it
    was converted."""
    rows = priced(table, currency, condition, convert=convert)
    return {r.Index: (float(r.amount), _price_note(r.label, r.date), str(r.kind), bool(r.converted))
            for r in rows.itertuples()}  # fmt: skip


def _prices_since(prices: Any, currency: str, condition: str, start: _dt.date,
                  convert: bool) -> Mapping[str, tuple[float, Message | str, str, bool]]:  # fmt: skip
    """:func:`_card_prices` of the price rows dated ``start`` or later: the catalog's (computed once per
    arguments, since the catalog does not change while the kit runs) or the buyer's own ``prices``."""
    if prices is None:
        return _catalog_prices_since(currency, condition, start, convert)
    every = price_rows(prices, currency)
    return _card_prices(currency, condition, every[every["date"] >= start], convert)


@functools.cache
def _catalog_prices_since(currency: str, condition: str, start: _dt.date,
                          convert: bool) -> Mapping[str, tuple[float, Message | str, str, bool]]:  # fmt: skip
    every = price_table()
    return types.MappingProxyType(_card_prices(currency, condition, every[every["date"] >= start], convert))


def _price_note(label: Message | str, date: Any) -> Message:
    """A price's label (a kind code, or a message for a converted price) and its date, as one message."""
    kind = label if isinstance(label, Message) else Message(str(label), context="value")
    return i18n.msg("{kind} {date}", kind=kind, date=str(date))


_FILTERS = ("segments", "markets", "modded", "names")


def _allowed_cards(allow: Mapping[str, Any] | Sequence[str] | str | None) -> list[GPU]:
    table = gpus()
    if allow is None:
        allow = {}
    if not isinstance(allow, Mapping):
        return [lookup_gpu(n, "cards") for n in checks.names(allow, "cards")]
    for key in allow:
        checks.choice(key, "cards filter", _FILTERS)
    if "names" in allow:
        table = table[table["name"].isin([lookup_gpu(n, "cards").name for n in checks.names(allow["names"], "names")])]
    for key, column in (("segments", "segment"), ("markets", "market")):
        if key in allow:
            wanted = [checks.choice(v, key, sorted(set(gpus()[column]))) for v in checks.names(allow[key], key)]
            table = table[table[column].isin(wanted)]
    if "modded" in allow and not checks.flag(allow["modded"], "modded"):
        table = table[table["market"] != "modded"]
    if table.empty:
        raise ValueError(i18n.msg("cards={cards!r} leaves no card of the catalog to try", cards=dict(allow)))
    return [lookup_gpu(n, "cards") for n in table["name"]]


def recommend(
    *,
    inference: Mapping[str, Any] | None = None,
    finetune: Mapping[str, Any] | None = None,
    pretrain: Mapping[str, Any] | None = None,
    image: Mapping[str, Any] | None = None,
    budget: float | None = None,
    currency: str = "CNY",
    cards: Mapping[str, Any] | Sequence[str] | None = None,
    gpu_counts: Sequence[int] | None = None,
    condition: str = "any",
    prices: pd.DataFrame | Mapping[str, float] | None = None,
    data_scale: str = "GB",
    headroom: float = 0.1,
    allow_unsupported: bool = False,
    convert: bool = True,
    window_months: int = 12,
    market: str | None = None,
    allow_controlled: bool = True,
    rank_by: str = "price",
) -> Plan:
    """Builds (card × GPU count + platform) that meet a need within a budget, best (cheapest) first.

    * ``inference``: dict(model=..., weights="fp16", kv="fp16", context=4096, users=1,
      tokens_per_s=None, engine=None, cpu_moe=0) where tokens_per_s is the speed each user needs,
      the engine defaults to llama.cpp for GGUF weights and vLLM otherwise, and ``cpu_moe``
      ("all" or a layer count) keeps a MoE model's experts in CPU memory: the build then gets
      that much more RAM, priced, and decode speed is bounded by the platform CPU's memory bandwidth;
    * ``finetune``: dict(model=..., method="lora", weights=None, context=2048, batch=1, rank=16,
      recompute="full", optimizer="adamw", targets="all-linear"); several cards shard the model
      (FSDP / ZeRO-3);
    * ``pretrain``: dict(model=... or a parameter count, tokens=..., deadline_days=None,
      context=2048, batch=1);
    * ``image``: dict(model=..., weights=None, text_weights=None, width=None, height=None,
      steps=None, batch=1, engine="diffusers", offload="auto", seconds_per_image=None) for text-to-image
      generation (:func:`hwguide.image_seconds`); each GPU runs its own pipeline, so more GPUs give
      more images per hour, not shorter waits;
    * ``budget``: the whole build in ``currency``; ``cards``: a list of names or a filter dict
      (segments, markets, modded=False, names); ``gpu_counts``: the GPU counts to try (default 1, 2, 4
      and 8, and with ``pretrain`` also 16, 32 and 64: several 8-GPU servers joined by InfiniBand);
      ``condition``: which prices (new, used, any); ``prices``: your own {gpu: price};
    * ``allow_unsupported``: also try cards whose platform today's frameworks have dropped
      (``current`` false in data/support.csv: Pascal and Volta, which CUDA 13 and vLLM no longer
      support); off by default, and such builds then carry a warning in the assumptions;
    * ``convert``: price a card that has no price in ``currency`` with its price in the other one,
      converted at the CFETS central parity of the price's date (``price_note`` says so), as
      :func:`hwguide.value_ranking` does; ``window_months``: only prices of the last so many months
      (12 by default, so that a build is priced as it could be bought today; the value ranking looks
      back 36 months and marks the older prices stale). A price converted from the other currency ranks
      after every build priced in ``currency`` itself;
    * ``market``: "china" (the default with CNY) or "global". In China every build says its export status
      (``export``, a code of :data:`EXPORT`, and a sentence in ``why``); ``allow_controlled=False`` then leaves
      out cards that need a US licence or whose use Chinese authorities discourage (status
      ``export_controlled``);
    * ``rank_by``: "price" (the build's price) or "token_cost" (for inference: the build's price spread over
      3 years at 50% use, per million generated tokens, the ``owned_per_million`` column).

    SXM and OAM modules come only as whole 8-GPU servers (several for 16 or more), priced with a complete
    server's price per GPU (``server-share`` rows) and never as a share of one. When a model does not fit
    and the engine can run layers on the CPU (llama.cpp), the build is offered with as many layers on the
    GPU as fit (``gpu_layers``), labelled, after the builds that hold the whole model.

    Inference and fine-tuning split the model over the cards (tensor parallel / ZeRO-3); a model
    given as a parameter count stands in as the closest dense catalog model (said in the
    assumptions). Nothing raises for a need no build meets: ``builds`` is then empty and
    ``failed`` says why each build fails (``status`` is one of :data:`STATUSES`, ``problems`` the codes of
    all its reasons, ``why`` a message). Contradictory input raises ValueError.
    """
    if inference is None and finetune is None and pretrain is None and image is None:
        raise ValueError(i18n.msg("no workload: give at least one of inference=, finetune=, pretrain= or image="))
    if budget is not None:
        budget = checks.number(budget, "budget", open_low=True, high=1e12)
    currency = checks.currency(currency)
    condition = checks.choice(condition, "condition", _CONDITION_KINDS)
    if gpu_counts is None:
        gpu_counts = (1, 2, 4, 8, 16, 32, 64) if pretrain is not None else (1, 2, 4, 8)
    if isinstance(gpu_counts, (str, bytes)) or not isinstance(gpu_counts, Sequence) or not gpu_counts:
        raise ValueError(i18n.msg("gpu_counts must be a non-empty list of GPU counts such as (1, 2, 4, 8), not "
                                  "{gpu_counts!r}", gpu_counts=gpu_counts))  # fmt: skip
    counts = sorted({checks.whole(c, "gpu_counts", high=1024) for c in gpu_counts})
    headroom = checks.fraction(headroom, "headroom", zero_ok=True, one_ok=False)
    data_scale = checks.choice(data_scale, "data_scale", DISK_TB)
    allow_unsupported = checks.flag(allow_unsupported, "allow_unsupported")
    convert = checks.flag(convert, "convert")
    window_months = checks.whole(window_months, "window_months", high=1200)
    market = checks.choice("china" if market is None and currency == "CNY" else market or "global", "market",
                           MARKETS)  # fmt: skip
    allow_controlled = checks.flag(allow_controlled, "allow_controlled")
    rank_by = checks.choice(rank_by, "rank_by", RANKS)
    allowed = _allowed_cards(cards)
    start = _months_before(_dt.date.today(), window_months)
    old_start = _months_before(_dt.date.today(), STALE_LIMIT_MONTHS)
    price_of = dict(_prices_since(prices, currency, condition, start, convert))
    server_share = _prices_since(prices, currency, "server", start, convert)  # modules: a whole server's price per GPU
    # a card with no price of the window but an older one in the currency itself: that price, marked as old
    for name, old in _prices_since(prices, currency, condition, old_start, False).items():
        if name not in price_of or price_of[name][3]:
            price_of[name] = (old[0], i18n.msg("{note}, older than {months} months: check today's price",
                                               note=old[1], months=window_months), "stale", False)  # fmt: skip
    need = _normalise(inference, finetune, pretrain, image)
    need["assumptions"] += _assumed(inference, need, headroom=headroom, currency=currency, convert=convert,
                                    window_months=window_months, market=market, counts=counts,
                                    price_of=price_of, allowed=allowed, image=image)  # fmt: skip
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        memory = {count: _memory_for(need, count) for count in counts}
    said = {_said(w.message) if isinstance(w.message, Exception) else str(w.message) for w in caught}
    need["assumptions"] += sorted(said, key=lambda m: i18n.render(m, "en"))
    rows = []
    engine = need["inference"]["engine"] if "inference" in need else None
    for card in allowed:
        support = support_of(card)
        stopped = _not_running(support, engine) if support["current"] else None  # a dropped platform says why itself
        if not support["current"] or stopped:
            if not allow_unsupported:
                rows += [_unsupported(card, count, support, stopped) for count in counts]
                continue
            if stopped is None:
                warning = i18n.msg("Warning: {card} ({platform}) is tried although {why_not}.", card=card.name,
                                   platform=support["name"],
                                   why_not=i18n.Message(support["why_not"], context="why_not"))  # fmt: skip
                need["assumptions"].append(warning)
            else:
                need["assumptions"].append(i18n.msg(
                    "Warning: {card} ({platform}) is tried with {engine} although data/support.csv says {engine} "
                    "does not run on it.", card=card.name, platform=support["name"], engine=engine,
                ))  # fmt: skip
        export = china_export(card)
        for count in counts:
            price = price_of.get(card.name, (math.nan, "no price", "", False))
            if _is_module(card.name):  # a module is bought in a server: only a server's price prices it
                price = server_share.get(card.name, (math.nan, "no price", "", False))
            if market == "china" and price[3] and export[0] == "licence_required":
                # a card that needs a US licence reaches China outside the licensed channels: a converted US
                # price says nothing about what it costs there
                price = (math.nan, "abroad only", "", False)
            row = _try_build(card, count, need, memory[count], budget, currency, condition, price, data_scale,
                             headroom, export=export if market == "china" else None,
                             allow_controlled=allow_controlled)  # fmt: skip
            rows.append(row | {"export": export[0]})
    table = pd.DataFrame(rows)
    for column in ("build_price", "gpu_price"):  # absent when every card was left out as unsupported
        if column not in table:
            table[column] = math.nan
    for column in ("converted", "stale", "gpu_layers", "owned_per_million"):
        if column not in table:
            table[column] = math.nan if column not in ("converted", "stale") else False
    table["converted"] = table["converted"].fillna(False).astype(bool)
    table["stale"] = table["stale"].fillna(False).astype(bool)
    ok = table["status"].eq("ok")
    # builds priced in the currency itself first, builds holding the whole model before partial offload
    first = "owned_per_million" if rank_by == "token_cost" else "build_price"
    builds = table[ok]
    builds = builds.assign(_offload=builds["gpu_layers"].notna())
    builds = builds.sort_values(["converted", "stale", "_offload", first, "gpu_price", "score"],
                                ascending=[True, True, True, True, True, False],
                                na_position="last").drop(columns="_offload")  # fmt: skip
    failed = table[~ok].sort_values(["status", "gpu", "gpus"])
    return Plan(builds.reset_index(drop=True), failed.reset_index(drop=True), need, tuple(need["assumptions"]))


def _assumed(inference: Mapping[str, Any] | None, need: Mapping[str, Any], *, headroom: float, currency: str,
             convert: bool, window_months: int, market: str, counts: Sequence[int],
             price_of: Mapping[str, tuple[float, Any, str, bool]], allowed: Sequence[GPU],
             image: Mapping[str, Any] | None = None) -> list[Message]:  # fmt: skip
    """What the planner assumed that the buyer did not say, as messages for ``plan.assumptions``."""
    out: list[Message] = []
    if inference is not None:
        w = need["inference"]
        if not inference.get("engine"):
            out.append(i18n.msg("Engine: {engine}, the default for {weights} weights (inference=dict(engine=...) "
                                "changes it).", engine=w["engine"], weights=w["weights"]))  # fmt: skip
        if not inference.get("kv"):
            out.append(i18n.msg("KV cache in fp16 (inference=dict(kv='fp8') halves it where the engine supports "
                                "an fp8 cache)."))  # fmt: skip
        if not inference.get("context"):
            out.append(i18n.msg("Context: {tokens:,} tokens per user (inference=dict(context=...)).",
                                tokens=w["context"]))  # fmt: skip
        if not inference.get("users"):
            out.append(i18n.msg("One user at a time (inference=dict(users=...))."))
    out.append(i18n.msg("Memory headroom: {headroom:.0%} of each card's memory kept free (headroom=).",
                        headroom=headroom))  # fmt: skip
    converted = sum(1 for g in allowed if price_of.get(g.name, (0, "", "", False))[3])
    out.append(i18n.msg("Prices: the newest of the last {months} months in data/prices.csv, in {currency}.",
                        months=window_months, currency=i18n.msg(currency)))  # fmt: skip
    if convert and converted:
        out.append(i18n.msg("{cards} cards have no {currency} price and are priced in the other currency, converted "
                            "at the CFETS central parity of the price's date (convert=False leaves them unpriced); "
                            "their builds rank after those priced in {currency}.", cards=converted,
                            currency=i18n.msg(currency)))  # fmt: skip
    if market == "china":
        out.append(i18n.msg("Market: China. Every build states its export status for China (hg.export_status, "
                            "data/export_controls.csv); allow_controlled=False leaves out cards that need a US "
                            "licence or whose use Chinese authorities discourage."))  # fmt: skip
    out.append(i18n.msg("GPU counts tried: {counts}; SXM/OAM modules only as whole 8-GPU servers.",
                        counts=", ".join(str(c) for c in counts)))  # fmt: skip
    if "image" in need and need["image"]["offload"] == "auto" and (image or {}).get("offload") is None:
        out.append(i18n.msg("Image generation: offload='auto' keeps on each card what fits and waits with the rest "
                            "in CPU memory, which is slower (image=dict(offload='none') holds everything on the "
                            "card)."))  # fmt: skip
    if "pretrain" in need and max(counts) > 8:
        out.append(i18n.msg("Training on several servers: the time shrinks as 1/GPUs; the kit has no term yet for "
                            "communication between servers, so a real run across servers takes longer."))  # fmt: skip
    return out


def _get(given: Mapping[str, Any], key: str, default: Any) -> Any:
    value = given.get(key, default)
    return default if value is None else value


def _normalise(inference: Any, finetune: Any, pretrain: Any, image: Any = None) -> dict[str, Any]:
    need: dict[str, Any] = {"assumptions": []}
    if inference is not None:
        known = {"model", "weights", "context", "users", "tokens_per_s", "kv", "engine", "cpu_moe"}
        _keys_ok(inference, known, "inference")
        m = _as_model(inference.get("model"), "inference")
        weights = check_weights(_get(inference, "weights", "fp16"))
        speed = inference.get("tokens_per_s")
        engine = inference.get("engine") or ("llama.cpp" if is_gguf(weights) else "vllm")
        need["inference"] = dict(
            model=m,
            weights=weights,
            context=checks.whole(_get(inference, "context", 4096), "context"),
            users=checks.whole(_get(inference, "users", 1), "users"),
            tokens_per_s=None if not speed else checks.number(speed, "tokens_per_s", high=1e6, unit="tokens/s"),
            kv=_get(inference, "kv", "fp16"),
            engine=lookup_engine(engine, "engine").name,
            cpu_moe=_get(inference, "cpu_moe", 0),
        )
        _note_proxy(need, inference.get("model"), m)
    if image is not None:
        known = {"model", "weights", "text_weights", "width", "height", "steps", "batch", "engine", "offload",
                 "seconds_per_image"}  # fmt: skip
        _keys_ok(image, known, "image")
        info = image_model(image["model"])
        wait = image.get("seconds_per_image")
        need["image"] = {
            "model": info["name"],
            **{k: image.get(k) for k in ("weights", "text_weights", "width", "height", "steps")},
            "batch": checks.whole(_get(image, "batch", 1), "batch", high=256),
            "engine": _get(image, "engine", "diffusers"),
            "offload": _get(image, "offload", "auto"),
            "seconds_per_image": None if not wait else checks.number(wait, "seconds_per_image", high=1e5, unit="s"),
        }
        image_seconds(info["name"], "RTX 4090", **_image_args(need["image"]))  # bad input fails here, once
    if finetune is not None:
        known = {"model", "method", "weights", "context", "batch", "rank", "recompute", "optimizer", "targets"}
        _keys_ok(finetune, known, "finetune")
        m = _as_model(finetune.get("model"), "finetune")
        need["finetune"] = dict(
            model=m,
            method=_get(finetune, "method", "lora"),
            weights=finetune.get("weights"),
            context=checks.whole(_get(finetune, "context", 2048), "context"),
            batch=checks.whole(_get(finetune, "batch", 1), "batch"),
            rank=checks.whole(_get(finetune, "rank", 16), "rank"),
            recompute=_get(finetune, "recompute", "full"),
            optimizer=_get(finetune, "optimizer", "adamw"),
            targets=_get(finetune, "targets", "all-linear"),
        )
        _note_proxy(need, finetune.get("model"), m)
    if pretrain is not None:
        _keys_ok(pretrain, {"model", "tokens", "deadline_days", "context", "batch"}, "pretrain")
        m = _as_model(pretrain.get("model"), "pretrain")
        if pretrain.get("tokens") is None:
            raise ValueError(i18n.msg("pretrain: give tokens=, the number of training tokens (e.g. 20 × parameters)"))
        deadline = pretrain.get("deadline_days")
        need["pretrain"] = dict(
            model=m,
            tokens=checks.number(pretrain["tokens"], "tokens", open_low=True, high=1e16, unit="training tokens"),
            deadline_days=None
            if deadline is None
            else checks.number(deadline, "deadline_days", open_low=True, high=1e5, unit="days"),
            context=checks.whole(_get(pretrain, "context", 2048), "context"),
            batch=checks.whole(_get(pretrain, "batch", 1), "batch"),
        )
        _note_proxy(need, pretrain.get("model"), m)
    return need


def _image_args(w: Mapping[str, Any]) -> dict[str, Any]:
    return {k: w[k] for k in ("weights", "text_weights", "width", "height", "steps", "batch", "engine", "offload")}


def _keys_ok(given: Mapping[str, Any], known: set[str], what: str) -> None:
    if not isinstance(given, Mapping):
        raise ValueError(i18n.msg("{what} must be a dict such as dict(model='Llama-3.1-8B'), not {given!r}",
                                  what=what, given=given))  # fmt: skip
    unknown = sorted(str(k) for k in set(given) - known)
    if unknown:
        raise ValueError(i18n.msg("{what}: unknown keys {unknown}; use {known}", what=what, unknown=unknown,
                                  known=sorted(known)))  # fmt: skip
    if "model" not in given:
        raise ValueError(i18n.msg("{what}: model= is required (a catalog name, a Model or a parameter count)",
                                  what=what))  # fmt: skip


def _note_proxy(need: dict[str, Any], given: Any, m: Model) -> None:
    if isinstance(given, (int, float)) and not isinstance(given, bool):
        need["assumptions"].append(i18n.msg(
            "A model of {given:g}{unit} parameters is represented by {model} ({billions:.2f}B), the closest dense "
            "catalog model.", given=given, unit="B" if given < 1e5 else "", model=m.name,
            billions=param_count(m) / 1e9,
        ))  # fmt: skip


def _inference_memory(w: Mapping[str, Any], *, gpus: int = 1, gpu_layers: int | None = None) -> Any:
    """:func:`hwguide.inference_memory` of the need's inference part (``w``) on ``gpus`` GPUs."""
    return inference_memory(w["model"], weights=w["weights"], kv=w["kv"], batch=w["users"], context=w["context"],
                            engine=w["engine"], gpus=gpus, cpu_moe=w["cpu_moe"], gpu_layers=gpu_layers)  # fmt: skip


def _memory_for(need: Mapping[str, Any], count: int) -> dict[str, Any]:
    """The memory each part of the need takes per GPU when spread over ``count`` GPUs (card-independent)."""
    out: dict[str, Any] = {}
    zero = 3 if count > 1 else 0
    if "inference" in need:
        out["inference"] = _inference_memory(need["inference"], gpus=count)
    if "finetune" in need:
        f = need["finetune"]
        out["finetune"] = finetune_memory(
            f["model"], method=f["method"], weights=f["weights"], rank=f["rank"], targets=f["targets"],
            batch=f["batch"], context=f["context"], recompute=f["recompute"], optimizer=f["optimizer"],
            gpus=count, zero=zero,
        )  # fmt: skip
    if "pretrain" in need:
        p = need["pretrain"]
        out["pretrain"] = training_memory(
            p["model"], batch=p["batch"], context=p["context"], gpus=count, zero=zero, recompute="full"
        )
    return out


# The data/support.csv column that says whether an inference engine (or its family) runs on a platform.
# An engine without a column is not checked; a column whose words start with "no" stops the engine there.
ENGINE_COLUMNS = {"vllm": "vllm", "llama.cpp": "llama_cpp"}


def _not_running(support: Mapping[str, Any], engine: str | None) -> str | None:
    """The engine when the platform's support row says it does not run there, else None."""
    if engine is None:
        return None
    found = lookup_engine(engine, "engine")
    column = ENGINE_COLUMNS.get(found.name) or ENGINE_COLUMNS.get(found.family or "")
    said = str(support.get(column) or "").strip().lower() if column else ""
    return found.name if re.match(r"no\b", said) else None


def _unsupported(card: GPU, count: int, support: Mapping[str, Any], engine: str | None = None) -> dict[str, Any]:
    """The failed row of a card whose platform today's frameworks have dropped, or (``engine``) on which the
    inference engine does not run (data/support.csv)."""
    if engine is None:
        why = i18n.msg("unsupported: {platform} — {why_not} (data/support.csv, checked {checked}; "
                       "recommend(..., allow_unsupported=True) tries it anyway)", platform=support["name"],
                       why_not=i18n.Message(support["why_not"], context="why_not"),
                       checked=support["checked"])  # fmt: skip
    else:
        why = i18n.msg("unsupported: {engine} does not run on {platform} (data/support.csv, checked {checked}); "
                       "choose another engine with inference=dict(..., engine=...), or "
                       "recommend(..., allow_unsupported=True) tries it anyway", engine=engine,
                       platform=support["name"], checked=support["checked"])  # fmt: skip
    return {"gpu": card.name, "gpus": count, "status": "unsupported", "problems": ("unsupported",),
            "why": _joined([why]), "score": math.nan}  # fmt: skip


def _try_build(
    card: GPU,
    count: int,
    need: Mapping[str, Any],
    memory: Mapping[str, Any],
    budget: float | None,
    currency: str,
    condition: str,
    priced: tuple[float, Message | str, str, bool],
    data_scale: str,
    headroom: float,
    *,
    export: tuple[str, Message] | None = None,
    allow_controlled: bool = True,
) -> dict[str, Any]:
    price, price_note, kind, converted = priced
    stale = kind == "stale"
    row: dict[str, Any] = {
        "gpu": card.name,
        "gpus": count,
        "status": "ok",
        "problems": (),
        "why": "",
        "gpu_price_each": price,
        "price_note": price_note,
        "converted": converted,
        "stale": stale,
        "score": math.nan,
    }
    if export is not None and not allow_controlled and export[0] in CONTROLLED:
        text = i18n.msg("{export}; left out (recommend(..., allow_controlled=True) lists it, marked)",
                        export=export[1])  # fmt: skip
        return row | {"status": "export_controlled", "problems": ("export_controlled",), "why": _joined([text])}
    most = int(platform("server")["max_gpus"])
    if _is_module(card.name) and count % most:
        text = i18n.msg("{card} is a module (SXM/OAM): it is sold on an {most}-GPU server board, not as {count}; "
                        "try gpus={most}{rent}", card=card.name, most=most, count=count,
                        rent=_rental(card.name, currency, "china" if export is not None else "global"))  # fmt: skip
        return row | {"status": "not_buildable", "problems": ("not_buildable",), "why": _joined([text])}
    # MoE experts kept in CPU memory need RAM of their own; small host-side tensors (llama.cpp's token
    # embeddings) fit in the platform's own RAM
    offload_gb = sum(m.offloaded.get("experts", 0) for m in memory.values()) / 1e9
    if "image" in need:  # each GPU runs its own pipeline; what fits depends on the card (offload="auto")
        memory = {**memory, "image": image_memory(need["image"]["model"], card=card,
                                                  **{k: v for k, v in _image_args(need["image"]).items()
                                                     if k != "steps"})}  # fmt: skip
    gpu_layers, partial = _partial_offload(card, count, need, memory, headroom)
    if gpu_layers is not None:  # the fallback: as many layers on the GPU as fit, the rest in system RAM
        memory = {**memory, "inference": partial}
        part = partial.offloaded
        offload_gb += (part.get("layers", 0) + part.get("kv_cache", 0)) / 1e9
        row["gpu_layers"] = gpu_layers
    try:
        system = build_system(card, count, data_scale=data_scale, currency=currency,
                              gpu_price=None if math.isnan(price) else price, offload_gb=offload_gb)  # fmt: skip
    except ValueError as err:
        return row | {"status": "not_buildable", "problems": ("not_buildable",), "why": _joined([_said(err)])}
    keep = ("platform", "cpu", "ram_gb", "disk_tb", "power_w", "psu_w", "gpu_price", "ram_price", "build_price",
            "platform_priced", "servers", "network", "network_priced")  # fmt: skip
    row.update({k: system[k] for k in keep})
    if kind == "server-share":  # the share already holds the server around the module
        row.update(build_price=price * count, platform_priced=True,
                   price_note=i18n.msg("{note} (a complete server's price per GPU, platform included)",
                                       note=price_note))  # fmt: skip
    elif not system["platform_priced"]:
        row["build_price"] = math.nan  # a server platform has no sourced price: rank by GPU price after priced builds
    row["link"] = default_link(card, gpus=count) if count > 1 else ""
    currency_words = i18n.msg(currency)  # CNY is yuan in Chinese
    problems: list[tuple[str, Message]] = [
        ("does_not_fit", _misfit(k, m, need)) for k, m in memory.items() if not m.fits(card, headroom=headroom)
    ]
    row["per_gpu_gib"] = max(m.per_gpu_gib for m in memory.values())
    precision = "bf16" if card.bf16_tflops else "fp16"
    try:
        if "inference" in need:
            w = need["inference"]
            speed = decode_tokens_per_s(w["model"], card, weights=w["weights"], batch=w["users"],
                                        context=w["context"], gpus=count, engine=w["engine"], kv=w["kv"],
                                        cpu_moe=w["cpu_moe"], gpu_layers=gpu_layers,
                                        ram_gbs=system["ram_gbs"] if w["cpu_moe"] or gpu_layers is not None
                                        else None)  # fmt: skip
            row["tokens_per_s_per_user"] = speed / w["users"]
            row["score"] = speed
            if w["tokens_per_s"] and speed / w["users"] < w["tokens_per_s"]:
                text = i18n.msg("too slow: {speed:.1f} tokens/s per user, {needed:g} needed",
                                speed=speed / w["users"], needed=w["tokens_per_s"])  # fmt: skip
                if gpu_layers is not None:
                    text = i18n.msg("{text}, with {gpu:d} of {layers:d} layers on the GPU (partial offload)",
                                    text=text, gpu=gpu_layers, layers=w["model"].layers)  # fmt: skip
                problems.append(("too_slow", text))
        if "image" in need:
            w = need["image"]
            run = image_seconds(w["model"], card, **_image_args(w))
            row["seconds_per_image"] = run["per_image_s"]
            row["images_per_hour"] = count * 3600 / run["per_image_s"]
            row["score"] = row["images_per_hour"] if math.isnan(row["score"]) else row["score"]
            if w["seconds_per_image"] and run["per_image_s"] > w["seconds_per_image"]:
                problems.append(("too_slow", i18n.msg("too slow: {seconds:.1f} s per image, {needed:g} s needed",
                                                      seconds=run["per_image_s"],
                                                      needed=w["seconds_per_image"])))  # fmt: skip
        if "pretrain" in need:
            p = need["pretrain"]
            days = _training_days(p["model"], card, p["tokens"], count, precision)
            row["days"] = days
            row["score"] = 1 / days if math.isnan(row["score"]) else row["score"]
            if p["deadline_days"] and days > p["deadline_days"]:
                text = i18n.msg("too slow: {days:,.0f} days of training, deadline {deadline:g}", days=days,
                                deadline=p["deadline_days"])  # fmt: skip
                problems.append(("too_slow", text))
    except ValueError as err:  # e.g. a card without a sourced Tensor rate
        problems.append(("cannot_be_estimated", i18n.msg("cannot be estimated: {error}", error=_said(err))))
    if math.isnan(price):
        if price_note == "abroad only":
            text = i18n.msg("no price: no {currency} price for {card} in the data, and a converted price from abroad "
                            "says little about a card that needs a US licence to reach China", currency=currency_words,
                            card=card.name)  # fmt: skip
        elif _is_module(card.name):
            text = i18n.msg("no price: no {currency} price of a complete server for {card} in the data (a module "
                            "is priced only with its server)", currency=currency_words, card=card.name)  # fmt: skip
        elif condition == "any":
            text = i18n.msg("no price: no {currency} price for {card} in the data", currency=currency_words,
                            card=card.name)  # fmt: skip
        else:
            text = i18n.msg("no price: no {condition} {currency} price for {card} in the data",
                            condition=Message(condition, context="condition"), currency=currency_words,
                            card=card.name)  # fmt: skip
        problems.append(("no_price", text))
    else:
        total = row["gpu_price"] if math.isnan(row["build_price"]) else row["build_price"]
        if budget is not None and total > budget:
            problems.append(
                (
                    "over_budget",
                    i18n.msg(
                        "over budget: {total:,.0f} {currency} > {budget:,.0f}",
                        total=total,
                        currency=currency_words,
                        budget=budget,
                    ),
                )
            )
        elif budget is not None and not row.get("network_priced", True):
            text = i18n.msg("no price: the network joining {servers} servers has no sourced {currency} price, so the "
                            "budget of {budget:,.0f} cannot be checked", servers=row["servers"],
                            currency=currency_words, budget=budget)  # fmt: skip
            problems.append(("no_price", text))
        elif budget is not None and not row.get("platform_priced", True):
            # the GPUs may fit the budget, but a server around them has no sourced price: the budget
            # cannot be checked, so the build is not offered as meeting it (without a budget it is listed)
            text = i18n.msg("no price: the server platform for {count} × {card} has no sourced {currency} price, "
                            "so the budget of {budget:,.0f} cannot be checked", count=count, card=card.name,
                            currency=currency_words, budget=budget)  # fmt: skip
            problems.append(("no_price", text))
    total = row["gpu_price"] if math.isnan(row.get("build_price", math.nan)) else row["build_price"]
    if "inference" in need and row.get("score", 0) > 0 and not math.isnan(total):
        per_hour = total / (OWNED_YEARS * HOURS_PER_YEAR * OWNED_UTILIZATION)  # the build's price per hour in use
        row["owned_per_million"] = per_hour / (row["score"] * 3600 / 1e6)
    if problems:
        row["status"] = problems[0][0]
        row["problems"] = tuple(code for code, _ in problems)
        row["why"] = _joined([text for _, text in problems])
    else:
        parts = _why(card, count, row, currency_words)
        if gpu_layers is not None:
            w = need["inference"]
            parts.insert(0, i18n.msg("partial offload: {gpu:d} of {layers:d} layers on the GPU (llama.cpp -ngl "
                                     "{gpu:d}), the rest in system RAM at {ram:,.0f} GB/s, about {speed:.1f} "
                                     "tokens/s per user (rough: the CPU's share is fitted on MoE expert offload, "
                                     "not measured for layers)",
                                     gpu=gpu_layers, layers=w["model"].layers, ram=system["ram_gbs"],
                                     speed=row["tokens_per_s_per_user"]))  # fmt: skip
        if not _speed_measured(card) and ("inference" in need or "pretrain" in need or "image" in need):
            parts.append(i18n.msg("speed from peak rates only: data/measurements.csv has no speed measured on "
                                  "{platform} hardware, so take it as a rough guide",
                                  platform=card.support))  # fmt: skip
        if stale:
            parts.append(price_note)
        if export is not None:
            parts.append(export[1])
        row["why"] = _joined(parts)
    return row


def _misfit(kind: str, memory: Any, need: Mapping[str, Any]) -> Message:
    """Why a part of the need (``kind``: inference, finetune, pretrain, image) does not fit: "does not fit: lora
    fine-tuning needs 30.1 GiB per GPU" (made only for a build it does not fit)."""
    work = {"image": i18n.msg("image generation"), "inference": i18n.msg("inference"),
            "pretrain": i18n.msg("pre-training")}.get(kind)  # fmt: skip
    if kind == "finetune":
        work = i18n.msg("{method} fine-tuning", method=need.get("finetune", {}).get("method", ""))
    return i18n.msg("does not fit: {work} needs {gib:.1f} GiB per GPU", work=work, gib=memory.per_gpu_gib)


@functools.lru_cache(maxsize=4096)
def _training_days(model: Model, card: GPU, tokens: float, count: int, precision: str) -> float:
    """Days to pre-train ``model`` on ``tokens`` with ``count`` × ``card`` (activation checkpointing): the same for
    a need and each of its compromises, which change only the inference formats, so computed once."""
    return training_time(model, card, tokens=tokens, gpus=count, precision=precision, recompute="full").days


def _partial_offload(card: GPU, count: int, need: Mapping[str, Any], memory: Mapping[str, Any],
                     headroom: float) -> tuple[int | None, Any]:  # fmt: skip
    """How many layers of the inference model fit on one card when the whole model does not, where the
    engine can run the others on the CPU (engines.csv ``layer_offload``), and the memory with that many;
    (None, None) when the fallback does not apply (the model fits, another part of the need does not,
    several cards, no layer fits)."""
    if "inference" not in need or count != 1 or card.unified_memory:
        return None, None
    misfit = [k for k, m in memory.items() if not m.fits(card, headroom=headroom)]
    w = need["inference"]
    if misfit != ["inference"] or not lookup_engine(w["engine"]).layer_offload:
        return None, None
    # the most layers that fit, by bisection (memory grows with the layers on the GPU)
    low, high, best = 1, w["model"].layers - 1, (None, None)
    while low <= high:
        mid = (low + high) // 2
        trial = _inference_memory(w, gpu_layers=mid)
        if trial.fits(card, headroom=headroom):
            low, best = mid + 1, (mid, trial)
        else:
            high = mid - 1
    return best


@functools.cache  # the catalog's prices do not change while the kit runs
def _rental(name: str, currency: str, market: str) -> Message | str:
    """The words ", or rent one: N per GPU-hour (date)" from the newest cloud price of card ``name`` in
    ``currency``; in China, a price of a cloud in China first (data/prices.csv ``region``)."""
    table = _cloud_prices()
    rows = table[(table["gpu"] == name) & (table["currency"] == currency)]
    if market == "china" and (rows["region"] == "China").any():
        rows = rows[rows["region"] == "China"]
    if rows.empty:
        return ""
    cloud = rows.sort_values("date", kind="stable").iloc[-1]
    return i18n.msg(", or rent one: {price:g} {currency} per GPU-hour ({date}, data/prices.csv)",
                    price=float(cloud["amount"]), currency=i18n.msg(currency),
                    date=str(cloud["date"])[:10])  # fmt: skip


@functools.cache
def _cloud_prices() -> pd.DataFrame:
    """The cloud-hourly rows of data/prices.csv, in the file's order (read once, not filtered again per card)."""
    table = price_table()
    return table[table["kind"] == "cloud-hourly"]


@functools.cache
def _measured_platforms() -> frozenset[str]:
    """The platforms (data/support.csv rows) of the cards that speed measurements in data/measurements.csv ran on."""
    table = load_table("measurements")
    rows = table[table["kind"].isin(SPEED_KINDS) & table["excluded_because"].isna()]
    found = set()
    for name in rows["gpu"].unique():
        try:
            found.add(lookup_gpu(name).support)
        except (LookupError, ValueError):
            continue
    return frozenset(found)


def _speed_measured(card: GPU) -> bool:
    """Whether the kit's speed model has seen a measurement on this card's platform (its support row)."""
    return card.support in _measured_platforms()


def _why(card: GPU, count: int, row: Mapping[str, Any], currency: Message) -> list[Message]:
    """Why a build meets the need: what it holds, how fast, what it costs, how its cards are linked."""
    spare = (card.memory_gib - row["per_gpu_gib"]) * count
    parts = [
        i18n.msg("{count} × {card} holds the work with {spare:.0f} GiB to spare", count=count, card=card.name,
                 spare=spare)
        if count == 1
        else i18n.msg("{count} × {card} hold the work with {spare:.0f} GiB to spare", count=count, card=card.name,
                      spare=spare)
    ]  # fmt: skip
    if not math.isnan(row.get("tokens_per_s_per_user", math.nan)) and math.isnan(row.get("gpu_layers", math.nan)):
        parts.append(i18n.msg("{speed:.0f} tokens/s per user", speed=row["tokens_per_s_per_user"]))
    if "days" in row:
        parts.append(i18n.msg("{days:,.1f} days of pre-training", days=row["days"]))
    if "images_per_hour" in row and not math.isnan(row.get("images_per_hour", math.nan)):
        parts.append(i18n.msg("{seconds:.1f} s per image, {images:,.0f} images per hour",
                              seconds=row["seconds_per_image"], images=row["images_per_hour"]))  # fmt: skip
    if row.get("ram_price"):
        parts.append(i18n.msg("{ram:,.0f} GB of RAM ({price:,.0f} {currency} of it for weights in CPU memory)",
                              ram=row["ram_gb"], price=row["ram_price"], currency=currency))  # fmt: skip
    if row["platform_priced"]:
        parts.append(i18n.msg("{price:,.0f} {currency}", price=row["build_price"], currency=currency))
    else:
        parts.append(i18n.msg("{price:,.0f} {currency} for the GPUs (no sourced server platform price)",
                              price=row["gpu_price"], currency=currency))  # fmt: skip
    servers = row.get("servers", 1)
    if servers > 1:
        parts.append(i18n.msg("{servers} servers of {each} GPUs: {link} inside each, {network} between them",
                              servers=servers, each=count // servers, link=default_link(card, gpus=count // servers),
                              network=row["network"]))  # fmt: skip
    elif count > 1:
        parts.append(i18n.msg("linked by {link}", link=row["link"]))
    return parts


def evaluate_scenario(name: str) -> dict[str, Any]:
    """Check the source's builds for scenario ``name`` (individual, team, company) against its own need.

    Returns the scenario rows, a per-build check (does each build hold the largest model it names
    for inference and LoRA fine-tuning, and pre-train its training size?), what the planner
    recommends today for the same need within 1.5 × the source's price (``today``), and, when no
    build meets it, the first of :data:`COMPROMISES` that the planner can meet (``compromise``:
    the change, the relaxed need and its plan; None otherwise).
    """
    table = scenarios()
    if not isinstance(name, str) or name not in set(table["scenario"]):
        known = ", ".join(sorted(set(table["scenario"])))
        raise LookupError(i18n.msg("name={name!r} is not a scenario; choose one of: {known}", name=name, known=known))
    rows = table[table["scenario"] == name]
    first = rows.iloc[0]
    size = float(first["infer_finetune_max_b"])

    def need_for(users: int) -> dict[str, Any]:
        return dict(
            inference=dict(model=size, weights="fp16", context=4096, users=users),
            finetune=dict(model=size, method="lora", context=2048),
            pretrain=dict(model=float(first["train_b"]), tokens=20 * float(first["train_b"]) * 1e9),
        )

    checks = []
    for row in rows.itertuples():
        verdicts = {}
        for users in (int(row.users_min), int(row.users_max)):
            plan = recommend(**need_for(users), cards=[row.gpu], gpu_counts=(int(row.gpu_count),), condition="any")
            reasons = [] if len(plan.builds) else _reasons(plan.failed.iloc[0])
            reasons = [text for code, text in reasons if code != "no_price"]  # the source priced its own builds
            verdicts[users] = _joined(reasons) if reasons else i18n.msg("meets the need")
        link = host_link(row.gpu, int(row.gpu_count), cpu=row.cpu_ref)
        checks.append(
            {
                "tier": row.tier,
                "build": f"{row.gpu_count} × {row.gpu}",
                "source_price_cny": row.price_cny,
                f"{int(row.users_min)} users": verdicts[int(row.users_min)],
                f"{int(row.users_max)} users": verdicts[int(row.users_max)],
                "host_link": i18n.msg("full link")
                if link is None or not link["limited"]
                else i18n.msg("{cpu}: {note}", cpu=row.cpu_ref, note=link["note"]),
            }
        )
    need = need_for(int(first["users_max"]))
    budget = float(rows["price_cny"].max()) * 1.5
    today = recommend(**need, budget=budget, condition="any")
    compromise = None
    if today.builds.empty:  # what a buyer would do next: fewer bytes per weight and per cached token
        for change, formats in COMPROMISES:
            relaxed = dict(need, inference=dict(need["inference"], **formats))
            plan = recommend(**relaxed, budget=budget, condition="any")
            if not plan.builds.empty:
                compromise = {"change": change, "need": relaxed, "plan": plan}
                break
    return {
        "scenario": rows,
        "need": need,
        "checks": pd.DataFrame(checks),
        "today": today,
        "compromise": compromise,
        "assumptions": tuple(dict.fromkeys(today.assumptions))
        + (i18n.msg("Pre-training uses 20 tokens per parameter (Chinchilla)."),),
    }


def _reasons(row: Mapping[str, Any]) -> list[tuple[str, Message | str]]:
    """A failed build's reasons as (code, message) pairs, in the order ``why`` says them."""
    why = row["why"]
    texts = why.fields["parts"] if isinstance(why, Message) else (why,)
    return list(zip(row["problems"], texts))


# When no build within the budget meets a scenario's whole need in fp16, the formats tried next, in
# order: 8-bit weights and KV cache (fp8 runs natively on Ada, Hopper and Blackwell; vLLM's
# --kv-cache-dtype fp8), then 4-bit AWQ weights, as serving deployments commonly do.
COMPROMISES = (
    (i18n.msg("with fp8 weights and an fp8 KV cache"), {"weights": "fp8", "kv": "fp8"}),
    (i18n.msg("with 4-bit AWQ weights and an fp8 KV cache"), {"weights": "awq-4bit-g128", "kv": "fp8"}),
)
