"""Check the kit's estimates against published measurements (data/measurements.csv).

:func:`validate` runs every usable row through the memory math and, side by side, through the
rules of thumb people use instead, then summarises the error per kind of measurement:

* "2 GB per billion parameters" for 16-bit inference (the source material's rule);
* "×1.2 of the weights" for inference (popular web calculators; EleutherAI's Transformer Math);
* "×4 of the 16-bit weights" for full training with Adam (popular calculators);
* "nominal bits × parameters" for quantised files (a Q4 file taken as 4 bits per weight).

The accuracy report is a benchmark of the kit, not a unit test: run ``python -m hwguide validate``.
"""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import pandas as pd

from . import checks, i18n
from .architecture import param_count
from .catalog import load_table, lookup_engine, model
from .fit import SPEED_KINDS, parse_args
from .gguf import gguf_file_bytes
from .memory import LEFT_OUT_BY_READING, finetune_memory, inference_memory, is_gguf, training_memory, weights_bytes

__all__ = ["RULES", "UNITS", "estimate", "validate"]

# The rules of thumb reported next to the kit, by the kinds they apply to.
RULES = ("2GB/B", "x1.2", "x4", "nominal bits", "bandwidth/size", "peak/2P", "6ND@50%")

UNITS = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "KB": 1e3, "MB": 1e6, "GB": 1e9,
         "tokens/s": 1, "gpu_hours": 1}  # fmt: skip
_TARGETS = {"q,v": "qv", "q,k,v,o": "attention", "q,k,v,o,gate,up,down": "all-linear"}


def _args(text: str | None) -> dict[str, Any]:
    """A row's ``args`` with numbers and true/false read as such."""
    out: dict[str, Any] = {}
    for key, value in parse_args(text).items():
        if value in ("true", "false"):
            out[key] = value == "true"
        elif re.fullmatch(r"-?\d+(\.\d+)?", value):
            out[key] = float(value) if "." in value else int(value)
        else:
            out[key] = value
    return out


def _pick(mem: Any, compares: str, scope: str, decode: bool = True) -> float:
    """The part of a memory estimate (computed as nvidia-smi shows it) that a row's ``compares`` names.

    ``allocated`` / ``reserved``: what torch.cuda.max_memory_allocated / _reserved see; ``nvidia-smi``
    and ``total`` (the source does not say: the kit's default reading): everything;
    ``allocated+non-torch``: allocated plus what lies outside the allocator (the optimum benchmark's
    "allocated peak + NVML peak - reserved peak"). ``decode`` False (a run that generates one token):
    no decode step, so no second copy of a rebuilt cache (``kv_copy``).
    """
    parts = mem.parts if scope == "all_gpus" else mem.per_gpu
    if not decode:
        parts = {k: v for k, v in parts.items() if k != "kv_copy"}
    if compares in ("weights", "kv_cache", "activations"):
        return float(parts[compares])
    leave_out = {"allocated+non-torch": ("allocator_reserve",), **LEFT_OUT_BY_READING}.get(compares, ())
    return float(sum(v for k, v in parts.items() if k not in leave_out))


def _value(row: dict[str, Any], key: str, default: Any = None) -> Any:
    value = row.get(key)
    return default if value is None or (isinstance(value, float) and math.isnan(value)) else value


