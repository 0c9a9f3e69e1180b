"""The guide's six tables, computed from the data, in English or Chinese, and styled for display.

:func:`guide_tables` returns the six tables the source material promises, each a DataFrame whose
``attrs`` carry its title and a caption (assumptions, price date, sources):

1. GPU performance ranking; 2. GPU value ranking; 3. parameters of popular cards;
4. hardware to train models of each size; 5. hardware to fine-tune and run them;
6. configurations for different needs.

:func:`style_table` turns any of them into a pandas Styler with a fixed table id, so notebook
outputs and exports are reproducible.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import html
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

from . import checks, i18n
from .catalog import export_status, gpu, model
from .i18n import N_, msg
from .memory import finetune_memory, inference_memory, training_memory
from .planner import evaluate_scenario
from .speed import training_time
from .value import INFERENCE_WORKLOAD, REFERENCE, TRAINING_WORKLOAD, rank_gpus, value_ranking

__all__ = ["POPULAR_GPUS", "SIZES", "guide_tables", "style_table"]

POPULAR_GPUS = [
    "RTX 2080 Ti",
    "RTX 2080 Ti 22GB",
    "RTX 3090",
    "RTX 4080",
    "RTX 4090",
    "RTX 5090",
    "RTX A6000",
    "L20",
    "L40S",
    "A100 PCIe 40GB",
    "A100 SXM4 80GB",
    "A800 SXM4 80GB",
    "H20",
    "H100 SXM",
    "H200 SXM",
    "B200",
]
# Model sizes of the guide's tables and the catalog model that stands for each (dense, decoder-only).
SIZES = {
    "0.5B": "Qwen2.5-0.5B",
    "1.5B": "Qwen2.5-1.5B",
    "3B": "Llama-3.2-3B",
    "7B": "Llama-2-7B",
    "13B": "Llama-2-13B",
    "34B": "Yi-34B",
    "70B": "Llama-2-70B",
}
CARD_CLASSES = ["RTX 4090", "L20", "A100 SXM4 80GB", "H100 SXM"]  # 24, 48, 80 GiB (and a faster 80 GiB)
COUNTS = (1, 2, 4, 8)


# The tables' titles, in order (rendered in the table's language by :func:`guide_tables`).
TITLES = (
    N_("1. GPU performance ranking"),
    N_("2. GPU value ranking"),
    N_("3. Parameters of popular GPUs"),
    N_("4. Hardware to train models of each size"),
    N_("5. Hardware to fine-tune and run models of each size"),
    N_("6. Configurations for different needs"),
)


def _count_for(mem_at: dict[int, Any], card: str) -> str:
    for count in COUNTS:
        if mem_at[count].fits(card):
            return f"{count} ×"
    return "> 8"


def _smallest_card(mem: Any) -> str | i18n.Message:
    from .catalog import gpus

    table = gpus().dropna(subset=["fp16_tflops"]).sort_values(["memory_gib", "msrp_usd"])
    for name, memory in zip(table["name"], table["memory_gib"]):
        if mem.per_gpu_bytes <= memory * 2**30 * 0.9:
            return f"{name} ({memory:g} GiB)"
    return msg("none: needs several GPUs")


# The tables below are pure functions of the committed data (and of the day, where prices or export
# controls enter), so each is computed once per process and argument: repeated calls to
# :func:`guide_tables`, in either language, reuse them. They are never changed in place (guide_tables
# renders copies).


@functools.cache
def _performance() -> pd.DataFrame:
    inf = rank_gpus("inference").set_index("gpu")
    trn = rank_gpus("training").set_index("gpu")
    rows = []
    for name in inf.index:
        g = gpu(name)
        rows.append(
            {
                "gpu": name,
                "inference_score": inf.loc[name, "score"],
                "training_score": trn.loc[name, "score"],
                "memory_gib": g.memory_gib,
                "bandwidth_gbs": g.bandwidth_gbs,
                "bf16_tflops": g.bf16_tflops,
                "fits_inference": inf.loc[name, "fits"],
            }
        )
    frame = pd.DataFrame(rows)
    w, t = INFERENCE_WORKLOAD, TRAINING_WORKLOAD
    frame.attrs["caption"] = msg(
        "Scores relative to the {reference} (= 100). Inference: {model} in {weights}, {tokens:,}-token context, "
        "geometric mean of 1-user and {batch}-user decode speed; training: {training_model} bf16 mixed-precision "
        "AdamW, one GPU's training tokens/s with the fitted training factors (mostly dense BF16 TFLOPS, some memory "
        "bandwidth). Speed factors fitted by benchmarks/fit.py to published engine, vendor and framework benchmarks "
        "(data/measurements.csv).",
        reference=REFERENCE, model=w["model"], weights=w["weights"], tokens=w["context"], batch=w["batch"],
        training_model=t["model"],
    )  # fmt: skip
    return frame


def _value(currency: str, as_of: _dt.date | None = None, lang: str = "en") -> pd.DataFrame:
    # without a day the ranking prices as of today: today is part of what the cached table depends on
    return _value_on(currency, as_of, lang, _dt.date.today() if as_of is None else None)


@functools.lru_cache(maxsize=16)
def _value_on(currency: str, as_of: _dt.date | None, lang: str, today: _dt.date | None) -> pd.DataFrame:
    inf = value_ranking("inference", currency=currency, as_of=as_of, condition="any")
    trn = value_ranking("training", currency=currency, as_of=as_of, condition="any").set_index("gpu")
    day = inf.attrs.get("workload", {}).get("as_of") or str(as_of or _dt.date.today())
    frame = inf[["gpu", "score", "fits", "price", "price_kind", "price_date", "score_per_1000"]].copy()
    frame.insert(2, "training_score", frame["gpu"].map(trn["score"]))
    frame["training_per_1000"] = frame["gpu"].map(trn["score_per_1000"])
    frame["china_export"] = [export_status(g, as_of=day, lang=lang)["label"] for g in frame["gpu"]]
    dates = [d for d in frame["price_date"] if d is not None]
    span = msg("{first} to {last}", first=min(dates), last=max(dates)) if dates else msg("none")
    frame.attrs["caption"] = msg(
        "Score per 1,000 {currency}: inference and training scores of table 1 divided by the latest price in the "
        "36 months up to {day} in data/prices.csv (new, used or estimate; the price_kind column says which). Price "
        "dates {span}. A card priced only in the other currency is converted at the CFETS central parity of the "
        "price's date (data/fx.csv), and price_kind shows the original. SXM/OAM modules count only with a whole "
        "server's price per GPU. Cards the inference workload fits come first (fits column), cards with no price "
        "last in each group. china_export: export controls for China on that day (data/export_controls.csv); while a "
        "US licence is required, a new card reaches China only outside NVIDIA's licensed channels.",
        currency=msg(currency), day=day, span=span,
    )  # fmt: skip
    return frame


@functools.cache
def _parameters() -> pd.DataFrame:
    columns = [
        "architecture",
        "year",
        "memory_gib",
        "memory_type",
        "bandwidth_gbs",
        "fp16_tflops",
        "bf16_tflops",
        "fp8_tflops",
        "tdp_w",
        "nvlink_gbs",
        "msrp_usd",
    ]
    rows = [{"gpu": n, **{c: getattr(gpu(n), c) for c in columns}} for n in POPULAR_GPUS]
    frame = pd.DataFrame(rows)
    frame.attrs["caption"] = msg(
        "Dense Tensor TFLOPS with FP32 accumulation (no sparsity); memory in GiB as marketed; NVLink total of both "
        "directions. Sources per card in data/gpus.csv."
    )
    return frame


@functools.cache
def _training() -> pd.DataFrame:
    rows = []
    for size, name in SIZES.items():
        m = model(name)
        for precision in ("bf16-mixed", "bf16"):
            mem_at = {
                c: training_memory(
                    m, precision=precision, batch=1, context=2048, gpus=c, zero=3 if c > 1 else 0, recompute="full"
                )
                for c in COUNTS
            }
            row: dict[str, Any] = {
                "size": size,
                "model": name,
                "precision": precision,
                "memory_1gpu_gib": mem_at[1].per_gpu_gib,
            }
            for card in CARD_CLASSES:
                row[card] = _count_for(mem_at, card)
            days = training_time(
                m,
                "H100 SXM",
                tokens=20 * m.params_total_b * 1e9 if m.params_total_b else 20 * 1e9,
                gpus=8,
                precision="bf16",
                recompute="full",
            ).days
            row["days_8x_h100"] = days
            rows.append(row)
    frame = pd.DataFrame(rows)
    frame.attrs["caption"] = msg(
        "Fewest cards (1, 2, 4 or 8; ZeRO-3 / FSDP sharding, activation checkpointing, micro-batch 1 × 2,048 tokens, "
        "AdamW; bf16-mixed keeps fp32 master weights and moments, 16 bytes per parameter, pure bf16 8) whose memory "
        "holds training with 10% headroom; '> 8' needs more than one server. Days: 20 tokens "
        "per parameter (Chinchilla) on 8 × H100 SXM at the fitted MFU. Each size is represented by the named model."
    )
    return frame


@functools.cache
def _finetune_inference() -> pd.DataFrame:
    rows = []
    for size, name in SIZES.items():
        m = model(name)
        inf = {f: inference_memory(m, weights=f, context=4096) for f in ("fp16", "int8", "int4")}
        lora = finetune_memory(m, method="lora", recompute="full")
        qlora = finetune_memory(m, method="qlora", recompute="full")
        full = finetune_memory(m, method="full", recompute="full")
        rows.append(
            {
                "size": size,
                "model": name,
                "inference_fp16_gib": inf["fp16"].per_gpu_gib,
                "inference_int8_gib": inf["int8"].per_gpu_gib,
                "inference_int4_gib": inf["int4"].per_gpu_gib,
                "lora_gib": lora.per_gpu_gib,
                "qlora_gib": qlora.per_gpu_gib,
                "full_finetune_gib": full.per_gpu_gib,
                "smallest_card_int4": _smallest_card(inf["int4"]),
                "smallest_card_qlora": _smallest_card(qlora),
            }
        )
    frame = pd.DataFrame(rows)
    frame.attrs["caption"] = msg(
        "One GPU. Inference: batch 1, 4,096-token context, transformers runtime; int8/int4 = every weight at 8/4 bits. "
        "Fine-tuning: micro-batch 1 × 2,048 tokens with activation checkpointing; LoRA rank 16 on all linear layers "
        "over a bf16 base, QLoRA over an NF4 base; full = bf16 mixed-precision AdamW. Smallest card: least memory "
        "that holds it with 10% headroom."
    )
    return frame


def _users(count: int) -> i18n.Message:
    """ "1 user", "5 users"."""
    return msg("{count} user", count=count) if count == 1 else msg("{count} users", count=count)


def _cheapest(builds: pd.DataFrame) -> i18n.Message | None:
    """The planner's cheapest build as "4 × L20, 140,000 CNY", or None when there is none."""
    if builds.empty:
        return None
    best = builds.iloc[0]
    if best["platform_priced"]:
        return msg("{count} × {gpu}, {price:,.0f} CNY", count=int(best["gpus"]), gpu=best["gpu"],
                   price=best["build_price"])  # fmt: skip
    return msg("{count} × {gpu}, GPUs {price:,.0f} CNY (server platform not priced)", count=int(best["gpus"]),
               gpu=best["gpu"], price=best["gpu_price"])  # fmt: skip


