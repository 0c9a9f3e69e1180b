"""Calculators for the notebooks: thin ipywidgets wrappers over the package.

Each calculator is a ``*_report`` function (pure: inputs in, a DataFrame or figure out, unit
tested without a browser) and a ``*_calculator`` function that lays out controls and calls the
report on every change. Bad or impossible input shows a short message in the output area,
never a traceback, and a warning the report raises (a context beyond the model's maximum, say)
shows as a short note, never with a file path. The reports take keyword arguments only, named as
in the glossary of docs/api.md, and the calculators' controls use the same keys. Every control has
a ``description``, each calculator the CSS class ``hwguide-calc-<name>`` and its output area
``hwguide-output``, so browser tests can find them.
"""

from __future__ import annotations

import html
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import ipywidgets as widgets
import pandas as pd
from IPython.display import HTML

from . import charts, checks, i18n
from .catalog import engines, gpus, interconnects, lookup_model, models, platform
from .i18n import N_
from .memory import GIB, KV_DTYPES, WEIGHT_FORMATS, finetune_memory, inference_memory, training_memory
from .planner import recommend
from .speed import arithmetic_intensity, decode_breakdown, inference_engines, inference_speed, prefill_seconds, roofline
from .value import compare

__all__ = [
    "compare_calculator",
    "compare_report",
    "error_message",
    "note_message",
    "finetune_calculator",
    "finetune_report",
    "image_calculator",
    "image_report",
    "interconnect_calculator",
    "interconnect_report",
    "planner_calculator",
    "planner_report",
    "roofline_calculator",
    "speed_calculator",
    "static_html",
    "speed_report",
    "training_calculator",
    "training_report",
    "vram_calculator",
    "vram_report",
    "working",
]

_STYLE = {"description_width": "9em"}
_LAYOUT = widgets.Layout(width="28em")


def error_message(err: Exception) -> HTML:
    """The short message a calculator shows for bad input (the first line of the error, escaped)."""
    text = str(err).splitlines()[0] if str(err) else type(err).__name__
    label = html.escape(i18n.text("Check the input:"))
    return HTML(f'<p class="hwguide-error" style="color:#b00020"><b>{label}</b> {html.escape(text)}</p>')


def note_message(message: warnings.WarningMessage | Warning | str) -> HTML:
    """The short note a calculator shows for a warning: its first line, escaped, without file or line."""
    if isinstance(message, warnings.WarningMessage):
        message = message.message
    text = str(message).splitlines()[0] if str(message) else type(message).__name__
    label = html.escape(i18n.text("Note:"))
    return HTML(f'<p class="hwguide-note" style="color:#8a5a00"><b>{label}</b> {html.escape(text)}</p>')


def working(lines: Iterable[i18n.Message | str], title: str | None = None) -> HTML:
    """A collapsible list of a result's working: the formula with the numbers put in, the assumptions.

    Each line is a message (rendered in the current language) or a string, shown as it is.
    """
    title = i18n.text("How this was computed") if title is None else title
    items = "".join(f"<li>{html.escape(str(line))}</li>" for line in lines if line)
    return HTML(f'<details class="hwguide-working"><summary>{html.escape(title)}</summary><ul>{items}</ul></details>')


def _outputs(report: Callable[..., Any], kwargs: dict[str, Any]) -> list[Any]:
    """What a calculator shows for one input: a note per warning, then the result or a short message.

    Only bad input (ValueError, LookupError) becomes a message; any other exception is a bug in
    the kit and propagates.
    """
    shown: list[Any] = []
    error: Exception | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")  # a warning seen before is still news for this input
        try:
            result = report(**kwargs)
        except (ValueError, LookupError) as err:
            error = err
    shown += [note_message(text) for text in dict.fromkeys(str(w.message) for w in caught)]
    if error is not None:
        return [*shown, error_message(error)]
    return shown + list(result if isinstance(result, tuple) else (result,))


def _bundle(item: Any) -> dict[str, Any]:
    """One display_data output for an Output widget, formatted as the notebook would format it."""
    from IPython import get_ipython
    from IPython.core.formatters import DisplayFormatter

    shell = get_ipython()
    formatter = shell.display_formatter if shell is not None else DisplayFormatter()
    data, metadata = formatter.format(item)
    return {"output_type": "display_data", "data": data, "metadata": metadata}


