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