def _words(value: object, lang: str, context: str = "value") -> object:
    """A planner's verdict or change in ``lang``: a message rendered; a marked phrase (``N_``) or a code labelled."""
    if not isinstance(value, str):
        return i18n.render(value, lang)
    if (None, value) in i18n.catalog(lang):
        return i18n.text(value, lang)
    return i18n.label(value, lang, context=context)


@functools.lru_cache(maxsize=4)
def _scenario_results(today: _dt.date) -> tuple[dict[str, Any], ...]:
    """:func:`evaluate_scenario` of the three scenarios, priced as of ``today`` (the planner prices builds with
    the prices of the months before today); the same in every language."""
    return tuple(evaluate_scenario(scenario) for scenario in ("individual", "team", "company"))


def _configurations(lang: str) -> pd.DataFrame:
    return _configurations_on(lang, _dt.date.today())


@functools.lru_cache(maxsize=8)
def _configurations_on(lang: str, on: _dt.date) -> pd.DataFrame:
    rows = []
    for result in _scenario_results(on):
        checks = result["checks"].to_dict("records")
        today = _cheapest(result["today"].builds)
        if today is None:
            today = msg("none meets the whole need")
            if result["compromise"] is not None:
                today = msg("none meets the whole need; {change}: {build}",
                            change=_words(result["compromise"]["change"], lang),
                            build=_cheapest(result["compromise"]["plan"].builds))  # fmt: skip
        for row, check in zip(result["scenario"].itertuples(), checks):
            verdicts = [check[c] for c in check if c.endswith("users")]  # fewest users, then most
            rows.append(
                {
                    "scenario": row.name_zh if lang == "zh" else row.name_en,
                    "tier": row.tier,
                    "source_build": msg(
                        "{count} × {gpu}, {cpu}, {ram:g} GB RAM, {disk:g} TB",
                        count=row.gpu_count,
                        gpu=row.gpu,
                        cpu=i18n.label(row.cpu, lang, context="cpu"),
                        ram=row.ram_gb,
                        disk=row.disk_tb,
                    ),  # fmt: skip
                    "source_price_cny": row.price_cny,
                    "check_min_users": msg(
                        "{users}: {verdict}", users=_users(int(row.users_min)), verdict=_words(verdicts[0], lang)
                    ),  # fmt: skip
                    "check_max_users": msg(
                        "{users}: {verdict}", users=_users(int(row.users_max)), verdict=_words(verdicts[1], lang)
                    ),  # fmt: skip
                    "today": today,
                }
            )
    frame = pd.DataFrame(rows)
    frame.attrs["caption"] = msg(
        "The source material's builds checked against its own needs (largest model in fp16 for inference at the "
        "fewest and most users, 4,096-token context; LoRA fine-tuning; pre-training its training size on 20 tokens "
        "per parameter), and the cheapest build the planner finds today for the same need within 1.5 × the source's "
        "price (prices in CNY from data/prices.csv, any condition, USD prices converted at the CFETS rate where a "
        "card has no recent CNY price); where none meets it, the cheapest with 8-bit or 4-bit formats."
    )
    return frame


