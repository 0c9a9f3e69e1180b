"""Exercises of the course, with a checker: ``hg.exercises.show("03")``, ``hg.exercises.check("03.1", answer)``.

The texts (question, hint, explanation, in English and Chinese) live in ``data/exercises.csv``;
the code keeps only how each answer is computed, keyed by the exercise's id. Every expected answer
is computed by the package from the data when checked (nothing is typed in), so an exercise stays
right when the data improves. Numbers pass within a relative tolerance; names pass when they name
the same GPU or model (aliases and case ignored).

Kinds: ``lookup`` (read a figure), ``compute`` (work a number out), ``predict`` (write a guess, then
run the given call), ``design`` (spec a build and justify it) and ``why`` (give a reason). Design and
why exercises are not checked automatically: ``check`` says so and points to the solutions notebook.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from . import i18n
from .i18n import N_

__all__ = ["EXERCISES", "Exercise", "Verdict", "answer", "check", "exercises", "judge", "question", "show"]

KINDS = ("lookup", "compute", "predict", "design", "why")
CHECKED_KINDS = ("lookup", "compute", "predict")
# The label of each kind, as show() prints it (rendered in the reader's language by i18n.text).
KIND_LABELS = {"lookup": N_("Look up"), "compute": N_("Compute"), "predict": N_("Predict, then run"),
               "design": N_("Design"), "why": N_("Why")}  # fmt: skip
SOLUTIONS = {"en": "notebooks/solutions/solutions.ipynb", "zh": "notebooks/zh/solutions/solutions.ipynb"}
# What a wrong answer's hint says first, by the slip hwguide.answers recognises in it.
SLIP_HINTS = {
    "gb_for_gib": N_("That is the figure in GB; the question asks for GiB (1 GiB = 2^30 bytes = 1.074 GB)."),
    "gib_for_gb": N_("That is the figure in GiB; the question asks for decimal GB (10^9 bytes)."),
    "half": N_(
        "Your answer is half the expected one: look for a factor of 2 left out (K and V, 2 bytes per fp16 "
        "value, AdamW's two moments)."
    ),
    "double": N_("Your answer is twice the expected one: look for a factor of 2 counted twice."),
    "bits_for_bytes": N_("Your answer is 8 times too large: bits counted where bytes were asked?"),
    "bytes_for_bits": N_("Your answer is 8 times too small: bytes counted where bits were asked?"),
    "thousand_times": N_("Your answer is 1,000 times too large: check the unit (MB and GB, W and kW, ms and s)."),
    "thousandth": N_("Your answer is 1,000 times too small: check the unit (MB and GB, W and kW, ms and s)."),
    "per_gpu_for_total": N_("That is one GPU's share; the question asks for all {gpus} GPUs together."),
    "total_for_per_gpu": N_("That is the total over {gpus} GPUs; the question asks for one GPU."),
    "wrong_unit": N_("The unit you wrote measures something else: answer in {unit}."),
    "not_a_number": N_("Write a number (a unit may follow it)."),
    "yes_no_for_number": N_("The question asks for a number, not yes or no."),
    "not_yes_no": N_("Answer yes or no."),
}


@dataclasses.dataclass(frozen=True)
class Exercise:
    """One exercise: its texts in both languages (from data/exercises.csv) and how to compute its answer.

    ``solve`` is None for the kinds that are not checked automatically (design, why).
    """

    id: str
    kind: str
    question: dict[str, str]
    hint: dict[str, str]
    explanation: dict[str, str]
    solve: Callable[[], Any] | None
    run: str = ""
    tolerance: float = 0.03  # relative, for numbers: two significant figures pass
    unit: str = ""  # the unit the answer is in (one of hwguide.answers.UNITS), "" for a pure number or a name
    gpus: int | None = None  # the GPUs the question splits the work over: recognises per GPU for in total

    @property
    def notebook(self) -> str:
        """The number of the notebook that asks it ("03" for exercise "03.1")."""
        return self.id.split(".")[0]

    @property
    def checked(self) -> bool:
        """Whether :func:`check` can judge an answer automatically."""
        return self.solve is not None


def _hg() -> Any:
    import hwguide

    return hwguide


def _fastest(cards: list[str], model: str, weights: str) -> str:
    hg = _hg()
    return max(cards, key=lambda c: hg.decode_tokens_per_s(model, c, weights=weights))


def _first_token_sooner(cards: list[str], model: str, prompt: int, weights: str) -> str:
    hg = _hg()
    return min(cards, key=lambda c: hg.prefill_seconds(model, c, prompt, weights=weights))


def _allreduce_8_gpus(model: str, *, card: str | None = None, link: str | None = None) -> float:
    """Seconds of one all-reduce of ``model``'s fp16 gradients over 8 GPUs joined by ``link`` (by default the
    link an 8-GPU machine of ``card`` most likely has)."""
    from . import speed

    gradients = _hg().weights_bytes(model, "fp16")  # one fp16 gradient per weight
    return speed.allreduce_seconds(gradients, gpus=8, link=link or speed.default_link(card, gpus=8))


def _model_states_gib(memory: Any) -> float:
    parts = ("weights", "gradients", "master_weights", "optimizer_states")
    return sum(memory.per_gpu[part] for part in parts) / 2**30


def _fixed_ms_per_token(engine: str, model: str) -> float:
    hg = _hg()
    factors = hg.engine(engine)
    return (factors.step_us + hg.model(model).layers * factors.layer_us) / 1000


# How each checked exercise's answer is computed, keyed by its id in data/exercises.csv.
SOLVERS: dict[str, Callable[[], Any]] = {
    "00.1": lambda: _hg().gpu("RTX 3090").memory_gib,
    "00.2": lambda: float(_hg().gpus()["bandwidth_gbs"].max()),
    "01.1": lambda: _hg().roofline("H200 SXM", "fp16")["ridge_flops_per_byte"],
    "01.2": lambda: _hg().gpu("H100 SXM").fp8_tflops,
    "01.3": lambda: max(["RTX 4090", "RTX A6000"], key=lambda c: _hg().gpu(c).fp16_tflops),
    "02.1": lambda: _hg().gpu("RTX 4090").fp16_tflops / _hg().gpu("RTX 3090").fp16_tflops,
    "07.1": lambda: _fastest(["RTX 4090", "A100 SXM4 80GB"], "Llama-3.1-8B", "fp16"),
    "02.2": lambda: _hg().gpu("A800 SXM4 80GB").nvlink_gbs,
    "03.1": lambda: _hg().kv_cache_bytes("Qwen2.5-7B", 32768) / 2**30,
    "03.2": lambda: _hg().weights_bytes("Llama-2-70B", "Q4_K_M") / 2**30,
    "04.1": lambda: _model_states_gib(_hg().training_memory("Llama-2-13B", gpus=8, zero=3)),
    "04.2": lambda: _hg().lora_params("Llama-2-7B", rank=8, targets=["q_proj", "v_proj"]),
    "05.1": lambda: _hg().decode_tokens_per_s("Llama-2-7B", "RTX 3090", weights="Q4_0", context=128),
    "06.1": lambda: _hg().training_time(1e9, "A100 SXM4 80GB", tokens=20e9, mfu=0.4).gpu_hours,
    "06.2": lambda: _hg().break_even_days(15000, cloud_hourly=2.0, utilization=0.5, power_w=450,
                                          electricity_price=0.6),
    "08.1": lambda: _hg().inference_memory("Llama-2-70B", weights="fp16", batch=100, context=4096, engine="vllm",
                                           gpus=4).per_gpu_gib,
    "09.1": lambda: _hg().recommend(inference=dict(model="Llama-3.1-8B", weights="Q4_K_M", users=4, tokens_per_s=20),
                                    budget=30000).builds.iloc[0]["gpu"],
    "10.1": lambda: _hg().guide_tables("zh")[1].attrs["title"],
    # beyond look-ups: compute and predict
    "00.3": lambda: _fastest(["RTX 4060 Ti 16GB", "RTX 2080 Ti 22GB"], "Llama-3.1-8B", "Q4_K_M"),
    "01.4": lambda: _hg().arithmetic_intensity("Llama-3.1-8B", "decode", batch=1, context=4096)
                    / _hg().roofline("RTX 4090", "fp16")["ridge_flops_per_byte"],
    "01.5": lambda: _fastest(["L40S", "RTX 4090"], "Llama-3.1-8B", "fp16"),
    "01.6": lambda: _allreduce_8_gpus("Llama-3.1-8B", link="PCIe 4.0 x16"),
    "07.2": lambda: _hg().rank_gpus("inference", cards=["H20", "H100 SXM"]).iloc[0]["gpu"],
    "02.3": lambda: _allreduce_8_gpus("Llama-2-7B", card="A800 SXM4 80GB")
                    / _allreduce_8_gpus("Llama-2-7B", card="A100 SXM4 80GB"),
    "03.3": lambda: _hg().kv_cache_bytes("Llama-2-7B", 4096, batch=4) / 2**30,
    "03.4": lambda: _hg().kv_cache_bytes("Mistral-7B-Instruct-v0.2", 32768) / _hg().kv_cache_bytes("Mistral-7B", 32768),
    "04.3": lambda: _hg().finetune_memory("Qwen2.5-14B", method="lora", recompute="full").fits("RTX 4090"),
    "04.4": lambda: _hg().finetune_memory("Llama-3.1-8B", method="full").per_gpu["optimizer_states"] / 2**30,
    "05.2": lambda: _first_token_sooner(["T4", "L4"], "Llama-3.1-8B", 2048, "Q4_K_M"),
    "05.3": lambda: _fixed_ms_per_token("llama.cpp", "Llama-3.1-8B"),
    "08.2": lambda: _hg().finetune_memory("Qwen2.5-14B", method="lora", gpus=2, zero=3, recompute="none")
                    .fits("RTX 2080 Ti 22GB"),
    "08.3": lambda: _hg().build_system("L20", 4)["gpu_memory_gib"] - _hg().build_system("A100 PCIe 40GB", 4)[
                    "gpu_memory_gib"],
    "09.2": lambda: _hg().host_link("RTX 2080 Ti 22GB", 4, cpu="Intel Core i5-12400")["per_direction_gbs"],
    "09.3": lambda: _hg().build_system("RTX 4090", 2)["psu_w"],
}  # fmt: skip


@functools.cache
def _load() -> dict[str, Exercise]:
    from .catalog import DataError, load_table

    table = load_table("exercises")
    out: dict[str, Exercise] = {}
    for row in table.to_dict("records"):
        exercise_id = row["id"]
        if exercise_id in out:
            raise DataError(f"exercises.csv: exercise {exercise_id!r} appears twice")
        solve = SOLVERS.get(exercise_id) if row["kind"] in CHECKED_KINDS else None
        if row["kind"] in CHECKED_KINDS and solve is None:
            raise DataError(f"exercises.csv: exercise {exercise_id!r} is of kind {row['kind']!r}, which is checked, "
                            "but hwguide/exercises.py has no solver for it")  # fmt: skip
        tolerance = row["tolerance"]
        out[exercise_id] = Exercise(
            id=exercise_id,
            kind=row["kind"],
            question={lang: row[f"question_{lang}"] for lang in i18n.LANGUAGES},
            hint={lang: row[f"hint_{lang}"] for lang in i18n.LANGUAGES},
            explanation={lang: row[f"explanation_{lang}"] for lang in i18n.LANGUAGES},
            solve=solve,
            run=row["run"] or "",
            # NaN: the default, ±3% for what is computed, exact for a figure looked up
            tolerance=(0.0 if row["kind"] == "lookup" else 0.03) if tolerance != tolerance else float(tolerance),
            unit=row["unit"] if isinstance(row["unit"], str) else "",
            gpus=None if row["gpus"] != row["gpus"] or row["gpus"] is None else int(row["gpus"]),
        )
    unknown = sorted(set(SOLVERS) - set(out))
    if unknown:
        raise DataError(f"hwguide/exercises.py solves {unknown}, which data/exercises.csv does not ask")
    return out


class _Exercises(Mapping[str, Exercise]):
    """``EXERCISES``: the exercises by id, in the file's order, read from data/exercises.csv on first use."""

    def __getitem__(self, key: str) -> Exercise:
        return _load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(_load())

    def __len__(self) -> int:
        return len(_load())

    def __repr__(self) -> str:
        return f"EXERCISES({', '.join(self)})"