def estimate(row: dict[str, Any]) -> float:
    """The kit's estimate, in bytes, for one row of data/measurements.csv."""
    args = _args(row.get("args"))
    m = model(row["model"])
    kind, compares, scope = row["kind"], row["compares"], row["scope"]
    if kind == "file_size":
        fmt = row["weights"]
        if is_gguf(fmt):
            return float(gguf_file_bytes(m, fmt, rules=str(args.get("gguf_rules", "current"))))
        return float(weights_bytes(m, fmt))
    if kind in SPEED_KINDS:
        from .fit import FACTORS, predict, workload

        work = workload(row)
        eng = lookup_engine(work.engine or "other")
        return predict(work, {f: getattr(eng, f) for f in FACTORS})
    batch, context = int(_value(row, "batch", 1)), int(_value(row, "context", 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "inference_memory":
            mem = inference_memory(
                m, weights=row["weights"] or "fp16", kv=row["kv_dtype"] or "fp16", batch=batch, context=context,
                engine=row["engine"] or "transformers", gpus=args.get("gpus", 1),
                flash_attention=args.get("flash_attention", True), cuda_context_mib=args.get("cuda_context_mib"),
            )  # fmt: skip
            if "gguf_rules" in args:  # weights as the file's own llama.cpp version laid them out
                from .gguf import gguf_tensor_bytes

                tensors = gguf_tensor_bytes(m, row["weights"], rules=str(args["gguf_rules"]))
                gpu_weights = sum(s for t, s, _ in tensors if t.kind not in ("embedding", "position"))
                if compares == "weights":
                    return float(gpu_weights)
            return _pick(mem, compares, scope, decode=args.get("output", 2) != 1)
        method = row.get("method") or "full"
        recompute = row.get("recompute") or "none"
        flash = args.get("flash_attention", True)
        context_mib = args.get("cuda_context_mib")
        gpus = int(_value(row, "gpu_count", 1)) if scope == "per_gpu" else args.get("gpus", 1)
        if method == "full":
            mem = training_memory(
                m, precision=row.get("precision") or "bf16-mixed", optimizer=row.get("optimizer") or "adamw",
                batch=batch, context=context, gpus=gpus, zero=args.get("zero", 0), recompute=recompute,
                flash_attention=flash, cuda_context_mib=context_mib,
            )  # fmt: skip
        else:
            targets = _TARGETS.get(row.get("lora_targets") or "", row.get("lora_targets") or "all-linear")
            mem = finetune_memory(
                m, method=method, rank=int(_value(row, "lora_rank", 8)), targets=targets, weights=args.get("base"),
                batch=batch, context=context, recompute="full" if recompute == "full" else "none",
                optimizer=row.get("optimizer") or "adamw", flash_attention=flash, gpus=gpus,
                zero=args.get("zero", 0), cuda_context_mib=context_mib,
            )  # fmt: skip
        return _pick(mem, compares, scope)


def _nominal_bits(fmt: str) -> float | None:
    match = re.search(r"(\d+)", fmt)
    if fmt.lower() in ("fp16", "bf16", "f16"):
        return 16.0
    return float(match.group(1)) if match else None


def _rules_of_thumb(row: dict[str, Any]) -> dict[str, float | None]:
    m = model(row["model"])
    published = m.params_total_b or param_count(m) / 1e9
    kind, compares, fmt = row["kind"], row["compares"], row.get("weights") or "fp16"
    out: dict[str, float | None] = dict.fromkeys(RULES)
    if kind in SPEED_KINDS:
        from .catalog import gpu
        from .speed import peak_flops

        card = gpu(row["gpu"])
        if kind == "decode_tps":  # the naive roofline: bandwidth / size of the weights
            size = gguf_file_bytes(m, fmt) if is_gguf(fmt) else weights_bytes(m, fmt)
            out["bandwidth/size"] = card.bandwidth_gbs * 1e9 / size
        elif kind == "prefill_tps":
            out["peak/2P"] = peak_flops(card, "fp16") / (2 * param_count(m))
        elif kind in ("training_tps", "finetune_tps"):  # 6N per token at 50% MFU, per GPU (× GPUs for a total)
            per_gpu = 0.5 * peak_flops(card, "bf16") / (6 * param_count(m, active=True))
            out["6ND@50%"] = per_gpu * (float(row.get("gpu_count") or 1) if row.get("scope") == "all_gpus" else 1)
        elif kind == "training_gpu_hours":  # 6ND at 50% MFU, llm-analysis's suggested flops efficiency
            flops = 6 * param_count(m, active=True) * float(_args(row.get("args"))["tokens"])
            out["6ND@50%"] = flops / (0.5 * peak_flops(card, "bf16")) / 3600
        return out
    if kind == "file_size":
        bits = _nominal_bits(fmt)
        out["nominal bits"] = published * 1e9 * bits / 8 if bits else None
    elif kind == "inference_memory" and compares not in ("weights", "kv_cache", "activations"):
        if fmt in ("fp16", "bf16"):
            out["2GB/B"] = 2e9 * published
        gguf = is_gguf(fmt)
        out["x1.2"] = 1.2 * (gguf_file_bytes(m, fmt) if gguf else weights_bytes(m, fmt))
    elif kind in ("finetune_memory", "training_memory") and (row.get("method") or "full") == "full":
        out["x4"] = 4 * weights_bytes(m, "fp16")
    return out


def validate(*, show: bool = True) -> pd.DataFrame:
    """Estimate every usable row of data/measurements.csv; print the report when ``show``.

    Returns one row per measurement with ``measured_gib``, ``hwguide_gib``, ``hwguide_err``
    (signed, a fraction of the measured value, with the factors of data/engines.csv: in sample
    for speed rows, whose factors were fitted on them), ``hwguide_oos_err`` (out of sample: for
    speed rows, each author's rows estimated by factors fitted without any of them, see
    ``benchmarks/fitting.py``'s ``cross_validate``; the memory math has no fitted factors, so it equals
    ``hwguide_err`` there) and the error of each rule of thumb. Excluded rows carry their reason.
    """
    from .fit import cross_validation, speed_rows

    show = checks.flag(show, "show")
    table = load_table("measurements")
    held_out = cross_validation().set_index("id")
    unusable = dict(zip(*speed_rows()[1].to_dict("list").values())) if len(speed_rows()[1]) else {}
    records = []
    for row in table.to_dict("records"):
        row = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        measured = float(row["measured"]) * UNITS[row["unit"]]
        speed = row["kind"] in SPEED_KINDS
        record = {"id": row["id"], "kind": row["kind"], "model": row["model"],
                  "setup": _setup(row), "measured_gib": measured / (1 if speed else 2**30)}  # fmt: skip
        reason = row.get("excluded_because") or unusable.get(row["id"])
        if reason:
            record["excluded_because"] = reason
            records.append(record)
            continue
        try:
            est = estimate(row)
        except (ValueError, LookupError) as err:  # a format or card the kit cannot model yet
            record["excluded_because"] = i18n.msg("the kit cannot estimate it: {error}", error=str(err).splitlines()[0])
            records.append(record)
            continue
        record.update(hwguide_gib=est / (1 if speed else 2**30), hwguide_err=est / measured - 1)
        record["hwguide_oos_err"] = held_out.loc[row["id"], "out_of_sample_err"] if speed else record["hwguide_err"]
        if speed and held_out.loc[row["id"], "split"] == "holdout":  # an author no fit has seen (data/holdout.csv)
            record["hwguide_holdout_err"] = record["hwguide_oos_err"]
        for rule, value in _rules_of_thumb(row).items():
            record[f"{rule}_err"] = None if value is None else value / measured - 1
        records.append(record)
    frame = pd.DataFrame(records)
    if show:
        print(report(frame))
    return frame


def _setup(row: dict[str, Any]) -> str:
    keys = (
        "gpu",
        "weights",
        "engine",
        "method",
        "precision",
        "optimizer",
        "batch",
        "context",
        "compares",
        "args",
    )
    return ", ".join(f"{k}={row[k]}" for k in keys if row.get(k) not in (None, ""))


def summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Median and worst absolute error per kind, for hwguide and each rule of thumb.

    hwguide_oos: each author left out of the fit in turn, and the held-out authors; hwguide_holdout: the
    held-out authors alone (data/holdout.csv), which no fit ever saw; hwguide: in sample.
    """
    used = frame[frame["hwguide_err"].notna()]
    rows = []
    for kind, part in used.groupby("kind"):
        for method in ["hwguide_oos", "hwguide_holdout", "hwguide", *RULES]:
            if f"{method}_err" not in part:
                continue
            errors = part[f"{method}_err"].dropna().abs()
            if len(errors):
                rank = _rank_correlation(part, method) if kind in ("decode_tps", "prefill_tps") else None
                rows.append({"kind": kind, "method": method, "rows": len(errors),
                             "median_abs_err": errors.median(), "worst_abs_err": errors.max(),
                             "rank_correlation": rank})  # fmt: skip
    return pd.DataFrame(rows)


def _rank_correlation(part: pd.DataFrame, method: str) -> float | None:
    """Spearman correlation between measured and estimated speeds over the rows of one model."""
    same = part[part["model"] == part["model"].mode().iloc[0]].dropna(subset=[f"{method}_err"])
    if len(same) < 3:
        return None
    estimated = same["measured_gib"] * (1 + same[f"{method}_err"])
    return float(same["measured_gib"].rank().corr(estimated.rank()))


def report(frame: pd.DataFrame) -> str:
    """The printed accuracy report: every row, then the summary, in the reader's language."""
    used = frame[frame["hwguide_err"].notna()]
    lines = [i18n.text("hwguide accuracy against published measurements (GiB = 2**30 bytes)"), ""]
    for kind, part in used.groupby("kind"):
        lines.append(f"== {kind} ==")
        for r in part.itertuples():
            lines.append(i18n.text("{id:8} {model:26.26} measured {measured:8.2f}  hwguide {estimate:8.2f}  "
                                   "err {err:+7.1%}   {setup}", id=r.id, model=r.model, measured=r.measured_gib,
                                   estimate=r.hwguide_gib, err=r.hwguide_err, setup=r.setup))  # fmt: skip
        lines.append("")
    lines.append(i18n.text("== summary: absolute error =="))
    for r in summary(frame).itertuples():
        fields = dict(kind=r.kind, method=r.method, rows=r.rows, median=r.median_abs_err, worst=r.worst_abs_err)
        if pd.isna(r.rank_correlation):
            lines.append(i18n.text("{kind:18} {method:14} rows {rows:3}  median {median:6.1%}  worst {worst:7.1%}",
                                   **fields))  # fmt: skip
        else:
            lines.append(i18n.text("{kind:18} {method:14} rows {rows:3}  median {median:6.1%}  worst {worst:7.1%}  "
                                   "rank correlation {rank:.2f}", rank=r.rank_correlation, **fields))  # fmt: skip
    skipped = frame[frame["hwguide_err"].isna()]
    lines += [
        "",
        i18n.text(
            "{count} rows excluded (reasons in data/measurements.csv, column excluded_because).", count=len(skipped)
        ),
    ]
    return "\n".join(lines)
