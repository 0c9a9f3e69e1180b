"""One home for argument checks: every public function checks its input here.

Each check returns the cleaned value or raises :class:`ValueError` whose message names the
argument and says what is allowed (a range, or the choices with close matches). Name look-ups
of cards and models live in :mod:`hwguide.catalog` and raise :class:`LookupError` the same way.

Limits on counts are physical sense, not software limits: they stop a typo such as ``1e308``
from turning into an overflow or an hour-long loop, and each message says the limit.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import difflib
import math
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from . import i18n

__all__ = [
    "CURRENCIES",
    "LIMITS",
    "choice",
    "currency",
    "date",
    "flag",
    "fraction",
    "names",
    "number",
    "output_folder",
    "whole",
]

CURRENCIES = ("CNY", "USD")

# Upper bounds for counts, by argument name (the lower bound is 1 unless a check says otherwise).
LIMITS: dict[str, int] = {
    "batch": 1_000_000,  # sequences in one step
    "context": 100_000_000,  # tokens in one sequence (the longest published windows are ~10M)
    "gpus": 1_000_000,  # GPUs in one job
    "tp": 1024,
    "pp": 1024,
    "rank": 65_536,  # LoRA rank
    "users": 1_000_000,
    "digits": 12,
}
_DEFAULT_LIMIT = 1_000_000_000


def _scalar(value: object) -> object:
    """A numpy scalar as the Python number it holds; anything else unchanged."""
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        with contextlib.suppress(TypeError, ValueError):
            return value.item()  # type: ignore[union-attr]
    return value


def _is_number(value: object) -> bool:
    """A finite int or float (not a bool); ints too large for a float count as not finite."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        return abs(value) < 2**1023
    return math.isfinite(value)


def _unit(unit: Any) -> Any:
    """A unit for a message: a message as it is, a unit's name (``"GB/s"``, ``"per kWh"``) labelled in the
    reader's language when shown (context ``"unit"`` of the catalog; the name itself where it has none)."""
    return unit if isinstance(unit, i18n.Message) else i18n.Message(str(unit), context="unit")


def whole(value: object, name: str, *, low: int = 1, high: int | None = None) -> int:
    """``value`` as a whole number in [low, high]; ``high`` defaults to :data:`LIMITS` for ``name``."""
    top = high if high is not None else LIMITS.get(name, _DEFAULT_LIMIT)
    value = _scalar(value)
    if (
        not _is_number(value)
        or not float(value).is_integer()  # type: ignore[arg-type]
        or not low <= value <= top  # type: ignore[operator]
    ):
        raise ValueError(i18n.msg("{name} must be a whole number from {low:,} to {top:,}, not {value!r}",
                                  name=name, low=low, top=top, value=value))  # fmt: skip
    return int(value)  # type: ignore[arg-type]


def number(
    value: object,
    name: str,
    *,
    low: float = 0.0,
    high: float | None = None,
    open_low: bool = False,
    unit: str = "",
) -> float:
    """``value`` as a finite float with ``low <= value`` (``low < value`` when ``open_low``) and ``<= high``."""
    value = _scalar(value)
    ok = _is_number(value)
    if ok:
        v = float(value)  # type: ignore[arg-type]
        ok = (v > low if open_low else v >= low) and (high is None or v <= high)
    if not ok:
        span = i18n.msg("more than {low:g}", low=low) if open_low else i18n.msg("at least {low:g}", low=low)
        if high is not None:
            span = i18n.msg("{lower} and at most {high:g}", lower=span, high=high)
        if unit:
            raise ValueError(i18n.msg("{name} must be a finite number {span} {unit}, not {value!r}",
                                      name=name, span=span, unit=_unit(unit), value=value))  # fmt: skip
        raise ValueError(i18n.msg("{name} must be a finite number {span}, not {value!r}", name=name, span=span,
                                  value=value))  # fmt: skip
    return float(value)  # type: ignore[arg-type]


def fraction(value: object, name: str, *, zero_ok: bool = False, one_ok: bool = True) -> float:
    """``value`` as a fraction: in (0, 1] by default; ``zero_ok`` admits 0, ``one_ok=False`` excludes 1."""
    ok = _is_number(value)
    if ok:
        v = float(value)  # type: ignore[arg-type]
        ok = (v >= 0 if zero_ok else v > 0) and (v <= 1 if one_ok else v < 1)
    if not ok:
        span = ("[0" if zero_ok else "(0") + ", " + ("1]" if one_ok else "1)")
        raise ValueError(i18n.msg("{name} must be a fraction in {span}, not {value!r}", name=name, span=span,
                                  value=value))  # fmt: skip
    return float(value)  # type: ignore[arg-type]


