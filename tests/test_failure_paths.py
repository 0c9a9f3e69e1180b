"""Failure paths of issue 29: each gets a clear error naming the argument or the cell, and leaves nothing behind."""

import pandas as pd
import pytest

import hwguide as hg


def _prices_with(tmp_path, column, value):
    source = (hg.data_dir() / "prices.csv").read_text(encoding="utf-8").splitlines()
    header = source[0].split(",")
    first = source[1].split(",")
    first[header.index(column)] = value
    path = tmp_path / "prices.csv"
    path.write_text("\n".join([source[0], ",".join(first)]) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("value", ["2_4", "1_599"])
def test_a_number_with_an_underscore_is_a_typo(tmp_path, value):
    with pytest.raises(hg.DataError, match=f"'{value}' is not a valid float"):
        hg.load_table("prices", _prices_with(tmp_path, "amount", value))


@pytest.mark.parametrize("value", ["9999-12-31", "1900-01-01"])
def test_a_date_far_outside_the_data_is_refused(tmp_path, value):
    with pytest.raises(hg.DataError, match=f"'{value}' is not a plausible date"):
        hg.load_table("prices", _prices_with(tmp_path, "date", value))


@pytest.mark.parametrize(
    "call, argument",
    [
        (lambda: hg.runs_natively("RTX 4090", ["a"]), "weights"),
        (lambda: hg.exercises.check([], 5), "exercise_id"),
        (lambda: hg.platform(["server"]), "platform"),
        (lambda: hg.cpu({"name": 1}), "cpu"),
        (lambda: hg.finetune_memory("Llama-3.1-8B", zero=pd.NA), "zero"),
        (lambda: hg.training_memory("Llama-2-7B", zero=pd.NA), "zero"),
        (lambda: hg.inference_memory("Llama-3.1-8B", batch=pd.NA), "batch"),
    ],
)
def test_odd_arguments_get_a_clear_error_naming_them(call, argument):
    with pytest.raises((ValueError, LookupError), match=argument):
        call()


@pytest.mark.parametrize("as_of", ["2030-01-01", "1900-01-01"])
def test_a_day_outside_the_price_history_is_refused(as_of):
    # it used to empty every price of the value table without a word (or fail with KeyError 'currency')
    for call in (lambda: hg.value_ranking("inference", as_of=as_of), lambda: hg.guide_tables(as_of=as_of)):
        with pytest.raises(ValueError, match=f"as_of='{as_of}': prices are on record from 2018-08-20 to today"):
            call()


def test_an_export_with_a_bad_day_writes_nothing(tmp_path):
    from hwguide.__main__ import main

    assert main(["export", "--as-of", "2030-01-01", "--out", str(tmp_path / "guide"), "--format", "csv"]) == 2
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("content, words", [
    ("[1, 2]", "is not a Jupyter notebook this kit can read"),
    ('{"nbformat": 3, "worksheets": []}', "missing a key: metadata"),
])  # fmt: skip
def test_html_of_a_broken_notebook_says_so(tmp_path, content, words):
    from hwguide.export import notebook_html

    bad = tmp_path / "bad.ipynb"
    bad.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=words):
        notebook_html(bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.ipynb"]


def test_html_goes_next_to_the_notebook_or_into_a_folder_named_by_language(tmp_path):
    import shutil

    from hwguide.export import notebook_html

    lesson = tmp_path / "notebooks" / "zh" / "00_start_here.ipynb"
    lesson.parent.mkdir(parents=True)
    shutil.copy(hg.course.ROOT / "notebooks" / "zh" / "00_start_here.ipynb", lesson)
    assert notebook_html(lesson) == lesson.with_name("00_start_here.zh.html")
    folder = tmp_path / "pages"
    folder.mkdir()
    assert notebook_html(lesson, folder) == folder / "00_start_here.zh.html"
    assert not [p for p in folder.iterdir() if p.name.endswith(".part")]


def test_a_killed_exports_staging_folder_is_swept_by_the_next(tmp_path):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = tmp_path / f".hwguide-export-{dead.stdout.strip()}-abc123"  # what a kill -9 mid-export leaves
    (left / ".previous").mkdir(parents=True)
    hg.export_guide(out=tmp_path / "guide", formats="csv")
    assert not left.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["guide"]


def test_a_server_module_alone_still_gets_its_power_and_says_why_it_has_no_price():
    build = hg.build_system("Ascend 910B", 1)
    assert build["power_w"] > 0 and build["psu_w"] > 0  # it was NaN
    assert "not sold as single cards" in str(build["notes"])


@pytest.mark.parametrize("factors", [5, ["a"], pd.NA, {"denoise_eff": "fast"}])
def test_image_factors_must_be_a_mapping_of_numbers(factors):
    with pytest.raises(ValueError, match="factors"):
        hg.image_seconds("SDXL 1.0 base", "RTX 4090", factors=factors)
