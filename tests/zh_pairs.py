"""The English notebooks and their Chinese twins under notebooks/zh/: which is which, and how their
code is compared (comments may differ, and the language passed to ``hg.setup``)."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ZH = NOTEBOOKS / "zh"
SETUP_EN = "hg.setup()"
SETUP_ZH = 'hg.setup(lang="zh")'


def english_notebooks() -> list[Path]:
    return sorted(p for p in NOTEBOOKS.rglob("*.ipynb") if ZH not in p.parents and ".ipynb_checkpoints" not in p.parts)


def twin(english: Path) -> Path:
    return ZH / english.relative_to(NOTEBOOKS)


def structure_key(source: str) -> str:
    """A cell's code with its comments, blank lines and the words of its strings taken out: what the two
    languages must share (the calls, names and numbers), while each prints its own words.

    Every string literal (an f-string whole, on Python 3.11) becomes ``"…"``; the Chinese set-up call
    is made English.
    """
    source = source.replace(SETUP_ZH, SETUP_EN)
    try:
        out, depth = [], 0
        for t in tokenize.generate_tokens(io.StringIO(source).readline):
            kind = tokenize.tok_name.get(t.type, "")
            if t.type == tokenize.COMMENT or t.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
                                                         tokenize.DEDENT, tokenize.ENDMARKER):  # fmt: skip
                continue
            if kind == "FSTRING_START":
                depth += 1
                if depth == 1:
                    out.append('"…"')
                continue
            if kind == "FSTRING_END":
                depth -= 1
                continue
            if depth:
                continue
            if t.type == tokenize.STRING:
                if out and out[-1] == '"…"':  # adjacent literals are one string
                    continue
                out.append('"…"')
            else:
                out.append(t.string)
        return " ".join(out)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return re.sub(r"#.*|\s+", " ", source).strip()


def code_key(source: str) -> str:
    """A cell's code without its comments and blank lines, with the Chinese set-up call made English."""
    source = source.replace(SETUP_ZH, SETUP_EN)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type != tokenize.COMMENT]
        source = tokenize.untokenize(tokens)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        source = re.sub(r"#.*", "", source)
    return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())