def _calculator(report: Callable[..., Any], controls: dict[str, widgets.Widget], title: str,
                name: str) -> widgets.VBox:  # fmt: skip
    """Controls, and an output area that shows ``report(**values of the controls)`` after each change.

    The output area's ``outputs`` are set directly (not captured from ``display``), so they are the
    same in a notebook, in Voilà and in a test without a kernel.
    """
    out = widgets.Output()
    out.add_class("hwguide-output")

    def update(change: Any = None) -> None:
        kwargs = {key: control.value for key, control in controls.items()}
        out.outputs = tuple(_bundle(item) for item in _outputs(report, kwargs))

    for control in controls.values():
        control.observe(update, "value")
    update()
    header = widgets.HTML(f"<b>{html.escape(title)}</b>")
    box = widgets.VBox([header, *(_with_range(c) for c in controls.values()), out])
    box.add_class(f"hwguide-calc-{name}")  # a stable handle for browser tests and custom CSS

    def bundle(**kwargs: Any) -> dict[str, Any]:
        # a live front end shows the widget; a saved notebook, GitHub or nbconvert shows this static
        # snapshot of the inputs and the result instead of a widget repr
        data = widgets.VBox._repr_mimebundle_(box, **kwargs)
        shown = {c.description: c.label if isinstance(c, widgets.Dropdown) else c.value for c in controls.values()}
        data["text/html"] = static_html(title, shown, out.outputs)
        return data

    box._repr_mimebundle_ = bundle
    return box


def _with_range(control: widgets.Widget) -> widgets.Widget:
    """A number field with its allowed range beside it: out-of-range input is clamped, and says so."""
    if not isinstance(control, (widgets.BoundedIntText, widgets.BoundedFloatText)):
        return control
    low, high = (f"{v:,.0f}" if float(v).is_integer() else f"{v:,g}" for v in (control.min, control.max))
    span = i18n.text("{low} to {high}; values outside are clamped", low=low, high=high)  # 2,000,000, not 2e+06
    note = widgets.HTML(f"<small style='color:#555'>{html.escape(span)}</small>")
    return widgets.HBox([control, note])


def static_html(title: str, inputs: dict[str, Any], outputs: Sequence[dict[str, Any]]) -> str:
    """A calculator as plain HTML: its title, the inputs it was left at, and what it showed for them."""
    shown = ", ".join(
        f"{html.escape(str(k))} = {html.escape(', '.join(map(str, v)) if isinstance(v, tuple) else str(v))}"
        for k, v in inputs.items()
    )
    parts = [f'<div class="hwguide-static"><p><b>{html.escape(title)}</b><br><small>{shown}</small></p>']
    for output in outputs:
        data = output.get("data", {})
        if "image/png" in data:
            parts.append(f'<img alt="{html.escape(title)}" src="data:image/png;base64,{data["image/png"]}">')
        elif "text/html" in data:
            parts.append(data["text/html"])
        elif "text/plain" in data:
            parts.append(f"<pre>{html.escape(data['text/plain'])}</pre>")
    saved = html.escape(i18n.text("A saved view: run the notebook to change the inputs."))
    parts.append(f"<p><small>{saved}</small></p></div>")
    return "\n".join(parts)


def _dropdown(description: str, options: list[Any], value: Any) -> widgets.Dropdown:
    """A dropdown of names, or of (label, value) pairs whose labels are messages marked with N_."""
    options = [(i18n.text(o[0]), o[1]) if isinstance(o, tuple) else o for o in options]
    return widgets.Dropdown(description=description, options=options, value=value, style=_STYLE, layout=_LAYOUT)


def _int(description: str, value: int, low: int, high: int) -> widgets.BoundedIntText:
    return widgets.BoundedIntText(description=description, value=value, min=low, max=high, style=_STYLE,
                                  layout=_LAYOUT)  # fmt: skip


def _memory_engines() -> list[str]:
    """Engines whose CUDA context is sourced, so that their memory can be estimated."""
    table = engines()
    return [str(e) for e, mib in zip(table["engine"], table["cuda_context_mib"]) if mib == mib]


def _model_names() -> list[str]:
    return list(models()["name"])


def _gpu_names() -> list[str]:
    return list(gpus()["name"])


