"""Export: standalone HTML, paginated PDF with Chinese, CSV/XLSX/MD, safety against hostile names."""

import html.parser
import re

import pandas as pd
import pytest

import hwguide as hg
from hwguide import export


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
    return out, hg.export_guide(out, "en")


def test_every_format_is_written_and_listed(english):
    out, paths = english
    names = {p.name for p in paths}
    assert {"hwguide-guide.html", "hwguide-guide.pdf", "hwguide-guide.md", "hwguide-guide.xlsx"} <= names
    assert {f"hwguide-guide-table{i}.csv" for i in range(1, 7)} <= names
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary files left


def test_html_is_standalone_and_has_every_title(english):
    out, _ = english
    page = (out / "hwguide-guide.html").read_text(encoding="utf-8")
    parser = _Refs()
    parser.feed(page)
    assert all(ref.startswith("data:") for ref in parser.refs)  # charts embedded, nothing fetched
    assert not re.search(r"url\(\s*['\"]?https?:|@import", page)
    for title in hg.tables.TITLES["en"]:
        assert title in page


def test_pdf_text_has_every_title(english):
    from pypdf import PdfReader

    out, _ = english
    reader = PdfReader(out / "hwguide-guide.pdf")
    text = " ".join(page.extract_text() for page in reader.pages)
    assert len(reader.pages) >= 4
    for title in hg.tables.TITLES["en"]:
        assert title.split(". ", 1)[1] in text


def test_chinese_pdf_renders_chinese(tmp_path):
    if not export._has_cjk_font():
        pytest.skip("no CJK font installed (apt-get install fonts-wqy-microhei)")
    from pypdf import PdfReader

    paths = hg.export_guide(tmp_path, "zh", ["pdf"], charts=False)
    text = " ".join(page.extract_text() for page in PdfReader(paths[0]).pages)
    for title in hg.tables.TITLES["zh"]:
        assert title.split(". ", 1)[1] in text


def test_csv_round_trips(english):
    out, _ = english
    tables = hg.guide_tables("en")
    back = pd.read_csv(out / "hwguide-guide-table3.csv", encoding="utf-8-sig")
    expected = export._safe_frame(tables[2])
    assert list(back.columns) == list(expected.columns)
    assert back["gpu"].tolist() == expected["gpu"].tolist()
    assert back["memory_gib"].tolist() == pytest.approx(expected["memory_gib"].tolist())


def test_hostile_names_come_out_inert(tmp_path):
    tables = hg.guide_tables("en")
    third = tables[2]
    hostile = pd.DataFrame(
        [
            {**third.iloc[0].to_dict(), "gpu": "<script>alert(1)</script>"},
            {**third.iloc[0].to_dict(), "gpu": "=cmd|' /C calc'!A0"},
        ]
    )
    tables[2] = pd.concat([third, hostile], ignore_index=True)
    tables[2].attrs = third.attrs
    export.export_tables(tables, tmp_path, ["html", "csv", "xlsx", "md"], charts=False)
    page = (tmp_path / "hwguide-guide.html").read_text(encoding="utf-8")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    csv = pd.read_csv(tmp_path / "hwguide-guide-table3.csv", encoding="utf-8-sig")
    assert csv["gpu"].iloc[-1].startswith("'=")
    from openpyxl import load_workbook

    sheet = load_workbook(tmp_path / "hwguide-guide.xlsx")["table 3"]
    assert str(sheet.cell(row=sheet.max_row, column=1).value).startswith("'=")


def test_failed_export_leaves_no_half_written_file(tmp_path, monkeypatch):
    keep = tmp_path / "notes.txt"
    keep.write_text("mine")

    def broken(self, *args, **kwargs):
        raise OSError("disk full")

    import weasyprint

    monkeypatch.setattr(weasyprint.HTML, "write_pdf", broken)
    tables = hg.guide_tables("en")
    with pytest.raises(OSError):
        export.export_tables(tables, tmp_path, ["pdf"], charts=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"] and keep.read_text() == "mine"


def test_chinese_pdf_without_a_cjk_font_refuses(tmp_path, monkeypatch):
    monkeypatch.setattr(export, "_has_cjk_font", lambda: False)
    with pytest.raises(RuntimeError, match="fonts-"):
        export.export_tables(hg.guide_tables("zh"), tmp_path / "out", ["pdf"], lang="zh", charts=False)
    assert not (tmp_path / "out").exists()


def test_bad_format_and_cli(tmp_path, capsys):
    with pytest.raises(ValueError, match="html, pdf"):
        export.export_tables(hg.guide_tables("en"), tmp_path, ["docx"])
    from hwguide.__main__ import main

    assert main(["export", "--out", str(tmp_path / "cli"), "--format", "md,csv"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert main(["export", "--out", str(tmp_path / "x"), "--format", "docx"]) == 2
