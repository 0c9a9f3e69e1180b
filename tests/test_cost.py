"""Cost per million generated tokens, owned and rented (issue 27)."""

import pytest

import hwguide as hg
from hwguide import i18n

KW = dict(weights="Q4_K_M", engine="llama.cpp", users=4, currency="CNY")
# data/electricity.csv: State Grid Hubei, industrial and commercial users, single-part, below 1 kV, 2026-01
HUBEI = 0.735686


def test_owned_and_rented_cost_per_million_tokens_by_hand():
    cost = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW, as_of="2026-12-01", electricity_price=0)
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
    # nobody measured a plain RTX 4090 serving an LLM (data/power.csv), so its 450 W TDP counts, labelled
    assert (with_power.power_w, with_power.power_from) == (450, "tdp")
    assert "TDP" in str(with_power) and "no measurement of this card" in str(with_power)


def test_cny_electricity_defaults_to_the_sourced_tariff():
    cost = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW, as_of="2026-12-01")
    million_per_hour = cost.tokens_per_s * 3600 / 1e6
    assert cost.electricity_price == HUBEI
    assert cost.owned_per_million == pytest.approx((22559 / (3 * 8760 * 0.5) + 0.450 * HUBEI) / million_per_hour)
    assert "the kit's default: Hubei industrial-commercial, single-part, below 1 kV, 2026-01" in str(cost)
    before = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW, as_of="2025-12-31")  # no tariff dated that early
    assert before.electricity_price is None and "Electricity: not counted" in str(before)
    usd = hg.token_cost("Llama-3.1-8B", "RTX 4090", **{**KW, "currency": "USD"})  # no USD tariff in the data
    assert usd.electricity_price is None and "not counted" in str(usd)


# data/power.csv: the ML.ENERGY Leaderboard V3 measured an H100 SXM serving Llama-3.1-8B-Instruct with vLLM
# at 486.4 W (batch 8), 610.3 W (64) and 690.5 W (256) against its 700 W TDP; an RTX 4090 D decoding
# Qwen2.5-7B with transformers at batch 1 drew 213.45 W of its 425 W (hongping-zh/ecocompute-dynamic-eval).
@pytest.mark.parametrize(("users", "watts"), [(8, 486.4), (64, 610.3), (200, 690.5)])
def test_measured_power_of_the_nearest_run_replaces_the_tdp(users, watts):
    run = dict(weights="bf16", engine="vllm", users=users, context=1024, as_of="2026-12-01")
    cost = hg.token_cost("Llama-3.1-8B", "H100 SXM", **run)
    assert (cost.power_w, cost.power_from) == (watts, "measured")
    assert f"{watts:.0f} W (measured: this card's average power running Llama-3.1-8B on vllm" in str(cost)
    million_per_hour = cost.tokens_per_s * 3600 / 1e6
    without = hg.token_cost("Llama-3.1-8B", "H100 SXM", **run, electricity_price=0)
    assert cost.owned_per_million - without.owned_per_million == pytest.approx(watts / 1000 * HUBEI / million_per_hour)


def test_a_run_of_another_engine_is_used_and_named():
    cost = hg.token_cost("Qwen2.5-7B", "RTX 4090 D", weights="fp16", engine="vllm", users=1, as_of="2026-12-01")
    assert (cost.power_w, cost.power_from) == (213.45, "measured")  # transformers, batch 1: the only runs of the card
    assert "the nearest run in data/power.csv (none with vllm)" in str(cost)
    given = hg.token_cost("Qwen2.5-7B", "RTX 4090 D", weights="fp16", engine="vllm", users=1, power_w=300)
    assert (given.power_w, given.power_from) == (300, "given")


def test_measured_power_rows_are_the_published_ones():
    h100 = hg.measured_power("H100 SXM").set_index(["model", "batch"])
    assert h100.loc[("Llama-3.1-8B", 8), "power_w"] == 486.4 and h100.loc[("Qwen3-8B", 8), "power_w"] == 427.0
    assert (hg.measured_power("RTX 3090")["power_w"] < hg.gpu("RTX 3090").tdp_w).all()  # 335-338 W of 350 W
    a100 = hg.measured_power("A100 SXM4 80GB").set_index("model")
    assert a100.loc["Llama-3-8B", "power_w"] == 362.98 and a100.loc["Llama-3-8B", "engine"] == "vllm"
    assert hg.measured_power("RTX 4090").empty  # nobody measured it with a stated method
    table = hg.measured_power()
    assert set(table["statistic"]) == {"average"} and (table["gpu_count"] == 1).all()
    assert table["what"].str.len().gt(20).all() and table["source"].str.startswith("https://github.com/").all()


def test_cost_says_its_working_in_the_readers_language():
    cost = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW, electricity_price=0)
    assert "Electricity: 450 W" in str(cost) and "per million tokens" in str(cost)
    with i18n.using("zh"):
        shown = str(hg.token_cost("Llama-3.1-8B", "H100 SXM", weights="bf16", engine="llama.cpp", users=4))
        assert "每百万 token" in shown and "元" in shown and "湖北工商业电价" in shown and "实测值" in shown
        assert "新卡市场价" in str(cost)


def test_no_cloud_row_no_rented_figure_and_a_model_too_large_is_refused():
    cost = hg.token_cost("Llama-3.1-8B", "RTX 4090", **KW, cloud_hourly=None, as_of="2020-01-01", price=10000)
    assert cost.rented_per_million is None and cost.owned_per_million > 0
    with pytest.raises(ValueError, match="does not fit"):
        hg.token_cost("Llama-3.1-70B", "RTX 4090", weights="fp16")
