"""The kit's data: GPUs, models, prices, interconnects and usage scenarios.

Everything is read from the CSV files in ``data/`` (documented column by column in
``data/README.md``), checked against the schemas below, and cached. A bad value fails
loudly with the file, the row and the column named; nothing becomes a silent NaN.

Public functions:

* :func:`gpus`, :func:`models`, :func:`prices`, :func:`interconnects`, :func:`scenarios`,
  :func:`mig_profiles`, :func:`measured_power`, :func:`electricity_tariffs` return
  :class:`pandas.DataFrame` copies of the tables;
* :func:`gpu` and :func:`model` look one entry up by name (case, spaces, hyphens and vendor
  prefixes ignored; aliases known) and return a frozen record.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as _dt
import difflib
import functools
import io
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from . import checks, i18n
from .architecture import Model, from_hf_config

__all__ = [
    "GPU",
    "DataError",
    "Engine",
    "data_dir",
    "cpu",
    "cpus",
    "engine",
    "ram_price_per_gb",
    "ram_prices",
    "engines",
    "exchange_rates",
    "export_controls",
    "export_status",
    "cny_per",
    "default_tariff",
    "electricity_tariffs",
    "gpu",
    "gpus",
    "harnesses",
    "interconnects",
    "kernels",
    "load_table",
    "lookup_engine",
    "lookup_gpu",
    "lookup_model",
    "measured_power",
    "mig_profiles",
    "model",
    "models",
    "platform",
    "platforms",
    "prices",
    "ram_bandwidth_gbs",
    "runs_natively",
    "scenarios",
    "support",
    "support_of",
]


class DataError(ValueError):
    """A data file holds a value that breaks its schema (the message names file, row and column)."""


def data_dir() -> Path:
    """The folder the kit reads its CSV files from.

    ``$HWGUIDE_DATA`` when set, else the ``data/`` folder beside the package in the repository.
    """
    env = os.environ.get("HWGUIDE_DATA")
    path = Path(env) if env else Path(__file__).resolve().parent.parent / "data"
    if not (path / "gpus.csv").is_file():
        raise FileNotFoundError(
            i18n.msg(
                "hwguide's data folder was not found at {path}. Install the kit from its repository "
                "with `pip install -e .` (as requirements.txt does), or set HWGUIDE_DATA to a folder "
                "that holds gpus.csv, models.csv, prices.csv, interconnects.csv and scenarios.csv.",
                path=str(path),
            )
        )
    return path


# ---------------------------------------------------------------------------------------------
# Schemas. kind: str | int | float | bool | date. `required` cells may not be empty; `positive`
# numbers must be > 0 and `nonnegative` ones >= 0; `choices` lists the allowed values.
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Col:
    """One column of a data file: its type and the rules a value must follow."""

    kind: str = "str"
    required: bool = False
    positive: bool = False
    nonnegative: bool = False
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None


REQ = Col(required=True)
DATE = Col("date", required=True)
POS = Col("float", positive=True)
POS_INT = Col("int", positive=True)
FRACTION = Col("float", low=0.001, high=1)

# The Chinese vendors after Huawei: Hygon (DCU), Moore Threads (MTT), MetaX (Xiyun), Iluvatar CoreX,
# Kunlunxin (Baidu's Kunlun), Cambricon (MLU).
VENDORS = ("NVIDIA", "AMD", "Apple", "Intel", "Huawei", "Hygon", "Moore Threads", "MetaX", "Iluvatar CoreX",
           "Kunlunxin", "Cambricon")  # fmt: skip
ARCHITECTURES = ("Pascal", "Volta", "Turing", "Ampere", "Ada", "Hopper", "Blackwell", "CDNA2", "CDNA3", "CDNA4",
                 "RDNA3", "RDNA3.5", "RDNA4", "Apple M3", "Apple M4", "Gaudi 3", "Xe2", "Da Vinci", "DCU", "Quyuan",
                 "Xiyun C", "MLUarch03")  # fmt: skip
# The vendors' software stacks (data/support.csv ``stack``): Hygon's DTK is ROCm-compatible, Moore Threads'
# MUSA and MetaX's MACA are CUDA-like, Cambricon's is Neuware.
STACKS = ("CUDA", "ROCm", "Metal", "CANN", "oneAPI", "SynapseAI", "DTK", "MUSA", "MACA", "Neuware")
# What an export-control event says about a card going to China: the US side needs a licence, needs
# none, reviews case by case or has granted licences; the Chinese side may review or discourage use.
EXPORT_STATUSES = ("licence required", "no licence needed", "case-by-case", "licences granted", "under review",
                   "use discouraged")  # fmt: skip
MEMORY_TYPES = ("GDDR5", "GDDR6", "GDDR6X", "GDDR7", "HBM2", "HBM2e", "HBM3", "HBM3e", "LPDDR5", "LPDDR5X")

SCHEMAS: dict[str, dict[str, Col]] = {
    "gpus": {
        "name": REQ,
        "aliases": Col(),
        "vendor": Col(required=True, choices=VENDORS),
        "architecture": Col(required=True, choices=ARCHITECTURES),
        "support": REQ,
        "compute_capability": Col("float", low=5, high=13),
        "year": Col("int", low=2016, high=2030),
        "segment": Col(required=True, choices=("consumer", "workstation", "datacenter")),
        "market": Col(required=True, choices=("global", "china", "cloud", "modded")),
        "memory_gib": Col("float", required=True, positive=True),
        "gpu_memory_gib": POS,
        "memory_type": Col(choices=MEMORY_TYPES),
        "bus_bits": POS_INT,
        "bandwidth_gbs": Col("float", required=True, positive=True),
        "cuda_cores": POS_INT,
        "tensor_cores": POS_INT,
        "tensor_gen": Col("int", low=1, high=5),
        "fp32_tflops": POS,
        "fp16_tflops": POS,
        "bf16_tflops": POS,
        "fp16_acc16_tflops": POS,
        "fp16_sparse_tflops": POS,
        "fp8_tflops": POS,
        "fp8_sparse_tflops": POS,
        "int8_tops": POS,
        "int8_sparse_tops": POS,
        "fp4_tflops": POS,
        "tdp_w": POS,
        "nvlink_gbs": Col("float", nonnegative=True),
        "pcie_gen": Col("int", low=3, high=6),
        "pcie_lanes": Col("int", low=1, high=16),
        "form_factor": Col(),
        "unified_memory": Col("bool", required=True),
        "msrp_usd": POS,
        "sources": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "models": {
        "name": REQ,
        "aliases": Col(),
        "family": REQ,
        "hf_repo": Col(),
        "config_file": REQ,
        "params_total_b": POS,
        "params_active_b": POS,
        "params_source": Col(),
        "config_source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "prices": {
        "gpu": REQ,
        "date": DATE,
        "currency": Col(required=True, choices=("CNY", "USD")),
        "amount": Col("float", required=True, positive=True),
        "kind": Col(
            required=True,
            choices=(
                "msrp",
                "street-new",
                "street-used",
                "cloud-hourly",
                "estimate-new",
                "estimate-used",
                "server-share",
            ),
        ),
        "region": REQ,
        "source": REQ,
        "notes": Col(),
    },
    "fx": {
        "date": DATE,
        "currency": Col(required=True, choices=("USD",)),
        "cny_per_unit": Col("float", required=True, positive=True),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "cpus": {
        "name": REQ,
        "vendor": Col(required=True, choices=("Intel", "AMD")),
        "segment": Col(required=True, choices=("desktop", "workstation", "server")),
        "socket": REQ,
        "launch": Col(),
        "cores": POS_INT,
        "pcie_gen": Col("int", required=True, low=3, high=6),
        "pcie_lanes": Col("int", low=1, high=256),
        "memory_type": Col(required=True, choices=("DDR4", "DDR5")),
        "memory_channels": Col("int", required=True, low=1, high=16),
        "memory_mts": Col("int", required=True, low=1000, high=12000),
        "memory_gbs": Col("float", required=True, positive=True),
        "max_memory_gb": POS_INT,
        "sources": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "export_controls": {
        "chip": REQ,
        "gpus": REQ,
        "date": DATE,
        "authority": Col(required=True, choices=("US", "China")),
        "status": Col(required=True, choices=EXPORT_STATUSES),
        "summary": REQ,
        "rule": REQ,
        "sources": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "primary_domains": {
        "domain": REQ,
        "owner": REQ,
        "kind": Col(
            required=True,
            choices=(
                "vendor",
                "retailer",
                "cloud provider",
                "official documentation",
                "official repository",
                "government",
            ),
        ),  # fmt: skip
        "checked": DATE,
        "notes": Col(),
    },
    "support": {
        "name": REQ,
        "vendor": Col(required=True, choices=VENDORS),
        "stack": Col(required=True, choices=STACKS),
        "compute_capability": Col(),
        "cuda_min_version": Col(),
        "cuda_last_major": Col(),
        "pytorch_wheels": Col(),
        "bf16": Col(),
        "fp8": Col(),
        "fp4": Col(),
        "flash_attention_2": Col(),
        "flash_attention_3": Col(),
        "vllm": Col(),
        "llama_cpp": Col(),
        "current": Col("bool", required=True),
        "why_not": Col(),
        "sources": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "kernels": {
        "weights": REQ,
        "linear_us": Col("float", required=True, nonnegative=True),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "harnesses": {
        "engine": REQ,
        "harness": REQ,
        "default": Col("bool", required=True),
        "token_us": Col("float", required=True, nonnegative=True),
        "layer_us": Col("float", required=True, nonnegative=True),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "interconnects": {
        "name": REQ,
        "kind": Col(required=True, choices=("pcie", "nvlink", "nvswitch", "network")),
        "per_direction_gbs": Col("float", required=True, positive=True),
        "total_gbs": Col("float", required=True, positive=True),
        "links": POS_INT,
        "used_by": Col(),
        "domain_gpus": POS_INT,
        "sources": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "scenarios": {
        "scenario": REQ,
        "name_en": REQ,
        "name_zh": REQ,
        "tier": Col(required=True, choices=("basic", "advanced")),
        "infer_finetune_min_b": Col("float", required=True, positive=True),
        "infer_finetune_max_b": Col("float", required=True, positive=True),
        "train_b": Col("float", required=True, positive=True),
        "users_min": Col("int", required=True, positive=True),
        "users_max": Col("int", required=True, positive=True),
        "data_scale": REQ,
        "vram_estimate_gb": Col("float", required=True, positive=True),
        "gpu": REQ,
        "gpu_count": Col("int", required=True, positive=True),
        "cpu": REQ,
        "cpu_ref": REQ,
        "ram_gb": Col("float", required=True, positive=True),
        "disk_tb": Col("float", required=True, positive=True),
        "price_cny": Col("float", required=True, positive=True),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "platforms": {
        "platform": Col(required=True, choices=("desktop", "workstation", "server")),
        "max_gpus": Col("int", required=True, positive=True),
        "cpu_class": REQ,
        "cpu": REQ,
        "sockets": Col("int", required=True, low=1, high=8),
        "ram_gb": Col("float", required=True, positive=True),
        "disk_tb": Col("float", required=True, positive=True),
        "price_cny": POS,
        "host_w": Col("float", required=True, positive=True),
        "host_source": REQ,
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "engines": {
        "engine": REQ,
        "version": REQ,
        "role": Col(required=True, choices=("inference", "training", "both")),
        "family": Col(),
        "cuda_context_mib": POS,
        "graphs_mib": Col("float", nonnegative=True),
        "preallocate_fraction": Col("float", low=0, high=1),
        "allocator": Col(choices=("pytorch", "own")),
        "kv_copies": POS_INT,
        "reserve_mib": Col("float", nonnegative=True),
        "workspace_mib": Col("float", nonnegative=True),
        "prefill_chunk_tokens": POS_INT,
        "ubatch_tokens": POS_INT,
        "batch_tokens": POS_INT,
        "workspace_rule": Col(required=True, choices=("forward-step", "ggml-compute-buffer")),
        "embeddings_in_host": Col("bool", required=True),
        "f16_matmul": Col(required=True, choices=("native", "fp16-acc16")),
        "gguf_matmul": Col(required=True, choices=("int8", "fp16")),
        "expert_loop": Col(required=True, choices=("all", "routed", "fused")),
        "multi_gpu": Col(required=True, choices=("tensor", "layer")),
        "layer_offload": Col("bool", required=True),
        "bw_16bit": FRACTION,
        "bw_8bit": FRACTION,
        "bw_lowbit": FRACTION,
        "decode_mfu": FRACTION,
        "prefill_mfu": FRACTION,
        "dequant_compute": FRACTION,
        "step_us": Col("float", nonnegative=True),
        "layer_us": Col("float", nonnegative=True),
        "expert_us": Col("float", nonnegative=True),
        "train_util": FRACTION,
        "train_util_fp8": FRACTION,
        "train_act_bytes": Col("float", nonnegative=True),
        "train_moe_eff": FRACTION,
        "train_attn_util": FRACTION,
        "train_comm_exposed": FRACTION,
        "train_layer_us": Col("float", nonnegative=True),
        "train_goodput": FRACTION,
        "allreduce_efficiency": Col("float", required=True, low=0.01, high=1),
        "allreduce_latency_us": Col("float", nonnegative=True),
        "cpu_bw": FRACTION,
        "fitted": Col(),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "measurements": {
        "id": REQ,
        "kind": Col(
            required=True,
            choices=(
                "file_size",
                "inference_memory",
                "finetune_memory",
                "training_memory",
                "decode_tps",
                "prefill_tps",
                "throughput_tps",
                "training_tps",
                "training_gpu_hours",
                "finetune_tps",
            ),
        ),
        "model": REQ,
        "gpu": Col(),
        "gpu_count": POS_INT,
        "engine": Col(),
        "weights": Col(),
        "kv_dtype": Col(),
        "batch": POS_INT,
        "context": POS_INT,
        "method": Col(),
        "precision": Col(),
        "optimizer": Col(),
        "zero": Col("int", low=0, high=3),
        "recompute": Col(),
        "lora_rank": POS_INT,
        "lora_targets": Col(),
        "measured": Col("float", required=True, positive=True),
        "unit": Col(
            required=True,
            choices=("bytes", "KiB", "MiB", "GiB", "KB", "MB", "GB", "tokens/s", "gpu_hours"),
        ),
        "what": REQ,
        "compares": Col(
            choices=(
                "total",
                "nvidia-smi",
                "reserved",
                "allocated",
                "allocated+non-torch",
                "weights",
                "kv_cache",
                "activations",
                "file",
                "speed",
                "gpu_hours",
            )
        ),
        "scope": Col(required=True, choices=("per_gpu", "all_gpus")),
        "args": Col(),
        "excluded_because": Col(),
        "source": REQ,
        "source_detail": Col(),
        "checked": DATE,
        "notes": Col(),
    },
    "mig_profiles": {
        "card": REQ,
        "gpus": REQ,
        "profile": Col(required=True),
        "memory_gb": Col("float", required=True, positive=True),
        "max_instances": Col("int", required=True, low=1, high=7),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "power": {
        "gpu": REQ,
        "model": REQ,
        "engine": REQ,
        "weights": REQ,
        "batch": Col("int", required=True, positive=True),
        "gpu_count": Col("int", required=True, positive=True),
        "power_w": Col("float", required=True, positive=True),
        "statistic": Col(required=True, choices=("average", "peak")),
        "what": REQ,
        "tokens_per_s": POS,
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "electricity": {
        "region": REQ,
        "tariff": Col(required=True, choices=("industrial-commercial",)),
        "structure": Col(required=True, choices=("single-part", "two-part")),
        "voltage": REQ,
        "date": DATE,
        "until": Col("date"),
        "currency": Col(required=True, choices=("CNY", "USD")),
        "price_per_kwh": Col("float", required=True, positive=True),
        "kit_default": Col("bool", required=True),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "glossary": {
        "en": REQ,
        "zh": REQ,
        "definition_en": REQ,
        "definition_zh": REQ,
        "notebook": Col(),
        "source": Col(),
    },
    "exercises": {
        "id": REQ,
        "kind": Col(required=True, choices=("lookup", "compute", "predict", "design", "why")),
        "question_en": REQ,
        "question_zh": REQ,
        "run": Col(),
        "hint_en": REQ,
        "hint_zh": REQ,
        "explanation_en": REQ,
        "explanation_zh": REQ,
        "tolerance": Col("float", nonnegative=True),
        "unit": Col(),
        "gpus": Col("int", nonnegative=True),
    },
    "ram_prices": {
        "part": REQ,
        "kind": Col(required=True, choices=("ddr5-udimm", "ddr5-rdimm", "ddr4-rdimm", "contract")),
        "capacity_gb": POS_INT,
        "modules": POS_INT,
        "speed_mts": POS_INT,
        "date": REQ,
        "currency": Col(required=True, choices=("CNY", "USD", "EUR")),
        "amount": Col("float", required=True, positive=True),
        "region": Col(),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "image_models": {
        "name": REQ,
        "aliases": Col(),
        "hf_repo": REQ,
        "dtype": Col(required=True, choices=("fp16", "bf16")),
        "width": POS_INT,
        "height": POS_INT,
        "steps": POS_INT,
        "guidance": Col(required=True, choices=("cfg", "distilled")),
        "stored_extra": Col("int", nonnegative=True),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "image_components": {
        "model": REQ,
        "component": Col(
            required=True, choices=("text_encoder", "text_encoder_2", "text_encoder_3", "denoiser", "vae")
        ),
        "family": Col(required=True, choices=("clip", "t5", "unet", "sd3", "flux", "vae")),
        "config_file": REQ,
        "config_overrides": Col(),
        "text_tokens": Col("int", nonnegative=True),
        "params": POS_INT,
        "params_source": REQ,
        "config_source": REQ,
        "gflops_const": Col("float", required=True, nonnegative=True),
        "gflops_per_mp": Col("float", required=True, nonnegative=True),
        "gflops_per_mp2": Col("float", required=True, nonnegative=True),
        "params_config": POS_INT,
        "checked": DATE,
        "notes": Col(),
    },
    "image_engines": {
        "engine": REQ,
        "description": REQ,
        "mfu": FRACTION,
        "vae_mfu": FRACTION,
        "step_ms": Col("float", nonnegative=True),
        "act_bytes_per_channel": Col("float", nonnegative=True),
        "vae_bytes_per_px": Col("float", nonnegative=True),
        "reserve_frac": Col("float", nonnegative=True),
        "fp16_accumulate": Col("bool", required=True),
        "fitted": Col(),
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
    "image_measurements": {
        "id": REQ,
        "model": REQ,
        "gpu": REQ,
        "engine": Col(
            required=True,
            choices=("diffusers", "diffusers-naive-attention", "compiled", "onediff", "stable-fast", "webui"),
        ),
        "software": REQ,
        "weights": REQ,
        "text_weights": Col(),
        "offload": Col(required=True, choices=("none", "auto", "model", "sequential")),
        "width": POS_INT,
        "height": POS_INT,
        "steps": POS_INT,
        "batch": POS_INT,
        "measured": Col("float", required=True, positive=True),
        "unit": Col(required=True, choices=("it_per_s", "s_per_image")),
        "includes": Col(),
        "peak_vram_gb": POS,
        "reading": Col(choices=("nvidia-smi", "reserved", "allocated")),
        "vae_slicing": Col("bool"),
        "excluded_because": Col(),
        "source": REQ,
        "date": Col(),
        "notes": Col(),
    },
    "board_clocks": {
        "gpu": REQ,
        "fp16_matmul_tflops": Col("float", required=True, positive=True),
        "runs": POS_INT,
        "source": REQ,
        "checked": DATE,
        "notes": Col(),
    },
}

_FILES = {kind: f"{kind}.csv" for kind in SCHEMAS}
_MAX_NUMBER = 1e15  # larger than any byte count, price or GPU-hour figure the tables hold: a typo
_MAX_BYTES = 64 * 2**20  # a data table is a few hundred kB
_FIRST_DATE = _dt.date(1990, 1, 1)  # no dated row of these tables is older: an earlier date is a typo


def _convert(value: str, col: Col, where: Callable[[], i18n.Message]) -> Any:
    """Turn one CSV cell into a typed value, or raise DataError saying what is wrong and where.

    ``where`` builds the cell's place ("gpus.csv, row 5 (RTX 4090), column 'memory_gib'") only when a
    message needs it: most cells are fine, and building a message per cell was most of the load time.
    """
    text = value.strip()
    if text == "":
        if col.required:
            raise DataError(i18n.msg("{where}: the value is required but empty", where=where()))
        return None
    try:
        if col.kind == "str":
            out: Any = text
        elif "_" in text and col.kind in ("int", "float"):  # Python reads "2_4" as 24; a table means a typo
            raise ValueError
        elif col.kind == "int":
            number = float(text)
            if not number.is_integer():
                raise ValueError
            out = int(number)
        elif col.kind == "float":
            out = float(text)
            if not math.isfinite(out):
                raise ValueError
        elif col.kind == "bool":
            if text.lower() not in ("true", "false"):
                raise ValueError
            out = text.lower() == "true"
        elif col.kind == "date":
            out = _dt.date.fromisoformat(text)
        else:  # pragma: no cover - a schema typo
            raise AssertionError(col.kind)
    except ValueError:
        raise DataError(i18n.msg("{where}: {text!r} is not a valid {kind}", where=where(), text=text,
                                 kind=col.kind)) from None  # fmt: skip
    if col.kind == "date" and not _FIRST_DATE <= out <= _dt.date.today() + _dt.timedelta(days=31):
        raise DataError(i18n.msg("{where}: {text!r} is not a plausible date (from {first} to a month after today, "
                                 "{today})", where=where, text=text, first=_FIRST_DATE,
                                 today=_dt.date.today()))  # fmt: skip
    if col.kind in ("int", "float") and abs(out) > _MAX_NUMBER:
        raise DataError(i18n.msg("{where}: {text!r} is beyond {top:g}; no figure in these tables is that large",
                                 where=where(), text=text, top=_MAX_NUMBER))  # fmt: skip
    if col.choices and out not in col.choices:
        raise DataError(i18n.msg("{where}: {text!r} is not one of {choices}", where=where(), text=text,
                                 choices=", ".join(col.choices)))  # fmt: skip
    if col.positive and out <= 0:
        raise DataError(i18n.msg("{where}: {text!r} must be greater than 0", where=where(), text=text))
    if col.nonnegative and out < 0:
        raise DataError(i18n.msg("{where}: {text!r} must not be negative", where=where(), text=text))
    if col.low is not None and out < col.low or col.high is not None and out > col.high:
        raise DataError(i18n.msg("{where}: {text!r} is outside {low}..{high}", where=where(), text=text, low=col.low,
                                 high=col.high))  # fmt: skip
    return out


def _read_rows(file: Path, label: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the (line number, cells) of each row, or a DataError naming the file and what is wrong."""
    if not file.exists():
        raise DataError(i18n.msg("{file}: no such file", file=label))
    if not file.is_file():
        raise DataError(i18n.msg("{file}: is a folder, not a CSV file", file=label))
    if file.stat().st_size > _MAX_BYTES:
        raise DataError(i18n.msg("{file}: {size:,} bytes is more than a data table of {top:,} bytes", file=label,
                                 size=file.stat().st_size, top=_MAX_BYTES))  # fmt: skip
    try:
        text = file.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise DataError(i18n.msg("{file}: not UTF-8 text (byte {byte} cannot be decoded); save it as UTF-8", file=label,
                                 byte=err.start)) from None  # fmt: skip
    except OSError as err:
        raise DataError(i18n.msg("{file}: cannot be read ({error})", file=label,
                                 error=str(err.strerror or err))) from None  # fmt: skip
    reader = csv.reader(io.StringIO(text), strict=True)
    rows: list[tuple[int, list[str]]] = []
    start = 1
    try:
        for row in reader:
            if any(cell.strip() for cell in row):
                rows.append((start, row))
            start = reader.line_num + 1
    except csv.Error as err:
        raise DataError(i18n.msg("{file}, line {line}: not readable as CSV ({error}; a quote left open?)", file=label,
                                 line=reader.line_num, error=str(err))) from None  # fmt: skip
    if not rows:
        raise DataError(i18n.msg("{file}: the file is empty; it needs a header row with the schema's columns",
                                 file=label))  # fmt: skip
    return [c.strip() for c in rows[0][1]], rows[1:]