def _memory_frame(mem: Any) -> pd.DataFrame:
    frame = mem.to_frame()[["component", "per_gpu_gib", "total_gib"]]
    frame["component"] = frame["component"].map(lambda name: _words(name.replace("_", " ")))
    columns = {"component": i18n.text("component"), "per_gpu_gib": i18n.text("GiB per GPU"),
               "total_gib": i18n.text("GiB, all GPUs")}  # fmt: skip
    return frame.rename(columns=columns).round(2)


def _fit_line(mem: Any, card: str, count: int) -> HTML:
    from .catalog import gpu

    g = gpu(card)
    ok = mem.fits(g, headroom=0.1)
    line = i18n.text("{gib} GiB per GPU: {verdict} on {count} × {card} ({memory} GiB each, keeping 10% free).",
                     gib=f"{mem.per_gpu_gib:.2f}", verdict=_verdict(ok), count=count, card=g.name,
                     memory=f"{g.memory_gib:g}")  # fmt: skip
    return HTML(f"<p><b>{html.escape(line)}</b> {_gib_note()}</p>")


def _verdict(fits: bool) -> str:
    """ "fits" or "does not fit", in the current language."""
    return i18n.text("fits") if fits else i18n.text("does not fit")


def _words(value: Any) -> Any:
    """A code or label of the package's data (a part's name, a link's kind) in the current language:
    a message rendered, a string looked up in the catalog (itself when it has no entry)."""
    return i18n.render(value) if isinstance(value, (i18n.Message, list, tuple)) else i18n.text(value)


def _gib_note() -> str:
    """The unit's definition, shown under every memory figure, in the current language."""
    return html.escape(i18n.text("GiB = 2^30 bytes.")).replace("2^30", "2<sup>30</sup>")


# ----- inference memory -------------------------------------------------------------------------


# Where a MoE model's routed experts live: all on the GPU, or all in CPU memory (llama.cpp --cpu-moe)
_EXPERTS = [(N_("on the GPU"), 0), (N_("in CPU memory (MoE)"), "all")]
_READINGS = [(N_("as nvidia-smi shows it"), "nvidia-smi"), (N_("reserved by PyTorch"), "reserved"),
             (N_("allocated tensors only"), "allocated")]  # fmt: skip


def vram_report(*, model: str, weights: str, kv: str, batch: int, context: int, engine: str, card: str,
                gpus: int = 1, cpu_moe: int | str = 0, reading: str = "nvidia-smi") -> tuple[HTML, ...]:  # fmt: skip
    """Inference memory, part by part, whether it fits ``gpus`` × ``card``, and any CPU memory it takes;
    ``reading``: what nvidia-smi shows (default), what PyTorch reserves, or what it allocates."""
    mem = inference_memory(model, weights=weights, kv=kv, batch=batch, context=context, engine=engine, gpus=gpus,
                           cpu_moe=cpu_moe, reading=reading)  # fmt: skip
    out: tuple[Any, ...] = (_fit_line(mem, card, gpus), _memory_frame(mem))
    if mem.offloaded:
        ram = i18n.text("In CPU memory (RAM): {gib} GiB ({parts}).", gib=f"{mem.offloaded_gib:.1f}",
                        parts=_list(i18n.text(part, context="offloaded") for part in mem.offloaded))  # fmt: skip
        out += (HTML(f"<p>{html.escape(ram)}</p>"),)
    return (*out, working(mem.assumptions))


def vram_calculator(model: str = "Llama-3.1-8B", card: str = "RTX 4090") -> widgets.VBox:
    """Inference-memory calculator: model, format, KV type, batch, context, engine, card, GPUs."""
    controls = {
        "model": _dropdown(i18n.text("Model"), _model_names(), model),
        "weights": _dropdown(i18n.text("Weights"), list(WEIGHT_FORMATS), "fp16"),
        "kv": _dropdown(i18n.text("KV cache"), list(KV_DTYPES), "fp16"),
        "batch": _int(i18n.text("Batch"), 1, 1, 4096),
        "context": _int(i18n.text("Context"), 4096, 1, 2_000_000),
        "engine": _dropdown(i18n.text("Engine"), _memory_engines(), "transformers"),
        "card": _dropdown(i18n.text("GPU"), _gpu_names(), card),
        "gpus": _int(i18n.text("GPUs"), 1, 1, 64),
        "cpu_moe": _dropdown(i18n.text("Experts"), _EXPERTS, 0),
        "reading": _dropdown(i18n.text("Memory"), _READINGS, "nvidia-smi"),
    }
    return _calculator(vram_report, controls, i18n.text("Inference memory (GiB)"), "vram")


