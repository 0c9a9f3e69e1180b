"""Turn the published image-generation timings (tools/image_bench.csv) into data/image_measurements.csv.

``image_bench.csv`` holds each timing as read from its source (the ``source`` column), in the source's
own words for model, card, software and weights. Each row keeps its id, source, date and notes; this
script only names the kit's model, card, engine class and weight format for it, or says why the row
cannot be used. Offline; run from the repository root:

    python tools/curate_image_bench.py                 # rewrites data/image_measurements.csv
    python tools/curate_image_bench.py --out other.csv # writes elsewhere (to compare)
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd

import hwguide as hg

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

MODELS = {
    "SD 1.5": "Stable Diffusion 1.5",
    "SD 1.4": "Stable Diffusion 1.5",  # the same UNet, VAE and text encoder configs; v1.5 is v1.2 trained longer
    "SDXL 1.0 base": "SDXL 1.0 base",
    "SDXL architecture (Playground v2.5 1024px aesthetic)": "SDXL 1.0 base",
    "FLUX.1-dev": "FLUX.1-dev",
    "FLUX.1-schnell": "FLUX.1-schnell",
    "SD 3.5 Large": "Stable Diffusion 3.5 Large",
    "SD 3.5 Medium": "Stable Diffusion 3.5 Medium",
}
# Cards whose variant the source leaves open: usable only where every variant has the same FP16 rate.
SAME_RATE = {
    "A100 (variant not stated)": "A100 SXM4 80GB",
    "A100 40GB (form factor not stated)": "A100 SXM4 40GB",
    "A100 80GB (form factor not stated)": "A100 SXM4 80GB",
}


def engine(software: str) -> str:
    s = software.lower().replace("no compile", "")
    if re.search(r"compile|tensorrt|oneflow|onediff|nexfort|stable-fast", s):
        return "compiled"
    if re.search(r"comfyui|visionatrix|automatic1111|forge", s):
        return "webui"
    if "default attention" in s or "non-sdpa" in s or "no sdpa" in s:
        return "diffusers-naive-attention"
    return "diffusers"


def weights(text: str) -> tuple[str | None, str]:
    """The kit's format for the denoiser, and for the text encoders."""
    t = text.lower()
    if "not stated" in t and not t.startswith(("fp16", "16-bit", "bf16")):
        return None, ""
    if "int4" in t or "llm.int8" in t:
        return None, ""
    both = "transformer + t5" in t or "transformer + text_encoder_2" in t
    if "gguf q8_0" in t:
        fmt = "Q8_0"
    elif "gguf q4_1" in t:
        fmt = "Q4_1"
    elif "nf4" in t:
        fmt = "nf4"
    elif "fp8 matmul" in t or "fp8 dynamic" in t:
        fmt = "fp8-matmul"
    elif "int8 dynamic" in t or "dynamic int8" in t:
        fmt = "int8-matmul"
    elif "int8 weight-only" in t:
        fmt = "int8"
    elif "fp8" in t:
        fmt = "fp8"
    elif t.startswith("fp32"):
        fmt = "fp32"
    elif "bf16" in t or "sd3.5_large/medium" in t:
        fmt = "bf16"
    else:
        fmt = "fp16"
    text_fmt = fmt if both else ("fp8" if "fp8 text encoders" in t else "fp16")
    return fmt, text_fmt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "image_measurements.csv",
                        help="where to write (default: data/image_measurements.csv)")  # fmt: skip
    args = parser.parse_args()
    raw = pd.read_csv(HERE / "image_bench.csv")
    rows = []
    for r in raw.itertuples(index=False):
        why = ""
        model = MODELS.get(r.model)
        if model is None:
            why = f"model {r.model!r} is not in the kit"
        card = SAME_RATE.get(r.gpu, r.gpu)
        if not why:
            try:
                g = hg.gpu(card)
                card = g.name
                if g.fp16_tflops is None:
                    why = f"{g.name} has no published FP16 Tensor rate"
            except LookupError:
                why = f"card {r.gpu!r} is not in the catalog, or its variant (and FP16 rate) is not stated"
        fmt, text_fmt = weights(str(r.weights))
        if not why and fmt is None:
            why = f"weights {r.weights!r}: format not stated, or a kernel the kit does not model"
        if not why and r.gpu_count != 1:
            why = f"{r.gpu_count} GPUs working on one image (context parallelism); the kit models one card"
        if not why and fmt == "fp32":
            why = (
                "fp32: PyTorch runs convolutions in TF32 but matrix multiplies in FP32 by default "
                "(torch.backends.cudnn.allow_tf32 / torch.backends.cuda.matmul.allow_tf32); the split is not modelled"
            )
        if not why and r.unit == "s_per_image" and "load" in str(r.includes).lower():
            why = "time includes loading the model"
        if not why and "refiner" in str(r.model).lower():
            why = "refiner stage"
        offload = "none"
        if "model_cpu_offload" in r.software:
            offload = "model"
        elif "sequential_cpu_offload" in r.software:
            offload = "sequential"
        elif engine(r.software) == "webui":
            offload = "auto"  # ComfyUI keeps what fits and loads the rest as each model is needed
        rows.append(
            {
                "id": r.id,
                "model": model or r.model,
                "gpu": card,
                "engine": engine(r.software),
                "software": r.software,
                "weights": fmt or r.weights,
                "text_weights": text_fmt,
                "offload": offload,
                "width": r.width,
                "height": r.height,
                "steps": r.steps,
                "batch": r.batch,
                "measured": r.measured,
                "unit": r.unit,
                "includes": r.includes,
                "peak_vram_gb": r.peak_vram_gb,
                "excluded_because": why,
                "source": r.source,
                "date": r.date,
                "notes": r.notes,
            }
        )
    out = pd.DataFrame(rows)
    out.to_csv(args.out, index=False, lineterminator="\n")
    used = out[out.excluded_because == ""]
    print(f"{len(out)} rows, {len(used)} usable; by engine:\n{used.engine.value_counts()}")
    print(out[out.excluded_because != ""].excluded_because.value_counts().head(20))


if __name__ == "__main__":
    main()
