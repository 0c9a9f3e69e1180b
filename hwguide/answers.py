"""Reading a learner's answer the way learners write it, and naming the usual slip when it is wrong.

``parse("about 1.75 GiB")`` reads a number with its thousands separators, a multiplier (ten-thousands and
hundred-millions as Chinese writes them, k/M/B), a unit (GiB/GB/MiB/MB/TB, W/kW, s/min/h/days, tokens/s,
GB/s, TFLOPS, CNY/USD, %) and yes/no words, in English or Chinese: the words learners use are in
``data/answer_words.csv``.
``judge(answer, expected, unit=…)`` converts the answer's unit to the question's before comparing and
returns a code, ``"right"`` or ``"wrong"``, with the slip it recognises (``"gb_for_gib"``, ``"half"``,
``"per_gpu_for_total"`` …) so the hint can answer it. Pure functions: no I/O, no language.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import math
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any

__all__ = ["SLIPS", "UNITS", "Answer", "Judgement", "judge", "parse", "student_columns"]

# unit -> (dimension, size in the dimension's base unit). Bytes: B; power: W; time: s; rate: tokens/s;
# bandwidth: bytes/s; compute: FLOP/s; money: the currency itself; share: a fraction.
UNITS: dict[str, tuple[str, float]] = {
    "B": ("bytes", 1.0), "KB": ("bytes", 1e3), "MB": ("bytes", 1e6), "GB": ("bytes", 1e9), "TB": ("bytes", 1e12),
    "KiB": ("bytes", 2.0**10), "MiB": ("bytes", 2.0**20), "GiB": ("bytes", 2.0**30), "TiB": ("bytes", 2.0**40),
    "W": ("power", 1.0), "kW": ("power", 1e3),
    "ms": ("time", 1e-3), "s": ("time", 1.0), "min": ("time", 60.0), "h": ("time", 3600.0), "days": ("time", 86400.0),
    "tokens/s": ("rate", 1.0),
    "GB/s": ("bandwidth", 1e9), "TB/s": ("bandwidth", 1e12),
    "TFLOPS": ("compute", 1e12), "PFLOPS": ("compute", 1e15),
    "CNY": ("cny", 1.0), "USD": ("usd", 1.0),
    "%": ("share", 0.01),
}  # fmt: skip


@functools.cache
def _words() -> dict[str, Any]:
    """How learners write units, multipliers, yes/no and "about", in either language: data/answer_words.csv."""
    found: dict[str, Any] = {"unit": {}, "multiplier": {}, "yes": set(), "no": set(), "approx": [], "student": []}
    with (Path(__file__).resolve().parent.parent / "data" / "answer_words.csv").open(encoding="utf-8") as f:
        for row in csv.DictReader(f):
            kind, word, means = row["kind"], row["word"], row["means"]
            if kind == "unit":
                found["unit"][word.lower()] = means
            elif kind == "multiplier":
                found["multiplier"][word] = float(means)
            elif kind in ("yes", "no"):
                found[kind].add(word.lower())
            elif kind == "approx":
                found["approx"].append(re.escape(word))
            elif kind == "student":
                found["student"].append(word.lower())
    found["approx"] = re.compile(rf"^({'|'.join(sorted(found['approx'], key=len, reverse=True))})\s*", re.I)
    return found


_NUMBER = re.compile(r"^[-+−]?(\d{1,3}(?:[,，]\d{3})+|\d+)?(?:\.(\d+))?(?:e([-+]?\d+))?")

# Slips recognised when an answer is wrong: the code, and the factor the learner's number is off by.
SLIPS: dict[str, float] = {
    "gb_for_gib": 2**30 / 1e9,  # the figure in GB where GiB was asked (1 GiB = 1.074 GB)
    "gib_for_gb": 1e9 / 2**30,
    "half": 0.5,
    "double": 2.0,
    "bits_for_bytes": 8.0,  # bits counted where bytes were asked
    "bytes_for_bits": 1 / 8,
    "thousand_times": 1e3,  # a unit step off (MB for GB, W for kW)
    "thousandth": 1e-3,
}


@dataclasses.dataclass(frozen=True)
class Answer:
    """What a learner wrote, read: a number (``value``, in ``unit`` when one was written), or yes/no."""

    value: float | None = None
    unit: str | None = None
    yes: bool | None = None
    decimals: int | None = None  # digits written after the point (for rounding), None if not a plain number
    significant: int | None = None  # significant figures written


@dataclasses.dataclass(frozen=True)
class Judgement:
    """``status`` "right" or "wrong"; ``slip`` the recognised mistake ("gb_for_gib", "per_gpu_for_total",
    "wrong_unit", …) or None; ``value`` the answer converted to the question's unit (None if not a number)."""

    status: str
    slip: str | None = None
    value: float | None = None

    def __bool__(self) -> bool:
        return self.status == "right"


def student_columns() -> tuple[str, ...]:
    """The header names that mark a class table's student column (data/answer_words.csv, kind student)."""
    return tuple(_words()["student"])


def _unit(words: str) -> str | None:
    key = re.sub(r"\s+", "", words).lower().replace("／", "/")
    if not key:
        return None
    return _words()["unit"].get(key)