# ----- fine-tuning and training memory ----------------------------------------------------------


def finetune_report(*, model: str, method: str, rank: int, context: int, batch: int, recompute: str,
                    card: str, gpus: int = 1) -> tuple[HTML, pd.DataFrame, HTML]:  # fmt: skip
    """Fine-tuning memory (full, LoRA, QLoRA), part by part, and whether it fits (ZeRO-3 on several GPUs)."""
    gpus = checks.whole(gpus, "gpus")
    mem = finetune_memory(model, method=method, rank=rank, batch=batch, context=context, recompute=recompute,
                          gpus=gpus, zero=3 if gpus > 1 else 0)  # fmt: skip
    return _fit_line(mem, card, gpus), _memory_frame(mem), working(mem.assumptions)


def finetune_calculator(model: str = "Llama-3.1-8B", card: str = "RTX 4090") -> widgets.VBox:
    """Fine-tuning-memory calculator."""
    controls = {
        "model": _dropdown(i18n.text("Model"), _model_names(), model),
        "method": _dropdown(i18n.text("Method"), ["full", "lora", "qlora"], "qlora"),
        "rank": _int(i18n.text("LoRA rank"), 16, 1, 1024),
        "context": _int(i18n.text("Context"), 2048, 1, 1_000_000),
        "batch": _int(i18n.text("Batch"), 1, 1, 1024),
        "recompute": _dropdown(i18n.text("Recompute"), ["none", "selective", "full"], "full"),
        "card": _dropdown(i18n.text("GPU"), _gpu_names(), card),
        "gpus": _int(i18n.text("GPUs"), 1, 1, 64),
    }
    return _calculator(finetune_report, controls, i18n.text("Fine-tuning memory (GiB)"), "finetune")


def training_report(*, model: str, precision: str, optimizer: str, context: int, batch: int, gpus: int, zero: int,
                    recompute: str, card: str) -> tuple[HTML, pd.DataFrame, HTML]:  # fmt: skip
    """Training memory with ZeRO sharding and recomputation, part by part, and whether it fits."""
    mem = training_memory(model, precision=precision, optimizer=optimizer, batch=batch, context=context, gpus=gpus,
                          zero=zero, recompute=recompute)  # fmt: skip
    return _fit_line(mem, card, gpus), _memory_frame(mem), working(mem.assumptions)


def training_calculator(model: str = "Llama-2-7B", card: str = "A100 SXM4 80GB") -> widgets.VBox:
    """Training-memory calculator."""
    from .memory import OPTIMIZERS, PRECISIONS

    controls = {
        "model": _dropdown(i18n.text("Model"), _model_names(), model),
        "precision": _dropdown(i18n.text("Precision"), list(PRECISIONS), "bf16-mixed"),
        "optimizer": _dropdown(i18n.text("Optimizer"), list(OPTIMIZERS), "adamw"),
        "context": _int(i18n.text("Context"), 2048, 1, 1_000_000),
        "batch": _int(i18n.text("Micro-batch"), 1, 1, 1024),
        "gpus": _int(i18n.text("GPUs"), 8, 1, 4096),
        "zero": widgets.Dropdown(
            description=i18n.text("ZeRO stage"), options=[0, 1, 2, 3], value=3, style=_STYLE, layout=_LAYOUT
        ),  # fmt: skip
        "recompute": _dropdown(i18n.text("Recompute"), ["none", "selective", "full"], "full"),
        "card": _dropdown(i18n.text("GPU"), _gpu_names(), card),
    }
    return _calculator(training_report, controls, i18n.text("Training memory (GiB)"), "training")


# ----- image generation -------------------------------------------------------------------------


