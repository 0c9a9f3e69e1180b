"""A lesson's exercises as printable A4 worksheets: ``python -m hwguide worksheet 03 --lang zh``.

Two PDFs: the students' sheet (the questions with their units and room to work, no answers) and the
teacher's (the same with each answer computed now from the data, its tolerance, the explanation and a
grading key). Written with WeasyPrint, offline; all or nothing.
"""

from __future__ import annotations

import html
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from . import i18n

__all__ = ["POINTS", "lesson_title", "worksheet", "worksheet_html"]

# points per exercise by kind, and the lines of room to work
POINTS = {"lookup": 1, "compute": 2, "predict": 2, "why": 3, "design": 4}
ROOM = {"lookup": 2, "compute": 6, "predict": 4, "why": 6, "design": 10}
NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

KEYS = {
    "lookup": i18n.N_("Full marks for the right value (its unit converted if another is written); no part marks."),
    "compute": i18n.N_(
        "Full marks within the tolerance; 1 point when the method is right and one step slips "
        "(GB for GiB, per GPU for in total, a factor of 2 or 8)."
    ),
    "predict": i18n.N_(
        "1 point for a guess written before running, 1 point for saying why the result differs or agrees."
    ),
    "why": i18n.N_(
        "Full marks when the answer names the cause the explanation gives; 1 point for the right "
        "direction without the mechanism."
    ),
    "design": i18n.N_(
        "1 point each: the build meets the need (memory and speed, with numbers), stays in the "
        "budget, is priced from dated sources, and states what it gives up."
    ),
}

_CSS = """
@page { size: A4; margin: 16mm 15mm 16mm 15mm;
        @bottom-center { content: counter(page) " / " counter(pages); font-size: 8pt; } }
body { font-family: "DejaVu Sans", "WenQuanYi Micro Hei", "Noto Sans CJK SC", sans-serif; font-size: 10.5pt;
       color: #111; line-height: 1.45; }
h1 { font-size: 15pt; margin: 0 0 2pt 0; }
.who { margin: 6pt 0 10pt 0; font-size: 10pt; }
.who span { display: inline-block; min-width: 34mm; border-bottom: 1px solid #333; margin-right: 6mm; }
.ex { page-break-inside: avoid; margin: 0 0 9pt 0; }
.ex .q { margin: 0 0 3pt 0; }
.ex .id { font-weight: bold; }
.ex .kind { color: #444; }
.ex .unit { color: #333; font-size: 9.5pt; }
.room { border: 1px solid #999; border-radius: 2pt;
        background-image: linear-gradient(to bottom, transparent 7.3mm, #d5d5d5 7.3mm, #d5d5d5 7.6mm);
        background-size: 100% 7.6mm; }
.key { border-left: 3pt solid #2b6cb0; padding: 2pt 0 2pt 6pt; background: #f3f7fc; font-size: 9.5pt; }
.key b { color: #1a4e8a; }
.note { color: #555; font-size: 9pt; }
"""


