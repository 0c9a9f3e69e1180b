"""Export: standalone HTML, paginated PDF with Chinese, CSV/XLSX/MD, safety against hostile names,
all-or-nothing writes, and the checks on every argument."""

import datetime as dt
import errno
import html.parser
import math
import re
from pathlib import Path

import pandas as pd
import pytest

import hwguide as hg
from hwguide import export, i18n

CJK = re.compile(r"[\u4e00-\u9fff]")
TITLES_EN = [i18n.text(t, "en") for t in hg.tables.TITLES]
TITLES_ZH = [i18n.text(t, "zh") for t in hg.tables.TITLES]


class _Refs(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value:
                self.refs.append(value)


@pytest.fixture(scope="module")
def english(tmp_path_factory):
    out = tmp_path_factory.mktemp("guide")
    return out, hg.export_guide(out, lang="en")


@pytest.fixture(scope="module")
def tables():
    return hg.guide_tables("en")


def _fresh(tables):
    """A copy of the guide tables (attrs included) that a test may change."""
    out = []
    for table in tables:
        copy = table.copy()
        copy.attrs = dict(table.attrs)
        out.append(copy)
    return out


def _leftovers(*folders):
    return [p for folder in folders for p in folder.iterdir() if p.name.startswith(".hwguide-export-")]


def _snapshot(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_every_format_is_written_and_listed(english):
    out, paths = english
    names = {p.name for p in paths}
    assert {"hwguide-guide.html", "hwguide-guide.pdf", "hwguide-guide.md", "hwguide-guide.xlsx"} <= names
    assert {f"hwguide-guide-table{i}.csv" for i in range(1, 7)} <= names
    assert sorted(p.name for p in out.iterdir()) == sorted(names)  # no temporary files left
    assert not _leftovers(out, out.parent)


def test_html_is_standalone_and_has_every_title(english):
    out, _ = english
    page = (out / "hwguide-guide.html").read_text(encoding="utf-8")
    parser = _Refs()
    parser.feed(page)
    assert all(ref.startswith("data:") for ref in parser.refs)  # charts embedded, nothing fetched
    assert len(parser.refs) == 3  # the three charts
    assert not re.search(r"url\(\s*['\"]?https?:|@import", page)
    for title in TITLES_EN:
        assert title in page


def test_pdf_text_has_every_title(english):
    from pypdf import PdfReader

    out, _ = english
    reader = PdfReader(out / "hwguide-guide.pdf")
    text = " ".join(page.extract_text() for page in reader.pages)
    assert len(reader.pages) >= 4
    for title in TITLES_EN:
        assert title.split(". ", 1)[1] in text


def test_chinese_pdf_renders_chinese(tmp_path):
    if not export._has_cjk_font():
        pytest.skip("no CJK font installed (apt-get install fonts-wqy-microhei)")
    from pypdf import PdfReader

    paths = hg.export_guide(tmp_path, lang="zh", formats=["pdf"], charts=False)
    text = " ".join(page.extract_text() for page in PdfReader(paths[0]).pages)
    for title in TITLES_ZH:
        assert title.split(". ", 1)[1] in text


def test_chinese_tables_take_their_words_from_the_catalog():
    zh = hg.guide_tables("zh")
    assert list(zh[2].columns[:3]) == [i18n.label(c, "zh") for c in ("gpu", "architecture", "year")]
    assert list(zh[2].columns[:3]) == ["显卡", "架构", "年份"]
    assert zh[0].attrs["title"] == TITLES_ZH[0] == "1. 显卡性能排名表"
    assert zh[1].attrs["columns"]["每千元训练得分"] == "training_per_1000"  # the machine name behind each header
    usd = hg.guide_tables("zh", currency="USD")[1]
    assert any("美元" in c for c in usd.columns) and not any("每千元" in c for c in usd.columns)


def test_english_tables_keep_machine_names_and_english_words(tables):
    assert list(tables[2].columns[:3]) == ["gpu", "architecture", "year"]
    assert tables[0].attrs["title"] == "1. GPU performance ranking"
    assert tables[5].attrs["caption"].startswith("The source material's builds checked against its own needs")
    text = " ".join(str(v) for t in tables for c in t.columns if not pd.api.types.is_numeric_dtype(t[c]) for v in t[c])
    text += " ".join(t.attrs["caption"] + t.attrs["title"] for t in tables)
    assert not CJK.search(text)
    assert "1 user: " in text and " CNY" in text and "GB RAM" in text and "Intel Core i5 (12th gen)" in text


def test_chinese_tables_leave_no_english_in_their_words():
    zh = hg.guide_tables("zh")
    for table in zh:
        assert CJK.search(table.attrs["caption"]) and CJK.search(table.attrs["title"])
    words = " ".join(str(v) for v in zh[5].drop(columns=["最少用户时", "最多用户时"]).to_numpy().ravel())
    assert not re.search(r"\b(none|meets|with|users?|GPUs|RAM|gen|series|chipset|CNY)\b", words), words
    kinds = set(zh[1]["价格类型"])
    assert not any(re.search(r"\b(street|msrp|estimate|server|price)\b", k) for k in kinds), kinds
    assert not re.search(r"\b(yes|does not fit|user only)\b", " ".join(set(zh[0]["推理是否装得下"])))


def test_the_per_yuan_chart_plots_the_training_score_per_1000(monkeypatch, tables):
    plotted = {}
    real = hg.charts.ranking

    def recording(table, *, column="score", top=25, title=""):
        plotted[title] = table.copy()
        return real(table, column=column, top=top, title=title)

    monkeypatch.setattr(hg.charts, "ranking", recording)
    for lang, frames in (("en", tables), ("zh", hg.guide_tables("zh"))):
        charts = export._charts(frames, lang, "CNY")
        per_yuan = charts[1][0]
        assert per_yuan == ("Training score per 1,000 CNY" if lang == "en" else "每千元训练得分")
        data = plotted[per_yuan]
        value = frames[1]
        expected = value[[value.columns[0], export._column(value, "training_per_1000")]].dropna()
        expected = expected.set_axis(["gpu", "score"], axis=1).sort_values("score", ascending=False)
        assert data["score"].dtype.kind == "f" and len(data) == len(expected) > 10
        assert data["gpu"].tolist() == expected["gpu"].tolist()
        assert data["score"].tolist() == pytest.approx(expected["score"].tolist())
        rank = plotted[charts[0][0]]
        assert rank["score"].tolist() == pytest.approx(frames[0].iloc[:, 1].tolist(), nan_ok=True)


def test_csv_round_trips(english, tables):
    out, _ = english
    back = pd.read_csv(out / "hwguide-guide-table3.csv", encoding="utf-8-sig")
    expected = export._safe_frame(tables[2])
    assert list(back.columns) == list(expected.columns)
    assert back["gpu"].tolist() == expected["gpu"].tolist()
    assert back["memory_gib"].tolist() == pytest.approx(expected["memory_gib"].tolist())


def test_one_format_is_one_name_not_letters(tmp_path, tables):
    paths = export.export_tables(tables, tmp_path / "md", formats="md", charts=False)
    assert [p.name for p in paths] == ["hwguide-guide.md"]
    assert sorted(p.name for p in (tmp_path / "md").iterdir()) == ["hwguide-guide.md"]
    paths = export.export_tables(tables, tmp_path / "two", formats="md,csv", charts=False)
    assert {p.name for p in paths} == {"hwguide-guide.md", *(f"hwguide-guide-table{i}.csv" for i in range(1, 7))}
    assert not _leftovers(tmp_path, tmp_path / "md", tmp_path / "two")


@pytest.mark.parametrize("formats", ["docx", "", [], ["md", "docx"], ["m", "d"], 5, None])
def test_bad_formats_are_refused(tmp_path, tables, formats):
    with pytest.raises(ValueError, match="formats"):
        export.export_tables(tables, tmp_path / "out", formats=formats, charts=False)
    assert not (tmp_path / "out").exists()


def test_out_must_be_a_folder(tmp_path, tables):
    note = tmp_path / "notes.txt"
    note.write_text("mine")
    for out in (note, "", "   ", None, 3):
        with pytest.raises(ValueError, match="out"):
            export.export_tables(tables, out, formats="md", charts=False)
        with pytest.raises(ValueError, match="out"):
            hg.export_guide(out, formats="md")
    assert note.read_text() == "mine"
    with pytest.raises(ValueError, match="out=.*cannot write there"):
        export.export_tables(tables, note / "inside", formats="md", charts=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.parametrize("out", ["/proc/hwguide-test-out", "/sys/hwguide-test-out"])
def test_a_folder_that_cannot_be_written_is_a_value_error(tables, out):
    with pytest.raises(ValueError, match=r"out='/(proc|sys)/hwguide-test-out': cannot write there \("):
        export.export_tables(tables, out, formats="md", charts=False)
    with pytest.raises(ValueError, match="cannot write there"):
        hg.export_guide(out, formats="md")


def test_hostile_names_come_out_inert(tmp_path, tables):
    tables = _fresh(tables)
    third = tables[2]
    hostile = pd.DataFrame(
        [
            {**third.iloc[0].to_dict(), "gpu": "<script>alert(1)</script>"},
            {**third.iloc[0].to_dict(), "gpu": "=cmd|' /C calc'!A0"},
        ]
    )
    tables[2] = pd.concat([third, hostile], ignore_index=True)
    tables[2].attrs = third.attrs
    export.export_tables(tables, tmp_path, formats=["html", "csv", "xlsx", "md"], charts=False)
    page = (tmp_path / "hwguide-guide.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    csv = pd.read_csv(tmp_path / "hwguide-guide-table3.csv", encoding="utf-8-sig")
    assert csv["gpu"].iloc[-1].startswith("'=")
    from openpyxl import load_workbook

    sheet = load_workbook(tmp_path / "hwguide-guide.xlsx")["table 3"]
    assert str(sheet.cell(row=sheet.max_row, column=1).value).startswith("'=")


def test_markdown_is_inert_and_leaves_empty_cells_empty(tmp_path):
    mistune = pytest.importorskip("mistune")
    table = pd.DataFrame(
        {
            "gpu": ["<script>alert(1)</script>", "[x](javascript:alert(1))", "![i](javascript:alert(2))", "a|b", None],
            "score": [1.25, float("nan"), 3.0, 4.0, 5.0],
            "note": ["<img src=x onerror=alert(3)>", None, float("nan"), "[r][1]\n\n[1]: javascript:alert(4)", "ok"],
        }
    )
    table.attrs = {"title": "<script>t()</script> [t](javascript:t())", "caption": "<b onclick=x>[c](javascript:c())"}
    export.export_tables([table], tmp_path, formats="md", charts=False)
    text = (tmp_path / "hwguide-guide.md").read_text(encoding="utf-8")
    assert "<script" not in text and "<img" not in text and "<b " not in text
    assert not re.search(r"(?<!\\)[\[\]]", text)  # every bracket escaped: no link, image or reference
    assert "nan" not in text.lower() and "None" not in text
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) == 2 + len(table)  # header, rule, one line per row (the newline did not split a row)
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]] for row in rows]
    assert all(len(row) == 3 for row in cells)  # the escaped | did not make a column
    assert cells[2] == ["&lt;script&gt;alert(1)&lt;/script&gt;", "1.2", "&lt;img src=x onerror=alert(3)&gt;"]
    assert cells[3][1:] == ["", ""] and cells[4][2] == "" and cells[6][0] == ""
    rendered = mistune.create_markdown(escape=False, plugins=["table"])(text)
    assert "<script" not in rendered and "<a " not in rendered and "<img" not in rendered
    assert "javascript:" not in "".join(re.findall(r'(?:href|src)="([^"]*)"', rendered))
    assert "<td>" in rendered or "<td " in rendered  # still a table


