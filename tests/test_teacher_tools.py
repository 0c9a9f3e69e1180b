"""The teacher's tools: slides, worksheets and grading a class, from the command line."""

import re

import pandas as pd
import pytest
from pypdf import PdfReader

from hwguide import grading
from hwguide.__main__ import main
from hwguide.slides import notebook_slides, slide_type

CJK = re.compile(r"[\u4e00-\u9fff]")


def test_a_chinese_deck_opens_offline_and_is_chinese(tmp_path):
    deck = notebook_slides("notebooks/zh/03_inference_memory.ipynb", tmp_path)
    page = deck.read_text(encoding="utf-8")
    assert not re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", page), "the deck asks another host"
    assert "Reveal.initialize" in page and '<html lang="zh">' in page
    assert page.count("<section") > 5 and "<math" in page  # slides, and formulas as MathML
    assert len(CJK.findall(page)) > 1000
    assert not list(tmp_path.glob(".*.part"))


def test_slides_start_at_headings_and_hide_code():
    assert slide_type({"cell_type": "markdown", "source": "## 2 · KV cache"}) == "slide"
    assert slide_type({"cell_type": "markdown", "source": "### 2.1 · GQA"}) == "subslide"
    assert slide_type({"cell_type": "markdown", "source": "text"}) == "-"
    assert slide_type({"cell_type": "code", "source": "## not a heading"}) == "-"


def test_worksheets_are_two_chinese_a4_pdfs_and_only_the_teachers_has_answers(tmp_path, capsys):
    assert main(["worksheet", "03", "--lang", "zh", "--out", str(tmp_path)]) == 0
    student, teacher = tmp_path / "03_worksheet.zh.pdf", tmp_path / "03_worksheet.zh.teacher.pdf"
    s_text = "".join(p.extract_text() for p in PdfReader(student).pages)
    t_text = "".join(p.extract_text() for p in PdfReader(teacher).pages)
    width, height = (float(v) for v in PdfReader(student).pages[0].mediabox[2:])
    assert (round(width), round(height)) == (595, 842)  # A4 in points
    assert "练习单" in s_text and "学号" in s_text and "答案单位：GiB" in s_text
    assert "答案" not in s_text.replace("答案单位", "") and "1.75" not in s_text
    assert "1.75 GiB" in t_text and "评分" in t_text
    assert "已写入" in capsys.readouterr().out


def test_grading_a_class_gives_points_by_the_key(tmp_path):
    answers = tmp_path / "class.csv"
    pd.DataFrame({"学号": ["s1", "s2", "s3", "s4"], "03.1": ["1.75 GiB", "1.88 GB", "0.875", ""],
                  "03.4": ["8", "8倍", "2", "8"], "03.5": ["because…", "", "", ""]}).to_csv(
        answers, index=False)  # fmt: skip
    grades, summary = grading.grade_class(grading.read_answers(answers))
    assert grades.loc["s1", "03.1"] == 2 and grades.loc["s2", "03.1"] == 2  # GB converted to GiB
    assert grades.loc["s3", "03.1"] == 1  # half: the method right, one factor of 2 slipped
    assert grades.loc["s4", "03.1"] == 0 and summary.loc["03.1", "answered"] == 3
    assert grades.loc["s1", "to_grade"] == 1 and pd.isna(grades.loc["s1", "03.5"])  # a why answer: by hand
    assert summary.loc["03.1", "commonest_slip"] == "half"


def test_grading_reads_an_id_a_spreadsheet_made_a_number(tmp_path):
    path = tmp_path / "class.xlsx"
    pd.DataFrame({"学号": ["s1"], 3.1: ["1.75"]}).to_excel(path, index=False)  # Excel keeps 03.1 as 3.1
    assert list(grading.read_answers(path).columns) == ["03.1"]


def test_grading_reads_excel_and_gbk_and_writes_all_or_nothing(tmp_path):
    table = pd.DataFrame({"姓名": ["张三"], "03.1": ["1.75"]})
    table.to_excel(tmp_path / "a.xlsx", index=False)
    table.to_csv(tmp_path / "b.csv", index=False, encoding="gbk")
    for name in ("a.xlsx", "b.csv"):
        assert grading.read_answers(tmp_path / name).loc["张三", "03.1"] == "1.75"
    out = tmp_path / "graded"
    paths = grading.grade(tmp_path / "a.xlsx", out=out, lang="zh")
    assert [p.name for p in paths] == ["grades.csv", "exercises.csv", "grades.xlsx"]
    assert "总分" in paths[0].read_text(encoding="utf-8-sig") and not list(out.glob(".hwguide-*"))


@pytest.mark.parametrize("table, words", [({"who": ["a"], "03.1": ["1"]}, "student column"),
                                          ({"student": ["a"], "99.9": ["1"]}, "do not exist"),
                                          ({"student": ["a"], "note": ["1"]}, "no exercise columns")])  # fmt: skip
def test_grading_refuses_a_table_it_cannot_read_and_says_why(tmp_path, table, words):
    path = tmp_path / "t.csv"
    pd.DataFrame(table).to_csv(path, index=False)
    with pytest.raises(ValueError, match=words):
        grading.read_answers(path)
