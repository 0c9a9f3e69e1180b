"""Grading a class in one command: ``python -m hwguide grade answers.xlsx --out graded``.

The answers come as one table, the way a class's answers are collected (an online form's export, a
spreadsheet): one row per student, a ``student`` column (or student number, name or id, in English or
Chinese: data/answer_words.csv) and one column per exercise id (``03.1``). Each answer is judged as
:func:`hwguide.exercises.check` judges it (units converted,
rounding to the digits written, the usual slips named) and given points by the grading key of
``hwguide.worksheet``: full points when right; for a compute exercise, 1 point when the answer is off by
one recognised slip (GB for GiB, per GPU for in total, a factor of 2 or 8). Design and why exercises are
left for the teacher (no points, marked so).

Written: ``grades.csv`` (per student: points per exercise and the total), ``exercises.csv`` (per
exercise: how many answered, share right, the commonest slip) and ``grades.xlsx`` with both sheets.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd

from . import i18n

__all__ = ["grade", "grade_class", "judge_answer", "read_answers"]

# the slips that earn a computed answer 1 point: the method right, one factor or unit slipped
PART_MARKS = ("gb_for_gib", "gib_for_gb", "half", "double", "bits_for_bytes", "bytes_for_bits", "per_gpu_for_total",
              "total_for_per_gpu")  # fmt: skip
EXERCISE_ID = re.compile(r"^\d{2}\.\d+$")


def judge_answer(exercise_id: str, given: Any) -> Any:
    """:func:`hwguide.exercises.judge`: how the checker judges one answer."""
    from .exercises import judge

    return judge(exercise_id, given)


def _exercise_id(header: Any) -> str:
    """A header as an exercise id: spreadsheets turn a typed 03.1 into the number 3.1, so "3.1" reads as
    "03.1" (an id such as 03.10 cannot be told from 03.1 once a spreadsheet made it a number)."""
    text = str(header).strip()
    found = re.fullmatch(r"(\d{1,2})\.(\d+)", text)
    return f"{int(found.group(1)):02d}.{found.group(2)}" if found else text


def read_answers(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A class's answers from a CSV (UTF-8, with or without BOM, or GBK as Excel in China saves it) or an
    XLSX file: indexed by student, one column per exercise id, every cell as text."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(i18n.msg("answers={path!r} is not a file: give the CSV or XLSX of the class's answers",
                                  path=str(path)))  # fmt: skip
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        frame = pd.read_excel(path, dtype=str)
    else:
        try:
            frame = pd.read_csv(path, dtype=str, encoding="utf-8-sig", keep_default_na=False)
        except UnicodeDecodeError:
            frame = pd.read_csv(path, dtype=str, encoding="gbk", keep_default_na=False)
    frame.columns = [_exercise_id(c) for c in frame.columns]
    from .answers import student_columns

    names = student_columns()
    student = next((c for c in frame.columns if c.lower() in names), None)
    if student is None:
        raise ValueError(i18n.msg("the answers have no student column: name one of {choices}",
                                  choices=", ".join(names)))  # fmt: skip
    ids = [c for c in frame.columns if EXERCISE_ID.match(c)]
    if not ids:
        raise ValueError(i18n.msg("the answers have no exercise columns: name each column by its exercise id, "
                                  "such as 03.1"))  # fmt: skip
    from .exercises import EXERCISES

    unknown = [c for c in ids if c not in EXERCISES]
    if unknown:
        raise ValueError(i18n.msg("the answers name exercises that do not exist: {ids}", ids=", ".join(unknown)))
    return frame.set_index(student)[ids]


def grade_class(answers: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Points per student and exercise (with a ``total`` column and a ``to_grade`` count of answers the
    teacher grades by hand), and per exercise: answered, right, share right, commonest slip."""
    from .exercises import EXERCISES
    from .worksheet import POINTS

    grades = pd.DataFrame(index=answers.index)
    summary = []
    to_grade = pd.Series(0, index=answers.index)
    for exercise_id in answers.columns:
        ex = EXERCISES[exercise_id]
        full = POINTS[ex.kind]
        judged = [judge_answer(exercise_id, value) for value in answers[exercise_id]]
        points = []
        for j in judged:
            if j.status == "right":
                points.append(full)
            elif j.status == "wrong" and ex.kind == "compute" and j.slip in PART_MARKS:
                points.append(1)
            elif j.status == "not_checked":
                points.append(float("nan"))
            else:
                points.append(0)
        grades[exercise_id] = points
        to_grade += [j.status == "not_checked" for j in judged]
        answered = sum(j.status != "blank" for j in judged)
        right = sum(j.status == "right" for j in judged)
        slips = pd.Series([j.slip for j in judged if j.slip]).value_counts()
        summary.append({"exercise": exercise_id, "kind": ex.kind, "points": full, "answered": answered,
                        "right": right if ex.checked else float("nan"),
                        "share_right": right / answered if answered and ex.checked else float("nan"),
                        "commonest_slip": slips.index[0] if len(slips) else ""})  # fmt: skip
    grades["total"] = grades.sum(axis=1, skipna=True)
    grades["to_grade"] = to_grade
    return grades, pd.DataFrame(summary).set_index("exercise")


def grade(answers: str | os.PathLike[str], *, out: str | os.PathLike[str] = "graded",
          lang: str | None = None) -> list[Path]:  # fmt: skip
    """Grade the class's answers file into the folder ``out`` (``grades.csv``, ``exercises.csv``,
    ``grades.xlsx``; headers in ``lang``); return the paths. All or nothing."""
    from . import checks

    lang = i18n.resolve(lang)
    folder = checks.output_folder(out, "out")
    grades, summary = grade_class(read_answers(answers))
    shown = [i18n.labelled(frame, lang) for frame in (grades, summary)]
    folder.mkdir(parents=True, exist_ok=True)
    names = ["grades.csv", "exercises.csv", "grades.xlsx"]
    with tempfile.TemporaryDirectory(dir=folder, prefix=".hwguide-grade-") as tmp:
        shown[0].to_csv(Path(tmp) / names[0], encoding="utf-8-sig")
        shown[1].to_csv(Path(tmp) / names[1], encoding="utf-8-sig")
        with pd.ExcelWriter(Path(tmp) / names[2]) as writer:
            shown[0].to_excel(writer, sheet_name=i18n.text("Grades", lang)[:31])
            shown[1].to_excel(writer, sheet_name=i18n.text("Exercises", lang)[:31])
        for name in names:
            os.replace(Path(tmp) / name, folder / name)
    return [folder / name for name in names]