def _broken_after_html(tmp_path):
    def broken(self, *args, **kwargs):
        staged = _leftovers(tmp_path.parent)
        assert staged and (staged[0] / "hwguide-guide.html").exists()  # the HTML was already written
        raise RuntimeError("renderer crashed")

    return broken


def test_failed_export_leaves_the_previous_files_untouched(tmp_path, tables, monkeypatch):
    out = tmp_path / "guide"
    export.export_tables(tables, out, formats=["html", "pdf", "md"], charts=False)
    (out / "notes.txt").write_text("mine")
    before = _snapshot(out)
    changed = _fresh(tables)
    changed[2].loc[0, "gpu"] = "A card renamed since"
    import weasyprint

    monkeypatch.setattr(weasyprint.HTML, "write_pdf", _broken_after_html(out))
    with pytest.raises(RuntimeError, match="renderer crashed"):
        export.export_tables(changed, out, formats=["html", "pdf", "md"], charts=False)
    assert _snapshot(out) == before  # byte-identical, and no new file among them
    assert not _leftovers(tmp_path, out)


def test_failed_first_export_creates_nothing(tmp_path, tables, monkeypatch):
    import weasyprint

    monkeypatch.setattr(weasyprint.HTML, "write_pdf", _broken_after_html(tmp_path / "new"))
    with pytest.raises(RuntimeError):
        export.export_tables(tables, tmp_path / "new", formats=["html", "pdf"], charts=False)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_is_a_value_error_and_changes_nothing(tmp_path, tables, monkeypatch):
    export.export_tables(tables, tmp_path, formats=["md", "csv"], charts=False)
    before = _snapshot(tmp_path)
    write = export._write

    def full(path, data):
        if path.name.endswith("table4.csv"):
            raise OSError(errno.ENOSPC, "No space left on device")
        write(path, data)

    monkeypatch.setattr(export, "_write", full)
    with pytest.raises(ValueError, match=r"cannot write there \(No space left on device\)"):
        export.export_tables(_fresh(tables)[::-1], tmp_path, formats=["md", "csv"], charts=False)
    assert _snapshot(tmp_path) == before and not _leftovers(tmp_path, tmp_path.parent)