def parse(text: Any) -> Answer:
    """``text`` (a string, number or bool) as an :class:`Answer`; an empty Answer when it is neither a
    number nor yes/no. Raises nothing."""
    if isinstance(text, bool) or type(text).__name__ == "bool_":
        return Answer(yes=bool(text))
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return Answer(value=float(text)) if math.isfinite(float(text)) else Answer()
    if not isinstance(text, str):
        return Answer()
    words = text.strip().rstrip("。.!！ ").strip()
    vocabulary = _words()
    if words.lower() in vocabulary["yes"]:
        return Answer(yes=True)
    if words.lower() in vocabulary["no"]:
        return Answer(yes=False)
    words = vocabulary["approx"].sub("", words).replace("−", "-").strip()
    found = _NUMBER.match(words)
    if not found or not (found.group(1) or found.group(2)):
        return Answer()
    literal = found.group(0)
    rest = words[found.end() :].strip()
    try:
        number = Decimal(literal.replace(",", "").replace("，", "").replace("−", "-"))
    except InvalidOperation:
        return Answer()
    decimals = len(found.group(2) or "") if not found.group(3) else None
    digits = re.sub(r"[^0-9]", "", (found.group(1) or "") + (found.group(2) or "")).lstrip("0")
    significant = len(digits) if digits else 1
    multiplier = 1.0
    unit = _unit(rest) if rest else None
    if rest in ("B", "M", "b", "bn") or (rest and unit is None):  # 7B, 1.5M: multipliers, not bytes or MB
        multipliers = vocabulary["multiplier"]
        for word in sorted(multipliers, key=len, reverse=True):
            follows = rest[len(word) :].strip()
            if rest.startswith(word) and (not follows or _unit(follows)):
                multiplier, unit, decimals = multipliers[word], _unit(follows) if follows else None, None
                rest = ""
                break
    if rest and unit is None:
        return Answer()
    return Answer(value=float(number) * multiplier, unit=unit, decimals=decimals, significant=significant)


def _rounds_to(answer: Answer, expected: float) -> bool:
    """Whether the answer is ``expected`` rounded half-up to the digits written (two or more
    significant figures): "1.8" for 1.75."""
    if answer.decimals is None or answer.value is None or (answer.significant or 0) < 2:
        return False
    step = Decimal(1).scaleb(-answer.decimals)
    rounded = Decimal(repr(expected)).quantize(step, rounding=ROUND_HALF_UP)
    return float(rounded) == answer.value


def judge(given: Any, expected: Any, *, unit: str | None = None, tolerance: float = 0.03,
          rounding: bool = True, gpus: int | None = None) -> Judgement:  # fmt: skip
    """Judge ``given`` against ``expected`` (a number in ``unit``, a bool, or None for "cannot judge").

    A number is right within ``tolerance`` (relative), or when it is ``expected`` rounded to the digits
    the learner wrote (``rounding``, two or more significant figures). A unit written in the answer is
    converted to ``unit`` first (one of :data:`UNITS`); a unit of another dimension is wrong
    (``slip="wrong_unit"``). A wrong number is checked against the usual slips (:data:`SLIPS`, and with
    ``gpus`` per GPU for the total and the other way round).
    """
    if type(expected).__name__ == "bool_":
        expected = bool(expected)
    answer = parse(given)
    if isinstance(expected, bool):
        if answer.yes is None:
            return Judgement("wrong", "not_yes_no")
        return Judgement("right" if answer.yes == expected else "wrong")
    if answer.value is None:
        return Judgement("wrong", "not_a_number" if answer.yes is None else "yes_no_for_number")
    value = answer.value
    if answer.unit == "%" and unit is None:  # a share asked as a fraction, answered in per cent
        value, answer = value / 100, dataclasses.replace(answer, value=value / 100, decimals=None)
    elif answer.unit is not None and unit is not None:
        if unit not in UNITS:
            from . import i18n

            raise ValueError(i18n.msg("unit={unit!r} is not one of: {choices}", unit=unit, choices=", ".join(UNITS)))
        (dim_given, size_given), (dim_asked, size_asked) = UNITS[answer.unit], UNITS[unit]
        if dim_given != dim_asked:
            return Judgement("wrong", "wrong_unit", value)
        value = value * size_given / size_asked
        decimals = None if size_given != size_asked else answer.decimals
        answer = dataclasses.replace(answer, value=value, decimals=decimals)
    expected = float(expected)

    def near(x: float) -> bool:
        return abs(x - expected) <= tolerance * abs(expected) + 1e-9

    if near(value) or (rounding and _rounds_to(answer, expected)):
        return Judgement("right", None, value)
    slips = {"per_gpu_for_total": 1 / gpus, "total_for_per_gpu": float(gpus)} if gpus and gpus > 1 else {}
    slips |= SLIPS
    if unit not in ("GiB", "GB", "MiB", "MB", "TB", "TiB"):
        slips.pop("gb_for_gib")
        slips.pop("gib_for_gb")
    for slip, factor in slips.items():
        if expected and abs(value - expected * factor) <= max(tolerance, 0.01) * abs(expected * factor):
            return Judgement("wrong", slip, value)
    return Judgement("wrong", None, value)