EXERCISES: Mapping[str, Exercise] = _Exercises()


def exercises(notebook: str | None = None) -> list[Exercise]:
    """The exercises of notebook ``notebook`` ("03"), or all of them, in the order of the file."""
    every = list(EXERCISES.values())
    if notebook is None:
        return every
    number = _notebook_number(notebook)
    return [ex for ex in every if ex.notebook == number]


def _notebook_number(notebook: Any) -> str:
    text = str(notebook).strip()
    number = text.split("_")[0]  # "03_inference_memory" works too
    if number.isdigit() and len(number) <= 2:
        number = number.zfill(2)
    known = sorted({ex.notebook for ex in EXERCISES.values()})
    if number not in known:
        raise LookupError(
            i18n.msg(
                "notebook={notebook!r} has no exercises; notebooks with exercises: {known}",
                notebook=notebook,
                known=", ".join(known),
            )
        )
    return number


def question(exercise_id: str, *, lang: str | None = None) -> str:
    """The question of an exercise, in ``lang`` ("en" or "zh"; the language of ``hg.setup`` when None).

    A predict exercise's question ends with the call to run once you have written your guess.
    """
    lang = i18n.resolve(lang)
    ex = _get(exercise_id)
    text = ex.question[lang]
    if ex.run:
        text += ("" if lang == "zh" else " ") + i18n.text("Write your guess, then run: {call}", lang, call=ex.run)
    return text


