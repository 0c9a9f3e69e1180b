"""Reading learners' answers: the forms right answers come in, and the slips wrong ones show."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hwguide.answers import judge, parse


@pytest.mark.parametrize("text, value, unit", [
    ("1.75", 1.75, None), ("1.75 GiB", 1.75, "GiB"), ("约 1.75", 1.75, None), ("约1.75GiB", 1.75, "GiB"),
    ("4,194,304", 4194304, None), ("4，194，304", 4194304, None), ("≈ 12.5 tokens/s", 12.5, "tokens/s"),
    ("3.5万", 35000, None), ("1.2 亿", 1.2e8, None), ("7B", 7e9, None), ("70k", 70000, None), ("1.5M", 1.5e6, None),
    ("24G", 24, "GB"), ("350 W", 350, "W"), ("2.1 kW", 2.1, "kW"), ("12 天", 12, "days"), ("3 days", 3, "days"),
    ("15,999 元", 15999, "CNY"), ("¥ 8000", None, None), ("60%", 60, "%"), ("936 GB/s", 936, "GB/s"),
    ("19 token/秒", 19, "tokens/s"), ("about 2 h", 2, "h"),
])  # fmt: skip
def test_parse_reads_numbers_as_learners_write_them(text, value, unit):
    answer = parse(text)
    if value is None:
        assert answer.value is None
    else:
        assert answer.value == pytest.approx(value) and answer.unit == unit


@pytest.mark.parametrize("text, yes", [("是", True), ("否", False), ("能", True), ("不能", False), ("放得下", True),
                                       ("放不下", False), ("可以", True), ("不可以", False), ("Yes", True),
                                       ("no.", False),
                                       ("does not fit", False), ("放不下。", False)])  # fmt: skip
def test_parse_reads_yes_and_no_in_both_languages(text, yes):
    assert parse(text).yes is yes


@pytest.mark.parametrize("text", ["1.75 GiB", "约 1.75", "1.75", "1.8", "1.88 GB", "1,792 MiB", 1.75, "1.76"])
def test_right_answers_for_1_75_gib_pass(text):
    assert judge(text, 1.75, unit="GiB").status == "right"


@pytest.mark.parametrize("text, slip", [
    ("0.875", "half"), ("3.5", "double"), ("1.879", "gb_for_gib"), ("14", "bits_for_bytes"), ("1750", "thousand_times"),
    ("1.75 W", "wrong_unit"), ("2", None), ("是", "yes_no_for_number"), ("a lot", "not_a_number"),
])  # fmt: skip
def test_wrong_answers_fail_and_name_the_slip(text, slip):
    verdict = judge(text, 1.75, unit="GiB")
    assert verdict.status == "wrong" and verdict.slip == slip


def test_per_gpu_for_total_is_recognised_with_the_number_of_gpus():
    assert judge("10", 80, unit="GiB", gpus=8).slip == "per_gpu_for_total"
    assert judge("640", 80, unit="GiB", gpus=8).slip == "total_for_per_gpu"


def test_a_lookup_is_exact_but_units_still_convert():
    assert judge("24", 24, unit="GiB", tolerance=0, rounding=False)
    assert not judge("23.9", 24, unit="GiB", tolerance=0, rounding=False)
    assert judge("2.4万", 24000, unit="CNY", tolerance=0, rounding=False)
    assert judge("24 天", 24, unit="days", tolerance=0)
    assert judge("576 h", 24, unit="days", tolerance=0)


def test_yes_no_questions():
    assert judge("放不下", False) and judge("不能", False) and not judge("能", False)
    assert judge(True, True) and judge("fits", True)
    assert judge("maybe", True).slip == "not_yes_no"


def test_two_significant_figures_round_half_up_only():
    assert judge("1.2", 1.15, unit="GiB", tolerance=0.03)  # 1.15 rounds half up to 1.2
    assert not judge("2", 1.75, unit="GiB", tolerance=0.03)  # one significant figure is not enough


@given(st.floats(min_value=0.01, max_value=1e6, allow_nan=False))
def test_half_and_double_are_always_rejected(x):
    assert not judge(repr(x / 2), x, unit="GiB")
    assert not judge(repr(x * 2), x, unit="GiB")
    assert judge(repr(x), x, unit="GiB")