# Columns whose Chinese header names the currency (per 1,000 yuan or dollars); their labels are these messages.
_PER_1000 = {
    "score_per_1000": N_("Inference score per 1,000 {currency}"),
    "training_per_1000": N_("Training score per 1,000 {currency}"),
}


def _header(column: object, lang: str, currency: str) -> object:
    """A guide table's header in ``lang``: the machine name in English, the column's label in Chinese."""
    if lang == "en":
        return column
    if column in _PER_1000:
        return i18n.text(_PER_1000[column], lang, currency=i18n.text(currency, lang))
    return i18n.label(column, lang)


def _cells(table: pd.DataFrame, lang: str) -> pd.DataFrame:
    """``table`` with its messages rendered and its codes labelled in ``lang``; numbers untouched."""
    out = table.copy()
    for position, name in enumerate(table.columns):
        column = table.iloc[:, position]
        if pd.api.types.is_numeric_dtype(column):
            continue
        out.isetitem(position, column.map(
            lambda v, name=name: i18n.render(v, lang) if isinstance(v, i18n.Message)
            else i18n.label(v, lang, context=str(name)) if isinstance(v, str) else v))  # fmt: skip
    return out


def guide_tables(lang: str | None = None, *, currency: str = "CNY", as_of: str | _dt.date | None = None,
                 ) -> list[pd.DataFrame]:  # fmt: skip
    """The six guide tables; ``lang="zh"`` gives Chinese headers, titles and labels (None: the
    language set by ``hg.setup``, English until one is set).

    ``as_of`` (``YYYY-MM-DD`` or a :class:`datetime.date`) prices the value table with the latest
    price on or before that day (default: today). Raises ValueError for an unknown ``lang`` or
    ``currency`` or a malformed date.

    Each table's ``attrs``: ``title``, ``caption`` and ``lang`` (text in that language), and
    ``columns``, the machine name of each shown header (in Chinese, the label of ``memory_gib`` maps to
    ``"memory_gib"``).
    """
    lang = i18n.resolve(lang)
    currency = checks.currency(currency)
    from .value import price_day

    day = None if as_of is None else price_day(as_of)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # contexts beyond a model's maximum are expected in sweeps
        tables = [
            _performance(),
            _value(currency, day, lang),
            _parameters(),
            _training(),
            _finetune_inference(),
            _configurations(lang),
        ]
    out = []
    for table, title in zip(tables, TITLES):
        caption = i18n.render(table.attrs["caption"], lang)
        headers = {c: _header(c, lang, currency) for c in table.columns}
        table = _cells(table, lang).rename(columns=headers)
        table.attrs = {"title": i18n.text(title, lang), "caption": caption, "lang": lang,
                       "columns": {shown: name for name, shown in headers.items()}}  # fmt: skip
        out.append(table)
    return out