def load_table(kind: str, path: str | os.PathLike[str] | None = None) -> pd.DataFrame:
    """Read and validate one data file; ``kind`` is one of the tables in :data:`SCHEMAS`.

    ``path`` reads another file with the same columns (your own GPUs or prices, say) and checks it
    the same way, the checks across rows included (unique names, dense ≤ sparse, prices only for
    known GPUs). Returns a fresh DataFrame; empty cells are ``None``. Raises :class:`DataError`
    (a ValueError) naming the file, the row and the column.
    """
    kind = checks.choice(kind, "kind", SCHEMAS)
    if path is not None and (not isinstance(path, (str, os.PathLike)) or not str(os.fspath(path)).strip()):
        raise ValueError(i18n.msg("path must be the path of a CSV file, not {path!r}", path=path))
    schema = SCHEMAS[kind]
    file = Path(path) if path is not None else data_dir() / _FILES[kind]
    label = file.name if path is None else str(file)
    header, body = _read_rows(file, label)
    missing = [c for c in schema if c not in header]
    extra = [c for c in header if c not in schema]
    duplicated = sorted({c for c in header if header.count(c) > 1})
    if missing or extra or duplicated:
        none = i18n.msg("none")
        if duplicated:
            raise DataError(i18n.msg("{file}: columns differ from the schema (missing: {missing}; unexpected: "
                                     "{extra}; repeated: {repeated})", file=label, missing=missing or none,
                                     extra=extra or none, repeated=duplicated))  # fmt: skip
        raise DataError(i18n.msg("{file}: columns differ from the schema (missing: {missing}; unexpected: {extra})",
                                 file=label, missing=missing or none, extra=extra or none))  # fmt: skip
    position = {c: header.index(c) for c in schema}
    plain = {c for c, col in schema.items() if col == Col(required=col.required)}  # text with no rule but required
    rows = []
    for line, cells in body:
        if len(cells) != len(header):
            raise DataError(i18n.msg("{file}, row {line}: {cells} cells where the header has {columns} columns "
                                     "(a comma inside a value needs quotes)", file=label, line=line, cells=len(cells),
                                     columns=len(header)))  # fmt: skip
        first = cells[position[next(iter(schema))]].strip()
        row = {"_line": line}
        for column, col in schema.items():
            if column in plain:  # most cells: text to keep as it is (what _convert does, without the call)
                text = cells[position[column]].strip()
                if text or not col.required:
                    row[column] = text or None
                    continue
            where = functools.partial(i18n.msg, "{file}, row {line} ({name}), column {column!r}", file=label,
                                      line=line, name=first, column=column)  # fmt: skip
            row[column] = _convert(cells[position[column]], col, where)
        rows.append(row)
    lines = [row.pop("_line") for row in rows]
    frame = pd.DataFrame(rows, columns=list(schema), dtype=object)
    for column, col in schema.items():
        if col.kind in _DTYPES:
            frame[column] = frame[column].astype(_DTYPES[col.kind])
    _check_rows(kind, frame, label, lines)
    return frame


