"""The Chinese notebooks (notebooks/zh/) stay in step with the English ones: the same code apart from the
words it prints, the same numbers in every checked output, and prose and output that are Chinese."""

import json
import re

import pytest
from zh_pairs import SETUP_ZH, ZH, english_notebooks, structure_key, twin

PAIRS = [(en, twin(en)) for en in english_notebooks()]
MARKERS = re.compile(r"#\s*(NBVAL_\w+)")
# English words that occur in sentences but never in a product name or a unit
ENGLISH = re.compile(r"\b(the|and|with|which|that|this|from|into|than|because|when|where|there|what|does|each)\b")


def _cells(path, kind):
    return [c for c in json.loads(path.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == kind]


def _source(cell):
    return "".join(cell["source"])


def _text(outputs):
    parts = []
    for out in outputs:
        parts.append("".join(out.get("text", "")))
        parts.append("".join(out.get("data", {}).get("text/plain", "")))
    return "".join(parts)


def _prose(markdown):
    """A markdown cell's sentences: code spans and blocks, formulas, links and HTML tags removed."""
    markdown = re.sub(r"```.*?```", " ", markdown, flags=re.S)
    markdown = re.sub(r"`[^`]*`", " ", markdown)
    markdown = re.sub(r"\$\$.*?\$\$|\$[^$]*\$", " ", markdown, flags=re.S)
    markdown = re.sub(r"\]\([^)]*\)|<[^>]+>|https?://\S+", " ", markdown)
    return markdown


def test_every_notebook_has_a_chinese_twin():
    missing = [str(zh.relative_to(zh.parents[1])) for _, zh in PAIRS if not zh.is_file()]
    assert not missing, f"no Chinese notebook for: {missing} (python tools/zh_notebook.py NOTEBOOK)"


NUMBER = re.compile(r"(?<![\w.])[-−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?")


def _numbers(text):
    """The numbers a text shows, as a sorted list (thousands separators dropped): a Chinese sentence may
    put them in another order than the English one, but must show the same ones."""
    return sorted(n.replace(",", "").replace("−", "-") for n in NUMBER.findall(text))


@pytest.mark.parametrize("en, zh", PAIRS, ids=lambda p: p.name)
def test_same_code_and_checked_numbers(en, zh):
    en_code, zh_code = _cells(en, "code"), _cells(zh, "code")
    assert len(en_code) == len(zh_code), "the two notebooks have different numbers of code cells"
    for number, (a, b) in enumerate(zip(en_code, zh_code), 1):
        assert structure_key(_source(a)) == structure_key(_source(b)), f"code cell {number} differs (beyond its words)"
        assert MARKERS.findall(_source(a)) == MARKERS.findall(_source(b)), f"code cell {number}: nbval markers differ"
        if "NBVAL_CHECK_OUTPUT" in _source(a):
            en_numbers, zh_numbers = _numbers(_text(a.get("outputs", []))), _numbers(_text(b.get("outputs", [])))
            assert en_numbers == zh_numbers, f"code cell {number}: the checked output shows other numbers"
    setups = [c for c in zh_code if "hg.setup(" in _source(c)]
    assert all(SETUP_ZH in _source(c) for c in setups), "the Chinese notebook sets up in English"


@pytest.mark.parametrize("en, zh", PAIRS, ids=lambda p: p.name)
def test_chinese_prose_is_chinese(en, zh):
    for number, cell in enumerate(_cells(zh, "markdown"), 1):
        prose = _prose(_source(cell))
        words = ENGLISH.findall(prose)
        found = ", ".join(sorted(set(words)))
        assert not words, f"markdown cell {number} has English sentences ({found}): {prose[:160]!r}"
        if re.search(r"[A-Za-z]{3,}", re.sub(r"^#+.*$", "", prose, flags=re.M)):
            assert re.search(r"[\u4e00-\u9fff]", prose), f"markdown cell {number} has no Chinese: {prose[:160]!r}"


def _zh_english():
    import importlib.util

    from zh_pairs import ROOT

    spec = importlib.util.spec_from_file_location("zh_english", ROOT / "benchmarks" / "zh_english.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_what_the_chinese_course_prints_is_chinese():
    """At most 5% of the printed lines and of the table headers of notebooks/zh/ carry English words other
    than names of cards, models, engines and formats, units and acronyms (benchmarks/zh_english.py)."""
    module = _zh_english()
    result = module.measure(sorted(module.ZH.rglob("*.ipynb")))
    lines = sum(r["english_lines"] for r in result.values()) / sum(r["lines"] for r in result.values())
    headers = sum(r["english_headers"] for r in result.values()) / sum(r["headers"] for r in result.values())
    share = f"{lines:.1%} of lines, {headers:.1%} of headers"
    assert lines <= 0.05 and headers <= 0.05, f"English in the Chinese course: {share}"


LESSONS = sorted(ZH.glob("[0-9][0-9]_*.ipynb"))


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_a_lesson_fits_one_class(lesson):
    """At most 5,000 Chinese characters of prose per lesson: what a 45-minute class covers."""
    prose = "".join(_source(c) for c in _cells(lesson, "markdown"))
    count = len(re.findall(r"[\u4e00-\u9fff]", prose))
    assert count <= 5000, f"{lesson.name}: {count} Chinese characters of prose"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name)
def test_every_lesson_has_a_teachers_plan_in_both_languages(lesson):
    root = lesson.parents[2]
    for lang in ("zh", "en"):
        plan = root / "teacher" / lang / f"{lesson.stem}.md"
        assert plan.is_file(), f"no lesson plan {plan.relative_to(root)}"
        text = plan.read_text(encoding="utf-8")
        assert "45" in text and ("导入" in text if lang == "zh" else "minutes" in text.lower())