def image_report(*, model: str, card: str, weights: str, text_weights: str, width: int, height: int, steps: int,
                 batch: int, engine: str, offload: str) -> tuple[HTML, pd.DataFrame, HTML]:  # fmt: skip
    """Seconds per image and peak GPU memory for a text-to-image pipeline on one card."""
    from .image import image_memory, image_seconds

    args = dict(weights=weights, text_weights=text_weights, width=width, height=height, batch=batch, engine=engine,
                offload=offload)  # fmt: skip
    mem = image_memory(model, card=card, **args)
    run = image_seconds(model, card, steps=steps, **args)
    ram = i18n.text("; {gib} GiB wait in CPU memory", gib=f"{mem.offloaded_gib:.1f}") if mem.offloaded else ""
    text = i18n.text("{seconds} s per image ({rate} steps/s for the batch, {bound}-bound); peak {gib} GiB: {verdict} "
                     "on {card}{ram}.", seconds=f"{run['per_image_s']:.2f}", rate=f"{run['it_per_s']:.2f}",
                     bound=_words(run["step_bound"]), gib=f"{mem.per_gpu_gib:.1f}", verdict=_verdict(run["fits"]),
                     card=run["gpu"], ram=ram)  # fmt: skip
    line = HTML(f"<p><b>{html.escape(text)}</b> {_gib_note()}</p>")
    rows = [
        (i18n.text("text encoders (s)"), run["text_s"]),
        (i18n.text("denoising, {steps} steps (s)", steps=steps), run["denoise_s"]),
        (i18n.text("VAE decode (s)"), run["vae_s"]),
        (i18n.text("weights over PCIe (s)"), run["transfer_s"]),
        (i18n.text("whole call, {batch} image(s) (s)", batch=batch), run["total_s"]),
        *(
            (i18n.text("GPU memory: {part} (GiB)", part=_words(k.replace("_", " "))), v / 2**30)
            for k, v in mem.per_gpu.items()
        ),
    ]
    frame = pd.DataFrame(rows, columns=[i18n.text("part"), i18n.text("value")])
    return line, frame.round(3), working((*run["assumptions"], *mem.assumptions))


def image_calculator(model: str = "SDXL 1.0 base", card: str = "RTX 4090") -> widgets.VBox:
    """Image-generation calculator: seconds per image and GPU memory by model, card, format and offload."""
    from .image import IMAGE_FORMATS, OFFLOAD, image_engines, image_models

    controls = {
        "model": _dropdown(i18n.text("Model"), list(image_models()["name"]), model),
        "card": _dropdown(i18n.text("GPU"), _gpu_names(), card),
        "weights": _dropdown(i18n.text("Denoiser"), list(IMAGE_FORMATS), "fp16"),
        "text_weights": _dropdown(i18n.text("Text encoders"), list(IMAGE_FORMATS), "fp16"),
        "width": _int(i18n.text("Width (px)"), 1024, 64, 8192),
        "height": _int(i18n.text("Height (px)"), 1024, 64, 8192),
        "steps": _int(i18n.text("Steps"), 30, 1, 1000),
        "batch": _int(i18n.text("Images per call"), 1, 1, 256),
        "engine": _dropdown(i18n.text("Engine"), list(image_engines()["engine"]), "diffusers"),
        "offload": _dropdown(i18n.text("Offload"), list(OFFLOAD), "none"),
    }
    return _calculator(image_report, controls, i18n.text("Image generation"), "image")


# ----- speed ------------------------------------------------------------------------------------


def speed_report(*, model: str, card: str, weights: str, batch: int, context: int, gpus: int, engine: str,
                 cpu_moe: int | str = 0, ram_gbs: float = 89.6) -> tuple[HTML, pd.DataFrame, HTML] | HTML:  # fmt: skip
    """Whether the workload fits, and if it does: decode speed (all users, per user) and time to first token.

    A workload that does not fit gets the verdict and no speed (:func:`hwguide.inference_speed`).
    """
    speed = inference_speed(model, card, weights=weights, batch=batch, context=context, gpus=gpus, engine=engine,
                            cpu_moe=cpu_moe, ram_gbs=ram_gbs if cpu_moe else None)  # fmt: skip
    if not speed.fits:
        reason = html.escape(str(speed.reason))
        return HTML(f"<p><b>{html.escape(i18n.text('Does not fit'))}</b>: {reason}. {_gib_note()}</p>")
    rows = [
        (i18n.text("decode, all users (tokens/s)"), speed.tokens_per_s),
        (i18n.text("decode, per user (tokens/s)"), speed.tokens_per_s_per_user),
    ]
    for prompt in (512, 2048, 8192):
        seconds = prefill_seconds(model, card, prompt, weights=weights, batch=1, gpus=gpus, engine=engine)
        rows.append((i18n.text("time to first token, {prompt}-token prompt (s)", prompt=f"{prompt:,}"), seconds))
    moved = i18n.text(" Experts in CPU memory, read at {gbs} GB/s; the prompt times assume the GPU does all of the "
                      "prefill, a lower bound.", gbs=f"{ram_gbs:g}") if cpu_moe else ""  # fmt: skip
    fits = i18n.text("{gib} of {card_gib} GiB per GPU on {count} × {card}.", gib=f"{speed.per_gpu_gib:.1f}",
                     card_gib=f"{speed.card_gib:g}", count=speed.gpus, card=str(card))  # fmt: skip
    line = HTML(f"<p><b>{html.escape(i18n.text('Fits'))}</b>: {html.escape(fits + moved)}</p>")
    parts = decode_breakdown(model, card, weights=weights, batch=batch, context=context, gpus=gpus, engine=engine,
                             cpu_moe=cpu_moe, ram_gbs=ram_gbs if cpu_moe else None)  # fmt: skip
    frame = pd.DataFrame(rows, columns=[i18n.text("quantity"), i18n.text("value")]).round(3)
    return line, frame, working(parts["working"])