# pandas dtypes per column kind: whole numbers stay whole (nullable Int64), empty floats are NaN;
# text and dates stay Python objects with None for empty cells.
_DTYPES = {"int": "Int64", "float": "float64", "bool": "boolean"}

# The column that names each row, for tables whose rows are looked up by name.
_NAME_COLUMN = {"gpus": "name", "models": "name", "engines": "engine", "interconnects": "name", "support": "name",
                "platforms": "platform", "measurements": "id", "cpus": "name",
                "image_models": "name", "image_engines": "engine", "image_measurements": "id",
                "board_clocks": "gpu"}  # fmt: skip


def _plain(value: Any) -> Any:
    """A DataFrame cell as a plain Python value: NaN/NA become None, numpy numbers Python ones."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    return value.item() if hasattr(value, "item") else value


def _check_rows(kind: str, frame: pd.DataFrame, label: str, lines: list[int]) -> None:
    """Rules across rows and columns: unique names, dense ≤ sparse, prices for known GPUs only.

    ``lines`` holds each row's line number in the file, for the messages."""
    column = _NAME_COLUMN.get(kind)
    if column:
        seen: dict[str, int] = {}
        for line, name in zip(lines, frame[column]):
            key = normalize_name(name) if kind in ("gpus", "models") else name
            if key in seen:
                raise DataError(i18n.msg("{file}, row {line}, column {column!r}: {name!r} repeats row {first} "
                                         "(names must be unique, ignoring case, spaces and hyphens)", file=label,
                                         line=line, column=column, name=name, first=seen[key]))  # fmt: skip
            seen[key] = line
    if kind in ("gpus", "models"):
        _keys(list(frame["name"]), list(frame["aliases"]), label)  # an alias claimed twice fails here
    if kind == "gpus":
        _check_gpus(frame, label, lines)
        known = set(_table("support")["name"])
        for line, name, support in zip(lines, frame["name"], frame["support"]):
            if support not in known:
                raise DataError(i18n.msg("{file}, row {line} ({name}), column 'support': {support!r} is not a row of "
                                         "support.csv; choose one of: {choices}", file=label, line=line, name=name,
                                         support=support, choices=", ".join(sorted(known))))  # fmt: skip
    if kind == "support":
        for line, name, current, why in zip(lines, frame["name"], frame["current"], frame["why_not"]):
            if not current and not (isinstance(why, str) and why.strip()):
                raise DataError(i18n.msg("{file}, row {line} ({name}), column 'why_not': a platform that is not "
                                         "current must say why", file=label, line=line, name=name))  # fmt: skip
    if kind == "engines":
        names = set(frame["engine"])
        for line, name, family in zip(lines, frame["engine"], frame["family"]):
            if isinstance(family, str) and family and family not in names - {name}:
                raise DataError(i18n.msg("{file}, row {line}, column 'family': {family!r} is not another engine of "
                                         "the table", file=label, line=line, family=family))  # fmt: skip
    if kind == "harnesses":
        names = set(_table("engines")["engine"])
        for line, name in zip(lines, frame["engine"]):
            if name not in names:
                raise DataError(i18n.msg("{file}, row {line}, column 'engine': {name!r} is not a row of engines.csv",
                                         file=label, line=line, name=name))  # fmt: skip
        defaults = frame[frame["default"]].groupby("engine").size()
        for name in sorted(set(frame["engine"])):
            if defaults.get(name, 0) != 1:
                raise DataError(i18n.msg("{file}: engine {name!r} needs exactly one default harness", file=label,
                                         name=name))  # fmt: skip
    if kind in ("platforms", "scenarios"):
        column = "cpu" if kind == "platforms" else "cpu_ref"
        known = set(_table("cpus")["name"])
        for line, name in zip(lines, frame[column]):
            if name not in known:
                raise DataError(i18n.msg("{file}, row {line}, column {column!r}: {name!r} is not a row of cpus.csv",
                                         file=label, line=line, column=column, name=name))  # fmt: skip
    if kind == "cpus":
        for line, name, ch, mts, gbs in zip(lines, frame["name"], frame["memory_channels"], frame["memory_mts"],
                                            frame["memory_gbs"]):  # fmt: skip
            if abs(ch * mts * 8 / 1000 - gbs) > 0.05:
                raise DataError(i18n.msg("{file}, row {line} ({name}), column 'memory_gbs': {gbs} is not channels × "
                                         "MT/s × 8 bytes = {expected:.1f} GB/s", file=label, line=line, name=name,
                                         gbs=gbs, expected=ch * mts * 8 / 1000))  # fmt: skip
    if kind in ("export_controls", "mig_profiles"):
        known = set(_table("gpus")["name"])
        for line, cards in zip(lines, frame["gpus"]):
            for name in cards.split(";"):
                if name.strip() not in known:
                    raise DataError(i18n.msg("{file}, row {line}, column {column!r}: {name!r} is not in gpus.csv",
                                             file=label, line=line, column="gpus", name=name.strip()))  # fmt: skip
    if kind == "power":
        engines = set(_table("engines")["engine"])
        for line, name in zip(lines, frame["engine"]):
            if name not in engines:
                raise DataError(i18n.msg("{file}, row {line}, column {column!r}: {name!r} is not a row of engines.csv",
                                         file=label, line=line, column="engine", name=name))  # fmt: skip
    if kind == "electricity":
        for line, start, end in zip(lines, frame["date"], frame["until"]):
            if end is not None and end < start:
                raise DataError(i18n.msg("{file}, row {line}, column 'until': {until} is before the row's date {date}",
                                         file=label, line=line, until=end, date=start))  # fmt: skip
    if kind in ("prices", "power"):
        known = set(_table("gpus")["name"])
        for line, name in zip(lines, frame["gpu"]):
            if name not in known:
                raise DataError(i18n.msg("{file}, row {line}, column {column!r}: {name!r} is not in gpus.csv",
                                         file=label, line=line, column="gpu", name=name))  # fmt: skip


