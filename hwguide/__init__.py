"""hwguide: choose GPU hardware for deep learning and LLMs.

    import hwguide as hg
    hg.gpus()            # the GPU catalog (DataFrame)
    hg.gpu("4090")       # one card, as a frozen record
    hg.model("llama-3.1-8b")
    hg.inference_memory("llama-3.1-8b", weights="Q4_K_M", context=8192)   # GPU memory, part by part
    hg.finetune_memory("llama-3.1-8b", method="qlora")
    hg.image_seconds("sdxl", "RTX 4090", steps=30)   # seconds per image, text encoders + denoiser + VAE

Functions take their subject (model, card) positionally and the rest by keyword; the words
are the same everywhere (docs/api.md): weights, kv, context, batch, gpus, engine, recompute.

Units: memory in GiB (a "24 GB" card has 24 GiB), bandwidth in GB/s (1e9 bytes/s), compute in
TFLOPS (1e12 FLOP/s; tensor figures dense, FP32 accumulate unless a column says otherwise).
"""

from . import checks, exercises
from .architecture import Model, Tensor, from_hf_config, param_count, tensors
from .catalog import (
    GPU,
    DataError,
    Engine,
    cny_per,
    cpu,
    cpus,
    data_dir,
    electricity_tariffs,
    engine,
    engines,
    exchange_rates,
    export_controls,
    export_status,
    gpu,
    gpus,
    harnesses,
    interconnects,
    kernels,
    load_table,
    measured_power,
    mig_profiles,
    model,
    models,
    platform,
    platforms,
    prices,
    ram_bandwidth_gbs,
    runs_natively,
    scenarios,
    support,
    support_of,
)
from .claims import source_claims
from .cost import TokenCost, token_cost
from .course import check_environment, local_gpus, setup
from .export import export_guide
from .gguf import gguf_file_bytes
from .glossary import glossary
from .image import image_flops, image_memory, image_model, image_models, image_seconds, image_weights_bytes
from .memory import (
    activation_bytes,
    finetune_memory,
    inference_memory,
    is_gguf,
    kv_cache_bytes,
    lora_params,
    max_context,
    max_users,
    state_bytes,
    training_memory,
    weights_bytes,
)
from .planner import Plan, build_system, evaluate_scenario, host_link, recommend
from .result import Memory
from .speed import (
    Speed,
    TrainingTime,
    arithmetic_intensity,
    break_even_days,
    decode_tokens_per_s,
    inference_speed,
    peak_flops,
    prefill_seconds,
    roofline,
    roofline_table,
    serving_tokens_per_s,
    training_flops_per_token,
    training_time,
    training_tokens_per_s,
)
from .tables import guide_tables, style_table
from .validate import validate
from .value import compare, decode_name, is_module, rank_gpus, value_ranking

__version__ = "0.1.0"

__all__ = [
    "export_guide",
    "checks",
    "Engine",
    "engine",
    "engines",
    "platform",
    "is_gguf",
    "exercises",
    "widgets",
    "platforms",
    "style_table",
    "guide_tables",
    "recommend",
    "evaluate_scenario",
    "host_link",
    "build_system",
    "Plan",
    "source_claims",
    "value_ranking",
    "is_module",
    "training_time",
    "training_tokens_per_s",
    "training_flops_per_token",
    "serving_tokens_per_s",
    "Speed",
    "inference_speed",
    "max_context",
    "max_users",
    "roofline_table",
    "roofline",
    "rank_gpus",
    "prefill_seconds",
    "peak_flops",
    "decode_tokens_per_s",
    "decode_name",
    "compare",
    "break_even_days",
    "token_cost",
    "TokenCost",
    "arithmetic_intensity",
    "TrainingTime",
    "GPU",
    "DataError",
    "Memory",
    "Model",
    "Tensor",
    "activation_bytes",
    "charts",
    "check_environment",
    "data_dir",
    "finetune_memory",
    "from_hf_config",
    "gguf_file_bytes",
    "glossary",
    "gpu",
    "gpus",
    "inference_memory",
    "harnesses",
    "interconnects",
    "kernels",
    "kv_cache_bytes",
    "state_bytes",
    "load_table",
    "local_gpus",
    "lora_params",
    "mig_profiles",
    "measured_power",
    "model",
    "models",
    "param_count",
    "prices",
    "ram_bandwidth_gbs",
    "runs_natively",
    "scenarios",
    "cpu",
    "cpus",
    "exchange_rates",
    "export_controls",
    "export_status",
    "electricity_tariffs",
    "cny_per",
    "support",
    "support_of",
    "setup",
    "tensors",
    "training_memory",
    "validate",
    "weights_bytes",
    "image_flops",
    "image_memory",
    "image_model",
    "image_models",
    "image_seconds",
    "image_weights_bytes",
]


def __getattr__(name: str) -> object:
    """Import ``hg.charts`` and ``hg.widgets`` on first use, keeping ``import hwguide`` light."""
    if name in ("widgets", "charts"):  # matplotlib and ipywidgets load only when a chart or calculator is used
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'hwguide' has no attribute {name!r}")