def test_a_failed_move_puts_the_previous_files_back(tmp_path, tables, monkeypatch):
    export.export_tables(tables, tmp_path, formats=["md", "csv"], charts=False)
    before = _snapshot(tmp_path)
    replace = export.os.replace
    moved = []

    def flaky(src, dst):
        if Path(src).parent.name.startswith(".hwguide-export-"):  # a new file moving into place
            if len(moved) == 3:
                raise OSError(errno.EIO, "Input/output error")
            moved.append(dst)
        replace(src, dst)

    monkeypatch.setattr(export.os, "replace", flaky)
    with pytest.raises(ValueError, match="cannot write there"):
        export.export_tables(_fresh(tables)[::-1], tmp_path, formats=["md", "csv"], charts=False)
    monkeypatch.undo()
    assert _snapshot(tmp_path) == before and not _leftovers(tmp_path, tmp_path.parent)


def test_a_folder_where_a_handout_goes_is_not_replaced(tmp_path, tables):
    (tmp_path / "hwguide-guide.md").mkdir()
    (tmp_path / "hwguide-guide.md" / "keep.txt").write_text("mine")
    with pytest.raises(ValueError, match="is a folder"):
        export.export_tables(tables, tmp_path, formats="md", charts=False)
    assert (tmp_path / "hwguide-guide.md" / "keep.txt").read_text() == "mine"


