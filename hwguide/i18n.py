"""The course's language: English or Chinese, set once with ``hg.setup(lang="zh")``.

Calculators, charts, guide tables and exercises read the language from here unless a call passes
``lang=``. Their words live in ``data/translations.csv``: rows of kind ``ui`` hold each English
label or message (the key) and its Chinese, so a translation is fixed in data, not in code.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from typing import Any

from . import checks

__all__ = ["LANGUAGES", "language", "resolve", "sentence", "set_language", "text", "using"]

LANGUAGES = ("en", "zh")
_current = {"lang": "en"}


def set_language(lang: str) -> str:
    """Make ``lang`` ("en" or "zh") the language of everything that does not pass its own."""
    _current["lang"] = checks.choice(lang, "lang", LANGUAGES)
    return _current["lang"]


def language() -> str:
    """The language set by :func:`set_language` (or ``hg.setup``); "en" until one is set."""
    return _current["lang"]


def resolve(lang: str | None) -> str:
    """``lang`` checked, or the current language when it is None."""
    return language() if lang is None else checks.choice(lang, "lang", LANGUAGES)


@functools.cache
def _ui() -> dict[str, str]:
    from .catalog import load_table

    table = load_table("translations")
    rows = table[table["kind"] == "ui"]
    return dict(zip(rows["en"], rows["zh"]))


@functools.cache
def _sentences() -> tuple[tuple[re.Pattern[str], str], ...]:
    from .catalog import load_table

    table = load_table("translations")
    rows = table[table["kind"] == "sentence"]
    return tuple((re.compile(en), zh) for en, zh in zip(rows["en"], rows["zh"]))


def sentence(line: str, lang: str | None = None) -> str:
    """A line of a calculator's working in ``lang``: the first ``sentence`` row of data/translations.csv
    whose regular expression matches the whole line, its numbers carried over; unchanged otherwise."""
    if resolve(lang) != "zh":
        return line
    for pattern, words in _sentences():
        found = pattern.fullmatch(line)
        if found:
            return found.expand(words)
    return line


def text(key: str, lang: str | None = None, **fields: Any) -> str:
    """The label or message ``key`` (its English) in ``lang``, with ``{fields}`` filled in.

    A key with no Chinese row stays English; ``tests/test_i18n.py`` keeps every key the
    calculators and charts use translated.
    """
    words = _ui().get(key, key) if resolve(lang) == "zh" else key
    return words.format(**fields) if fields else words


@contextlib.contextmanager
def using(lang: str | None) -> Iterator[str]:
    """Within the block, ``lang`` is the current language (a handout in Chinese, say); restored after."""
    before = language()
    set_language(resolve(lang))
    try:
        yield language()
    finally:
        set_language(before)
