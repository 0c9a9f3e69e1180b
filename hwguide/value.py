"""Rankings, value for money, two-card comparisons and what a card's name means.

Every ranking comes from a stated reference workload run through the speed and memory models,
so the reader can see (and change) what a score means:

* inference: Llama-3.1-8B in fp16 with a 4,096-token context, decoded for one user and for a
  batch of 32 users; the score is the geometric mean of the two speeds;
* training: bf16 mixed-precision AdamW training of Qwen2.5-1.5B (a 1B-class model), micro-batch
  1 × 2,048 tokens with activation checkpointing; the score is one GPU's training tokens/s with
  the fitted training factors (Tensor work at a fitted utilisation plus memory-bound element-wise
  work, :func:`hwguide.speed.training_token_seconds`): dense BF16 (or FP16) TFLOPS matter most,
  bandwidth too; links between GPUs are not in this score.

Scores are relative to a reference card (100 = the reference). Value = score per 1,000 units of
currency, from the dated observations in data/prices.csv (or prices you pass).
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from . import checks, i18n
from .catalog import GPU, cny_per, export_status, gpus, lookup_gpu, lookup_model
from .catalog import prices as price_table
from .i18n import N_, Message
from .memory import inference_memory, training_memory
from .speed import decode_tokens_per_s, training_tokens_per_s

__all__ = ["INFERENCE_WORKLOAD", "TRAINING_WORKLOAD", "compare", "decode_name", "rank_gpus", "value_ranking"]

INFERENCE_WORKLOAD: dict[str, Any] = dict(model="Llama-3.1-8B", weights="fp16", context=4096, batch=32,
                                          engine="vllm")  # fmt: skip
TRAINING_WORKLOAD: dict[str, Any] = dict(model="Qwen2.5-1.5B", batch=1, context=2048, recompute="full",
                                         engine="megatron")  # fmt: skip
REFERENCE = "A100 SXM4 80GB"
# Whether a ranking's workload fits a card (the ``fits`` column): codes; their words are in the catalog
# (msgctxt "fits"). "" for a card that cannot be scored.
FITS = ("yes", "one_user_only", "does_not_fit")


def _once(memo: dict[Any, Any], key: Any, compute: Callable[[], Any]) -> Any:
    """``compute()`` the first time ``key`` is asked for in ``memo``, the same answer after (an error is not kept:
    it is raised again for the next card, as before)."""
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def _score_inference(card: GPU, w: Mapping[str, Any], memo: dict[Any, Any]) -> dict[str, Any]:
    kw = dict(weights=w["weights"], context=w["context"], engine=w["engine"])
    single = decode_tokens_per_s(w["model"], card, batch=1, **kw)
    many = decode_tokens_per_s(w["model"], card, batch=w["batch"], **kw)
    # the workload's memory does not depend on the card: computed once per ranking, checked against each card
    one_fits = _once(memo, 1, lambda: inference_memory(w["model"], batch=1, **kw)).fits(card)
    all_fit = _once(memo, w["batch"], lambda: inference_memory(w["model"], batch=w["batch"], **kw)).fits(card)
    fits = "yes" if all_fit else ("one_user_only" if one_fits else "does_not_fit")
    return {"tokens_per_s_1_user": single, f"tokens_per_s_{w['batch']}_users": many,
            "raw": math.sqrt(single * many), "fits": fits}  # fmt: skip


def _score_training(card: GPU, w: Mapping[str, Any], memo: dict[Any, Any]) -> dict[str, Any]:
    m = lookup_model(w["model"], "workload")
    precision = "bf16" if card.bf16_tflops else "fp16"
    tokens_per_s = training_tokens_per_s(m, card, context=w["context"], precision=precision,
                                         recompute=w.get("recompute", "none"), engine=w["engine"])  # fmt: skip
    memory = _once(memo, precision, lambda: training_memory(
        m, batch=w["batch"], context=w["context"], recompute=w.get("recompute", "none"),
        precision="bf16-mixed" if precision == "bf16" else "fp16-mixed"))  # fmt: skip
    fits = memory.fits(card)
    return {"precision": precision, "training_tokens_per_s": tokens_per_s, "raw": tokens_per_s,
            "fits": "yes" if fits else "does_not_fit"}  # fmt: skip


def _workload(task: str, workload: object) -> dict[str, Any]:
    base = INFERENCE_WORKLOAD if task == "inference" else TRAINING_WORKLOAD
    if workload is None:
        return dict(base)
    if not isinstance(workload, Mapping):
        raise ValueError(i18n.msg("workload must be a dict such as dict(model='Qwen2.5-7B'), not {workload!r}",
                                  workload=workload))  # fmt: skip
    unknown = sorted(set(workload) - set(base))
    if unknown:
        raise ValueError(i18n.msg("workload: unknown keys {unknown}; use {known}", unknown=unknown,
                                  known=sorted(base)))  # fmt: skip
    return {**base, **workload}


def rank_gpus(
    task: str = "inference",
    *,
    workload: Mapping[str, Any] | None = None,
    reference: str = REFERENCE,
    cards: list[str] | None = None,
) -> pd.DataFrame:
    """Cards ranked by speed on a reference workload; ``score`` is 100 for ``reference``.

    ``workload`` overrides the defaults (:data:`INFERENCE_WORKLOAD`, :data:`TRAINING_WORKLOAD`).
    Cards lacking a figure the model needs (e.g. the A10G's unpublished Tensor rate) are listed
    with the reason instead of a score (``note``, a message). The ``fits`` column says whether the workload
    fits the card's memory (10% headroom), as a code of :data:`FITS`.
    """
    task = checks.choice(task, "task", ("inference", "training"))
    if workload is None and reference == REFERENCE and cards is None:  # the guide's ranking: computed once
        return _standard_ranking(task).copy()
    return _ranking(task, workload=workload, reference=reference, cards=cards)


@functools.cache
def _standard_ranking(task: str) -> pd.DataFrame:
    """:func:`rank_gpus` of the whole catalog on the reference workload and card (a pure function of the data)."""
    return _ranking(task, workload=None, reference=REFERENCE, cards=None)


def _ranking(task: str, *, workload: Mapping[str, Any] | None, reference: str, cards: list[str] | None,
             ) -> pd.DataFrame:  # fmt: skip
    w = _workload(task, workload)
    scorer = _score_inference if task == "inference" else _score_training
    names = checks.names(cards, "cards") if cards is not None else list(gpus()["name"])
    chosen = [lookup_gpu(name, "cards") for name in names]
    ref_card = lookup_gpu(reference, "reference")
    memo: dict[Any, Any] = {}  # the workload's memory, the same for every card
    try:
        ref_raw = scorer(ref_card, w, memo)["raw"]
    except ValueError as err:
        raise ValueError(
            i18n.msg("reference={reference!r} cannot be scored: {error}", reference=reference, error=_said(err))
        ) from None
    rows = []
    for card in chosen:
        try:
            rows.append({"gpu": card.name, **scorer(card, w, memo), "note": ""})
        except ValueError as err:
            rows.append({"gpu": card.name, "raw": math.nan, "fits": "", "note": _said(err)})
    frame = pd.DataFrame(rows)
    frame.insert(1, "score", 100 * frame.pop("raw") / ref_raw)
    frame = frame.sort_values("score", ascending=False, na_position="last").reset_index(drop=True)
    frame.attrs["workload"] = dict(w, task=task, reference=ref_card.name)
    return frame


def _said(err: Exception) -> Message | str:
    """What an error says: its message (rendered when shown), or its text."""
    return err.args[0] if err.args and isinstance(err.args[0], Message) else str(err)


_CONDITION_KINDS = {
    "new": ("street-new", "estimate-new", "msrp"),
    "used": ("street-used", "estimate-used"),
    "any": ("street-new", "street-used", "estimate-new", "estimate-used", "msrp"),
    # a whole server's price divided by its GPUs: SXM modules are sold only that way
    "server": ("server-share",),
}
PRICE_COLUMNS = ("gpu", "date", "currency", "amount", "kind")


def price_day(value: object, name: str = "as_of") -> _dt.date:
    """``value`` as the day to price cards on: a date (``YYYY-MM-DD``) from the first price on record
    (data/prices.csv) to today. A day outside that span would price nothing, and a handout would come out
    with no prices and no word why: a mistyped year gets a clear error instead."""
    day = checks.date(value, name)
    first, today = _first_price_day(), _dt.date.today()
    if not first <= day <= today:
        raise ValueError(i18n.msg("{name}={value!r}: prices are on record from {first} to today ({today}); choose a "
                                  "day in between", name=name, value=str(value), first=first, today=today))  # fmt: skip
    return day


@functools.cache
def _first_price_day() -> _dt.date:
    from .catalog import prices

    return min(prices()["date"])


def price_rows(prices: pd.DataFrame | Mapping[str, float] | None, currency: str) -> pd.DataFrame:
    """The price observations to use: the catalog's, or yours as a {gpu: amount} dict in ``currency``
    (dated today; for an SXM/OAM module, the price per GPU of a complete server) or a DataFrame shaped like
    data/prices.csv."""
    if prices is None:
        return price_table()
    if isinstance(prices, Mapping):
        if not prices:
            raise ValueError(i18n.msg("prices is empty: give {pairs} pairs, or leave prices=None for the catalog's",
                                      pairs="{gpu: amount}"))  # fmt: skip
        rows = []
        for name, amount in prices.items():
            card = lookup_gpu(name, "prices")
            amount = checks.number(amount, f"prices[{name!r}]", open_low=True, high=1e12, unit=currency)
            kind = "server-share" if _is_module(card.name) else "street-new"  # a module's price: its server's share
            rows.append({"gpu": card.name, "date": _dt.date.today(), "currency": currency, "amount": amount,
                         "kind": kind, "region": "user", "source": "your price", "notes": ""})  # fmt: skip
        return pd.DataFrame(rows)
    if isinstance(prices, pd.DataFrame):
        missing = [c for c in PRICE_COLUMNS if c not in prices.columns]
        if missing:
            raise ValueError(i18n.msg("prices: the DataFrame lacks columns {missing}; shape it like data/prices.csv",
                                      missing=missing))  # fmt: skip
        frame = prices.copy()
        frame["gpu"] = [lookup_gpu(n, "prices").name for n in frame["gpu"]]
        frame["date"] = [checks.date(d, "prices date") for d in frame["date"]]
        frame["amount"] = [checks.number(a, "prices amount", open_low=True, high=1e12) for a in frame["amount"]]
        return frame
    raise ValueError(i18n.msg("prices must be a {{gpu: amount}} dict or a DataFrame like data/prices.csv, not "
                              "{prices!r}", prices=prices))  # fmt: skip


def latest_prices(table: pd.DataFrame, currency: str, condition: str, as_of: _dt.date | None = None) -> pd.DataFrame:
    """Each card's chosen price row (indexed by gpu): in ``currency``, the first kind in
    ``_CONDITION_KINDS[condition]`` it has, latest date first; only dates on or before ``as_of``."""
    kinds = _CONDITION_KINDS[condition]
    rows = table[(table["currency"] == currency) & table["kind"].isin(kinds)]
    if as_of is not None:
        rows = rows[rows["date"] <= as_of]
    rows = rows.assign(tier=rows["kind"].map({k: i for i, k in enumerate(kinds)}))
    rows = rows.sort_values(["tier", "date"], ascending=[True, False], kind="stable")
    return rows.drop_duplicates("gpu").set_index("gpu")


STALE_MONTHS = 12  # a price older than this before the ranking's date is marked stale


def _months_before(day: _dt.date, months: int) -> _dt.date:
    year, month = divmod(day.year * 12 + day.month - 1 - months, 12)
    return _dt.date(year, month + 1, min(day.day, 28))


def priced(
    table: pd.DataFrame, currency: str, condition: str, as_of: _dt.date | None = None, *, convert: bool = True
) -> pd.DataFrame:
    """Each card's chosen price (:func:`latest_prices`) in ``currency``, indexed by gpu.

    With ``convert``, a card priced only in the other currency gets that price converted at the
    CFETS central parity of the price's date (data/fx.csv). A price in ``currency`` wins even when
    older: a Chinese shop price says more about buying in China than a converted US one (for
    export-controlled cards the two differ most). Columns: ``amount`` (in ``currency``), ``kind``,
    ``date``, ``source``, ``converted`` and ``label``, which names the observation and any
    conversion: the kind's code ("street-new"), or a message for a converted price
    ("street-used (USD 1,207 × 6.984, 2026-01-26)", the kind in the reader's words).
    """
    table = on_sale_only(table, as_of)
    own = latest_prices(table, currency, condition, as_of).assign(converted=False)
    own["label"] = own["kind"]
    if not convert:
        return own
    other = "USD" if currency == "CNY" else "CNY"
    abroad = latest_prices(table, other, condition, as_of)
    rows = []
    for gpu, row in abroad[~abroad.index.isin(own.index)].iterrows():
        rate_from, on = cny_per(other, row["date"])
        rate_to, _ = cny_per(currency, row["date"])
        rate = rate_from / rate_to
        label = i18n.msg("{kind} ({currency} {amount:,.0f} × {rate:.4g}, {date})",
                         kind=Message(str(row["kind"]), context="value"), currency=i18n.msg(other),
                         amount=float(row["amount"]), rate=rate, date=str(on))  # fmt: skip
        amount = float(row["amount"]) * rate
        rows.append(row.to_dict() | {"gpu": gpu, "amount": amount, "converted": True, "label": label})
    return pd.concat([own, pd.DataFrame(rows).set_index("gpu")]) if rows else own


ESTIMATE_KINDS = ("estimate-new", "estimate-used")
SHOP_KINDS = ("street-new", "street-used")


def on_sale_only(table: pd.DataFrame, as_of: _dt.date | None = None) -> pd.DataFrame:
    """The price rows less every estimate made before a card went on sale.

    An estimate (``estimate-new``, ``estimate-used``) is dropped when the same card has a shop price
    (``street-new`` or ``street-used``, in any currency or region) dated after it and on or before ``as_of``:
    once a card is on sale, a pre-launch guess no longer prices it (the RTX 5090's 15,499 CNY estimate of
    January 2025, for a card that sold in the US from that month and in China as the 5090 D).
    """
    shops = table[table["kind"].isin(SHOP_KINDS)]
    if as_of is not None:
        shops = shops[shops["date"] <= as_of]
    last_shop = shops.groupby("gpu")["date"].max().to_dict()
    superseded = [kind in ESTIMATE_KINDS and gpu in last_shop and last_shop[gpu] > day
                  for gpu, kind, day in zip(table["gpu"], table["kind"], table["date"])]  # fmt: skip
    return table[[not s for s in superseded]]


def is_module(card: str | GPU) -> bool:
    """Whether ``card`` is a module that comes only in a server (SXM, OAM, a superchip, Huawei's server modules):
    one is not bought alone, so its price is a whole server's share per GPU (data/prices.csv ``server-share``)."""
    return _is_module(lookup_gpu(card, "card").name)


@functools.cache  # a pure function of the catalog's form_factor column
def _is_module(name: str) -> bool:
    """An SXM, OAM or superchip module, or another server module (Huawei's Ascend NPUs): sold on a server board,
    so its card price leaves the platform out."""
    form = (lookup_gpu(name, "gpu").form_factor or "").upper()
    return form.startswith(("SXM", "OAM")) or "MODULE" in form


def value_ranking(
    task: str = "inference",
    *,
    currency: str = "CNY",
    as_of: str | _dt.date | None = None,
    prices: pd.DataFrame | Mapping[str, float] | None = None,
    condition: str = "new",
    workload: Mapping[str, Any] | None = None,
    reference: str = REFERENCE,
    window_months: int = 36,
    convert: bool = True,
) -> pd.DataFrame:
    """Cards ranked by score per 1,000 units of ``currency`` (CNY or USD).

    The price of each card is its latest observation in the ``window_months`` before ``as_of``
    (YYYY-MM-DD; default: today) in ``currency`` whose kind matches ``condition``: "new"
    (street-new, then estimate-new, then the launch MSRP), "used" (street-used, estimate-used),
    "any", or "server" (a complete server's price per GPU). A card with no such price in
    ``currency`` but one in the other currency is shown with it converted at the CFETS central
    parity of the price's date (data/fx.csv), when ``convert`` (``converted`` says so, and
    ``price_kind`` gives the original). A price older than 12 months before ``as_of`` is marked
    ``stale``. SXM/OAM modules and superchips are valued only with a server-share price (a whole
    server's price per GPU, platform included), never with a bare module's. Cards the workload does
    not fit rank after those it fits (``fits``, a code of :data:`FITS`). Pass ``prices`` as a {gpu: amount}
    dict or a DataFrame shaped like data/prices.csv to use your own. Cards with no price are kept, their
    ``price_kind`` "no price" (or "no server price"), at the bottom; a converted price's ``price_kind`` is a
    message naming the original. ``china_export`` gives a card's export-control status for China on
    ``as_of`` where one applies (:func:`hwguide.export_status`): while a US licence is required, a
    new card reaches China only outside NVIDIA's licensed channels, so read its China price with care.
    """
    currency = checks.currency(currency)
    condition = checks.choice(condition, "condition", _CONDITION_KINDS)
    day = price_day(as_of) if as_of is not None else _dt.date.today()
    window_months = checks.whole(window_months, "window_months", high=1200)
    convert = checks.flag(convert, "convert")
    table = price_rows(prices, currency)
    start, stale_before = _months_before(day, window_months), _months_before(day, STALE_MONTHS)
    table = table[table["date"] >= start]
    ranking = rank_gpus(task, workload=workload, reference=reference)
    card_kinds = condition if condition != "server" else "any"
    chosen = priced(table, currency, card_kinds, day, convert=convert)
    shares = priced(table, currency, "server", day, convert=convert)
    rows = []
    for row in ranking.itertuples():
        module = _is_module(row.gpu)
        own = shares if module or condition == "server" else chosen
        price, converted, kind = None, False, "no server price" if module else "no price"
        if row.gpu in own.index:
            price = own.loc[row.gpu]
            amount, kind, converted = float(price["amount"]), price["label"], bool(price["converted"])
        rows.append({
            "gpu": row.gpu, "score": row.score, "fits": row.fits,
            "price": amount if price is not None else math.nan,
            "price_kind": kind,
            "price_date": price["date"] if price is not None else None,
            "stale": bool(price is not None and price["date"] < stale_before),
            "converted": converted,
            "price_source": price["source"] if price is not None and "source" in price else "",
            "china_export": export_status(row.gpu, as_of=day)["label"],
        })  # fmt: skip
    frame = pd.DataFrame(rows)
    frame["score_per_1000"] = 1000 * frame["score"] / frame["price"]
    # value means little for a card the workload does not fit: those rank after the ones it fits
    frame["_fits"] = frame["fits"].ne("does_not_fit")
    frame = frame.sort_values(["_fits", "score_per_1000"], ascending=[False, False], na_position="last")
    frame = frame.drop(columns="_fits").reset_index(drop=True)
    frame.attrs["workload"] = dict(ranking.attrs["workload"], currency=currency, as_of=str(day),
                                   condition=condition, window_months=window_months)  # fmt: skip
    return frame


# ---------------------------------------------------------------------------------------------
# Comparing two cards
# ---------------------------------------------------------------------------------------------

COMPARE_ROWS = [
    ("architecture", N_("Newer architectures add formats: BF16 (Ampere), FP8 (Ada, Hopper), FP4 (Blackwell).")),
    ("memory_gib", N_("Memory decides which models fit at all; a model that does not fit cannot run at full speed.")),
    ("memory_type", N_("HBM (stacked next to the GPU) delivers several times the bandwidth of GDDR.")),
    ("bandwidth_gbs", N_("Decode speed at small batch is set by bandwidth: every token reads all active weights.")),
    ("cuda_cores", N_("CUDA cores run non-tensor math; counts are only comparable within one architecture.")),
    ("tensor_cores", N_("Tensor Core counts are only comparable within one generation; compare the TFLOPS rows.")),
    ("fp32_tflops", N_("FP32 without Tensor Cores: matters for classic HPC, little for LLMs.")),
    ("fp16_tflops",
     N_("Dense FP16 Tensor TFLOPS with FP32 accumulation: what mixed-precision training and prefill use.")),
    ("bf16_tflops", N_("Dense BF16 Tensor TFLOPS: the usual training format since Ampere.")),
    ("fp16_acc16_tflops",
     N_("FP16 with FP16 accumulation: 2× the FP32-accumulate rate on GeForce; rarely used to train.")),
    ("fp8_tflops", N_("Dense FP8 (Ada, Hopper, Blackwell): doubles throughput for FP8 inference and training.")),
    ("int8_tops", N_("Dense INT8 Tensor TOPS: quantised inference.")),
    ("fp4_tflops", N_("Dense FP4 (Blackwell only).")),
    ("tdp_w", N_("Board power: sets the power supply, cooling and electricity cost.")),
    ("nvlink_gbs",
     N_("NVLink between cards (both directions): matters for multi-GPU training and tensor parallelism.")),
    ("pcie_gen", N_("PCIe generation of the host link: 4.0 x16 moves about 32 GB/s each way, 5.0 twice that.")),
    ("msrp_usd", N_("Launch price in USD, where NVIDIA announced one.")),
]  # fmt: skip


def compare(a: str | GPU, b: str | GPU) -> pd.DataFrame:
    """Every parameter of cards ``a`` and ``b`` side by side, with the ratio b/a and what it means.

    ``parameter`` holds the catalog's column names (codes, labelled when shown) and ``meaning`` messages."""
    ga, gb = lookup_gpu(a, "a"), lookup_gpu(b, "b")
    rows = []
    for column, meaning in COMPARE_ROWS:
        va, vb = getattr(ga, column), getattr(gb, column)
        numeric = isinstance(va, (int, float)) and isinstance(vb, (int, float)) and not isinstance(va, bool)
        ratio = vb / va if numeric and va else math.nan
        rows.append({"parameter": column, ga.name: va, gb.name: vb, "ratio": ratio, "meaning": Message(meaning)})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------
# What a name means
# ---------------------------------------------------------------------------------------------

_LETTERS = {"V": "Volta", "T": "Turing", "A": "Ampere", "L": "Ada Lovelace", "H": "Hopper", "B": "Blackwell"}
_GEFORCE_GEN = {"20": "Turing", "30": "Ampere", "40": "Ada Lovelace", "50": "Blackwell"}


def decode_name(name: str) -> dict[str, str | Message]:
    """Explain a card's name: series, architecture, generation, tier, memory, form factor, market.

    The facts come from the catalog row (architecture, memory, form factor, market); the name is
    split into the parts NVIDIA's naming uses. The explanations are messages, shown in the reader's
    language; the keys are codes.
    """
    g = lookup_gpu(name, "name")
    parts: dict[str, str | Message] = {
        "name": g.name,
        "architecture": g.architecture,
        "memory": f"{g.memory_gib:g} GiB {g.memory_type}",
    }
    words = g.name.split()
    if g.segment == "consumer":
        number = next(w for w in words if w[:2].isdigit())
        parts["series"] = i18n.msg("GeForce RTX (consumer)")
        parts["generation"] = i18n.msg("{number} series = {architecture}", number=number[:2],
                                       architecture=_GEFORCE_GEN.get(number[:2], g.architecture))  # fmt: skip
        parts["tier"] = i18n.msg("{number} = tier within the generation (higher is faster)", number=number[2:])
        extra = " ".join(w for w in words[2:] if w not in ("16GB", "12GB"))
        if extra and g.market == "modded":
            parts["suffix"] = i18n.msg("{extra}: a step up within the tier (22GB: an aftermarket memory mod, not an "
                                       "NVIDIA product)", extra=extra)  # fmt: skip
        elif extra:
            parts["suffix"] = i18n.msg("{extra}: a step up within the tier", extra=extra)
    elif g.segment == "workstation":
        parts["series"] = i18n.msg("RTX workstation (formerly Quadro): ECC memory, blower or passive cooling, "
                                   "certified drivers")  # fmt: skip
        parts["generation"] = i18n.msg(
            "the generation is in the name ({generation})",
            generation="A = Ampere" if "A6000" in g.name else g.architecture,
        )
    else:
        letter = g.name[0] if g.name[0] in _LETTERS else g.name[:2]
        if g.name.startswith(("GH", "GB")):
            parts["series"] = i18n.msg("{prefix} = Grace CPU + {architecture} GPU on one module (superchip)",
                                       prefix=g.name[:2], architecture=_LETTERS[g.name[1]])  # fmt: skip
        else:
            parts["series"] = i18n.msg("{letter} = {architecture} data-centre GPU", letter=letter,
                                       architecture=_LETTERS.get(letter, g.architecture))  # fmt: skip
        digits = "".join(ch for ch in words[0] if ch.isdigit())
        if g.market == "china":
            parts["tier"] = i18n.msg("{digits}: a China-market number (A800 = an A100 with NVLink cut; H800 = an "
                                     "H100 with NVLink and FP64 cut; H20/L20 = parts made for the Chinese market)",
                                     digits=digits)  # fmt: skip
        elif digits in ("100", "200"):
            parts["tier"] = i18n.msg("{digits}: the flagship training part of its generation", digits=digits)
        else:
            parts["tier"] = i18n.msg("{digits}: a smaller inference / graphics part of its generation", digits=digits)
    if g.form_factor:
        parts["form_factor"] = Message(g.form_factor, context="form_factor")  # its words in the catalog
    parts["market"] = Message(_MARKETS[g.market])
    return parts


_MARKETS = {
    "global": N_("sold worldwide"),
    "china": N_("China-market variant, cut down to meet US export rules (see its notes for what was cut)"),
    "cloud": N_("cloud-only variant (AWS)"),
    "modded": N_("aftermarket modification"),
}