def test_chinese_pdf_without_a_cjk_font_refuses(tmp_path, monkeypatch):
    monkeypatch.setattr(export, "_has_cjk_font", lambda: False)
    with pytest.raises(RuntimeError, match="fonts-"):
        export.export_tables(hg.guide_tables("zh"), tmp_path / "out", formats=["pdf"], lang="zh", charts=False)
    assert not (tmp_path / "out").exists()


def test_bad_arguments_name_themselves(tmp_path, tables):
    for kwargs, name in [
        (dict(lang="fr"), "lang"),
        (dict(currency="EUR"), "currency"),
        (dict(charts="no"), "charts"),
        (dict(formats="md,docx"), "formats"),
    ]:
        with pytest.raises(ValueError, match=name):
            export.export_tables(tables, tmp_path / "out", **{"formats": "md", **kwargs})
        with pytest.raises(ValueError, match=name):
            hg.export_guide(tmp_path / "out", **{"formats": "md", **kwargs})
    for bad in ("docs", 7, [tables[0], "x"], []):
        with pytest.raises(ValueError, match="tables"):
            export.export_tables(bad, tmp_path / "out", formats="md", charts=False)
    with pytest.raises(TypeError):  # keyword-only, as the glossary says
        hg.export_guide(tmp_path / "out", "en", "md")
    assert not (tmp_path / "out").exists()