def speed_calculator(model: str = "Llama-3.1-8B", card: str = "RTX 4090") -> widgets.VBox:
    """Speed calculator: decode tokens/s and time to first token."""
    controls = {
        "model": _dropdown(i18n.text("Model"), _model_names(), model),
        "card": _dropdown(i18n.text("GPU"), _gpu_names(), card),
        "weights": _dropdown(i18n.text("Weights"), list(WEIGHT_FORMATS), "Q4_K_M"),
        "batch": _int(i18n.text("Users"), 1, 1, 4096),
        "context": _int(i18n.text("Context"), 2048, 1, 2_000_000),
        "gpus": _int(i18n.text("GPUs"), 1, 1, 64),
        "engine": _dropdown(i18n.text("Engine"), [e for e in inference_engines() if e != "other"], "llama.cpp"),
        "cpu_moe": _dropdown(i18n.text("Experts"), _EXPERTS, 0),
        # 89.6 GB/s: two channels of DDR5-5600, a desktop (2 × 5,600 × 8; hg.ram_bandwidth_gbs)
        "ram_gbs": widgets.BoundedFloatText(
            description=i18n.text("RAM GB/s"), value=89.6, min=1, max=10_000, step=0.1, style=_STYLE, layout=_LAYOUT
        ),  # fmt: skip
    }
    return _calculator(speed_report, controls, i18n.text("Speed"), "speed")


def roofline_calculator(cards: tuple[str, ...] = ("RTX 4090", "A100 SXM4 80GB", "H100 SXM")) -> widgets.VBox:
    """Roofline explorer: pick cards, a precision and a workload; see which limit binds."""

    def report(*, cards: tuple[str, ...], precision: str, model: str, batch: int, context: int) -> Any:
        if not cards:
            raise ValueError(i18n.msg("cards: choose at least one GPU (Ctrl-click or ⌘-click picks several)"))
        marks = [
            (i18n.msg("decode, batch {batch}", batch=batch),
             arithmetic_intensity(model, "decode", batch=batch, context=context)),
            (i18n.msg("prefill {tokens} tokens", tokens=f"{context:,}"),
             arithmetic_intensity(model, "prefill", batch=1, context=context)),
        ]  # fmt: skip
        lines = [i18n.msg("Arithmetic intensity (FLOPs per byte of memory traffic): {mark} {value}.", mark=mark,
                          value=f"{v:,.1f}") for mark, v in marks]  # fmt: skip
        for name in cards:
            top = roofline(name, precision)
            lines.append(i18n.msg("{card}: {tflops} TFLOPS ÷ {gbs} GB/s = ridge at {ridge} FLOPs per byte (below it: "
                                  "memory-bound).", card=name, tflops=f"{top['peak_tflops']:,.1f}",
                                  gbs=f"{top['bandwidth_gbs']:,.0f}",
                                  ridge=f"{top['ridge_flops_per_byte']:,.0f}"))  # fmt: skip
        intensities = {str(mark): v for mark, v in marks}  # the chart's labels, in the current language
        return charts.roofline(list(cards), precision=precision, intensities=intensities), working(lines)

    controls = {
        "cards": widgets.SelectMultiple(
            description=i18n.text("Cards"), options=_gpu_names(), value=cards, rows=6, style=_STYLE, layout=_LAYOUT
        ),  # fmt: skip
        "precision": _dropdown(i18n.text("Precision"), ["fp16", "bf16", "fp8", "int8", "fp32"], "fp16"),
        "model": _dropdown(i18n.text("Model"), _model_names(), "Llama-3.1-8B"),
        "batch": _int(i18n.text("Batch"), 1, 1, 4096),
        "context": _int(i18n.text("Context"), 2048, 1, 1_000_000),
    }
    return _calculator(report, controls, i18n.text("Roofline"), "roofline")


