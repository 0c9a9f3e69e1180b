"""Image generation: GPU memory and seconds per image for Stable Diffusion and FLUX pipelines.

A text-to-image pipeline runs three kinds of network (data/image_components.csv):

1. the **text encoders** (CLIP, T5) once per prompt, twice with classifier-free guidance (CFG:
   the empty negative prompt too);
2. the **denoiser** (a UNet or a diffusion transformer) once per step, or twice per step with CFG
   (the conditional and unconditional predictions; guidance-distilled FLUX needs one pass);
3. the **VAE decoder** once, turning latents into pixels.

The FLOPs of each come from the real networks: ``tools/image_flops.py`` builds every component
from its config on PyTorch's meta device and counts its matrix multiplies, convolutions and
attention. Per pass they are exactly ``a + b·MP + c·MP²`` GFLOPs in megapixels (convolutions and
projections grow with the pixels, self-attention with their square). Time is the same roofline as
for LLMs: each step costs the larger of its compute (FLOPs at the card's dense Tensor rate times
an efficiency) and reading its weights (bytes at the card's bandwidth), plus a fixed overhead per
step, plus any weights that must cross PCIe. The Tensor rate is the one a board sustains in a
matmul where one was measured (data/board_clocks.csv), and the FP16-accumulate rate for engines
whose kernels accumulate in FP16 (``fp16_accumulate`` in data/image_engines.csv; twice the
FP32-accumulate rate on GeForce cards). The efficiencies, overhead and activation constants
are fitted per engine class on published timings (data/image_measurements.csv,
``benchmarks/fit_image.py``) and judged leaving whole authors out.

Memory says which quantity it estimates (``reading``): what nvidia-smi shows (the default: tensors,
PyTorch's allocator reserve and the CUDA context), what PyTorch reserves, or what it allocates.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from . import checks, i18n
from .catalog import GPU, _keys, _plain, _table, data_dir, lookup_engine, lookup_gpu, resolve
from .i18n import N_
from .memory import check_reading
from .result import GIB, Memory
from .speed import COMPUTE_COLUMN, _links

__all__ = [
    "IMAGE_FORMATS",
    "OFFLOAD",
    "READINGS",
    "board_fraction",
    "channels_per_pixel",
    "image_engines",
    "image_flops",
    "image_memory",
    "image_model",
    "image_models",
    "image_seconds",
    "image_weights_bytes",
    "time_terms",
    "timing",
]

# Bits per stored parameter of each weight format a diffusion checkpoint comes in.
#  - fp8: FP8 E4M3 storage, multiplied at 16 bits (ComfyUI's fp8_e4m3fn weight dtype, diffusers'
#    layerwise casting, torchao/quanto fp8 weight-only); fp8-matmul: FP8 weights *and* activations
#    at the card's FP8 Tensor rate (torchao float8 dynamic quantisation, flux-fp8-api).
#  - int8: weight-only int8 (torchao, optimum-quanto); int8-matmul: dynamic int8 activations too.
#  - nf4: bitsandbytes 4-bit NormalFloat, an fp32 absmax per 64 weights: 4 + 32/64 bits (Dettmers et
#    al. 2023, QLoRA §2); multiplied at 16 bits.
#  - GGUF types (city96's ComfyUI-GGUF files): the bits of the ggml block type they are named after
#    (the ``gguf`` package's GGML_QUANT_SIZES), dequantised and multiplied at 16 bits.
PLAIN_BITS = {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "fp8-matmul": 8, "int8": 8, "int8-matmul": 8, "nf4": 4.5}
GGUF_BLOCK = {"F16": "F16", "Q8_0": "Q8_0", "Q6_K": "Q6_K", "Q5_K_S": "Q5_K", "Q5_K_M": "Q5_K", "Q5_1": "Q5_1",
              "Q5_0": "Q5_0", "Q4_K_S": "Q4_K", "Q4_K_M": "Q4_K", "Q4_1": "Q4_1", "Q4_0": "Q4_0",
              "Q3_K_S": "Q3_K", "Q2_K": "Q2_K"}  # fmt: skip
IMAGE_FORMATS = (*PLAIN_BITS, *GGUF_BLOCK)
MATMUL = {"fp32": "fp32", "fp8-matmul": "fp8", "int8-matmul": "int8"}  # other formats multiply at 16 bits

# Where the weights live while a pipeline runs, as the common tools offer it:
#  - none: every component on the GPU (diffusers ``pipe.to("cuda")``);
#  - model: one component at a time, the rest in CPU memory (diffusers ``enable_model_cpu_offload``);
#  - sequential: one submodule at a time (``enable_sequential_cpu_offload``): least memory, slowest;
#  - auto: keep what fits, stream the rest of the denoiser over PCIe each step (ComfyUI).
OFFLOAD = ("none", "model", "sequential", "auto")
PASSES = {"cfg": 2, "distilled": 1}
# The component names of an image run's Memory (codes; their words are the catalog's, context "component").
COMPONENT_LABELS = {"text": "text encoders", "denoiser": "denoiser", "vae": "VAE", "activations": "activations",
                    "reserve": "allocator reserve", "context": "CUDA context"}  # fmt: skip
# What a reader compares an image run's memory with (the ``reading`` argument: the names of memory.READINGS), in
# the image model's words (it counts no library memory beyond the context), and the parts each reading leaves out.
READINGS = {
    "nvidia-smi": N_("what nvidia-smi shows for the process: the tensors, PyTorch's allocator reserve and the "
                     "CUDA context"),
    "reserved": N_("what PyTorch reserves (torch.cuda.max_memory_reserved or memory_reserved): the tensors and the "
                   "allocator reserve, no CUDA context"),
    "allocated": N_("what PyTorch allocates (torch.cuda.max_memory_allocated): the tensors only"),
}  # fmt: skip
_NOT_IN = {"nvidia-smi": (), "reserved": ("context",), "allocated": ("context", "reserve")}
_OFFLOAD_RULE = {
    "none": N_("every component stays on the GPU."),
    "model": N_("one component on the GPU at a time; the peak is the largest phase."),
    "sequential": N_("weights stream in submodule by submodule; only activations stay."),
}


# ---------------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------------


def image_models() -> pd.DataFrame:
    """The image models the kit knows (data/image_models.csv): defaults, guidance and sources."""
    return _table("image_models").copy()


def image_engines() -> pd.DataFrame:
    """Engine classes for image generation and their fitted factors (data/image_engines.csv)."""
    return _table("image_engines").copy()


@functools.cache
def _image_keys() -> dict[str, str]:
    table = _table("image_models")
    return _keys(list(table["name"]), list(table["aliases"]), "image_models.csv")


def image_model(name: str) -> dict[str, Any]:
    """One image model by name or alias ("sdxl", "flux dev"), with its components, as a dict.

    Raises LookupError with the closest names for an unknown model.
    """
    return copy.deepcopy(_image_model(resolve(name, _image_keys(), "image model", "model")))


@functools.cache
def _image_model(canon: str) -> dict[str, Any]:
    row = _table("image_models").set_index("name").loc[canon]
    comps = _table("image_components")
    parts = comps[comps["model"] == canon]
    return {
        "name": canon,
        **{k: _plain(v) for k, v in row.items()},
        "components": {str(r["component"]): {k: _plain(v) for k, v in r.items()} for _, r in parts.iterrows()},
    }


def _check_factors(factors: object) -> dict[str, Any]:
    """``factors`` (fitted image factors to use instead of the engine's): None or a mapping of factor names
    to finite numbers, or a ValueError naming the argument and what it takes."""
    if factors is None:
        return {}
    if not isinstance(factors, Mapping) or not all(isinstance(k, str) for k in factors):
        raise ValueError(i18n.msg("factors must be a dict of factor names to numbers (as data/image_engines.csv "
                                  "names them), not {value!r}", value=factors))  # fmt: skip
    return {k: checks.number(v, f"factors[{k!r}]") for k, v in factors.items()}


def _engine_row(engine: str) -> dict[str, Any]:
    return dict(_engine_rows()[checks.choice(engine, "engine", list(_engine_rows()))])


@functools.cache
def _engine_rows() -> dict[str, dict[str, Any]]:
    return {str(r["engine"]): {k: _plain(v) for k, v in r.items()} for _, r in _table("image_engines").iterrows()}


# ---------------------------------------------------------------------------------------------
# Weights and FLOPs
# ---------------------------------------------------------------------------------------------


def _check_format(weights: object, name: str) -> str:
    """The canonical spelling of an image weight format ("q4_k_s" and "Q4KS" are Q4_K_S)."""
    if isinstance(weights, str):
        loose = {f.lower().replace("_", "").replace("-", ""): f for f in IMAGE_FORMATS}
        key = weights.strip().lower().replace("_", "").replace("-", "")
        if key in loose:
            return loose[key]
    return checks.choice(weights, name, IMAGE_FORMATS)


def format_bits(weights: str) -> float:
    """Bits per stored parameter of an image weight format (scales included)."""
    fmt = _check_format(weights, "weights")
    if fmt in PLAIN_BITS:
        return float(PLAIN_BITS[fmt])
    from gguf.constants import GGML_QUANT_SIZES

    sizes = {t.name: s for t, s in GGML_QUANT_SIZES.items()}
    block, nbytes = sizes[GGUF_BLOCK[fmt]]
    return 8 * nbytes / block


def image_weights_bytes(model: str, *, weights: str | None = None, text_weights: str | None = None) -> dict[str, int]:
    """Bytes of each component's weights: ``weights`` for the denoiser, ``text_weights`` for the
    text encoders (both default to the model's own 16-bit dtype); the VAE stays 16-bit.

    The denoiser's count includes any fixed buffer its checkpoint stores (SD 3.5's position
    embedding, ``stored_extra``), kept at 16 bits.
    """
    m = image_model(model)
    den = _check_format(weights or m["dtype"], "weights")
    txt = _check_format(text_weights or m["dtype"], "text_weights")
    out = {}
    for comp, row in m["components"].items():
        if comp == "denoiser":
            out[comp] = int(row["params"] * format_bits(den) / 8 + 2 * (m["stored_extra"] or 0))
        elif comp == "vae":
            out[comp] = int(row["params"] * 2)
        else:
            out[comp] = int(row["params"] * format_bits(txt) / 8)
    return out


def _sizes(m: Mapping[str, Any], width: object, height: object, batch: object, steps: object) -> tuple[int, ...]:
    w = checks.whole(m["width"] if width is None else width, "width", low=64, high=8192)
    h = checks.whole(m["height"] if height is None else height, "height", low=64, high=8192)
    if w % 16 or h % 16:
        raise ValueError(
            i18n.msg(
                "width={width} and height={height} must be multiples of 16 (latents are 1/8 of the "
                "image, and the transformers pack 2 × 2 latents per token)",
                width=w,
                height=h,
            )
        )
    b = checks.whole(batch, "batch", high=256)
    s = checks.whole(m["steps"] if steps is None else steps, "steps", high=1000)
    return w, h, b, s


def image_flops(model: str, *, width: int | None = None, height: int | None = None) -> dict[str, float]:
    """FLOPs for one image: ``text`` (all encoders, one prompt), ``denoiser_pass`` (one pass) and ``vae``
    (decoding), at ``width`` × ``height`` pixels (defaults: the model's own resolution)."""
    m = image_model(model)
    w, h, _, _ = _sizes(m, width, height, 1, None)
    mp = w * h / 1e6
    out = {"text": 0.0, "denoiser_pass": 0.0, "vae": 0.0}
    for comp, row in m["components"].items():
        gflops = row["gflops_const"] + row["gflops_per_mp"] * mp + row["gflops_per_mp2"] * mp**2
        key = "denoiser_pass" if comp == "denoiser" else "vae" if comp == "vae" else "text"
        out[key] += gflops * 1e9
    return out


# ---------------------------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------------------------


@functools.cache
def channels_per_pixel(model: str) -> float:
    """Feature values per image pixel in the denoiser's finest feature map, from the stored configs.

    A UNet's first level holds ``block_out_channels[0]`` channels per latent pixel (8 × 8 image pixels for
    these VAEs: 2 ** (levels − 1) of the VAE's ``block_out_channels``); a diffusion transformer holds
    ``num_attention_heads × attention_head_dim`` per token of ``patch_size²`` latent pixels, where the
    pipeline may pack latents first (FLUX: 64 input channels of 16-channel latents, 2 × 2 packed).
    SD 1.5 and SDXL: 320 / 64 = 5; SD 3.5 Large 2432 / 256 = 9.5; Medium 1536 / 256 = 6; FLUX 3072 / 256 = 12.
    The denoiser's activations are taken proportional to it.
    """
    m = image_model(model)

    def config(comp: str) -> dict[str, Any]:
        return json.loads((data_dir() / m["components"][comp]["config_file"]).read_text())

    den, vae = config("denoiser"), config("vae")
    scale = 2 ** (len(vae["block_out_channels"]) - 1)
    if "block_out_channels" in den:  # a UNet: its first level, one latent pixel per position
        return den["block_out_channels"][0] / scale**2
    packed = math.isqrt(den["in_channels"] // vae["latent_channels"])
    patch = (den.get("patch_size") or 1) * packed
    return den["num_attention_heads"] * den["attention_head_dim"] / (scale * patch) ** 2


def _context_bytes() -> float:
    # The CUDA context of a PyTorch process (data/engines.csv, transformers row: 426 MiB measured).
    return float(lookup_engine("transformers").cuda_context_mib or 0) * 2**20


def _cost(m: Mapping[str, Any], wb: Mapping[str, int], card: GPU | None, w: int, h: int, b: int,
          offload: str, vae_slicing: bool = False) -> dict[str, Any]:  # fmt: skip
    """The factor-free terms of a run's memory: bytes per component, pixels (those the VAE decodes at once:
    one image with ``vae_slicing``, the whole batch without), passes, the card's memory."""
    return {
        "text": float(sum(v for k, v in wb.items() if k.startswith("text"))),
        "denoiser": float(wb["denoiser"]),
        "vae": float(wb["vae"]),
        "context": _context_bytes(),
        "pixels": float(w * h * b),
        "width": channels_per_pixel(m["name"]),
        "vae_pixels": float(w * h * (1 if vae_slicing else b)),
        "passes": float(PASSES[m["guidance"]]),
        "usable": float(card.memory_bytes) if card is not None else math.inf,
        "offload": offload,
    }


def _layout(cost: Mapping[str, Any], fac: Mapping[str, Any]) -> dict[str, Any]:
    """What the GPU holds at its peak, what waits in CPU memory, and the bytes crossing PCIe.

    ``moved``: bytes per call (components loaded for each run); ``streamed``: denoiser bytes per step
    (the part that does not fit, or all of it with sequential offload).
    """
    text, den, vae, ctx = cost["text"], cost["denoiser"], cost["vae"], cost["context"]
    act = fac["act_bytes_per_channel"] * cost["width"] * cost["pixels"] * cost["passes"]
    act_vae = fac["vae_bytes_per_px"] * cost["vae_pixels"]
    keep = fac.get("reserve_frac") or 0.0  # the allocator's reserve, a share of the activations freed and reused
    peak_act = max(act, act_vae)
    everything = {"text": text, "denoiser": den, "vae": vae, "activations": peak_act, "reserve": keep * peak_act,
                  "context": ctx}  # fmt: skip
    mode, streamed, moved = cost["offload"], 0.0, 0.0
    if mode == "auto":
        mode = "none" if sum(everything.values()) <= cost["usable"] else "model"
        if mode == "model":
            moved = text + vae  # swapped in and out around the denoiser on every run
            streamed = min(den, max(0.0, den + act * (1 + keep) + ctx - cost["usable"]))
    elif mode == "model":
        moved = text + den + vae  # every component crosses PCIe once per call
    elif mode == "sequential":
        moved, streamed = text + vae, den
    phases = {  # what the GPU holds in each phase when one component is loaded at a time
        "text": {"text": text if mode == "model" else 0.0, "context": ctx},
        "denoise": {"denoiser": den - streamed, "activations": act, "reserve": keep * act, "context": ctx},
        "decode": {
            "vae": vae if mode == "model" else 0.0,
            "activations": act_vae,
            "reserve": keep * act_vae,
            "context": ctx,
        },
    }
    held = everything if mode == "none" else max(phases.values(), key=lambda p: sum(p.values()))
    offloaded = {} if mode == "none" else {"text": text, "denoiser": den, "vae": vae}
    return {"held": held, "offloaded": offloaded, "streamed": streamed, "moved": moved, "mode": mode}


def image_memory(
    model: str,
    *,
    weights: str | None = None,
    text_weights: str | None = None,
    width: int | None = None,
    height: int | None = None,
    batch: int = 1,
    offload: str = "none",
    vae_slicing: bool = False,
    engine: str = "diffusers",
    card: str | GPU | None = None,
    reading: str = "nvidia-smi",
    factors: Mapping[str, Any] | None = None,
) -> Memory:
    """GPU memory to generate ``batch`` images with ``model``, part by part.

    ``offload`` is where the weights wait (:data:`OFFLOAD`); ``auto`` needs ``card`` (what fits on
    it stays). Activations are fitted (data/image_engines.csv): the denoiser's bytes per pixel and per
    channel of its finest feature map (:func:`channels_per_pixel`), per image and CFG pass, and the VAE
    decoder's bytes per pixel, which dominate at large batches. ``vae_slicing`` decodes the batch one
    image at a time (diffusers ``enable_vae_slicing``): the VAE's activations are those of one image.
    ``Memory.offloaded`` is the CPU memory the offloaded weights take. ``reading`` says which quantity
    the total is (:data:`READINGS`): ``"nvidia-smi"`` (the default: what the card's memory must hold), ``"reserved"``
    or ``"allocated"`` (what ``torch.cuda.max_memory_allocated`` reports, as most benchmark scripts print).
    """
    m = image_model(model)
    w, h, b, _ = _sizes(m, width, height, batch, None)
    offload = checks.choice(offload, "offload", OFFLOAD)
    reading = check_reading(reading)  # the same three readings as the LLM memory functions
    vae_slicing = checks.flag(vae_slicing, "vae_slicing")
    g = lookup_gpu(card, "card") if card is not None else None
    if offload == "auto" and g is None:
        raise ValueError(i18n.msg("offload='auto' keeps what fits on a card: give card=, or choose none, model or "
                                  "sequential"))  # fmt: skip
    fac = {**_engine_row(engine), **_check_factors(factors)}
    wb = image_weights_bytes(m["name"], weights=weights, text_weights=text_weights)
    lay = _layout(_cost(m, wb, g, w, h, b, offload, vae_slicing), fac)
    per_gpu = {COMPONENT_LABELS[k]: int(v) for k, v in read(lay["held"], reading).items() if v}
    guidance = i18n.msg("classifier-free guidance") if m["guidance"] == "cfg" else i18n.msg("guidance-distilled")
    how = i18n.msg(_OFFLOAD_RULE[lay["mode"]])
    notes = (
        i18n.msg("{model}: {width} × {height} px, batch {batch}, {passes} denoiser pass(es) per step ({guidance}).",
                 model=m["name"], width=w, height=h, batch=b, passes=PASSES[m["guidance"]], guidance=guidance),
        i18n.msg("Weights: denoiser {weights}, text encoders {text_weights}, VAE 16-bit "
                 "(parameters × bits of the format; data/image_components.csv).",
                 weights=weights or m["dtype"], text_weights=text_weights or m["dtype"]),
        i18n.msg("Activations: {denoiser:.0f} B per pixel per pass (denoiser) and {vae:.0f} B per pixel "
                 "(VAE decode), fitted for {engine} on published timings (data/image_engines.csv, "
                 "benchmarks/fit_image.py).", denoiser=fac["act_bytes_per_channel"] * channels_per_pixel(m["name"]),
                 vae=fac["vae_bytes_per_px"],
                 engine=fac["engine"]),
        i18n.msg("Offload '{mode}': {how} {gib:.1f} GiB of the denoiser does not fit and streams over PCIe each step.",
                 mode=i18n.Message(lay["mode"], context="offload"), how=how, gib=lay["streamed"] / GIB)
        if lay["streamed"] and lay["mode"] != "sequential"
        else i18n.msg("Offload '{mode}': {how}", mode=i18n.Message(lay["mode"], context="offload"), how=how),
        i18n.msg("The total is {quantity}; the allocator reserve is {share:.0%} of the activations, fitted on the "
                 "rows that measured it (data/image_engines.csv).", quantity=i18n.msg(READINGS[reading]),
                 share=fac.get("reserve_frac") or 0.0),
    )  # fmt: skip
    offloaded = {COMPONENT_LABELS[k]: int(v) for k, v in lay["offloaded"].items()}
    return Memory(kind="image generation", per_gpu=per_gpu, parts=per_gpu, assumptions=notes, offloaded=offloaded)


def read(held: Mapping[str, float], reading: str) -> dict[str, float]:
    """The parts of a layout's ``held`` memory that a ``reading`` (:data:`READINGS`) sees."""
    return {k: v for k, v in held.items() if k not in _NOT_IN[reading]}


# ---------------------------------------------------------------------------------------------
# Time
# ---------------------------------------------------------------------------------------------


@functools.cache
def _board_fractions() -> dict[str, float]:
    """Measured FP16 matmul TFLOPS over the catalog's FP32-accumulate FP16 rate, per board (data/board_clocks.csv)."""
    out = {}
    for name, tflops in zip(*_table("board_clocks")[["gpu", "fp16_matmul_tflops"]].to_dict("list").values()):
        card = lookup_gpu(name, "gpu")
        out[card.name] = float(tflops) / float(card.fp16_tflops)
    return out


def board_fraction(card: str | GPU) -> tuple[float, bool]:
    """The share of its datasheet Tensor rate a board sustains in a large FP16 matmul, and whether it was measured.

    Measured boards (data/board_clocks.csv: torch.mm at 1024-10240, 30 iterations after 10 warm-up) range from
    0.57 (the 72 W L4) and 0.65 (the 70 W T4) to 1.07 (GeForce boards boosting above the reference clock);
    a board without a measurement gets the median of the measured ones.
    """
    g = lookup_gpu(card, "card")
    known = _board_fractions()
    if g.name in known:
        return known[g.name], True
    return float(pd.Series(list(known.values())).median()), False


def _rate(card: GPU, fmt: str, dtype: str) -> tuple[float, str]:
    """FLOP/s the matrix multiplies run at by the datasheet, and the precision named."""
    want = MATMUL.get(fmt, fmt if fmt in ("fp16", "bf16") else dtype)
    for p in (want, dtype, "fp16"):
        value = getattr(card, COMPUTE_COLUMN[p])
        if value:
            return float(value) * 1e12, p
    raise ValueError(i18n.msg("card={card!r} has no FP16 Tensor rate in the catalog; choose another card",
                              card=card.name))  # fmt: skip


def _pcie_bytes_per_s(card: GPU) -> float:
    gen = card.pcie_gen or 4
    return float(_links()[f"PCIe {gen}.0 x16"]["per_direction_gbs"]) * 1e9 * (card.pcie_lanes or 16) / 16


def image_seconds(
    model: str,
    card: str | GPU,
    *,
    weights: str | None = None,
    text_weights: str | None = None,
    width: int | None = None,
    height: int | None = None,
    steps: int | None = None,
    batch: int = 1,
    engine: str = "diffusers",
    offload: str = "none",
    vae_slicing: bool = False,
    factors: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Seconds to generate ``batch`` images with ``model`` on one ``card``, and what bounds each part.

    Returns ``per_image_s`` (the whole call divided by the batch), ``total_s``, ``text_s``,
    ``denoise_s``, ``vae_s``, ``transfer_s`` (weights crossing PCIe), ``step_s`` and ``it_per_s``
    (denoising steps per second for the whole batch, what web UIs print), ``step_bound``
    (``compute``, ``memory`` or ``pcie``), ``precision``, ``fits``, ``peak_gib`` and ``assumptions``.
    ``factors`` overrides the engine's fitted ones (``benchmarks/fit_image.py`` uses it).
    """
    offload = checks.choice(offload, "offload", OFFLOAD)
    fac = {**_engine_row(engine), **_check_factors(factors)}
    terms = time_terms(model, card, weights=weights, text_weights=text_weights, width=width, height=height,
                       steps=steps, batch=batch, offload=offload, vae_slicing=vae_slicing)  # fmt: skip
    return timing(terms, fac)


def time_terms(
    model: str,
    card: str | GPU,
    *,
    weights: str | None = None,
    text_weights: str | None = None,
    width: int | None = None,
    height: int | None = None,
    steps: int | None = None,
    batch: int = 1,
    offload: str = "none",
    vae_slicing: bool = False,
) -> dict[str, Any]:
    """The factor-free terms of :func:`image_seconds`: FLOPs, rates, bytes and the memory layout's inputs."""
    m = image_model(model)
    w, h, b, s = _sizes(m, width, height, batch, steps)
    g = lookup_gpu(card, "card")
    offload = checks.choice(offload, "offload", OFFLOAD)
    den_fmt = _check_format(weights or m["dtype"], "weights")
    wb = image_weights_bytes(m["name"], weights=den_fmt, text_weights=text_weights)
    flops = image_flops(m["name"], width=w, height=h)
    peak, precision = _rate(g, den_fmt, m["dtype"])
    peak16, _ = _rate(g, m["dtype"], m["dtype"])
    # FP16 with FP16 accumulation: GeForce cards run it at twice the FP32-accumulate rate, the others at the same
    acc16 = float(g.fp16_acc16_tflops or 0) * 1e12 if precision == "fp16" else 0.0
    fraction, measured = board_fraction(g)
    return {
        "model": m["name"],
        "gpu": g.name,
        "batch": b,
        "steps": s,
        "passes": PASSES[m["guidance"]],
        "flops": flops,
        "peak": peak * fraction,
        "peak16": peak16 * fraction,
        "peak_acc16": max(acc16, peak) * fraction,
        "board_fraction": fraction,
        "board_measured": measured,
        "precision": precision,
        "bandwidth": g.bandwidth_gbs * 1e9 * float(lookup_engine("transformers").bw_16bit or 1),
        "pcie": _pcie_bytes_per_s(g),
        "weights": wb,
        "memory_bytes": g.memory_bytes,
        "cost": _cost(m, wb, g, w, h, b, offload, checks.flag(vae_slicing, "vae_slicing")),
    }


def timing(terms: Mapping[str, Any], fac: Mapping[str, Any], *, explain: bool = True) -> dict[str, Any]:
    """:func:`image_seconds` from its :func:`time_terms` and an engine's factors (``explain=False``
    leaves out the sentences, for fitting)."""
    lay = _layout(terms["cost"], fac)
    b, passes, flops, wb = terms["batch"], terms["passes"], terms["flops"], terms["weights"]
    acc16 = bool(fac.get("fp16_accumulate")) and terms["peak_acc16"] > terms["peak"]
    peak, pcie = terms["peak_acc16" if acc16 else "peak"], terms["pcie"]
    compute = passes * b * flops["denoiser_pass"] / (peak * fac["mfu"])
    memory = (wb["denoiser"] - lay["streamed"]) / terms["bandwidth"]
    stream = lay["streamed"] / pcie
    step = max(compute, memory) + stream + fac["step_ms"] / 1e3
    bound = "pcie" if stream > max(compute, memory) else "compute" if compute >= memory else "memory"
    text = passes * b * flops["text"] / (terms["peak16"] * fac["mfu"])
    vae = b * flops["vae"] / (terms["peak16"] * fac["vae_mfu"])
    transfer = lay["moved"] / pcie
    total = text + terms["steps"] * step + vae + transfer
    held = sum(lay["held"].values())
    out = {
        "model": terms["model"],
        "gpu": terms["gpu"],
        "per_image_s": total / b,
        "total_s": total,
        "text_s": text,
        "denoise_s": terms["steps"] * step,
        "vae_s": vae,
        "transfer_s": transfer,
        "step_s": step,
        "it_per_s": 1 / step,
        "step_bound": bound,
        "precision": terms["precision"] + ("-acc16" if acc16 else ""),
        "fits": held <= terms["memory_bytes"],
        "peak_gib": held / GIB,
    }
    if explain:
        moved = {"mode": i18n.Message(lay["mode"], context="offload"), "moved": lay["moved"] / 1e9, "pcie": pcie / 1e9}
        out["assumptions"] = (
            i18n.msg(
                "Denoiser: {passes} × {batch} × {tflop:.2f} TFLOP per step at {tflops:.0f} TFLOPS ({precision}) "
                "× {mfu:.2f} efficiency = {compute_ms:.1f} ms; reading {gb:.1f} GB of weights takes "
                "{memory_ms:.1f} ms; + {step_ms:.1f} ms per step ({engine}).",
                passes=passes,
                batch=b,
                tflop=flops["denoiser_pass"] / 1e12,
                tflops=peak / 1e12,
                precision=terms["precision"] + (" FP16-accumulate" if acc16 else ""),
                mfu=fac["mfu"],
                compute_ms=compute * 1e3,
                gb=wb["denoiser"] / 1e9,
                memory_ms=memory * 1e3,
                step_ms=fac["step_ms"],
                engine=fac["engine"],
            ),
            i18n.msg(
                "Text encoders {text:.2f} TFLOP × {passes} prompt(s); VAE decode {vae:.2f} TFLOP per image "
                "at {vae_mfu:.2f} efficiency.",
                text=flops["text"] / 1e12,
                passes=passes,
                vae=flops["vae"] / 1e12,
                vae_mfu=fac["vae_mfu"],
            ),
            i18n.msg(
                "Offload '{mode}': {moved:.1f} GB cross PCIe per call, {streamed:.1f} GB per step at {pcie:.0f} GB/s.",
                streamed=lay["streamed"] / 1e9,
                **moved,
            )
            if lay["streamed"]
            else i18n.msg("Offload '{mode}': {moved:.1f} GB cross PCIe per call at {pcie:.0f} GB/s.", **moved),
            i18n.msg(
                "Tensor rate: {share:.0%} of the datasheet's, as the board sustains in a large FP16 matmul "
                "(data/board_clocks.csv).",
                share=terms["board_fraction"],
            )
            if terms["board_measured"]
            else i18n.msg(
                "Tensor rate: {share:.0%} of the datasheet's, the median of the boards measured in a large FP16 "
                "matmul (data/board_clocks.csv has no figure for this one).",
                share=terms["board_fraction"],
            ),
        )
    return out
