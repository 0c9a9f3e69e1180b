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
import math
import re
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from pandas.io.formats.style import Styler

from . import checks, i18n
from .catalog import export_status, gpu, load_table, model
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


@functools.cache
def _translations() -> tuple[dict[str, str], dict[str, str], tuple[tuple[Any, str], ...]]:
    """The Chinese for column names, whole cells and phrases inside cells (data/translations.csv).

    Phrases keep the file's order, longest / most specific first, since each replaces the text
    the ones before it left.
    """
    table = load_table("translations")
    pairs = {kind: list(zip(rows["en"], rows["zh"])) for kind, rows in table.groupby("kind", sort=False)}
    # patterns (regular expressions, applied before the phrases) reorder what Chinese puts first:
    # "needs 20.9 GiB per GPU" -> "每卡需要 20.9 GiB", where phrase by phrase would give "需要 20.9 GiB 每卡"
    patterns = tuple((re.compile(en), zh) for en, zh in pairs.get("pattern", []))
    return dict(pairs.get("column", [])), dict(pairs.get("value", [])), patterns + tuple(pairs.get("phrase", []))


def _zh_text(value: object) -> object:
    if not isinstance(value, str):
        return value
    _, values, phrases = _translations()
    if value in values:
        return values[value]
    for en, zh in phrases:
        value = en.sub(zh, value) if isinstance(en, re.Pattern) else value.replace(en, zh)
    return value


TITLES = {
    "en": [
        "1. GPU performance ranking",
        "2. GPU value ranking",
        "3. Parameters of popular GPUs",
        "4. Hardware to train models of each size",
        "5. Hardware to fine-tune and run models of each size",
        "6. Configurations for different needs",
    ],
    "zh": [
        "1. 显卡性能排名表",
        "2. 显卡性价比排名表",
        "3. 热门显卡参数对比表",
        "4. 各参数大模型训练所需硬件表",
        "5. 各参数大模型微调与推理硬件表",
        "6. 不同需求下硬件配置表",
    ],
}


def _count_for(mem_at: dict[int, Any], card: str) -> str:
    for count in COUNTS:
        if mem_at[count].fits(card):
            return f"{count} ×"
    return "> 8"


def _smallest_card(mem: Any) -> str:
    from .catalog import gpus

    table = gpus().dropna(subset=["fp16_tflops"]).sort_values(["memory_gib", "msrp_usd"])
    for name, memory in zip(table["name"], table["memory_gib"]):
        if mem.per_gpu_bytes <= memory * 2**30 * 0.9:
            return f"{name} ({memory:g} GiB)"
    return "none: needs several GPUs"


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
    frame.attrs["caption"] = (
        f"Scores relative to the {REFERENCE} (= 100). Inference: {w['model']} in {w['weights']}, "
        f"{w['context']:,}-token context, geometric mean of 1-user and {w['batch']}-user decode speed; "
        f"training: {t['model']} bf16 mixed-precision AdamW, one GPU's training tokens/s with the fitted training "
        "factors (mostly dense BF16 TFLOPS, some memory bandwidth). Speed factors fitted by benchmarks/fit.py to "
        "published engine, vendor and framework benchmarks (data/measurements.csv)."
    )
    frame.attrs["caption_zh"] = (
        f"得分以 {REFERENCE} 为 100。推理：{w['model']}（{w['weights']}），上下文 {w['context']:,} 个 token，"
        f"取 1 个用户与 {w['batch']} 个用户解码速度的几何平均；训练：{t['model']}，bf16 混合精度 AdamW，"
        "按拟合的训练系数算出单卡每秒训练 token 数（主要取决于稠密 BF16 算力，也与显存带宽有关）。速度系数由 "
        "benchmarks/fit.py 拟合自推理引擎、模型厂商与训练框架公开的实测数据（data/measurements.csv）。"
    )
    return frame


