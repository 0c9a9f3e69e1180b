"""Rankings, value for money, comparisons and names."""

import datetime as dt
import math
import re

import pytest

import hwguide as hg
from hwguide.value import compare, decode_name, rank_gpus, value_ranking


def test_rank_inference_is_relative_to_the_reference():
    table = rank_gpus("inference")
    assert table.set_index("gpu").loc["A100 SXM4 80GB", "score"] == pytest.approx(100)
    top = table.dropna(subset=["score"]).iloc[0]["gpu"]
    # the highest-bandwidth cards lead (MI355X, B300/GB300, B200/GB200: 7.7-8 TB/s)
    assert hg.gpu(top).bandwidth_gbs >= 0.95 * hg.gpus()["bandwidth_gbs"].max()
    assert (table["score"].dropna().diff().dropna() <= 1e-9).all()  # sorted
    # the A10G's Tensor rate is unpublished: listed with the reason, not dropped
    a10g = table.set_index("gpu").loc["A10G"]
    assert math.isnan(a10g["score"]) and "A10G" in str(a10g["note"])


def test_rank_training_says_what_does_not_fit():
    table = rank_gpus("training").set_index("gpu")
    assert table.loc["RTX 4090", "fits"] == "does_not_fit"  # 16 B/param × 1.5B + activations > 21.6 GiB
    assert table.loc["A100 SXM4 80GB", "fits"] == "yes"
    # faster than the A100, but by less than its 989.5 / 312 TFLOPS: the element-wise work is memory-bound
    assert 100 * 3.35 / 2.039 < table.loc["H100 SXM", "score"] < 100 * 989.5 / 312


def test_value_ranking_prices_and_missing_prices():
    table = value_ranking("inference", currency="CNY")
    assert (table.loc[table["price_kind"] == "no price", "score_per_1000"].isna()).all()
    priced = table.dropna(subset=["score_per_1000"])
    assert set(table["fits"]) <= {*hg.value.FITS, ""}
    for _, group in priced.groupby(priced["fits"] == "does_not_fit"):  # cards it fits rank first
        assert (group["score_per_1000"].diff().dropna() <= 1e-9).all()
    fits_order = table.dropna(subset=["score_per_1000"])["fits"].eq("does_not_fit").tolist()
    assert fits_order == sorted(fits_order)
    assert len(table) == len(hg.gpus())  # nothing dropped silently


def test_value_ranking_with_your_own_prices_and_as_of():
    mine = value_ranking("inference", currency="CNY", prices={"RTX 4090": 15000, "RTX 3090": 5000})
    row = mine.set_index("gpu")
    assert row.loc["RTX 3090", "price"] == 5000
    assert row.loc["RTX 3090", "score_per_1000"] > row.loc["RTX 4090", "score_per_1000"]
    past = value_ranking("inference", currency="CNY", as_of="2021-01-01").set_index("gpu")
    assert past.loc["RTX 4090", "price_kind"] == "no price"  # not yet launched
    with pytest.raises(ValueError, match="more than 0"):
        value_ranking(prices={"RTX 4090": -5})
    with pytest.raises(ValueError, match="CNY, USD"):
        value_ranking(currency="EUR")


def test_compare_3090_4090():
    table = compare("3090", "4090").set_index("parameter")
    assert table.loc["cuda_cores", "ratio"] == pytest.approx(16384 / 10496)  # +56%, as the source says
    assert table.loc["bandwidth_gbs", "ratio"] == pytest.approx(1008 / 936)
    assert table.loc["nvlink_gbs", "RTX 3090"] > 0 and table.loc["nvlink_gbs", "RTX 4090"] == 0


def test_decode_name():
    assert str(decode_name("H100 SXM")["series"]).startswith("H = Hopper")
    assert "40 series" in str(decode_name("RTX 4090")["generation"])
    assert "China" in str(decode_name("A800 SXM4 80GB")["market"])
    assert "aftermarket" in str(decode_name("2080ti 22G")["market"])
    assert "Grace" in str(decode_name("GH200 144GB")["series"])


def test_source_claims_are_judged_with_numbers():
    claims = hg.source_claims().set_index("claim")
    assert set(claims["verdict"]) <= {"holds", "holds with caveats", "does not hold"}
    nvlink = claims.filter(like="dropped NVLink", axis=0).iloc[0]
    assert nvlink["verdict"] == "does not hold" and "112.5" in nvlink["evidence"]
    # 936 / 1,555 GB/s: the 60% is memory bandwidth against the A100 40GB (the source's own build), not compute
    sixty = claims.filter(like="60%", axis=0).iloc[0]
    assert sixty["verdict"] == "holds with caveats"
    assert "936 vs 1555 GB/s = 60%" in sixty["evidence"] and "2039 GB/s it is 46%" in sixty["evidence"]
    assert "71 vs 312 TFLOPS = 23%" in sixty["evidence"]
    assert len(claims) >= 10