def lesson_title(lesson: str, lang: str | None = None) -> str:
    """The lesson's title: the first heading of its notebook in ``lang`` (``notebooks/zh/`` for Chinese)."""
    lang = i18n.resolve(lang)
    folder = NOTEBOOKS / "zh" if lang == "zh" else NOTEBOOKS
    for path in sorted(folder.glob(f"{lesson}_*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            source = "".join(cell["source"]).lstrip()
            if cell["cell_type"] == "markdown" and source.startswith("#"):
                heading = source.split("\n", 1)[0].lstrip("#").strip()
                return re.sub(rf"^{lesson}\s*[·:：.\-]\s*", "", heading)
    return lesson


def _answer_text(ex: Any, lang: str) -> str:
    from .exercises import answer

    value = answer(ex.id, lang=lang)
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return i18n.text("yes", lang) if value else i18n.text("no", lang)
    if isinstance(value, float):
        value = f"{value:,.4g}" if abs(value) < 1e6 else f"{value:,.0f}"
    elif isinstance(value, int):
        value = f"{value:,}"
    unit = getattr(ex, "unit", "") or ""
    return f"{value} {unit}".strip()


def worksheet_html(lesson: str, *, lang: str | None = None, teacher: bool = False) -> str:
    """The worksheet of ``lesson`` ("03") as an HTML page, the students' or the teacher's version."""
    from .exercises import KIND_LABELS, _notebook_number, exercises, question

    lang = i18n.resolve(lang)
    lesson = _notebook_number(lesson)
    items = exercises(lesson)
    total = sum(POINTS[ex.kind] for ex in items)
    title = i18n.text("Worksheet · lesson {lesson}: {title}", lang, lesson=lesson, title=lesson_title(lesson, lang))
    if teacher:
        title = i18n.text("{title} (teacher's copy)", lang, title=title)
    parts = [
        f'<!DOCTYPE html><html lang="{"zh-CN" if lang == "zh" else "en"}"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        '<p class="who">'
        + "".join(f"{html.escape(i18n.text(w, lang))} <span>&nbsp;</span>" for w in ("Name", "Student number", "Class"))
        + "</p>",  # fmt: skip
        f'<p class="note">{html.escape(i18n.text("{count} exercises, {points} points. Show your working: the formula, then the numbers.", lang, count=len(items), points=total))}</p>',  # noqa: E501
    ]
    for ex in items:
        unit = getattr(ex, "unit", "") or ""
        points = POINTS[ex.kind]
        kind = html.escape(i18n.text(KIND_LABELS[ex.kind], lang))
        head = (f'<span class="id">{html.escape(ex.id)}</span> <span class="kind">〔{kind}'
                f' · {html.escape(i18n.text("{points} points", lang, points=points))}〕</span> ')  # fmt: skip
        if lang != "zh":
            head = head.replace("〔", "[").replace("〕", "]")
        block = [f'<div class="ex"><p class="q">{head}{html.escape(question(ex.id, lang=lang))}</p>']
        if unit:
            block.append(f'<p class="unit">{html.escape(i18n.text("Answer in: {unit}", lang, unit=unit))}</p>')
        if teacher:
            block.append('<div class="key">')
            if ex.checked:
                tolerance = f"±{ex.tolerance:.0%}" if ex.tolerance else i18n.text("exact", lang)
                block.append(f"<p><b>{html.escape(i18n.text('Answer', lang))}</b> {html.escape(_answer_text(ex, lang))}"
                             f" ({html.escape(tolerance)})</p>")  # fmt: skip
            block.append(f"<p>{html.escape(ex.explanation[lang])}</p>")
            key = html.escape(i18n.text(KEYS[ex.kind], lang))
            block.append(f"<p><b>{html.escape(i18n.text('Grading', lang))}</b> {key}</p>")
            block.append("</div>")
        else:
            block.append(f'<div class="room" style="height:{ROOM[ex.kind] * 7.6:.1f}mm"></div>')
        block.append("</div>")
        parts.append("".join(block))
    parts.append("</body></html>")
    return "\n".join(parts)


def worksheet(lesson: str, *, lang: str | None = None, out: str | os.PathLike[str] = "worksheets") -> tuple[Path, Path]:
    """Write the students' and the teacher's worksheet of ``lesson`` as A4 PDFs into the folder ``out``;
    return their paths (``03_worksheet.zh.pdf``, ``03_worksheet.zh.teacher.pdf``). All or nothing."""
    from weasyprint import HTML

    from . import checks
    from .exercises import _notebook_number

    lang = i18n.resolve(lang)
    lesson = _notebook_number(lesson)
    folder = checks.output_folder(out, "out")
    names = (f"{lesson}_worksheet.{lang}.pdf", f"{lesson}_worksheet.{lang}.teacher.pdf")
    pages = [worksheet_html(lesson, lang=lang, teacher=t) for t in (False, True)]
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder, prefix=".hwguide-worksheet-") as tmp:
        for name, page in zip(names, pages):
            HTML(string=page).write_pdf(Path(tmp) / name)
        for name in names:
            os.replace(Path(tmp) / name, folder / name)
    return folder / names[0], folder / names[1]