def flag(value: object, name: str) -> bool:
    """``value`` as a bool: only True or False (a string such as "no" is refused, not read as true)."""
    value = _scalar(value)
    if not isinstance(value, bool):
        raise ValueError(i18n.msg("{name} must be True or False, not {value!r}", name=name, value=value))
    return value


def choice(value: object, name: str, choices: Iterable[Any]) -> Any:
    """The member of ``choices`` that ``value`` names (case-insensitive for text), or a ValueError
    listing the choices and the closest matches."""
    options = list(choices)
    if isinstance(value, str):  # text names a text option, ignoring case and outer spaces
        wanted = value.strip().lower()
        for option in options:
            if isinstance(option, str) and wanted == option.lower():
                return option
    elif isinstance(value, bool):  # True and False name only themselves (not 1 and 0)
        for option in options:
            if option is value:
                return option
    else:
        for option in options:
            if not isinstance(option, str) and _equal(value, option):
                return option
    shown = [str(o) for o in options]
    close = difflib.get_close_matches(str(value), shown, n=3, cutoff=0.5) if isinstance(value, str) else []
    if close:
        raise ValueError(i18n.msg("{name}={value!r} is not one of: {choices}. Did you mean {close}?", name=name,
                                  value=value, choices=", ".join(shown), close=", ".join(close)))  # fmt: skip
    raise ValueError(i18n.msg("{name}={value!r} is not one of: {choices}.", name=name, value=value,
                              choices=", ".join(shown)))  # fmt: skip


def _equal(value: object, option: object) -> bool:
    """``value == option`` for anything a user may pass: pandas' NA, arrays and lists compare as unequal."""
    try:
        return bool(value == option)
    except (TypeError, ValueError):  # NA's truth is ambiguous; an array's comparison is element-wise
        return False


def currency(value: object, name: str = "currency") -> str:
    """CNY or USD (the currencies the price data holds)."""
    return choice(value, name, CURRENCIES)


def date(value: object, name: str = "as_of") -> _dt.date:
    """A calendar date from a :class:`datetime.date` or an ISO ``YYYY-MM-DD`` string."""
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, str):
        text = value.strip()
        if len(text) == 10:
            try:
                return _dt.date.fromisoformat(text)
            except ValueError:
                pass
    raise ValueError(i18n.msg("{name} must be a date as YYYY-MM-DD (e.g. 2025-06-30), not {value!r}", name=name,
                              value=value))  # fmt: skip


def names(value: object, name: str, *, allowed: Sequence[str] | None = None) -> list[str]:
    """A non-empty list of names; one string is one name (commas separate several: "html,pdf")."""
    if isinstance(value, str):
        items = [part.strip() for part in value.split(",")] if allowed is not None else [value]
    elif isinstance(value, Iterable) and not isinstance(value, (bytes, dict)):
        items = list(value)
    else:
        raise ValueError(i18n.msg("{name} must be a name or a list of names, not {value!r}", name=name, value=value))
    if not items or any(not isinstance(item, str) or not item.strip() for item in items):
        if allowed is not None:
            raise ValueError(i18n.msg("{name} must be a non-empty list of names from: {allowed}, not {value!r}",
                                      name=name, allowed=", ".join(allowed), value=value))  # fmt: skip
        raise ValueError(i18n.msg("{name} must be a non-empty list of names, not {value!r}", name=name, value=value))
    if allowed is not None:
        items = [choice(item, name, allowed) for item in items]
    return list(dict.fromkeys(items))


def output_folder(value: object, name: str = "out") -> Path:
    """A folder to write into: a non-empty path that is not an existing file (created later)."""
    if not isinstance(value, (str, os.PathLike)) or not str(os.fspath(value)).strip():
        raise ValueError(i18n.msg("{name} must name an output folder, not {value!r}", name=name, value=value))
    path = Path(os.fspath(value))
    if path.exists() and not path.is_dir():
        raise ValueError(i18n.msg("{name}={path!r} is a file, not a folder; choose a folder to write the handouts into",
                                  name=name, path=str(path)))  # fmt: skip
    return path