def _value(currency: str, as_of: _dt.date | None = None, lang: str = "en") -> pd.DataFrame:
    inf = value_ranking("inference", currency=currency, as_of=as_of, condition="any")
    trn = value_ranking("training", currency=currency, as_of=as_of, condition="any").set_index("gpu")
    day = inf.attrs.get("workload", {}).get("as_of") or str(as_of or _dt.date.today())
    frame = inf[["gpu", "score", "fits", "price", "price_kind", "price_date", "score_per_1000"]].copy()
    frame.insert(2, "training_score", frame["gpu"].map(trn["score"]))
    frame["training_per_1000"] = frame["gpu"].map(trn["score_per_1000"])
    frame["china_export"] = [export_status(g, as_of=day, lang=lang)["label"] for g in frame["gpu"]]
    dates = [d for d in frame["price_date"] if d is not None]
    span = f"{min(dates)} to {max(dates)}" if dates else "none"
    frame.attrs["caption"] = (
        f"Score per 1,000 {currency}: inference and training scores of table 1 divided by the latest price in the "
        f"36 months up to {day} in data/prices.csv (new, used or estimate; the price_kind column says which). Price "
        f"dates {span}. A card priced only in the other currency is converted at the CFETS central parity of the "
        "price's date (data/fx.csv), and price_kind shows the original. SXM/OAM modules count only with a whole "
        "server's price per GPU. Cards the inference workload fits come first (fits column), cards with no price "
        "last in each group. china_export: export controls for China on that day (data/export_controls.csv); while a "
        "US licence is required, a new card reaches China only outside NVIDIA's licensed channels."
    )
    frame.attrs["caption_zh"] = (
        f"每千{i18n.text(currency, 'zh')}得分：表 1 的推理与训练得分除以 data/prices.csv 中截至 {day} 的 "
        f"36 个月内最新的价格（新卡、二手或估价，见“价格类型”列）。价格日期 {span.replace(' to ', ' 至 ')}。"
        "只有另一币种价格的显卡，按该价格日期的"
        "人民币兑美元中间价（中国外汇交易中心，data/fx.csv）换算，“价格类型”列注明原价。SXM/OAM 模组只按整台服务器"
        "折算到每块 GPU 的价格计。推理负载装得下的显卡排在前面（见“是否装得下”列），每组中没有价格的显卡排在最后。"
        "“对华出口管制”列为当日的出口管制状态（data/export_controls.csv）；需要美国出口许可期间，新卡只能经英伟达授权渠道以外流入中国。"
    )
    return frame


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
    frame.attrs["caption"] = (
        "Dense Tensor TFLOPS with FP32 accumulation (no sparsity); memory in GiB as marketed; NVLink total of both "
        "directions. Sources per card in data/gpus.csv."
    )
    frame.attrs["caption_zh"] = (
        "算力为稠密张量核心 TFLOPS、FP32 累加（不含稀疏）；显存按标称容量以 GiB 计；NVLink 为双向合计带宽。"
        "每张卡的出处见 data/gpus.csv。"
    )
    return frame


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
    frame.attrs["caption"] = (
        "Fewest cards (1, 2, 4 or 8; ZeRO-3 / FSDP sharding, activation checkpointing, micro-batch 1 × 2,048 tokens, "
        "AdamW; bf16-mixed keeps fp32 master weights and moments, 16 bytes per parameter, pure bf16 8) whose memory "
        "holds training with 10% headroom; '> 8' needs more than one server. Days: 20 tokens "
        "per parameter (Chinchilla) on 8 × H100 SXM at the fitted MFU. Each size is represented by the named model."
    )
    frame.attrs["caption_zh"] = (
        "装得下训练（留 10% 余量）所需的最少卡数（1、2、4 或 8 张；ZeRO-3 / FSDP 分片，激活重计算，微批 1 × 2,048 "
        "个 token，AdamW；bf16 混合精度保留 FP32 主权重与动量，每参数 16 字节，纯 bf16 为 8 字节）；“> 8”表示一台"
        "服务器放不下。天数：每参数 20 个 token（Chinchilla），8 × H100 SXM，按拟合的 MFU。每种规模以表中模型为代表。"
    )
    return frame


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
    frame.attrs["caption"] = (
        "One GPU. Inference: batch 1, 4,096-token context, transformers runtime; int8/int4 = every weight at 8/4 bits. "
        "Fine-tuning: micro-batch 1 × 2,048 tokens with activation checkpointing; LoRA rank 16 on all linear layers "
        "over a bf16 base, QLoRA over an NF4 base; full = bf16 mixed-precision AdamW. Smallest card: least memory "
        "that holds it with 10% headroom."
    )
    frame.attrs["caption_zh"] = (
        "单卡。推理：批大小 1，上下文 4,096 个 token，transformers 运行时；int8/int4 表示全部权重为 8/4 位。"
        "微调：微批 1 × 2,048 个 token，开启激活重计算；LoRA 秩 16 作用于全部线性层、底座为 bf16，QLoRA 底座为 NF4；"
        "全参微调为 bf16 混合精度 AdamW。最小显卡：留 10% 余量能装下的显存最小的卡。"
    )
    return frame


def _users(label: str) -> str:
    """ "1 users" -> "1 user", "5 users" stays."""
    count = label.split()[0]
    return f"{count} user" if count == "1" else f"{count} users"


def _cheapest(builds: pd.DataFrame) -> str | None:
    """The planner's cheapest build as "4 × L20, 140,000 CNY", or None when there is none."""
    if builds.empty:
        return None
    best = builds.iloc[0]
    text = f"{int(best['gpus'])} × {best['gpu']}"
    if best["platform_priced"]:
        return text + f", {best['build_price']:,.0f} CNY"
    return text + f", GPUs {best['gpu_price']:,.0f} CNY (server platform not priced)"


