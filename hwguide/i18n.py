"""The course's language, and the messages the kit shows a reader.

Everything the package says to a reader is a :class:`Message`: an id (its English text, with
``{named}`` fields, as gettext writes it) and the values of its fields. A message is rendered in the
reader's language only when it is shown (``str(message)``, a notebook's display, a calculator, a
handout), from the gettext catalog ``hwguide/locale/zh/LC_MESSAGES/hwguide.po``. A translator edits
that file with ordinary tools (Poedit, ``pybabel update``); ``tests/test_i18n.py`` fails when a
message in the code has no Chinese there or its Chinese uses other fields than the English.

Statuses and verdicts are codes (``"fits"``, ``"too_slow"``) that code compares; their words are
messages too (context ``"value"``), and so are the display labels of table columns (context
``"column"``): :func:`label` and :func:`labelled` turn a frame's machine names into the reader's
words, and ``hg.setup`` makes notebooks show every frame that way.

Set the language once with ``hg.setup(lang="zh")``; a call that passes ``lang=`` uses its own.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import string
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from . import checks

__all__ = [
    "LANGUAGES",
    "Message",
    "N_",
    "join",
    "label",
    "labelled",
    "language",
    "msg",
    "render",
    "resolve",
    "set_language",
    "text",
    "using",
]

LANGUAGES = ("en", "zh")
LOCALE = Path(__file__).resolve().parent / "locale"
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


@contextlib.contextmanager
def using(lang: str | None) -> Iterator[str]:
    """Within the block, ``lang`` is the current language (a handout in Chinese, say); restored after."""
    before = language()
    set_language(resolve(lang))
    try:
        yield language()
    finally:
        set_language(before)


# -- the catalogs -------------------------------------------------------------------------------------


@functools.cache
def catalog(lang: str) -> dict[tuple[str | None, str], str]:
    """``{(context, English id): words}`` for ``lang``, read from ``locale/<lang>/LC_MESSAGES/*.po``.

    Entries without a translation, or marked fuzzy, are left out (the English is shown instead).
    """
    from babel.messages.pofile import read_po

    found: dict[tuple[str | None, str], str] = {}
    folder = LOCALE / lang / "LC_MESSAGES"
    for path in sorted(folder.glob("*.po")) if folder.is_dir() else ():
        with path.open("rb") as f:
            for entry in read_po(f, locale=None if lang == "en" else lang):
                if entry.id and entry.string and not entry.fuzzy and isinstance(entry.id, str):
                    found[(entry.context, entry.id)] = entry.string
    return found


def _words(key: str, lang: str, context: str | None = None) -> str | None:
    return catalog(lang).get((context, key))


def N_(key: str) -> str:  # noqa: N802 (gettext's name for "mark for translation, translate later")
    """``key`` unchanged: marks an English message for extraction, to be rendered later by :func:`text`."""
    return key


def text(key: str, lang: str | None = None, /, *, context: str | None = None, **fields: Any) -> str:
    """The message ``key`` (its English) rendered now in ``lang``, with ``{fields}`` filled in.

    Field values that are messages are rendered in the same language. A key with no entry in the
    catalog stays English (``tests/test_i18n.py`` keeps the code's keys translated).
    """
    lang = resolve(lang)
    words = (_words(key, lang, context) if lang != "en" else None) or key
    if not fields:
        return words
    return words.format(**{name: render(value, lang) for name, value in fields.items()})


@dataclasses.dataclass(frozen=True)
class Message:
    """Something the kit says to a reader: an English id with ``{named}`` fields and their values.

    ``str(message)`` renders it in the current language; :meth:`render` in any. Code compares
    messages by :attr:`id` (or better, by the status code beside them), never by their words.
    """

    id: str
    fields: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    context: str | None = None

    def render(self, lang: str | None = None) -> str:
        """The message's words in ``lang`` (default: the current language)."""
        return text(self.id, lang, context=self.context, **self.fields)

    def __str__(self) -> str:
        return self.render()

    def __repr__(self) -> str:  # a list of messages in a notebook reads as a list of sentences
        return repr(self.render())

    def __format__(self, spec: str) -> str:
        return format(self.render(), spec)

    def __hash__(self) -> int:
        return hash((self.id, self.context, tuple(sorted((k, repr(v)) for k, v in self.fields.items()))))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Message):
            return (self.id, self.context, dict(self.fields)) == (other.id, other.context, dict(other.fields))
        return NotImplemented

    def _repr_html_(self) -> str:
        import html

        return f"<p>{html.escape(self.render())}</p>"


def msg(key: str, /, **fields: Any) -> Message:
    """A :class:`Message` with id ``key`` (its English, ``{named}`` fields) and the fields' values."""
    if "context" in fields:
        raise KeyError("a message field may not be named 'context' (it is the catalog context): rename it")
    missing = _field_names(key) - fields.keys()
    if missing:
        raise KeyError(f"message {key!r} needs the fields {sorted(missing)}")
    return Message(key, dict(fields))


@functools.lru_cache(maxsize=4096)
def _field_names(key: str) -> frozenset[str]:
    """The ``{named}`` fields of a message id (parsed once per id: the planner builds thousands of messages)."""
    return frozenset(name for _, name, _, _ in string.Formatter().parse(key) if name)


def join(items: Iterable[Any], lang: str | None = None) -> str:
    """Messages (or strings) rendered in ``lang`` and joined as a sentence list: "; " in English, "；" in Chinese."""
    lang = resolve(lang)
    return ("；" if lang == "zh" else "; ").join(render(item, lang) for item in items if item)


def render(value: Any, lang: str | None = None) -> Any:
    """``value`` for display in ``lang``: a message rendered, a list or tuple of messages joined,
    anything else as it is (numbers keep their type, so a field's format spec applies)."""
    if isinstance(value, Message):
        return value.render(lang)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Message) for v in value):
        return join(value, lang)
    return value


# -- labels of table columns and of codes ---------------------------------------------------------------


def label(name: Any, lang: str | None = None, *, context: str = "column") -> Any:
    """A column's (``context="column"``) or a code's display label in ``lang``; ``name`` itself when the
    catalog has none. Codes are looked up under the column they stand in (context = the column's name),
    then under ``"value"``, so ``label("consumer", context="segment")`` is the Chinese for consumer cards."""
    if not isinstance(name, str):
        return name
    lang = resolve(lang)
    if lang == "en" and context != "column":
        words = _words(name, "en", context) or _words(name, "en", "value")
        return words or name
    return _words(name, lang, context) or (_words(name, lang, "value") if context != "column" else None) or name


def _text_like(values: Any) -> bool:
    """Whether a Series or Index holds text or objects (codes, messages), not numbers."""
    import pandas as pd

    return pd.api.types.is_object_dtype(values.dtype) or pd.api.types.is_string_dtype(values.dtype)


def labelled(frame: Any, lang: str | None = None, *, columns: bool = True) -> Any:
    """A copy of a DataFrame (or Series) for display in ``lang``: column and index labels (unless
    ``columns=False``), codes and messages in the reader's words; numbers untouched. The machine names
    stay on the original."""
    import pandas as pd

    lang = resolve(lang)

    def cells(column: pd.Series, name: Any) -> pd.Series:
        if not _text_like(column):
            return column
        context = name if isinstance(name, str) else "value"
        return column.map(
            lambda v: render(v, lang) if isinstance(v, (Message, list, tuple)) else label(v, lang, context=context)
        )

    def names(index: pd.Index) -> pd.Index:
        if isinstance(index, pd.MultiIndex):
            levels = [level.map(lambda v, n=n: label(v, lang, context=n if isinstance(n, str) else "value"))
                      if _text_like(level) else level for level, n in zip(index.levels, index.names)]  # fmt: skip
            return index.set_levels(levels, verify_integrity=False).set_names([label(n, lang) for n in index.names])
        renamed = index.rename(label(index.name, lang)) if index.name is not None else index
        if _text_like(renamed):
            context = index.name if isinstance(index.name, str) else "value"
            renamed = renamed.map(lambda v: label(v, lang, context=context))
        return renamed

    if isinstance(frame, pd.Series):
        out = cells(frame, frame.name)
        if columns:
            out = out.rename(label(frame.name, lang)) if isinstance(frame.name, str) else out
            out.index = names(frame.index)
        return out
    if not isinstance(frame, pd.DataFrame):
        return frame
    out = frame.copy()
    for position, name in enumerate(frame.columns):
        out.isetitem(position, cells(frame.iloc[:, position], name))
    if not columns:
        return out
    if isinstance(out.columns, pd.MultiIndex):
        out.columns = pd.MultiIndex.from_tuples([tuple(label(part, lang) for part in c) for c in out.columns],
                                                names=out.columns.names)  # fmt: skip
    elif isinstance(out.columns.name, str):  # unstacked or pivoted: the columns are codes of that column
        out.columns = names(frame.columns)
    else:
        out.columns = [label(c, lang) for c in out.columns]
    out.index = names(frame.index)
    out.attrs = {key: render(value, lang) for key, value in frame.attrs.items()}
    return out
