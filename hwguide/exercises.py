"""Exercises of the course, with a checker: ``hg.exercises.check("03.2", answer)``.

Every expected answer is computed by the package from the data when checked (nothing is typed
in), so an exercise stays right when the data improves. Numbers pass within a relative tolerance;
names pass when they name the same GPU or model (aliases and case ignored).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["EXERCISES", "Exercise", "answer", "check", "question"]


@dataclasses.dataclass(frozen=True)
class Exercise:
    """One exercise: the question, how to compute its answer, the tolerance and a hint."""

    question: str
    solve: Callable[[], Any]
    hint: str
    tolerance: float = 0.02  # relative, for numbers


def _hg() -> Any:
    import hwguide

    return hwguide


def _fastest(cards: list[str], model: str, weights: str) -> str:
    hg = _hg()
    return max(cards, key=lambda c: hg.decode_tokens_per_s(model, c, weights=weights))


EXERCISES: dict[str, Exercise] = {
    "00.1": Exercise("How many GiB of memory does the RTX 3090 have?",
                     lambda: _hg().gpu("RTX 3090").memory_gib,
                     "Look the card up with hg.gpu(...) and read memory_gib.", 0.0),
    "00.2": Exercise("What is the highest memory bandwidth of any card in the catalog, in GB/s? "
                     "(Several cards share it: which?)",
                     lambda: float(_hg().gpus()["bandwidth_gbs"].max()),
                     "Look at the largest value of the bandwidth_gbs column of hg.gpus()."),
    "01.1": Exercise("What is the ridge point (FLOPs per byte) of the A100 SXM4 80GB at dense FP16?",
                     lambda: _hg().roofline("A100 SXM4 80GB", "fp16")["ridge_flops_per_byte"],
                     "Peak FLOP/s divided by bandwidth in bytes/s: 312e12 / 2039e9."),
    "01.2": Exercise("How many dense FP8 TFLOPS does the H100 SXM have (FP32 accumulate)?",
                     lambda: _hg().gpu("H100 SXM").fp8_tflops,
                     "Datasheets print 3,958 'with sparsity'; the dense rate is half of that.", 0.01),
    "01.3": Exercise("Which card is faster at dense FP16 with FP32 accumulation: RTX 4090 or RTX A6000?",
                     lambda: max(["RTX 4090", "RTX A6000"], key=lambda c: _hg().gpu(c).fp16_tflops),
                     "Compare the fp16_tflops column, not the FP16-accumulate figure GeForce cards advertise."),
    "02.1": Exercise("By what factor does the RTX 4090's dense FP16 rate exceed the RTX 3090's?",
                     lambda: _hg().gpu("RTX 4090").fp16_tflops / _hg().gpu("RTX 3090").fp16_tflops,
                     "Divide the two fp16_tflops figures (hg.compare shows the ratio)."),
    "02.2": Exercise("For one user decoding Llama-3.1-8B in fp16, which is faster: RTX 4090 or A100 SXM4 80GB?",
                     lambda: _fastest(["RTX 4090", "A100 SXM4 80GB"], "Llama-3.1-8B", "fp16"),
                     "Decode reads every weight per token: compare memory bandwidth."),
    "02.3": Exercise("How many GB/s of NVLink does the A800 SXM4 80GB have, in total?",
                     lambda: _hg().gpu("A800 SXM4 80GB").nvlink_gbs,
                     "The A800 keeps the A100's memory but cuts NVLink: read nvlink_gbs.", 0.0),
    "03.1": Exercise("How many GiB is the fp16 KV cache of Llama-3.1-8B at 8,192 tokens, batch 1?",
                     lambda: _hg().kv_cache_bytes("Llama-3.1-8B", 8192) / 2**30,
                     "2 × layers × KV heads × head dim × 2 bytes × tokens; it has 8 KV heads, not 32."),
    "03.2": Exercise("How many GiB do Llama-2-70B's weights take in GGUF Q4_K_M?",
                     lambda: _hg().weights_bytes("Llama-2-70B", "Q4_K_M") / 2**30,
                     "hg.weights_bytes(model, 'Q4_K_M') / 2**30; Q4_K_M keeps some tensors at Q6_K."),
    "04.1": Exercise("With ZeRO-3 over 8 GPUs, how many GiB of model states (weights, gradients, master "
                     "weights, AdamW states) does each GPU hold for Llama-2-7B in bf16 mixed precision?",
                     lambda: 16 * _hg().param_count(_hg().model("Llama-2-7B")) / 8 / 2**30,
                     "16 bytes per parameter (ZeRO paper), divided by the 8 GPUs."),
    "04.2": Exercise("How many trainable parameters does LoRA rank 8 on q_proj and v_proj add to Llama-2-7B?",
                     lambda: _hg().lora_params("Llama-2-7B", rank=8, targets=["q_proj", "v_proj"]),
                     "rank × (in + out) per adapted matrix, 2 matrices × 32 layers.", 0.0),
    "05.1": Exercise("Estimate the decode speed (tokens/s) of Llama-2-7B in Q4_0 on an RTX 3090 with llama.cpp.",
                     lambda: _hg().decode_tokens_per_s("Llama-2-7B", "RTX 3090", weights="Q4_0", context=128),
                     "hg.decode_tokens_per_s(model, card, weights, context=128)", 0.05),
    "05.2": Exercise("How many GPU-hours does training a 1B-parameter model on 20B tokens take on A100 SXM4 80GB "
                     "at 40% MFU?",
                     lambda: _hg().training_time(1e9, "A100 SXM4 80GB", tokens=20e9, mfu=0.4).gpu_hours,
                     "6 × N × D FLOPs divided by (312e12 × 0.4) FLOP/s, in hours."),
    "05.3": Exercise("After how many days does buying a 15,000 CNY card beat renting it at 2 CNY/hour, "
                     "used 50% of the time, drawing 450 W at 0.6 CNY/kWh?",
                     lambda: _hg().break_even_days(15000, cloud_hourly=2.0, utilization=0.5, power_w=450,
                                                   electricity_price=0.6),
                     "price / (24 × utilisation × (hourly price − kW × electricity price))."),
    "07.1": Exercise("Which GPU does the planner pick as the cheapest build to serve Llama-3.1-8B in Q4_K_M to "
                     "4 users at 20 tokens/s each within 30,000 CNY?",
                     lambda: _hg().recommend(inference=dict(model="Llama-3.1-8B", weights="Q4_K_M", users=4,
                                                            tokens_per_s=20), budget=30000).builds.iloc[0]["gpu"],
                     "hg.recommend(...).builds.iloc[0]"),
    "06.1": Exercise("How many GiB per GPU does the source's large-team need (a 70B model in fp16 for 200 users "
                     "at 4,096 tokens) take on 4 GPUs, for inference?",
                     lambda: _hg().inference_memory("Llama-2-70B", weights="fp16", batch=200, context=4096,
                                                    engine="vllm", gpus=4).per_gpu_gib,
                     "hg.inference_memory(..., batch=200, context=4096, engine='vllm', gpus=4).per_gpu_gib"),
    "08.1": Exercise("What is the Chinese title of guide table 2?",
                     lambda: _hg().guide_tables("zh")[1].attrs["title"],
                     "hg.guide_tables('zh')[1].attrs['title']"),
}  # fmt: skip


def question(exercise_id: str) -> str:
    """The question of an exercise."""
    return _get(exercise_id).question


def answer(exercise_id: str) -> Any:
    """The expected answer, computed now from the package and its data (for teachers and solutions)."""
    return _get(exercise_id).solve()


def _get(exercise_id: str) -> Exercise:
    if exercise_id not in EXERCISES:
        import difflib

        close = difflib.get_close_matches(str(exercise_id), list(EXERCISES), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise LookupError(f"exercise_id={exercise_id!r} is not an exercise.{hint} Known: {', '.join(EXERCISES)}")
    return EXERCISES[exercise_id]


def _same_name(given: str, expected: str) -> bool:
    from .catalog import lookup_gpu, lookup_model, normalize_name

    for lookup in (lookup_gpu, lookup_model):
        try:
            if lookup(given).name == lookup(expected).name:
                return True
        except LookupError:
            continue
    return normalize_name(given) == normalize_name(expected)


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The answer to :func:`check`: true when right; shown in a notebook as its one-line message."""

    ok: bool
    message: str

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return self.message


def check(exercise_id: str, given: Any, *, show: bool = True) -> Verdict:
    """Check an answer: a :class:`Verdict`, true when right, that a notebook shows as "right" or a hint.

    ``show=False`` keeps the message from being printed by a script (a notebook cell shows the
    returned verdict once, either way).
    """
    ex = _get(exercise_id)
    expected = ex.solve()
    if isinstance(expected, str):
        ok = isinstance(given, str) and _same_name(given, expected)
    else:
        try:
            value = float(given)
        except (TypeError, ValueError):
            ok = False
        else:
            ok = abs(value - float(expected)) <= ex.tolerance * abs(float(expected)) + 1e-9
    message = f"{exercise_id}: right." if ok else f"{exercise_id}: not quite. Hint: {ex.hint}"
    if show and not _in_notebook():
        print(message)
    return Verdict(ok, message)


def _in_notebook() -> bool:
    """Whether a notebook kernel runs this: it shows the returned verdict itself."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"