def _configurations(lang: str) -> pd.DataFrame:
    rows = []
    for scenario in ("individual", "team", "company"):
        result = evaluate_scenario(scenario)
        checks = result["checks"].to_dict("records")
        today = _cheapest(result["today"].builds)
        if today is None:
            today = "none meets the whole need"
            if result["compromise"] is not None:
                today += f"; {result['compromise']['change']}: {_cheapest(result['compromise']['plan'].builds)}"
        for row, check in zip(result["scenario"].itertuples(), checks):
            users = [c for c in check if c.endswith("users")]
            rows.append(
                {
                    "scenario": row.name_zh if lang == "zh" else row.name_en,
                    "tier": row.tier,
                    "source_build": f"{row.gpu_count} × {row.gpu}, {row.cpu}, {row.ram_gb:g} GB RAM, "
                    f"{row.disk_tb:g} TB",
                    "source_price_cny": row.price_cny,
                    "check_min_users": f"{_users(users[0])}: {check[users[0]]}",
                    "check_max_users": f"{_users(users[1])}: {check[users[1]]}",
                    "today": today,
                }
            )
    frame = pd.DataFrame(rows)
    frame.attrs["caption"] = (
        "The source material's builds checked against its own needs (largest model in fp16 for inference at the "
        "fewest and most users, 4,096-token context; LoRA fine-tuning; pre-training its training size on 20 tokens "
        "per parameter), and the cheapest build the planner finds today for the same need within 1.5 × the source's "
        "price (prices in CNY from data/prices.csv, any condition, USD prices converted at the CFETS rate where a "
        "card has no recent CNY price); where none meets it, the cheapest with 8-bit or 4-bit formats."
    )
    frame.attrs["caption_zh"] = (
        "用原文自己的需求检验原文的配置（推理：最大模型 fp16，最少与最多用户，上下文 4,096 个 token；LoRA 微调；"
        "按每参数 20 个 token 预训练其训练规模），并给出规划器今天为同一需求找到的最便宜配置"
        "（预算为原文价格的 1.5 倍；价格为 data/prices.csv 中的人民币价格，不限新旧，没有近期人民币价格的显卡按"
        "中国外汇交易中心的中间价由美元换算）；没有配置满足时，给出改用 8 位或 4 位格式后最便宜的配置。"
    )
    return frame


def guide_tables(lang: str | None = None, *, currency: str = "CNY", as_of: str | _dt.date | None = None,
                 ) -> list[pd.DataFrame]:  # fmt: skip
    """The six guide tables; ``lang="zh"`` gives Chinese headers, titles and labels (None: the
    language set by ``hg.setup``, English until one is set).

    ``as_of`` (``YYYY-MM-DD`` or a :class:`datetime.date`) prices the value table with the latest
    price on or before that day (default: today). Raises ValueError for an unknown ``lang`` or
    ``currency`` or a malformed date.
    """
    lang = i18n.resolve(lang)
    currency = checks.currency(currency)
    day = None if as_of is None else checks.date(as_of, "as_of")
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
    columns, _, _ = _translations()
    if currency != "CNY":  # the Chinese headers say 元 (CNY) for "per 1,000"
        columns = {en: zh.replace("每千元", "每千美元") for en, zh in columns.items()}
    out = []
    for table, title in zip(tables, TITLES[lang]):
        caption = table.attrs["caption_zh" if lang == "zh" else "caption"]
        if lang == "zh":
            table = table.rename(columns=columns)
            for column in table.columns:
                if not pd.api.types.is_numeric_dtype(table[column]):
                    table[column] = table[column].map(_zh_text)
        table.attrs = {"title": title, "caption": caption, "lang": lang}
        out.append(table)
    return out


# What an empty price cell of a guide table means, in each language. Other empty cells stay blank:
# there an empty figure may mean "not published" or "not supported" (V100 has no BF16), which the
# table alone cannot tell apart.
EMPTY = {"en": {"no price": "no price"}, "zh": {"no price": "无价格"}}


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
    heading = str(table.attrs.get("title", "table"))
    uid = "hwguide-" + hashlib.sha1(heading.encode("utf-8")).hexdigest()[:8]
    numeric = [c for c in table.columns if pd.api.types.is_float_dtype(table[c])]

    def places(column: object) -> int:
        # whole numbers (prices, GiB that came out round) without a ".0": 30,000 not 30,000.0
        values = table[column].dropna()
        whole = len(values) and bool(((values - values.round()).abs() < 1e-9).all())
        money = any(word in str(column).lower() for word in ("price", "cny", "usd", "元", "价"))
        return 0 if whole or money else digits

    lang = table.attrs.get("lang")  # a guide table says what an empty cell means; another stays blank
    if empty is not None and not isinstance(empty, str):
        raise ValueError(f"empty must be the text of an empty cell, such as 'not published', not {empty!r}")
    marker = None if empty is None else i18n.text(empty)

    def empty(column: object) -> str:
        if marker is not None:
            return marker
        priced = any(word in str(column).lower() for word in ("price", "per_1000", "per 1,000", "价", "每千"))
        return EMPTY.get(lang, {}).get("no price", "") if priced else ""

    def fmt_for(column: object) -> Callable[[float], str]:
        n, blank = places(column), empty(column)
        return lambda value: (
            blank if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:,.{n}f}"
        )

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