def test_cli_writes_and_refuses(tmp_path, capsys):
    from hwguide.__main__ import main

    assert main(["export", "--out", str(tmp_path / "cli"), "--format", "md,csv"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert main(["export", "--out", str(tmp_path / "x"), "--format", "docx"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hwguide: error: ") and err.count("\n") == 1 and "docx" in err
    assert not (tmp_path / "x").exists()


# ----- as_of ------------------------------------------------------------------------------------


def _price(table, card):
    row = table.set_index("gpu").loc[card]
    return row["price"], row["price_date"]


def test_as_of_prices_the_value_table_as_of_that_day(tables):
    early = hg.guide_tables("en", as_of="2024-03-01")[1]
    latest = tables[1]
    assert set(early["gpu"]) == set(latest["gpu"])
    dates = [d for d in early["price_date"] if d is not None and not (isinstance(d, float) and math.isnan(d))]
    assert dates and max(dates) <= dt.date(2024, 3, 1)  # no price from after the day
    price, day = _price(early, "RTX 5090")  # its first price row is from January 2025
    assert price is None or math.isnan(price)
    assert not math.isnan(_price(latest, "RTX 5090")[0])
    assert _price(early, "RTX 4090") == (26000, dt.date(2023, 10, 20))  # the street price of that autumn
    assert _price(latest, "RTX 4090")[1] > dt.date(2024, 3, 1)
    assert _price(latest, "RTX 4090")[0] != 26000
    assert "2024-03-01" in hg.guide_tables("en", as_of=dt.date(2024, 3, 1))[1].attrs["caption"]


@pytest.mark.parametrize("bad", ["yesterday", "2024-13-45", "2024-02-30", "", 20240301, "24-03-01"])
def test_bad_as_of_is_a_value_error_naming_it(tmp_path, bad):
    with pytest.raises(ValueError, match="as_of"):
        hg.guide_tables("en", as_of=bad)
    with pytest.raises(ValueError, match="as_of"):
        hg.export_guide(tmp_path / "out", formats="md", as_of=bad)
    assert not (tmp_path / "out").exists()


def test_guide_tables_and_style_table_check_their_arguments(tables):
    for kwargs, name in [(dict(lang="fr"), "lang"), (dict(currency="EUR"), "currency")]:
        with pytest.raises(ValueError, match=name):
            hg.guide_tables(**kwargs)
    assert "1.23" in hg.style_table(tables[2].assign(memory_gib=1.234), digits=2).to_html()
    for digits in (-1, 1.5, "2", 13, True):
        with pytest.raises(ValueError, match="digits"):
            hg.style_table(tables[0], digits=digits)
    with pytest.raises(ValueError, match="title"):
        hg.style_table(tables[0], title="no")
    with pytest.raises(ValueError, match="table"):
        hg.style_table("not a table")


def test_a_notebook_as_one_offline_html_page(tmp_path):
    from hwguide.export import _mathml, notebook_html

    path = notebook_html("notebooks/03_inference_memory.ipynb", tmp_path / "03.html")
    page = path.read_text(encoding="utf-8")
    assert not re.search(r'<(script|link)[^>]+(src|href)="(https?:)?//', page)  # nothing from another host
    assert "<math" in page and "$$" not in page  # formulas drawn as MathML, no MathJax needed
    assert "hwguide-static" in page  # the calculators' saved results, not a widget repr
    assert "VBox(children" not in page
    assert "<math" in _mathml("bits $b = 4 + 8/32$") and _mathml("costs $1,599 and $1,999") == "costs $1,599 and $1,999"
    with pytest.raises(ValueError, match="notebook="):
        notebook_html(tmp_path / "missing.ipynb")


def test_chinese_table_6_reads_as_chinese():
    # amounts in 元, the source's CPU notes in Chinese, whole prices without ".0"
    table6 = hg.guide_tables(lang="zh")[5]
    text = " ".join(str(v) for v in table6.to_numpy().ravel())
    assert "（第 12 代）" in text and "芯片组" in text and "CNY" not in text and " 元" in text
    assert "(12th gen)" not in text and "series)" not in text and "个用户：" in text
    assert export._md_cell(14000.0) == "14000" and export._md_cell(20.9) == "20.9"
    verdicts = hg.evaluate_scenario("team")["checks"].iloc[0].tolist()
    if any(isinstance(v, (i18n.Message, list)) for v in verdicts):  # once the planner says messages
        assert "每卡需要" in text and "does not fit" not in text


def test_a_card_without_a_price_says_so():
    value_zh = hg.guide_tables(lang="zh")[1]
    page = hg.style_table(value_zh).to_html()
    assert "无价格" in page and ">nan<" not in page
    value_en = hg.style_table(hg.guide_tables()[1]).to_html()
    assert "no price" in value_en