def hint(exercise_id: str, *, lang: str | None = None) -> str:
    """The hint of an exercise: a direction to take, not the answer."""
    return _get(exercise_id).hint[i18n.resolve(lang)]


def explanation(exercise_id: str, *, lang: str | None = None) -> str:
    """Why the answer is what it is, in a sentence or two (the solutions notebook says more)."""
    return _get(exercise_id).explanation[i18n.resolve(lang)]


def show(notebook: str, *, lang: str | None = None) -> None:
    """Print every exercise of notebook ``notebook`` ("03"): its id, its kind and its question.

    In ``lang`` ("en" or "zh"; the language set by ``hg.setup`` when None), e.g.
    ``03.1 · Compute: How many GiB …`` (in Chinese, the kind and the question in Chinese).
    """
    lang = i18n.resolve(lang)
    blocks = []
    for ex in exercises(notebook):
        label = i18n.text(KIND_LABELS[ex.kind], lang)
        blocks.append(i18n.text("{id} · {kind}: {question}", lang, id=ex.id, kind=label,
                                question=question(ex.id, lang=lang)))  # fmt: skip
    print("\n\n".join(blocks))


def answer(exercise_id: str, *, lang: str | None = None) -> Any:
    """The expected answer, computed now from the package and its data (for teachers and solutions).

    For the exercises that are not checked automatically (design, why) it is the explanation, in
    ``lang``; the solutions notebook works them out.
    """
    ex = _get(exercise_id)
    if ex.solve is None:
        return ex.explanation[i18n.resolve(lang)]
    return ex.solve()


