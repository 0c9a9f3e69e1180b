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

__all__ = ["EXERCISES", "Exercise", "Verdict", "answer", "check", "exercises", "question", "show"]

KINDS = ("lookup", "compute", "predict", "design", "why")
CHECKED_KINDS = ("lookup", "compute", "predict")
# The label of each kind, as show() prints it (rendered in the reader's language by i18n.text).
KIND_LABELS = {"lookup": N_("Look up"), "compute": N_("Compute"), "predict": N_("Predict, then run"),
               "design": N_("Design"), "why": N_("Why")}  # fmt: skip
SOLUTIONS = {"en": "notebooks/solutions/solutions.ipynb", "zh": "notebooks/zh/solutions/solutions.ipynb"}
# Words accepted for a yes/no answer, in every language: the English list and its translations
# (a catalog entry is a list of words separated by commas, not a sentence).
_YES = N_("yes, y, true")
_NO = N_("no, n, false")


def _answer_words(key: str) -> frozenset[str]:
    """The words that give a yes (or a no) answer, in every language of the course."""
    words = ",".join(i18n.text(key, lang) for lang in i18n.LANGUAGES)
    return frozenset(w.strip().lower() for w in words.replace("\uff0c", ",").split(",") if w.strip())


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
    tolerance: float = 0.02  # relative, for numbers

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
    "02.2": lambda: _fastest(["RTX 4090", "A100 SXM4 80GB"], "Llama-3.1-8B", "fp16"),
    "02.3": lambda: _hg().gpu("A800 SXM4 80GB").nvlink_gbs,
    "03.1": lambda: _hg().kv_cache_bytes("Qwen2.5-7B", 32768) / 2**30,
    "03.2": lambda: _hg().weights_bytes("Llama-2-70B", "Q4_K_M") / 2**30,
    "04.1": lambda: _model_states_gib(_hg().training_memory("Llama-2-13B", gpus=8, zero=3)),
    "04.2": lambda: _hg().lora_params("Llama-2-7B", rank=8, targets=["q_proj", "v_proj"]),
    "05.1": lambda: _hg().decode_tokens_per_s("Llama-2-7B", "RTX 3090", weights="Q4_0", context=128),
    "05.2": lambda: _hg().training_time(1e9, "A100 SXM4 80GB", tokens=20e9, mfu=0.4).gpu_hours,
    "05.3": lambda: _hg().break_even_days(15000, cloud_hourly=2.0, utilization=0.5, power_w=450,
                                          electricity_price=0.6),
    "06.1": lambda: _hg().inference_memory("Llama-2-70B", weights="fp16", batch=100, context=4096, engine="vllm",
                                           gpus=4).per_gpu_gib,
    "07.1": lambda: _hg().recommend(inference=dict(model="Llama-3.1-8B", weights="Q4_K_M", users=4, tokens_per_s=20),
                                    budget=30000).builds.iloc[0]["gpu"],
    "08.1": lambda: _hg().guide_tables("zh")[1].attrs["title"],
    # beyond look-ups: compute and predict
    "00.3": lambda: _fastest(["RTX 4060 Ti 16GB", "RTX 2080 Ti 22GB"], "Llama-3.1-8B", "Q4_K_M"),
    "01.4": lambda: _hg().arithmetic_intensity("Llama-3.1-8B", "decode", batch=1, context=4096)
                    / _hg().roofline("RTX 4090", "fp16")["ridge_flops_per_byte"],
    "01.5": lambda: _fastest(["L40S", "RTX 4090"], "Llama-3.1-8B", "fp16"),
    "01.6": lambda: _allreduce_8_gpus("Llama-3.1-8B", link="PCIe 4.0 x16"),
    "02.4": lambda: _hg().rank_gpus("inference", cards=["H20", "H100 SXM"]).iloc[0]["gpu"],
    "02.5": lambda: _allreduce_8_gpus("Llama-2-7B", card="A800 SXM4 80GB")
                    / _allreduce_8_gpus("Llama-2-7B", card="A100 SXM4 80GB"),
    "03.3": lambda: _hg().kv_cache_bytes("Llama-2-7B", 4096, batch=4) / 2**30,
    "03.4": lambda: _hg().kv_cache_bytes("Mistral-7B-Instruct-v0.2", 32768) / _hg().kv_cache_bytes("Mistral-7B", 32768),
    "04.3": lambda: _hg().finetune_memory("Qwen2.5-14B", method="lora", recompute="full").fits("RTX 4090"),
    "04.4": lambda: _hg().finetune_memory("Llama-3.1-8B", method="full").per_gpu["optimizer_states"] / 2**30,
    "05.4": lambda: _first_token_sooner(["T4", "L4"], "Llama-3.1-8B", 2048, "Q4_K_M"),
    "05.5": lambda: _fixed_ms_per_token("llama.cpp", "Llama-3.1-8B"),
    "06.2": lambda: _hg().finetune_memory("Qwen2.5-14B", method="lora", gpus=2, zero=3, recompute="none")
                    .fits("RTX 2080 Ti 22GB"),
    "06.3": lambda: _hg().build_system("L20", 4)["gpu_memory_gib"] - _hg().build_system("A100 PCIe 40GB", 4)[
                    "gpu_memory_gib"],
    "07.2": lambda: _hg().host_link("RTX 2080 Ti 22GB", 4, cpu="Intel Core i5-12400")["per_direction_gbs"],
    "07.3": lambda: _hg().build_system("RTX 4090", 2)["psu_w"],
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
            tolerance=0.02 if tolerance != tolerance else float(tolerance),  # NaN: the default
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
        raise LookupError(f"notebook={notebook!r} has no exercises; notebooks with exercises: {', '.join(known)}")
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
    if exercise_id not in EXERCISES:
        import difflib

        close = difflib.get_close_matches(str(exercise_id), list(EXERCISES), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise LookupError(f"exercise_id={exercise_id!r} is not an exercise.{hint} Known: {', '.join(EXERCISES)}")
    return EXERCISES[exercise_id]


def _yes_no(text: str) -> bool | None:
    word = text.strip().lower().rstrip(".!\u3002\uff01")  # and the Chinese full stop and exclamation mark
    return True if word in _answer_words(_YES) else False if word in _answer_words(_NO) else None


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


def _is_right(ex: Exercise, given: Any, expected: Any) -> bool:
    if type(expected).__name__ == "bool_":  # numpy's
        expected = bool(expected)
    if isinstance(expected, bool):
        return isinstance(given, (bool, str)) and (given if isinstance(given, bool) else _yes_no(given)) == expected
    if isinstance(expected, str):
        return isinstance(given, str) and _same_name(given, expected)
    if isinstance(given, bool):
        return False
    try:
        value = float(given)
    except (TypeError, ValueError):
        return False
    return abs(value - float(expected)) <= ex.tolerance * abs(float(expected)) + 1e-9


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
    elif _is_right(ex, given, ex.solve()):
        verdict = Verdict(True, i18n.msg("{id}: right.", id=ex.id), lang=lang)
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