# What an empty price cell of a guide table says ("no price", labelled in the table's language). Other
# empty cells stay blank: there an empty figure may mean "not published" or "not supported" (V100 has
# no BF16), which the table alone cannot tell apart.
NO_PRICE = "no price"


def style_table(table: pd.DataFrame, *, digits: int = 1, title: bool = True, empty: str | None = None) -> Styler:
    """A readable Styler for a guide table: title and caption, no index, numbers rounded, fixed id.

    Text is HTML-escaped. ``digits`` (0 to 12) is the decimals shown; ``title=False`` leaves the
    title out of the caption (when a page heading already carries it). ``empty`` is what an empty
    cell says ("not published", say, shown in the language of ``hg.setup``); by default a guide
    table's price cells say "no price" and other empty cells stay blank.
    """
    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"table must be a pandas DataFrame (one of guide_tables()), not {type(table).__name__}")
    digits = checks.whole(digits, "digits", low=0)
    title = checks.flag(title, "title")
    if "lang" not in table.attrs:  # not a guide table: its columns and codes in the reader's words
        table = i18n.labelled(table, columns=i18n.language() != "en")
    heading = str(table.attrs.get("title", "table"))
    uid = "hwguide-" + hashlib.sha1(heading.encode("utf-8")).hexdigest()[:8]
    numeric = [c for c in table.columns if pd.api.types.is_float_dtype(table[c])]

    names = table.attrs.get("columns", {})  # a guide table's machine names of its shown headers

    def places(column: object) -> int:
        # money without decimals; other figures with ``digits`` unless whole (see fmt_for)
        money = any(word in f"{column} {names.get(column, column)}".lower() for word in ("price", "cny", "usd"))
        return 0 if money else digits

    lang = table.attrs.get("lang")  # a guide table says what an empty cell means; another stays blank
    if empty is not None and not isinstance(empty, str):
        raise ValueError(f"empty must be the text of an empty cell, such as 'not published', not {empty!r}")
    marker = None if empty is None else i18n.text(empty)

    def empty(column: object) -> str:
        if marker is not None:
            return marker
        name = f"{column} {names.get(column, column)}".lower()  # the header shown, and its machine name
        priced = any(word in name for word in ("price", "per_1000", "per 1,000"))
        return i18n.label(NO_PRICE, lang, context="value") if priced and lang in i18n.LANGUAGES else ""

    def fmt_for(column: object) -> Callable[[float], str]:
        # a whole number without a ".0", each on its own: 8,000 GB/s and 700 W beside 716.8 GB/s and 62.5 W
        n, blank = places(column), empty(column)
        return lambda value: (
            blank if value is None or pd.isna(value)
            else f"{value:,.0f}" if abs(value - round(value)) < 1e-9 else f"{value:,.{n}f}"
        )  # fmt: skip

    text = [c for c in table.columns if c not in numeric]
    styler = table.style.set_uuid(uid).hide(axis="index").format({c: fmt_for(c) for c in numeric})
    for column in text:
        styler = styler.format(escape="html", subset=[column], na_rep=empty(column))
    if text:  # words read from the left; numbers stay right-aligned for comparing digits
        styler = styler.set_properties(subset=text, **{"text-align": "left"})
    styler = styler.format_index(escape="html", axis=1)
    caption = f"<small>{html.escape(str(table.attrs.get('caption', '')))}</small>"
    if title:
        caption = f"<b>{html.escape(heading)}</b><br>{caption}"
    return styler.set_caption(caption).set_table_styles(
        [{"selector": "caption", "props": "caption-side: top; text-align: left;"}], overwrite=False
    )