def _get(exercise_id: str) -> Exercise:
    if not isinstance(exercise_id, str) or exercise_id not in EXERCISES:
        import difflib

        close = difflib.get_close_matches(str(exercise_id), list(EXERCISES), n=3)
        hint = i18n.msg(" Did you mean {close}?", close=", ".join(close)) if close else ""
        raise LookupError(
            i18n.msg(
                "exercise_id={exercise_id!r} is not an exercise.{hint} Known: {known}",
                exercise_id=exercise_id,
                hint=hint,
                known=", ".join(EXERCISES),
            )
        )
    return EXERCISES[exercise_id]


def _yes_no(text: str) -> bool | None:
    from .answers import parse

    return parse(text).yes


def _same_name(given: str, expected: str) -> bool:
    from .catalog import lookup_gpu, lookup_model, normalize_name

    if _yes_no(expected) is not None:
        return _yes_no(given) == _yes_no(expected)
    for lookup in (lookup_gpu, lookup_model):
        try:
            if lookup(given).name == lookup(expected).name:
                return True
        except LookupError:
            continue
    return normalize_name(given) == normalize_name(expected)


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The answer to :func:`check`: true when right; shown in a notebook as its one-line message.

    ``message`` is an :class:`hwguide.i18n.Message`, shown in ``lang`` (the language of the check).
    ``checked`` is False for the exercises that cannot be checked automatically (design, why).
    """

    ok: bool
    message: i18n.Message
    checked: bool = True
    lang: str | None = None

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        return self.message.render(self.lang)

    def __repr__(self) -> str:
        return str(self)


def judge(exercise_id: str, given: Any) -> Any:
    """An :class:`hwguide.answers.Judgement` of ``given`` for the exercise: status ``right``, ``wrong``,
    ``blank`` or ``not_checked`` (design and why), with the slip recognised when wrong.

    Numbers are read as learners write them (thousands separators, units converted to the question's,
    Chinese ten-thousands and hundred-millions, k/M/B); a computed answer passes within the exercise's
    tolerance or when it is the answer
    rounded to the digits written (two or more significant figures); a look-up is exact.
    """
    from . import answers

    ex = _get(exercise_id)
    if given is None or (isinstance(given, float) and given != given) or (isinstance(given, str) and not given.strip()):
        return answers.Judgement("blank")
    if ex.solve is None:
        return answers.Judgement("not_checked")
    expected = ex.solve()
    if isinstance(expected, str):
        right = isinstance(given, str) and _same_name(given, expected)
        return answers.Judgement("right" if right else "wrong")
    return answers.judge(given, expected, unit=ex.unit or None, tolerance=ex.tolerance,
                         rounding=ex.kind != "lookup", gpus=ex.gpus)  # fmt: skip


def check(exercise_id: str, given: Any, *, show: bool = True, lang: str | None = None) -> Verdict:
    """Check an answer: a :class:`Verdict`, true when right, that a notebook shows as "right" or a hint.

    Messages are in ``lang`` ("en" or "zh"; the language of ``hg.setup`` when None): "03.1: right."
    or "03.1: not quite. Hint: …" (in Chinese, their Chinese from the catalog). Design and why
    exercises are not checked: the verdict says so and points to the solutions notebook.
    ``show=False`` keeps the message from being printed by a script (a notebook cell shows the
    returned verdict once, either way).
    """
    lang = i18n.resolve(lang)
    ex = _get(exercise_id)
    if ex.solve is None:
        verdict = Verdict(False, i18n.msg("{id}: this one cannot be checked automatically; compare your answer with "
                                          "the worked solution in {notebook}.", id=ex.id, notebook=SOLUTIONS[lang]),
                          checked=False, lang=lang)  # fmt: skip
    else:
        judged = judge(ex.id, given)
        if judged.status == "right":
            verdict = Verdict(True, i18n.msg("{id}: right.", id=ex.id), lang=lang)
        elif judged.slip in SLIP_HINTS:
            slip = i18n.msg(SLIP_HINTS[judged.slip], gpus=ex.gpus or "", unit=ex.unit or "") if "{" in SLIP_HINTS[
                judged.slip] else i18n.msg(SLIP_HINTS[judged.slip])  # fmt: skip
            verdict = Verdict(False, i18n.msg("{id}: not quite. {slip} Hint: {hint}", id=ex.id, slip=slip,
                                              hint=ex.hint[lang]), lang=lang)  # fmt: skip
        else:
            verdict = Verdict(False, i18n.msg("{id}: not quite. Hint: {hint}", id=ex.id, hint=ex.hint[lang]), lang=lang)
    if show and not _in_notebook():
        print(verdict)
    return verdict


def _in_notebook() -> bool:
    """Whether a notebook kernel runs this: it shows the returned verdict itself."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"
