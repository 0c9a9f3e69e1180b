"""Prose cannot drift from the numbers: every figure a notebook's text quotes (a decimal number, or one
with a thousands separator) is one its own code or saved outputs show, in both languages. When the
data change and the notebooks are re-run, a sentence whose figure went stale fails here."""

import json
import re

import pytest
from zh_pairs import english_notebooks, twin

NOTEBOOKS = [p for en in english_notebooks() for p in (en, twin(en)) if p.is_file()]
NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?![\w.]*\d)(\s*%)?")
# section references (section 2.1, §2.1, 2.1 节, 第 2.1 节) and versions (PCIe 4.0, transformers 4.40, v0.6.3)
NOT_A_FIGURE = re.compile(
    r"(?:sections?|Section|§|节|第|and|和|至|to|PCIe|CUDA|Python|transformers|vLLM|PyTorch|torch|llama\.cpp|ROCm"
    r"|NVLink|DDR\d|InfiniBand|Gen|v|version|版本|b)\s*$"
)


def _shown(nb) -> str:
    parts = []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        parts.append("".join(cell["source"]))
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            for kind, value in out.get("data", {}).items():
                if not kind.startswith("image/"):
                    parts.append(value if isinstance(value, str) else "".join(value))
    return re.sub(r"(?<=\d)[,_](?=\d{3})", "", "\n".join(parts))


def _prose(source: str) -> str:
    """The sentences: headings (their section numbers), code blocks, formulas and links left out."""
    source = re.sub(r"```.*?```|\$\$.*?\$\$|\$[^$\n]*\$", " ", source, flags=re.S)
    source = re.sub(r"^#+ .*$", " ", source, flags=re.M)
    return re.sub(r"\]\([^)]*\)|https?://\S+", " ", source)


def _figures(source: str):
    """(figure, percent) pairs in a markdown cell, section references and version numbers left out."""
    prose = _prose(source)
    for match in NUMBER.finditer(prose):
        before, after = prose[: match.start()][-14:], prose[match.end() :][:3]
        if NOT_A_FIGURE.search(before) or re.match(r"\s*节", after) or re.fullmatch(r"\d\.0", match.group(1)):
            continue
        yield match.group(1).replace(",", ""), bool(match.group(2))


def _forms(figure: str, percent: bool) -> list[str]:
    forms = [figure]
    if percent:  # 22.3% is printed as 0.223 by a table of fractions
        decimals = len(figure.split(".")[1]) if "." in figure else 0
        forms.append(f"{float(figure) / 100:.{decimals + 2}f}")
    return forms


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: "/".join(p.parts[-2:]))
def test_every_figure_in_the_prose_is_shown_by_the_notebook(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    shown = _shown(nb)
    stale = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown":
            for figure, percent in _figures("".join(cell["source"])):
                if not any(form in shown for form in _forms(figure, percent)):
                    stale.append(figure + ("%" if percent else ""))
    assert not stale, f"figures in the prose that no cell shows: {sorted(set(stale))}"
