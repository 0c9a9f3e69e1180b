"""Cost per million generated tokens, owned and rented (issue 27)."""

import pytest

import hwguide as hg
from hwguide import i18n

KW = dict(weights="Q4_K_M", engine="llama.cpp", users=4, currency="CNY")


def test_owned_and_rented_cost_per_million_tokens_by_hand():
    cost = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW, as_of="2026-12-01")
    tps = hg.decode_tokens_per_s("Llama-3.1-8B", "RTX 4090", weights="Q4_K_M", engine="llama.cpp", batch=4,
                                 context=4096)  # fmt: skip
    million_per_hour = tps * 3600 / 1e6
    assert cost.tokens_per_s == pytest.approx(tps)
    # the newest CNY prices in data/prices.csv: 22,559 CNY street-new (2025-02-01), 1.24 CNY per GPU-hour (2026-10-20)
    assert cost.owned_per_million == pytest.approx(22559 / (3 * 8760 * 0.5) / million_per_hour)
    assert cost.rented_per_million == pytest.approx(1.24 / million_per_hour)
    with_power = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW, as_of="2026-12-01", electricity_price=0.6, pue=1.2)
    extra = 450 / 1000 * 1.2 * 0.6 / million_per_hour  # TDP × PUE × price per kWh, per million tokens
    assert with_power.owned_per_million == pytest.approx(cost.owned_per_million + extra)


def test_cost_says_its_working_in_the_readers_language():
    cost = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW)
    assert "not counted" in str(cost) and "per million tokens" in str(cost)
    with i18n.using("zh"):
        assert "每百万 token" in str(cost) and "元" in str(cost) and "新卡市场价" in str(cost)


def test_no_cloud_row_no_rented_figure_and_a_model_too_large_is_refused():
    cost = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW, cloud_hourly=None, as_of="2020-01-01", price=10000)
    assert cost.rented_per_million is None and cost.owned_per_million > 0
    with pytest.raises(ValueError, match="does not fit"):
        hg.token_cost("Llama-3.1-70B", "RTX 4090", weights="fp16")