@functools.cache
def _table(kind: str) -> pd.DataFrame:
    return load_table(kind)


def _check_gpus(frame: pd.DataFrame, label: str, lines: list[int]) -> None:
    """Cross-column rules: a dense figure never exceeds its printed sparse twin; an empty memory type or
    power is explained in ``notes``; ``gpu_memory_gib`` only on unified-memory machines, within memory_gib."""
    for line, name, kind, power, notes in zip(lines, frame["name"], frame["memory_type"], frame["tdp_w"],
                                              frame["notes"]):  # fmt: skip
        for column, value in (("memory_type", kind), ("tdp_w", power)):
            if pd.isna(value) and not (isinstance(notes, str) and "not published" in notes):
                raise DataError(i18n.msg("{file}, row {line} ({name}), column {column!r}: empty without "
                                         "'not published' and the reason in notes", file=label, line=line, name=name,
                                         column=column))  # fmt: skip
    for line, name, share, size, unified in zip(lines, frame["name"], frame["gpu_memory_gib"], frame["memory_gib"],
                                                frame["unified_memory"]):  # fmt: skip
        if pd.notna(share) and (not unified or share > size):
            raise DataError(i18n.msg("{file}, row {line} ({name}), column 'gpu_memory_gib': only for a "
                                     "unified-memory machine, and at most its memory_gib ({size:g})", file=label,
                                     line=line, name=name, size=size))  # fmt: skip
    for dense, sparse in (
        ("fp16_tflops", "fp16_sparse_tflops"),
        ("bf16_tflops", "fp16_sparse_tflops"),
        ("fp8_tflops", "fp8_sparse_tflops"),
        ("int8_tops", "int8_sparse_tops"),
    ):
        for line, a, b, name in zip(lines, frame[dense], frame[sparse], frame["name"]):
            if a > b:  # False whenever either is NaN
                raise DataError(i18n.msg("{file}, row {line} ({name}), column {column!r}: dense {dense} exceeds its "
                                         "sparse twin {twin}={sparse}", file=label, line=line, name=name, column=dense,
                                         dense=a, twin=sparse, sparse=b))  # fmt: skip