def test_value_ranking_takes_one_window_marks_stale_prices_and_labels_conversions():
    table = value_ranking("training", currency="CNY", condition="any", as_of="2026-12-01").set_index("gpu")
    # the RTX 3090's CNY prices are from 2020-2022, outside the 36-month window: its latest USD one, converted
    row = table.loc["RTX 3090"]
    assert row["converted"] and row["price_date"] >= dt.date(2023, 12, 1)
    usd = hg.prices().query("gpu == 'RTX 3090' and currency == 'USD' and kind == 'street-used'")
    latest = usd.sort_values("date").iloc[-1]
    rate, _ = hg.cny_per("USD", latest["date"])
    assert row["price"] == pytest.approx(latest["amount"] * rate)
    assert f"USD {latest['amount']:,.0f}" in str(row["price_kind"])
    # a price older than 12 months is kept but marked stale
    assert table.loc["RTX 2080 Ti 22GB", "stale"] and table.loc["RTX 2080 Ti 22GB", "price_date"] == dt.date(2024, 1, 1)
    # without conversion a USD-only card has no CNY price
    plain = value_ranking("training", currency="CNY", condition="any", as_of="2026-12-01", convert=False)
    assert plain.set_index("gpu").loc["RTX 3090", "price_kind"] == "no price"


def test_exchange_rates_are_the_cfets_central_parity_of_the_day():
    rate, day = hg.cny_per("USD", dt.date(2026, 1, 26))
    assert (rate, day) == (6.9843, dt.date(2026, 1, 26))  # Xinhua wire, CFETS central parity
    assert hg.cny_per("USD", dt.date(2026, 6, 1))[1] == dt.date(2026, 1, 26)  # latest on or before


def test_a_date_before_every_rate_or_price_is_answered_not_crashed():
    assert hg.cny_per("USD", dt.date(2000, 1, 1))[1] == hg.exchange_rates()["date"].min()  # the earliest rate
    # a day before every price would price nothing: a clear error naming the span (issue 29), not an empty table
    with pytest.raises(ValueError, match="as_of='2015-01-01': prices are on record from"):
        value_ranking("inference", currency="CNY", as_of="2015-01-01")


CJK = re.compile(r"[\u4e00-\u9fff]")


def test_fits_are_codes_with_chinese_labels():
    table = rank_gpus("inference")
    assert set(table["fits"]) <= {*hg.value.FITS, ""}
    shown = hg.i18n.labelled(table[table["fits"] != ""][["gpu", "fits"]], "zh")
    assert shown.columns.tolist() == ["显卡", "是否装得下"]
    assert set(shown["是否装得下"]) <= {"是", "仅够 1 个用户", "装不下"}


def test_compare_and_decode_name_read_as_chinese():
    table = compare("RTX 3090", "RTX 4090")
    assert table["parameter"].tolist()[:2] == ["architecture", "memory_gib"]
    assert str(table.loc[1, "meaning"]).startswith("Memory decides")
    shown = hg.i18n.labelled(table, "zh")
    assert list(shown.columns[[0, 3, 4]]) == ["参数", "比值", "含义"]
    assert not shown["参数"].isin(table["parameter"]).any() and all(CJK.search(v) for v in shown["含义"])
    for name in ("RTX 4090", "RTX 2080 Ti 22GB", "H100 SXM", "A800 SXM4 80GB", "GH200 144GB", "RTX A6000"):
        parts = decode_name(name)
        for part in ("series", "tier", "market"):
            if part in parts:
                assert CJK.search(parts[part].render("zh")) and not CJK.search(parts[part].render("en"))
    assert decode_name("RTX 4090")["generation"].render("zh") == "40 系列 = Ada Lovelace"


def test_a_converted_price_names_its_currency_in_the_readers_words():
    table = value_ranking("training", currency="CNY", condition="any", as_of="2026-12-01").set_index("gpu")
    kind = table.loc["RTX 3090", "price_kind"]
    assert str(kind).startswith("street-used (USD ")
    chinese = kind.render("zh")
    assert chinese.startswith("二手价（") and "美元 ×" in chinese and "USD" not in chinese
