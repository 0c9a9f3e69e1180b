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


def code_key(source: str) -> str:
    """A cell's code without its comments and blank lines, with the Chinese set-up call made English."""
    source = source.replace(SETUP_ZH, SETUP_EN)
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type != tokenize.COMMENT]
        source = tokenize.untokenize(tokens)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        source = re.sub(r"#.*", "", source)
    return "\n".join(line.rstrip() for line in source.splitlines() if line.strip())