def gpus() -> pd.DataFrame:
    """All GPUs of the catalog, one row per variant (columns as in data/README.md; units in names).

    A number column whose figures are all whole (``memory_gib``, ``msrp_usd``; the counts always) is
    nullable ``Int64``, so that it shows 24, not 24.0; a column with one fractional figure stays float
    (``bandwidth_gbs``: the RTX 4080's 716.8 GB/s; ``tdp_w``: the A16's 62.5 W per GPU).
    """
    return _gpus_frame().copy()


@functools.cache  # the planner asks for the catalog once per recommend; the conversion is the same each time
def _gpus_frame() -> pd.DataFrame:
    return _whole_as_int(_table("gpus").copy())


def _whole_as_int(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with each float column whose values are all whole numbers as nullable Int64."""
    for column in table.columns:
        if pd.api.types.is_float_dtype(table[column]):
            values = table[column].dropna()
            if len(values) and bool((values == values.round()).all()) and bool((values.abs() < 2**53).all()):
                table[column] = table[column].astype("Int64")
    return table


def exchange_rates() -> pd.DataFrame:
    """The CNY central parity rate of the US dollar (CFETS), dated and sourced: date, currency, cny_per_unit."""
    return _table("fx").copy()


def cny_per(currency: str, on: _dt.date) -> tuple[float, _dt.date]:
    """CNY per unit of ``currency`` on the latest date of data/fx.csv on or before ``on`` (else the
    earliest), and that date."""
    if currency == "CNY":
        return 1.0, on
    table = _table("fx")
    table = table[table["currency"] == currency].sort_values("date")
    if table.empty:
        raise ValueError(i18n.msg("currency={currency!r}: data/fx.csv has no rate for it; choose one of: CNY, USD",
                                  currency=currency))  # fmt: skip
    before = table[table["date"] <= on]
    row = (before if len(before) else table.head(1)).iloc[-1]
    return float(row["cny_per_unit"]), row["date"]


def prices() -> pd.DataFrame:
    """Dated price observations: gpu, date, currency (CNY/USD), amount, kind, region, source."""
    return _table("prices").copy()


def ram_prices() -> pd.DataFrame:
    """Dated prices of system memory (data/ram_prices.csv): kits and modules, with their sources."""
    return _table("ram_prices").copy()


RAM_KINDS = ("ddr5-udimm", "ddr5-rdimm", "ddr4-rdimm")


def ram_price_per_gb(kind: str = "ddr5-udimm", *, currency: str = "CNY") -> dict[str, Any]:
    """The newest price of system memory per GB (10^9 bytes, as modules are sold), in ``currency``.

    ``kind``: ``ddr5-udimm`` (desktop kits), ``ddr5-rdimm`` (server and workstation modules) or
    ``ddr4-rdimm``. Rows priced in ``currency`` are used when there are any, else the others are
    converted at data/fx.csv's rate of their date. The answer is the median per-GB price of the
    rows of the newest date (month) that has any: ``per_gb``, ``date``, ``rows`` (how many) and ``note``.
    """
    kind = checks.choice(kind, "kind", RAM_KINDS)
    currency = checks.currency(currency)
    table = _table("ram_prices")
    table = table[table["kind"] == kind].copy()
    same = table[table["currency"] == currency]
    convertible = ["CNY", *_table("fx")["currency"].unique()]
    table = same if not same.empty else table[table["currency"].isin(convertible)]
    if table.empty:
        raise ValueError(i18n.msg("kind={kind!r}: data/ram_prices.csv has no price that converts to {currency}",
                                  kind=kind, currency=currency))  # fmt: skip
    month = table["date"].str[:7]
    newest = table[month == month.max()]
    per_gb = []
    for row in newest.itertuples():
        day = _dt.date.fromisoformat(row.date if len(row.date) == 10 else row.date + "-01")
        rate = cny_per(row.currency, day)[0] / cny_per(currency, day)[0] if row.currency != currency else 1.0
        per_gb.append(row.amount * rate / row.capacity_gb)
    value = float(pd.Series(per_gb).median())
    fields = dict(kind=kind, rows=len(per_gb), month=month.max(), value=value, currency=currency)
    if same.empty:
        note = i18n.msg("{kind}: median of {rows} price(s) of {month} in data/ram_prices.csv, converted from "
                        "{currencies}: {value:,.0f} {currency} per GB",
                        currencies=", ".join(sorted(set(newest["currency"]))), **fields)  # fmt: skip
    else:
        note = i18n.msg("{kind}: median of {rows} price(s) of {month} in data/ram_prices.csv: {value:,.0f} {currency} "
                        "per GB", **fields)  # fmt: skip
    return {"kind": kind, "per_gb": value, "currency": currency, "date": month.max(), "rows": len(per_gb), "note": note}


def support() -> pd.DataFrame:
    """Software support per GPU platform: CUDA/ROCm/…, PyTorch wheels, BF16/FP8/FP4, FlashAttention, vLLM, llama.cpp.

    ``current`` says whether today's frameworks still support the platform (``why_not`` when not),
    with the sources and the date of each statement (data/support.csv).
    """
    return _table("support").copy()


def support_of(card: str | GPU) -> dict[str, Any]:
    """The software-support row (:func:`support`) of a card, as a dict."""
    g = lookup_gpu(card, "card")
    return dict(_support_row(g.support))


@functools.cache
def _support_row(name: str) -> dict[str, Any]:
    row = _table("support").set_index("name").loc[name]
    return {"name": name, **{k: _plain(v) for k, v in row.items()}}


def export_controls() -> pd.DataFrame:
    """Export-control events for China, one row per chip and date: the US rule or decision (or the
    Chinese authorities' guidance), the cards it covers (``gpus``, ``;``-separated), status and sources."""
    return _table("export_controls").copy()


@functools.cache
def _export_events(name: str) -> tuple[dict[str, Any], ...]:
    """The export-control events of the card ``name``, oldest first, as plain dicts."""
    table = _table("export_controls")
    mine = table[table["gpus"].map(lambda cards: name in [c.strip() for c in cards.split(";")])]
    mine = mine.sort_values("date", kind="stable")
    return tuple({k: _plain(v) for k, v in row.items()} for _, row in mine.iterrows())


def export_status(card: str | GPU, *, as_of: str | _dt.date | None = None, lang: str | None = None) -> dict[str, Any]:
    """A card's latest export-control events for China on or before ``as_of`` (default: today).

    Returns ``us`` and ``china``: each the latest event of that authority as a dict (date, status,
    summary, rule, sources, and ``since``: the date its status took effect, the first of the latest
    run of events with that status), or None where data/export_controls.csv holds none for the card;
    and ``label``, one line for a table ("US licence required since 2023-11-17"; "" when no event
    restricts the card): a message shown in the reader's language, or with ``lang`` ("en", "zh") the
    words in that language. A later rule that leaves the status as it was (the 2026 review policy
    for the RTX 5090: a licence is still required) does not move the "since" date. The events'
    ``status`` is a code (:data:`EXPORT_STATUSES`), labelled under context "status" of the catalog.
    No row means the kit has no data on the card, not that it is unrestricted.
    """
    g = lookup_gpu(card, "card")
    lang = None if lang is None else i18n.resolve(lang)
    day = checks.date(as_of, "as_of") if as_of is not None else _dt.date.today()
    latest: dict[str, dict[str, Any] | None] = {"US": None, "China": None}
    for event in _export_events(g.name):  # oldest first: the last one on or before the day wins
        if event["date"] <= day:
            before = latest[event["authority"]]
            since = before["since"] if before is not None and before["status"] == event["status"] else event["date"]
            latest[event["authority"]] = {**event, "since": since}
    us, china = latest["US"], latest["China"]
    shown = [e for e in (us, china) if e is not None and e["status"] != "no licence needed"]
    events = [_export_event(e) for e in shown]
    label: Any = "" if not events else events[0] if len(events) == 1 else i18n.msg("{us}; {china}", us=events[0],
                                                                                      china=events[1])  # fmt: skip
    return {"us": us, "china": china, "label": i18n.render(label, lang) if lang is not None else label}


def _export_event(event: dict[str, Any]) -> i18n.Message:
    """One export-control event as a line of a table: "US licence required since 2023-11-17" (its status's start)."""
    status = i18n.Message(event["status"], context="status")
    if event["authority"] == "China":
        return i18n.msg("China: {status} since {date}", status=status, date=event["since"])
    return i18n.msg("US {status} since {date}", status=status, date=event["since"])


# Which support.csv column says whether a card's Tensor Cores (or matrix units) compute in a format.
_NATIVE_COLUMN = {"fp8": "fp8", "fp8-block128": "fp8", "mxfp4": "fp4", "nvfp4": "fp4", "MXFP4_MOE": "fp4",
                  "bf16": "bf16"}  # fmt: skip


def runs_natively(card: str | GPU, weights: str) -> dict[str, Any]:
    """Whether ``card`` computes in the weight format ``weights`` natively, from data/support.csv.

    Returns ``native`` (True, False, or None where the format has no matrix-unit path to ask about
    or the platform's row does not say) and ``note``, the support row's words. A card without
    native support can still run such weights by converting them to a wider format on the fly, so
    they save memory and bandwidth there, not compute.
    """
    g = lookup_gpu(card, "card")
    if not isinstance(weights, str):
        raise ValueError(i18n.msg("{name} must be the name of a weight format, such as {examples}, not {value!r}",
                                  name="weights", examples="fp16, bf16, fp8, int8, Q4_K_M", value=weights))  # fmt: skip
    column = _NATIVE_COLUMN.get(weights if weights in _NATIVE_COLUMN else str(weights).lower())
    if column is None:
        note = i18n.msg("{weights} has no Tensor Core format of its own: weights are converted to 16-bit for the "
                        "matrix units", weights=weights)  # fmt: skip
        return {"native": None, "note": note}
    said = support_of(g).get(column)
    if not said:
        return {"native": None, "note": i18n.msg("data/support.csv does not say for {platform}", platform=g.support)}
    return {"native": str(said).lower().startswith("yes"),
            "note": i18n.msg("{platform}: {column} {said}", platform=g.support, column=column, said=said)}  # fmt: skip


def harnesses() -> pd.DataFrame:
    """How an engine is called (data/harnesses.csv): each harness's added time per token (µs) and per layer
    (µs, e.g. eager mode without CUDA graphs) on top of the engine's fitted factors, and the default one."""
    return _table("harnesses").copy()


def kernels() -> pd.DataFrame:
    """Weight formats whose kernels cost time per linear layer beyond reading the weights (data/kernels.csv,
    µs per linear layer and decode step: bitsandbytes LLM.int8's decomposition, NF4's dequantising kernel)."""
    return _table("kernels").copy()


def interconnects() -> pd.DataFrame:
    """PCIe, NVLink and NVSwitch links with per-direction and total bandwidth in GB/s."""
    return _table("interconnects").copy()


def cpus() -> pd.DataFrame:
    """Host CPUs: PCIe generation and lanes (for multi-GPU builds) and memory channels × MT/s = GB/s."""
    return _table("cpus").copy()


def cpu(name: str) -> dict[str, Any]:
    """One row of :func:`cpus` by exact name, as a dict; LookupError with close matches otherwise."""
    rows = _cpu_rows()
    if not isinstance(name, str) or name not in rows:
        close = difflib.get_close_matches(str(name), list(rows), n=3, cutoff=0.4)
        if close:
            raise LookupError(i18n.msg("cpu={name!r} is not in data/cpus.csv; did you mean {close}? choose one of: "
                                       "{choices}", name=name, close=", ".join(close),
                                       choices=", ".join(rows)))  # fmt: skip
        raise LookupError(i18n.msg("cpu={name!r} is not in data/cpus.csv; choose one of: {choices}", name=name,
                                   choices=", ".join(rows)))  # fmt: skip
    return dict(rows[name])


@functools.cache
def _cpu_rows() -> dict[str, dict[str, Any]]:
    return {str(row["name"]): {k: _plain(v) for k, v in row.items()} for _, row in _table("cpus").iterrows()}


def ram_bandwidth_gbs(cpu_name: str, *, sockets: int = 1, channels: int | None = None, mts: int | None = None) -> float:
    """Peak system-memory bandwidth in GB/s: sockets × channels × MT/s × 8 bytes / 1000.

    Channels and MT/s default to the CPU's (data/cpus.csv); give the populated channels and the
    DIMMs' rate when they are fewer or slower (two DIMMs per channel often run slower).
    """
    row = cpu(cpu_name)
    sockets = checks.whole(sockets, "sockets", high=8)
    channels = row["memory_channels"] if channels is None else checks.whole(channels, "channels", high=16)
    mts = row["memory_mts"] if mts is None else checks.whole(mts, "mts", low=800, high=20_000)
    return sockets * channels * mts * 8 / 1000


def platforms() -> pd.DataFrame:
    """Platform classes (desktop, workstation, server) from the source material's builds."""
    return _table("platforms").copy()


def engines() -> pd.DataFrame:
    """Inference and training engines with their runtime constants and fitted speed factors."""
    return _table("engines").copy()


def mig_profiles(card: str | GPU | None = None) -> pd.DataFrame:
    """Multi-Instance GPU profiles (data/mig_profiles.csv): how a data-centre GPU is cut into isolated slices.

    One row per card and profile: ``profile`` (``1g.10gb``: one compute slice, about 10 GB),
    ``memory_gb`` (the nominal GB in the name; CUDA sees a little less), ``max_instances`` (most of
    that profile on one GPU), the ``gpus`` of the catalog it applies to, ``source`` and ``checked``.
    ``card`` (a name or alias of :func:`gpus`) keeps that card's rows; a card without MIG (every
    GeForce card, L40S, ...) raises ValueError naming the cards that have it.
    """
    table = _whole_as_int(_table("mig_profiles").copy())
    if card is None:
        return table
    g = lookup_gpu(card, "card")
    mine = table["gpus"].map(lambda names: g.name in [n.strip() for n in names.split(";")])
    if not mine.any():
        cards = list(dict.fromkeys(n.strip() for names in table["gpus"] for n in names.split(";")))
        raise ValueError(i18n.msg("card={card!r}: {name} has no MIG profiles in data/mig_profiles.csv (NVIDIA "
                                  "supports MIG only on the data-centre and RTX PRO cards of its list). Cards with "
                                  "MIG: {cards}", card=card if isinstance(card, str) else g.name, name=g.name,
                                  cards=", ".join(cards)))  # fmt: skip
    return table[mine].reset_index(drop=True)


def measured_power(card: str | GPU | None = None) -> pd.DataFrame:
    """Measured GPU power while serving an LLM (data/power.csv), not the TDP: what a card really draws.

    One row per published run: ``gpu``, ``model``, ``engine``, ``weights``, ``batch`` (sequences at once),
    ``gpu_count`` (GPUs the model was split over; ``power_w`` is per GPU), ``power_w``, ``statistic``
    (average or peak), ``what`` (how it was measured), ``tokens_per_s``, ``source``, ``checked``, ``notes``.
    ``card`` (a name or alias of :func:`gpus`) keeps that card's rows; a card nobody measured gives no rows.
    """
    table = _table("power").copy()
    if card is None:
        return table
    g = lookup_gpu(card, "card")
    return table[table["gpu"] == g.name].reset_index(drop=True)


def electricity_tariffs() -> pd.DataFrame:
    """Dated electricity tariffs (data/electricity.csv): region, tariff, structure, voltage, price_per_kwh and
    ``kit_default``, the row :func:`hwguide.token_cost` counts when no ``electricity_price`` is given."""
    return _table("electricity").copy()


def default_tariff(currency: str, on: _dt.date | None = None) -> dict[str, Any] | None:
    """The kit's default electricity tariff in ``currency``: the newest ``kit_default`` row of
    data/electricity.csv dated on or before ``on`` (default: today), as a dict; None where there is none."""
    day = on or _dt.date.today()
    table = _table("electricity")
    rows = table[(table["currency"] == currency) & table["kit_default"].astype(bool) & (table["date"] <= day)]
    if rows.empty:
        return None
    return {k: _plain(v) for k, v in rows.sort_values("date").iloc[-1].items()}


def scenarios() -> pd.DataFrame:
    """The source material's three usage scenarios, one row per scenario and tier (basic/advanced)."""
    return _table("scenarios").copy()


# ---------------------------------------------------------------------------------------------
# Records and name look-up
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class GPU:
    """One GPU of the catalog; the attributes are the columns of data/gpus.csv.

    Units are in the names: ``memory_gib`` (GiB, as marketed: a "24 GB" card has 24 GiB),
    ``bandwidth_gbs`` (GB/s = 1e9 bytes/s), ``*_tflops`` / ``*_tops`` (1e12 operations/s; tensor
    figures dense unless the name says ``sparse``, with FP32 accumulation unless it says
    ``acc16``), ``tdp_w`` (watts), ``nvlink_gbs`` (total of both directions, GB/s).
    Missing values are ``None``.
    """

    name: str
    aliases: tuple[str, ...]
    vendor: str
    architecture: str
    support: str
    compute_capability: float | None
    year: int
    segment: str
    market: str
    memory_gib: float
    gpu_memory_gib: float | None
    memory_type: str | None
    bus_bits: int | None
    bandwidth_gbs: float
    cuda_cores: int | None
    tensor_cores: int | None
    tensor_gen: int | None
    fp32_tflops: float
    fp16_tflops: float
    bf16_tflops: float | None
    fp16_acc16_tflops: float | None
    fp16_sparse_tflops: float | None
    fp8_tflops: float | None
    fp8_sparse_tflops: float | None
    int8_tops: float | None
    int8_sparse_tops: float | None
    fp4_tflops: float | None
    tdp_w: float | None
    nvlink_gbs: float | None
    pcie_gen: int | None
    pcie_lanes: int | None
    form_factor: str | None
    unified_memory: bool
    msrp_usd: float | None
    sources: tuple[str, ...]
    checked: _dt.date
    notes: str | None

    @property
    def memory_bytes(self) -> int:
        """The memory the GPU may use, in bytes (GiB × 2**30): ``gpu_memory_gib`` on a unified-memory
        machine (the share the system gives the GPU by default), else ``memory_gib``."""
        return int((self.gpu_memory_gib or self.memory_gib) * 2**30)


_VENDOR = re.compile(r"^(nvidia|geforce|tesla|quadro)+")


@functools.lru_cache(maxsize=8192)  # pure; the planner looks the same names up thousands of times
def normalize_name(name: str) -> str:
    """The look-up key of a name: lower case, no spaces/hyphens/underscores/dots, no vendor prefix.

    ``"NVIDIA GeForce RTX 4090"`` → ``"rtx4090"``; ``"2080ti 22G"`` → ``"2080ti22gb"``;
    ``"meta-llama/Llama-3.1-8B"`` → ``"llama318b"``.
    """
    text = name.strip().lower().split("/")[-1]
    text = re.sub(r"(\d)\s*g(?:b|ib)?(?![a-z0-9])", r"\1gb", text)
    text = re.sub(r"[\s\-_.()]+", "", text)
    return _VENDOR.sub("", text)


def _keys(names: list[str], aliases: list[str | None], label: str) -> dict[str, str]:
    """Map every look-up key to its canonical name; an alias claimed twice is a data error."""
    keys: dict[str, str] = {}
    for name, alias_text in zip(names, aliases):
        for alias in [name, *(a for a in (alias_text or "").split(";") if a.strip())]:
            key = normalize_name(alias)
            if keys.get(key, name) != name:
                raise DataError(i18n.msg("{file}: {alias!r} names both {first!r} and {second!r}", file=label,
                                         alias=alias, first=keys[key], second=name))  # fmt: skip
            keys[key] = name
    for name in names:  # "RTX 4090" is also "4090", unless that is already taken
        short = normalize_name(name).removeprefix("rtx")
        keys.setdefault(short, name)
    return keys


@functools.cache
def _gpu_keys() -> dict[str, str]:
    table = _table("gpus")
    return _keys(list(table["name"]), list(table["aliases"]), "gpus.csv")


@functools.cache
def _model_keys() -> dict[str, str]:
    table = _table("models")
    return _keys(list(table["name"]), list(table["aliases"]), "models.csv")


# What a look-up names, in the reader's words ("matches several GPUs" is "{what}s" in English).
_WHAT = {"GPU": i18n.Message("GPU", context="lookup"), "model": i18n.Message("model", context="lookup"),
         "image model": i18n.Message("image model", context="lookup")}  # fmt: skip


def resolve(name: str, keys: dict[str, str], what: str, argument: str = "name") -> str:
    """The canonical name for ``name``, or a LookupError naming the closest matches.

    An exact key wins; otherwise a key that starts with the query is accepted when only one
    entry has such a key (``"RTX 2080 Ti 22"`` finds ``RTX 2080 Ti 22GB``).
    """
    thing = _WHAT.get(what, what)
    if not isinstance(name, str) or not name.strip():
        raise LookupError(i18n.msg("{argument} must be a non-empty {what} name, not {name!r}", argument=argument,
                                   what=thing, name=name))  # fmt: skip
    key = normalize_name(name)
    if key in keys:
        return keys[key]
    starts = sorted({canon for k, canon in keys.items() if k.startswith(key)})
    if len(starts) == 1:
        return starts[0]
    if len(starts) > 1:
        raise LookupError(i18n.msg("{argument}={name!r} matches several {what}s: {names}. Pick one.",
                                   argument=argument, name=name, what=thing, names=", ".join(starts)))  # fmt: skip
    close = difflib.get_close_matches(key, list(keys), n=8, cutoff=0.6)
    suggestions = list(dict.fromkeys(keys[k] for k in close))[:5]
    listing = {"GPU": "hg.gpus()", "image model": "hg.image_models()"}.get(what, "hg.models()")
    if suggestions:
        raise LookupError(i18n.msg("{argument}={name!r} is not a known {what}. Did you mean: {close}? See {listing} "
                                   "for all.", argument=argument, name=name, what=thing, close=", ".join(suggestions),
                                   listing=listing))  # fmt: skip
    raise LookupError(i18n.msg("{argument}={name!r} is not a known {what}. See {listing} for all.", argument=argument,
                               name=name, what=thing, listing=listing))  # fmt: skip


def _split(text: str | None) -> tuple[str, ...]:
    return tuple(p.strip() for p in (text or "").split(";") if p.strip())


@functools.cache
def _gpu_rows() -> dict[str, dict[str, Any]]:
    """Each row of gpus.csv by name, as plain Python values (read once, not re-indexed per card)."""
    rows = _table("gpus").astype(object).to_dict("records")
    return {r["name"]: {k: _plain(v) for k, v in r.items() if k != "name"} for r in rows}


@functools.cache
def _gpu_record(name: str) -> GPU:
    row = dict(_gpu_rows()[name])
    row["aliases"] = _split(row["aliases"])
    row["sources"] = tuple(s for s in re.split(r"\s+;\s+|\s+", row["sources"] or "") if s)
    return GPU(name=name, **row)


def gpu(name: str | GPU) -> GPU:
    """Look a GPU up by name or alias, e.g. ``"4090"``, ``"rtx4090"``, ``"GeForce RTX 4090"``.

    A :class:`GPU` record is returned as it is. Raises LookupError (naming the closest matches)
    for an unknown or ambiguous name.
    """
    return lookup_gpu(name, "name")


def lookup_gpu(value: str | GPU, argument: str = "card") -> GPU:
    """:func:`gpu` for a function's argument: the LookupError names ``argument``."""
    if isinstance(value, GPU):
        return value
    return _gpu_record(resolve(value, _gpu_keys(), "GPU", argument))


@dataclasses.dataclass(frozen=True)
class Engine:
    """One engine of data/engines.csv; the attributes are its columns (units in data/README.md).

    Missing values are ``None``; the fitted factors are fractions, overheads in µs, memory in MiB.
    """

    engine: str
    version: str
    role: str
    family: str | None
    cuda_context_mib: float | None
    graphs_mib: float | None
    preallocate_fraction: float | None
    allocator: str | None  # "pytorch" (a caching allocator that reserves beyond what it allocates) or "own"
    kv_copies: int | None  # KV caches alive at the peak of a decode step (2: a tuple rebuilt every step)
    reserve_mib: float | None  # the caching allocator's reserve beyond its rounding (max_memory_reserved - allocated)
    workspace_mib: float | None  # what nvidia-smi shows beyond the bare CUDA context once kernels have run
    prefill_chunk_tokens: int | None
    ubatch_tokens: int | None
    batch_tokens: int | None
    workspace_rule: str
    embeddings_in_host: bool
    f16_matmul: str
    gguf_matmul: str
    expert_loop: str
    multi_gpu: str
    layer_offload: bool
    bw_16bit: float | None
    bw_8bit: float | None
    bw_lowbit: float | None
    decode_mfu: float | None
    prefill_mfu: float | None
    dequant_compute: float | None
    step_us: float | None
    layer_us: float | None
    expert_us: float | None
    train_util: float | None
    train_util_fp8: float | None
    train_act_bytes: float | None
    train_moe_eff: float | None
    train_attn_util: float | None
    train_comm_exposed: float | None
    train_layer_us: float | None
    train_goodput: float | None
    allreduce_efficiency: float
    allreduce_latency_us: float | None
    cpu_bw: float | None
    fitted: str | None
    source: str
    checked: _dt.date
    notes: str | None

    @property
    def name(self) -> str:
        """The engine's name (the ``engine`` column)."""
        return self.engine


@functools.cache
def _engine_records() -> dict[str, Engine]:
    rows = _table("engines").astype(object).to_dict("records")
    return {str(r["engine"]): Engine(**{k: _plain(v) for k, v in r.items()}) for r in rows}


def engine(name: str | Engine) -> Engine:
    """Look an engine up by name: transformers, vllm, sglang, tensorrt-llm, llama.cpp … (see :func:`engines`)."""
    return lookup_engine(name, "name")


def lookup_engine(value: str | Engine, argument: str = "engine") -> Engine:
    """:func:`engine` for a function's argument: the ValueError names ``argument``."""
    if isinstance(value, Engine):
        return value
    records = _engine_records()
    return records[checks.choice(value, argument, list(records))]


def platform(name: str) -> dict[str, Any]:
    """One platform class (desktop, workstation, server) of data/platforms.csv, as a dict."""
    names = _platform_names()
    if not (isinstance(name, str) and name in names):  # the planner asks thousands of times: check only the odd
        name = checks.choice(name, "platform", names)
    return _platform(name)


@functools.cache
def _platform_names() -> tuple[str, ...]:
    return tuple(_table("platforms")["platform"])


@functools.cache
def _platform(name: str) -> dict[str, Any]:
    table = _table("platforms")
    row = table[table["platform"] == name].iloc[0]
    return {k: _plain(v) for k, v in row.items()}


# ---------------------------------------------------------------------------------------------
# Models: data/models.csv is the index (names, published parameter counts, sources); the
# architecture of each model is its Hugging Face config.json under data/models/.
# ---------------------------------------------------------------------------------------------


@functools.cache
def _model_record(name: str) -> Model:
    row = {k: _plain(v) for k, v in _table("models").set_index("name").loc[name].items()}
    config = data_dir() / row["config_file"]
    return from_hf_config(
        config,
        name=name,
        params_total_b=row["params_total_b"],
        params_active_b=row["params_active_b"],
        source=row["config_source"],
    )


def model(name: str | Model) -> Model:
    """Look a model up by name, alias or Hugging Face repo id, e.g. ``"llama-3.1-8b"``.

    A :class:`Model` is returned as it is. Raises LookupError (naming the closest matches) for an
    unknown or ambiguous name.
    """
    return lookup_model(name, "name")


def closest_model(parameters: float) -> Model:
    """The dense decoder-only catalog model whose parameter count is closest (in ratio) to ``parameters``.

    ``parameters`` below 100,000 are read as billions ("7" and 7e9 both mean 7B). Used where a
    workload is given as a bare parameter count and an architecture is needed.
    """
    count = checks.number(parameters, "model", open_low=True, high=1e15, unit="parameters (or billions)")
    count = count * 1e9 if count < 1e5 else count
    return lookup_model(min(_dense_counts(), key=lambda pair: abs(math.log(pair[1] / count)))[0])


@functools.cache
def _dense_counts() -> tuple[tuple[str, int], ...]:
    """(name, parameter count) of each dense decoder-only catalog model, in the catalog's order."""
    from .architecture import param_count

    table = models()
    dense = table[(table["experts"] == 0) & (table["family"] != "BERT")]
    # a stand-in of today's shape: full attention on every layer (no Mamba-2 or linear-attention layers) and at
    # least a 4,096-token context (MPT's 2,048 would make a bare count's memory and speed its own); a model's
    # count is its language model's (a vision tower is not read per token)
    fit = [lookup_model(name) for name in dense["name"]]
    return tuple((m.name, param_count(m, active=True)) for m in fit
                 if m.max_context >= 4096 and m.attention_layers == m.layers)  # fmt: skip


def lookup_model(value: str | Model, argument: str = "model") -> Model:
    """:func:`model` for a function's argument: the LookupError names ``argument``."""
    if isinstance(value, Model):
        return value
    return _model_record(resolve(value, _model_keys(), "model", argument))


MODEL_COLUMNS = [
    "name",
    "family",
    "params_total_b",
    "params_active_b",
    "layers",
    "hidden_size",
    "ffn_size",
    "gated_ffn",
    "heads",
    "kv_heads",
    "head_dim",
    "vocab_size",
    "tied_embeddings",
    "max_context",
    "attention",
    "sliding_window",
    "experts",
    "experts_per_token",
    "hf_repo",
]


@functools.cache
def _models_frame() -> pd.DataFrame:
    index = _table("models")
    rows = []
    for name, family, repo in zip(index["name"], index["family"], index["hf_repo"]):
        record = _model_record(name)
        extra = {"family": family, "hf_repo": repo}
        rows.append({c: extra[c] if c in extra else getattr(record, c) for c in MODEL_COLUMNS})
    frame = pd.DataFrame(rows, columns=MODEL_COLUMNS)
    frame["sliding_window"] = frame["sliding_window"].astype("Int64")
    return frame


def models() -> pd.DataFrame:
    """All models of the catalog with the architecture fields the memory and speed math uses.

    ``params_*_b`` are the published counts in billions; the other columns come from each
    model's config.json (see :class:`hwguide.Model` for their meaning).
    """
    return _models_frame().copy()