def _machine_gpus() -> int:
    """The most GPUs one machine holds (data/platforms.csv, the server row)."""
    return int(platform("server")["max_gpus"])


def interconnect_report(*, model: str, gpus: int) -> tuple[pd.DataFrame, HTML]:
    """Time to all-reduce one set of 16-bit gradients of ``model`` over ``gpus`` (at least 2) GPUs, per link."""
    from .architecture import param_count
    from .speed import allreduce_seconds

    gpus = checks.whole(gpus, "gpus", low=2)
    most = _machine_gpus()
    across = gpus > most  # several machines: the ring's slowest hops cross the network between them
    grads = 2 * param_count(lookup_model(model, "model"))
    rows = []
    for name, kind in zip(interconnects()["name"], interconnects()["kind"]):
        if gpus > 2 and "bridge" in name.lower():
            continue  # NVLink bridges join two cards
        if across != (kind == "network"):
            continue  # within one machine its own links; across machines the network
        rows.append({"link": name, "kind": kind, "seconds": allreduce_seconds(grads, gpus=gpus, link=name)})
    frame = pd.DataFrame(rows).sort_values("seconds")
    frame["gradients_gib"] = grads / GIB
    frame["kind"] = frame["kind"].map(_words)
    frame = frame.rename(columns={c: i18n.text(c) for c in frame.columns})
    engine = engines().set_index("engine").loc["vllm"]
    lines = [
        i18n.msg("Gradients: 2 bytes × {params} parameters = {gb} GB.", params=f"{grads / 2:,.0f}",
                 gb=f"{grads / 1e9:.2f}"),
        i18n.msg("Ring all-reduce: 2 × ({gpus} − 1) / {gpus} × bytes ÷ (the link's per-direction GB/s × "
                 "{efficiency}) + {latency} µs (vLLM's fitted factors, data/engines.csv).", gpus=gpus,
                 efficiency=f"{engine['allreduce_efficiency']:.2f}", latency=f"{engine['allreduce_latency_us']:.1f}"),
        i18n.msg("Per-direction rates of each link: data/interconnects.csv (PCIe, NVLink bridges, NVLink, NVSwitch).")
        if not across
        else i18n.msg("{gpus} GPUs are more than one machine holds ({most}): a ring over them crosses the network "
                      "between machines, whose per-GPU rate bounds it (NVLink inside each machine does not help a "
                      "flat ring).", gpus=gpus, most=most),
    ]  # fmt: skip
    return frame.round(3), working(lines)


def interconnect_calculator(model: str = "Llama-2-7B") -> widgets.VBox:
    """All-reduce time of a model's gradients over PCIe, NVLink and NVSwitch."""
    controls = {"model": _dropdown(i18n.text("Model"), _model_names(), model),
                "gpus": _int(i18n.text("GPUs"), 8, 2, 16_384)}  # fmt: skip
    return _calculator(
        interconnect_report,
        controls,
        i18n.text("All-reduce time of the gradients (ring; full link rate plus the fitted latency)"),
        "interconnect",
    )


def compare_report(*, a: str, b: str) -> pd.DataFrame:
    """Two cards side by side (see :func:`hwguide.compare`)."""
    frame = compare(a, b)
    frame["parameter"] = frame["parameter"].map(lambda name: i18n.text(name, context="column"))  # zh: its label
    frame["meaning"] = frame["meaning"].map(_words)
    return frame.rename(columns={c: i18n.text(c) for c in frame.columns if c in ("parameter", "ratio", "meaning")})


def compare_calculator(a: str = "RTX 3090", b: str = "RTX 4090") -> widgets.VBox:
    """Two-card comparison."""
    controls = {"a": _dropdown(i18n.text("Card A"), _gpu_names(), a),
                "b": _dropdown(i18n.text("Card B"), _gpu_names(), b)}  # fmt: skip
    return _calculator(compare_report, controls, i18n.text("Compare two GPUs"), "compare")


