"""hwguide: choose GPU hardware for deep learning and LLMs.

    import hwguide as hg
    hg.gpus()            # the GPU catalog (DataFrame)
    hg.gpu("4090")       # one card, as a frozen record
    hg.model("llama-3.1-8b")

Units: memory in GiB (a "24 GB" card has 24 GiB), bandwidth in GB/s (1e9 bytes/s), compute in
TFLOPS (1e12 FLOP/s; tensor figures dense, FP32 accumulate unless a column says otherwise).
"""

from . import charts
from .architecture import Model, from_hf_config
from .catalog import (
    GPU,
    DataError,
    data_dir,
    gpu,
    gpus,
    interconnects,
    load_table,
    model,
    models,
    prices,
    scenarios,
)
from .course import check_environment, local_gpus, setup

__version__ = "0.1.0"

__all__ = [
    "GPU",
    "DataError",
    "Model",
    "charts",
    "check_environment",
    "data_dir",
    "from_hf_config",
    "gpu",
    "gpus",
    "interconnects",
    "load_table",
    "local_gpus",
    "model",
    "models",
    "prices",
    "scenarios",
    "setup",
]