def planner_report(*, model: str, weights: str, users: int, tokens_per_s: float, method: str, budget: float,
                   currency: str, modded: bool) -> tuple[pd.DataFrame, HTML]:  # fmt: skip
    """The five best builds for an inference (+ optional fine-tuning) need within a budget."""
    finetune = None if method == "none" else dict(model=model, method=method)
    if budget is not None:  # 0 is not "no budget": the API refuses it, so the calculator does too
        budget = checks.number(budget, "budget", open_low=True, high=1e12, unit=currency)
    plan = recommend(inference=dict(model=model, weights=weights, users=users, tokens_per_s=tokens_per_s or None),
                     finetune=finetune, budget=budget, currency=currency,
                     cards=None if checks.flag(modded, "modded") else dict(modded=False))  # fmt: skip
    if plan.builds.empty:
        raise ValueError(i18n.msg("no build meets this need: {why}", why=_failure_summary(plan.failed)))
    columns = ["gpu", "gpus", "build_price", "per_gpu_gib", "tokens_per_s_per_user", "why"]
    best = plan.builds[columns].head(5).round(1)
    best["why"] = best["why"].map(i18n.render)  # messages (a tuple of them, joined) in the current language
    return best.rename(columns={c: i18n.text(c) for c in columns}), working(plan.assumptions)


# The planner's status codes (hg.planner.STATUSES) and their words, in the order a failure is explained:
# builds that only fail on price first (the budget is the binding limit), then speed, then memory; the
# price-less and unsupported cards are counted but never blamed.
_STATUS_WORDS = {
    "over_budget": N_("over budget"),
    "too_slow": N_("too slow"),
    "does_not_fit": N_("does not fit"),
    "cannot_be_estimated": N_("cannot be estimated"),
    "not_buildable": N_("not buildable"),
    "no_price": N_("no price"),
    "unsupported": N_("unsupported"),
    "export_controlled": N_("export-controlled"),
}
_BLAMED = ("over_budget", "too_slow", "does_not_fit", "cannot_be_estimated", "not_buildable")


def _list(items: Iterable[Any]) -> str:
    """Words listed in the current language: "a, b, c" in English, joined by the Chinese list comma in Chinese."""
    out = ""
    for item in items:
        out = i18n.text("{items}, {item}", items=out, item=item) if out else str(item)
    return out


def _failure_summary(failed: pd.DataFrame) -> str:
    """Why no build meets a need, in words: the reasons counted, and the example closest to success."""
    status = failed["status"].str.replace(" ", "_")  # codes; planner.py spelled them with spaces before
    counts = status.value_counts()
    words = _list(i18n.text("{count} {status}", count=n, status=i18n.text(_STATUS_WORDS.get(code, code)))
                  for code, n in counts.items())  # fmt: skip
    for code in _BLAMED:
        rows = failed[status == code]
        if len(rows):  # the example closest to success: the least memory per GPU, the lowest price
            order = [c for c in ("per_gpu_gib", "build_price") if c in rows]
            first = rows.sort_values(order).iloc[0] if order else rows.iloc[0]
            return words + i18n.text("; for example {count} × {card}: {why}", count=first["gpus"], card=first["gpu"],
                                     why=i18n.render(first["why"]))  # fmt: skip
    return words


def planner_calculator() -> widgets.VBox:
    """The planner as a calculator: a need and a budget in, the best builds out."""
    controls = {
        "model": _dropdown(i18n.text("Model"), _model_names(), "Qwen2.5-14B"),
        "weights": _dropdown(i18n.text("Weights"), list(WEIGHT_FORMATS), "Q4_K_M"),
        "users": _int(i18n.text("Users"), 5, 1, 4096),
        "tokens_per_s": widgets.BoundedFloatText(
            description=i18n.text("Tokens/s each"), value=10, min=0, max=10_000, style=_STYLE, layout=_LAYOUT
        ),  # fmt: skip
        "method": _dropdown(i18n.text("Fine-tune"), ["none", "lora", "qlora", "full"], "qlora"),
        "budget": widgets.BoundedFloatText(
            description=i18n.text("Budget"), value=30000, min=0, max=1e9, style=_STYLE, layout=_LAYOUT
        ),  # fmt: skip
        "currency": _dropdown(i18n.text("Currency"), ["CNY", "USD"], "CNY"),
        "modded": widgets.Checkbox(description=i18n.text("Allow modded cards"), value=True, style=_STYLE),
    }
    return _calculator(planner_report, controls, i18n.text("Plan a machine"), "planner")
