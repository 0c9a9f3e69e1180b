"""The planner, the platform rules, the scenarios and the six guide tables."""

import math
import re

import pandas as pd
import pytest

import hwguide as hg


def test_recommend_ranks_builds_that_meet_the_need_by_price():
    plan = hg.recommend(inference=dict(model="Llama-3.1-8B", weights="Q4_K_M", users=4, tokens_per_s=20), budget=30000)
    assert len(plan.builds) and len(plan.failed)
    converted = plan.builds["converted"]
    assert not (converted.astype(int).diff().dropna() < 0).any()  # builds priced in CNY first, converted ones after
    for _, part in plan.builds.groupby(["converted", "stale"]):  # fresh local prices, old local ones, converted
        prices = part["build_price"].dropna()
        assert (prices.diff().dropna() >= 0).all()
    assert (plan.builds.dropna(subset=["build_price"])["build_price"] <= 30000).all()
    assert (plan.builds["tokens_per_s_per_user"] >= 20).all()
    assert plan.failed["status"].isin(list(hg.planner.STATUSES[1:])).all()
    assert "GiB" in plan._repr_html_()


def test_why_not_the_4090_is_answered():
    plan = hg.recommend(
        inference=dict(model="Llama-2-70B", weights="fp16", users=1), cards=["RTX 4090"], gpu_counts=(1, 2)
    )
    assert plan.builds.empty  # 140 GB of weights do not fit in 2 × 24 GiB
    assert plan.failed["why"].map(str).str.contains("does not fit").all()
    assert (plan.failed["status"] == "does_not_fit").all()


def test_impossible_need_returns_empty_ranking_not_an_exception():
    plan = hg.recommend(pretrain=dict(model="Llama-3.1-405B", tokens=15e12, deadline_days=1), budget=1000)
    assert plan.builds.empty and len(plan.failed) > 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(), "no workload"),
        (dict(inference=dict(model="Llama-3.1-8B"), budget=-5), "budget"),
        (dict(pretrain=dict(model=7, tokens=1e12, deadline_days=0)), "deadline_days"),
        (dict(inference=dict(model="Llama-3.1-8B", speed=3)), "unknown keys"),
        (dict(inference=dict(model="Llama-3.1-8B"), gpu_counts=(0,)), "gpu_counts"),
        (dict(inference=dict(model="Llama-3.1-8B"), currency="EUR"), "currency"),
        (dict(inference=dict(weights="fp16")), "model= is required"),
    ],
)
def test_contradictory_input_says_what_to_change(kwargs, message):
    with pytest.raises(ValueError, match=message):
        hg.recommend(**kwargs)


def test_parameter_count_stands_in_as_the_closest_model():
    plan = hg.recommend(inference=dict(model=7), cards=["RTX 4090"], gpu_counts=(1,))
    assert any("closest dense catalog model" in str(a) for a in plan.assumptions)


def test_build_system_rules():
    one = hg.build_system("RTX 4090", 1)
    assert one["platform"] == "desktop" and one["psu_w"] == math.ceil(1.25 * 550 / 50) * 50
    four = hg.build_system("RTX 3090", 4, data_scale="TB")
    assert four["platform"] == "workstation" and four["ram_gb"] >= 96 and four["disk_tb"] == 4
    assert "blower" in str(four["notes"])
    sxm = hg.build_system("H100 SXM", 8)
    assert sxm["platform"] == "server" and not sxm["platform_priced"]
    # a server's host draw is the platform's (data/platforms.csv host_w), not a desk's 100 W: 8 × 700 W GPUs
    # + 4,600 W = 10,200 W, the DGX H100's maximum system power
    assert one["power_w"] == 450 + 100 and four["power_w"] == 4 * 350 + 100
    assert sxm["power_w"] == 10_200 and sxm["psu_w"] == math.ceil(1.25 * 10_200 / 50) * 50
    assert "4,600 W for the rest of the server" in str(sxm["notes"])
    assert "rest of the server" not in str(one["notes"])
    with pytest.raises(ValueError, match="data_scale"):
        hg.build_system("RTX 4090", 1, data_scale="PB")
    with pytest.raises(ValueError, match="multiple of 8"):
        hg.build_system("RTX 4090", 12)
    two = hg.build_system("H100 SXM", 16, gpu_price=337500)  # two 8-GPU servers joined by InfiniBand
    assert two["servers"] == 2 and two["gpus"] == 16 and "InfiniBand NDR" in two["network"]
    assert two["power_w"] == 2 * (8 * 700 + 4600) and two["psu_w"] == math.ceil(1.25 * (8 * 700 + 4600) / 50) * 50
    assert two["gpu_price"] == 16 * 337500 and not two["network_priced"]


def test_evaluate_scenario_checks_the_source_builds():
    result = hg.evaluate_scenario("individual")
    assert len(result["checks"]) == 2
    assert set(result["checks"]["tier"]) == {"basic", "advanced"}
    with pytest.raises(LookupError, match="individual"):
        hg.evaluate_scenario("startup")


def test_guide_tables_in_both_languages():
    en = hg.guide_tables()
    zh = hg.guide_tables("zh")
    assert len(en) == len(zh) == 6
    assert [t.attrs["title"][:2] for t in en] == ["1.", "2.", "3.", "4.", "5.", "6."]
    assert zh[0].attrs["title"] == "1. 显卡性能排名表" and "显卡" in zh[0].columns
    assert all(t.attrs["caption"] for t in en)
    html = hg.style_table(en[2]).to_html()
    assert "T_hwguide-" in html and en[2].attrs["title"] in html
    assert hg.style_table(en[2]).to_html() == html  # deterministic ids
    with pytest.raises(ValueError, match="en, zh"):
        hg.guide_tables("fr")


def test_the_planner_leaves_out_platforms_todays_frameworks_dropped():
    # CUDA 13 and vLLM no longer support Volta (data/support.csv, with its sources)
    assert not hg.support_of("V100 SXM2 16GB")["current"]
    assert hg.support_of("RTX 2080 Ti")["current"]  # Turing (7.5) is still in CUDA 13
    need = dict(inference=dict(model="Llama-3.1-8B", weights="fp16"))
    plan = hg.recommend(**need, cards=["V100 SXM2 32GB", "RTX 3090"], gpu_counts=[1])
    assert list(plan.builds["gpu"]) == ["RTX 3090"]
    failed = plan.failed.set_index("gpu").loc["V100 SXM2 32GB"]
    assert failed["status"] == "unsupported"
    assert "CUDA 13" in str(failed["why"]) and "allow_unsupported=True" in str(failed["why"])
    allowed = hg.recommend(**need, cards=["V100 SXM2 32GB", "RTX 3090"], gpu_counts=[1], allow_unsupported=True)
    assert "V100 SXM2 32GB" in set(allowed.builds["gpu"]) | set(allowed.failed["gpu"])
    assert any(str(a).startswith("Warning: V100 SXM2 32GB") for a in allowed.assumptions)


def test_the_team_scenario_no_longer_recommends_volta():
    today = hg.planner.evaluate_scenario("team")["today"]
    assert not today.builds.empty
    assert not today.builds["gpu"].str.startswith("V100").any()


def test_sxm_modules_are_priced_with_their_server():
    # the H20 and H100 SXM prices in the data are a whole 8-GPU server's price per GPU (kind server-share)
    plan = hg.recommend(inference=dict(model="Llama-3.1-70B", weights="fp16"), cards=["H20"], gpu_counts=[8])
    build = plan.builds.iloc[0]
    # the newest H20 server price: an xFusion 8-GPU H20 server at about 1.09M yuan on a channel page (2026-07-14)
    assert build["platform_priced"] and build["build_price"] == 8 * 136_250
    assert "platform included" in str(build["price_note"])
    # the value ranking values a module only with its server, never with a bare module's price
    value = hg.value_ranking("inference", condition="new").set_index("gpu")
    assert value.loc["H20", "price_kind"] == "server-share" and value.loc["H20", "price"] == 136_250
    assert value.loc["A100 SXM4 80GB", "price_kind"].startswith("no server price")


def test_a_desk_build_that_overloads_one_household_circuit_says_so():
    assert "household circuit" not in str(hg.build_system("RTX 4090", 2)["notes"])  # 2 × 450 + 100 = 1,000 W
    notes = str(hg.build_system("RTX 5090", 4)["notes"])  # 4 × 575 + 100 = 2,400 W > 220 V × 10 A
    assert "2,400 W" in notes and "2,200 W" in notes


# Host links (data/cpus.csv, Intel ARK values): the Xeon Gold 61xx family has PCIe 3.0 and 48 lanes,
# the Core i5-12400 20 lanes (16 Gen5 + 4 Gen4), the Xeon w5-2455X 64 lanes of PCIe 5.0.
def test_host_link_of_the_source_company_build():
    link = hg.host_link("L20", 4, cpu="Intel Xeon Gold 6133")
    assert (link["gen"], link["lanes"]) == (3, 8)  # 48 lanes / 4 cards -> x8 each, at PCIe 3.0
    assert link["per_direction_gbs"] == pytest.approx(15.75 / 2)  # PCIe 3.0 x16 is 15.75 GB/s each way
    assert link["full_gbs"] == pytest.approx(31.51) and link["limited"]
    assert "PCIe 3.0" in str(link["note"]) and "48 CPU lanes" in str(link["note"])


def test_host_link_full_and_none():
    assert not hg.host_link("RTX 3090", 4, cpu="Intel Xeon w5-2455X")["limited"]  # 64 lanes / 4 = x16
    assert hg.host_link("RTX 4090", 2, cpu="Intel Core i5-12400")["lanes"] == 8  # 20 lanes / 2 -> x8
    assert hg.host_link("H100 SXM", 8, cpu="Intel Xeon Platinum 8480+") is None  # a module: no PCIe slot
    with pytest.raises(LookupError, match="did you mean Intel Xeon Gold 6133"):
        hg.host_link("L20", 4, cpu="Xeon Gold 6133")


def test_scenario_checks_name_the_host_link():
    checks = hg.evaluate_scenario("company")["checks"]
    assert str(checks.loc[0, "host_link"]).startswith("Intel Xeon Gold 6133: each card at PCIe 3.0 x8")


def test_company_scenario_gets_a_concrete_compromise():
    result = hg.evaluate_scenario("company")
    assert result["today"].builds.empty  # fp16 at 200 users fits no build within 1.5 × the source's price
    compromise = result["compromise"]
    assert compromise is not None and not compromise["plan"].builds.empty
    assert compromise["need"]["inference"]["weights"] in ("fp8", "awq-4bit-g128")
    assert "with" in hg.guide_tables()[5].iloc[-1]["today"]


def test_planner_converts_usd_prices_and_says_so():
    plan = hg.recommend(inference=dict(model="Llama-3.1-8B", weights="fp16"), cards=["RTX 6000 Ada"], gpu_counts=[1],
                        prices=pd.DataFrame([{"gpu": "RTX 6000 Ada", "date": "2026-06-01", "currency": "USD",
                                              "amount": 1000.0, "kind": "street-new"}]))  # fmt: skip
    build = plan.builds.iloc[0]
    assert "USD 1,000 ×" in str(build["price_note"])
    rate, _ = hg.cny_per("USD", hg.checks.date("2026-06-01", "d"))
    assert build["gpu_price"] == pytest.approx(1000 * rate)
    none = hg.recommend(inference=dict(model="Llama-3.1-8B", weights="fp16"), cards=["RTX 6000 Ada"], gpu_counts=[1],
                        convert=False, prices=pd.DataFrame([{"gpu": "RTX 6000 Ada", "date": "2026-06-01",
                                                             "currency": "USD", "amount": 1000.0,
                                                             "kind": "street-new"}]))  # fmt: skip
    assert none.builds.empty and (none.failed["status"] == "no_price").all()


def test_image_need_ranks_builds_by_price_and_checks_the_wait():
    plan = hg.recommend(image=dict(model="SDXL 1.0 base", steps=30, seconds_per_image=10), budget=60_000,
                        gpu_counts=(1, 2))  # fmt: skip
    assert len(plan.builds) > 0
    best = plan.builds.iloc[0]
    run = hg.image_seconds("SDXL 1.0 base", best["gpu"], steps=30)
    assert best["seconds_per_image"] == pytest.approx(run["per_image_s"])
    assert best["images_per_hour"] == pytest.approx(best["gpus"] * 3600 / run["per_image_s"])
    assert (plan.builds["seconds_per_image"] <= 10).all()
    slow = plan.failed[plan.failed["status"] == "too_slow"]
    assert len(slow) and slow["why"].map(str).str.contains("s per image").all()
    with pytest.raises(ValueError, match="multiples of 16"):
        hg.recommend(image=dict(model="sdxl", width=1000))
    with pytest.raises(LookupError, match="image model"):
        hg.recommend(image=dict(model="sdx1"))


def test_experts_in_cpu_memory_get_priced_ram_and_a_platform_that_takes_it():
    need = dict(model="DeepSeek-R1", weights="Q4_K_M", context=8192, cpu_moe="all", engine="llama.cpp")
    plan = hg.recommend(inference=need, cards=["RTX 4090"], gpu_counts=(1,), prices={"RTX 4090": 15000})
    build = plan.builds.iloc[0]
    mem = hg.inference_memory("DeepSeek-R1", weights="Q4_K_M", context=8192, cpu_moe="all", engine="llama.cpp")
    experts_gb = mem.offloaded_gib * 2**30 / 1e9
    # a desktop CPU takes at most 128-192 GB (Intel ARK), so the build moves to a workstation
    assert build["platform"] == "workstation" and build["ram_gb"] >= 64 + experts_gb
    per_gb = hg.catalog.ram_price_per_gb("ddr5-rdimm")["per_gb"]
    assert build["ram_price"] == pytest.approx((build["ram_gb"] - 64) * per_gb)
    system = hg.build_system("RTX 4090", 1, offload_gb=experts_gb, gpu_price=10_000)
    speed = hg.decode_tokens_per_s("DeepSeek-R1", "RTX 4090", weights="Q4_K_M", context=8192, cpu_moe="all",
                                   engine="llama.cpp", ram_gbs=system["ram_gbs"])  # fmt: skip
    assert build["tokens_per_s_per_user"] == pytest.approx(speed)
    assert system["ram_gbs"] == hg.ram_bandwidth_gbs("Intel Xeon w5-2455X")


def test_ram_price_per_gb_uses_the_newest_prices():
    desktop = hg.catalog.ram_price_per_gb("ddr5-udimm")
    assert desktop["currency"] == "CNY" and desktop["date"] == "2026-08" and 50 < desktop["per_gb"] < 150
    server = hg.catalog.ram_price_per_gb("ddr5-rdimm", currency="USD")
    assert server["date"] == "2026-02" and server["per_gb"] == pytest.approx(2200 / 64)  # CFM spot, 64 GB RDIMM
    with pytest.raises(ValueError, match="kind="):
        hg.catalog.ram_price_per_gb("ddr6")


def test_a_budget_is_not_met_by_a_server_whose_platform_has_no_price():
    # eight cheap cards look within budget until the server around them is priced, and the data has no
    # sourced server-platform price: with a budget such builds are refused as "no price", not recommended
    need = dict(model="Qwen2.5-0.5B", weights="fp16", users=1)
    with_budget = hg.recommend(inference=need, budget=200_000, gpu_counts=(8,), cards=["RTX 3070"])
    assert with_budget.builds.empty
    why = with_budget.failed.iloc[0]
    assert why["status"] == "no_price" and why["problems"] == ("no_price",)
    assert "server platform" in str(why["why"]) and "cannot be checked" in str(why["why"])
    without = hg.recommend(inference=need, gpu_counts=(8,), cards=["RTX 3070"])
    assert len(without.builds) == 1 and not without.builds.iloc[0]["platform_priced"]


CJK = re.compile(r"[\u4e00-\u9fff]")


def _english_words(text, *names):
    """The English words left in a Chinese text, once the names of cards, links and models are taken out."""
    for name in names:
        text = text.replace(str(name), "")
    latin = {"GiB", "PCIe", "NVLink", "token", "tokens", "lora", "CUDA", "FlashAttention", "GPU", "PyTorch", "vLLM"}
    return set(re.findall(r"[A-Za-z]{3,}", text)) - latin


def test_planner_statuses_are_codes_and_reasons_read_as_chinese():
    need = dict(model="Llama-3.1-8B", weights="fp16", users=4, tokens_per_s=30)
    plan = hg.recommend(
        inference=need,
        finetune=dict(model="Llama-3.1-8B", method="lora"),
        budget=25_000,
        cards=["RTX 4090", "RTX 3090", "RTX 3060", "RTX 5090", "V100 SXM2 32GB"],
        gpu_counts=(1, 2, 8),
    )
    table = pd.concat([plan.builds, plan.failed])
    assert set(table["status"]) <= set(hg.planner.STATUSES)
    assert {"ok", "does_not_fit", "over_budget", "unsupported"} <= set(table["status"])
    assert all(row.problems[:1] == (row.status,) for row in plan.failed.itertuples())
    for row in table.itertuples():
        english, chinese = row.why.render("en"), row.why.render("zh")
        assert str(row.why) == english and CJK.search(chinese)
        names = (
            row.gpu,
            getattr(row, "link", ""),
            "Llama-3.1-8B",
            "Volta",
            hg.support_of(row.gpu)["why_not"],
            "recommend",
            "allow_unsupported=True",
            "data/support.csv",
        )  # the data's own words stay as they are
        assert not _english_words(chinese, *names), chinese
    best = plan.builds.iloc[0]
    assert f"{best['gpus']} × {best['gpu']} hold" in best["why"].render("en")
    assert "装得下，还余" in best["why"].render("zh") and "元" in best["why"].render("zh")
    over = plan.failed[plan.failed["status"] == "over_budget"].iloc[0]["why"].render("zh")
    assert over.startswith("超出预算：") and over.count("元") == 2 and "CNY" not in over
    with hg.i18n.using("zh"):
        assert "个配置满足需求" in plan._repr_html_() and "说明" in plan._repr_html_()
    with hg.i18n.using("en"):
        assert "builds meet the need" in plan._repr_html_()


def test_build_notes_host_links_and_scenarios_read_as_chinese():
    with hg.i18n.using("zh"):
        notes = str(hg.build_system("RTX 5090", 4)["notes"])
        assert "；" in notes and "家用电路" in notes and "2,400 W" in notes
        link = str(hg.host_link("L20", 4, cpu="Intel Xeon Gold 6133")["note"])
        assert link.startswith("每张卡只有 PCIe 3.0 x8") and "48 条通道" in link
        result = hg.evaluate_scenario("company")
        shown = hg.i18n.labelled(result["checks"])
        assert "主机链路" in shown.columns and CJK.search(str(result["compromise"]["change"]))
        assert all(CJK.search(str(a)) for a in result["assumptions"])
    plan = hg.recommend(inference=dict(model=7), cards=["RTX 4090"], gpu_counts=(1,))
    assert "目录中参数量最接近的稠密模型" in plan.assumptions[0].render("zh")
    with pytest.raises(ValueError) as err:
        hg.recommend()
    assert str(err.value).startswith("no workload") and err.value.args[0].render("zh").startswith("没有给出负载")


LAB = dict(
    inference=dict(model="Llama-3.1-70B", weights="awq-4bit-g128", users=20, context=8192, tokens_per_s=15),
    finetune=dict(model="Qwen3-8B", method="lora"),
    budget=200000,
    currency="CNY",
)


def test_the_china_lab_case_states_export_status_and_never_sells_a_share_of_a_server():
    plan = hg.recommend(**LAB)
    assert len(plan.builds)
    for row in plan.builds.itertuples():
        shown = row.why.render("en")
        assert "export to China:" in shown, shown
        assert row.export in hg.planner.EXPORT
        assert not (hg.value._is_module(row.gpu) and row.gpus % 8), f"{row.gpus} × {row.gpu}"
    l20 = plan.builds.set_index("gpu").loc["L20"]
    assert l20["export"] == "no_licence_needed"  # the China SKU of 2024 (data/export_controls.csv)
    # one module, or two or four, is not something a buyer can buy: only whole 8-GPU servers
    lone = plan.failed[(plan.failed["gpu"] == "H200 SXM") & (plan.failed["gpus"] == 1)].iloc[0]
    assert lone["status"] == "not_buildable" and "8-GPU server board" in lone["why"].render("en")
    said = [a.render("en") for a in plan.assumptions]
    assert any(a.startswith("Engine: vllm") for a in said) and any(a.startswith("KV cache in fp16") for a in said)
    assert any("Memory headroom: 10%" in a for a in said) and any(a.startswith("Market: China") for a in said)


def test_controlled_cards_can_be_left_out_and_say_so():
    plan = hg.recommend(**LAB, allow_controlled=False)
    assert not plan.builds["export"].isin(hg.planner.CONTROLLED).any()
    out = plan.failed[plan.failed["status"] == "export_controlled"]
    assert "RTX 4090" in set(out["gpu"])  # US licence required since 2023-11-17
    assert "allow_controlled=True" in out.iloc[0]["why"].render("en")
    global_plan = hg.recommend(**dict(LAB, currency="USD", budget=30000), market="global")
    assert not any(str(a).startswith("Market: China") for a in global_plan.assumptions)


def test_a_converted_price_ranks_after_local_ones():
    plan = hg.recommend(**LAB)
    flags = list(plan.builds["converted"])
    assert flags == sorted(flags)  # False (priced in CNY) first


def test_a_pre_launch_estimate_no_longer_prices_a_card_on_sale():
    table = hg.catalog.prices()
    estimate = table[(table["gpu"] == "RTX 5090") & (table["kind"] == "estimate-new") & (table["currency"] == "CNY")]
    assert len(estimate) == 1 and float(estimate["amount"].iloc[0]) == 15499  # the January 2025 preview
    kept = hg.value.on_sale_only(table)
    assert not ((kept["gpu"] == "RTX 5090") & (kept["kind"] == "estimate-new")).any()
    ranking = hg.value_ranking("inference", currency="CNY").set_index("gpu")
    assert ranking.loc["RTX 5090", "price"] != 15499 and bool(ranking.loc["RTX 5090", "converted"])


def test_seventy_b_on_a_4090_is_offered_with_partial_offload():
    plan = hg.recommend(inference=dict(model="DeepSeek-R1-Distill-Llama-70B", weights="Q4_K_M"), cards=["RTX 4090"],
                        gpu_counts=(1,), prices={"RTX 4090": 15000})  # fmt: skip
    row = plan.builds.iloc[0]
    layers = hg.model("DeepSeek-R1-Distill-Llama-70B").layers
    assert 30 <= row["gpu_layers"] < layers  # about half of 80 layers fit in 24 GiB with 10% headroom
    memory = hg.inference_memory("DeepSeek-R1-Distill-Llama-70B", weights="Q4_K_M", engine="llama.cpp",
                                 gpu_layers=int(row["gpu_layers"]))  # fmt: skip
    assert memory.fits(hg.gpu("RTX 4090"), headroom=0.1)
    shown = row["why"].render("en")
    assert shown.startswith(f"partial offload: {int(row['gpu_layers'])} of {layers} layers on the GPU")
    assert 0.5 < row["tokens_per_s_per_user"] < 5  # bound by the desktop's dual-channel DDR5
    assert row["ram_gb"] >= 64


def test_pretraining_can_take_several_servers():
    plan = hg.recommend(pretrain=dict(model="Llama-3.1-8B", tokens=1e12, deadline_days=30), cards=["H100 SXM"],
                        prices={"H100 SXM": 337500})  # fmt: skip
    assert {16, 32, 64} <= set(plan.failed["gpus"]) | set(plan.builds["gpus"])
    big = plan.builds.iloc[0]
    assert big["gpus"] == 64 and big["servers"] == 8 and big["days"] <= 30
    assert "InfiniBand NDR" in big["why"].render("en")
    assert any("communication between servers" in str(a) for a in plan.assumptions)


def test_builds_can_be_ranked_by_the_cost_of_a_million_tokens():
    plan = hg.recommend(inference=dict(model="Llama-3.1-8B", weights="Q4_K_M", users=4), budget=40000,
                        rank_by="token_cost")  # fmt: skip
    local = plan.builds[~plan.builds["converted"] & ~plan.builds["stale"]]
    costs = local["owned_per_million"].dropna()
    assert len(costs) > 3 and (costs.diff().dropna() >= 0).all()
    with pytest.raises(ValueError, match="rank_by"):
        hg.recommend(inference=dict(model="Llama-3.1-8B"), rank_by="speed")


def test_a_converted_price_never_prices_a_licence_controlled_card_in_china():
    need = dict(inference=dict(model="Llama-3.1-8B", weights="Q4_K_M"), cards=["RTX 5090"], gpu_counts=(1,))
    china = hg.recommend(**need, currency="CNY")  # no CNY shop price at all (the 5090 D is the China card): US ones
    row = china.failed.iloc[0]
    assert row["status"] == "no_price" and "needs a US licence to reach China" in row["why"].render("en")
    assert not hg.recommend(**need, currency="CNY", market="global").builds.empty


def test_an_older_price_in_the_buyers_currency_prices_a_card_marked_as_old():
    plan = hg.recommend(inference=dict(model="Llama-3.1-8B", weights="Q4_K_M"), cards=["RTX 4090", "RTX 4060 Ti 16GB"],
                        gpu_counts=(1,))  # fmt: skip
    row = plan.builds.set_index("gpu").loc["RTX 4090"]
    assert row["stale"] and not row["converted"] and row["gpu_price"] == 22559  # street-new, 2025-02-01
    assert "older than 12 months: check today's price" in row["why"].render("en")
    assert list(plan.builds["stale"]) == sorted(plan.builds["stale"])  # fresh prices first


def test_a_studio_gets_flux_builds_on_16_gb_cards():
    plan = hg.recommend(image=dict(model="FLUX.1-dev", weights="fp8"), budget=30000, currency="CNY", gpu_counts=(1,))
    sixteen = plan.builds[plan.builds["gpu"].map(lambda g: hg.gpu(g).memory_gib == 16)]
    assert len(sixteen) >= 2  # e.g. RTX 5060 Ti 16GB, RTX 5070 Ti, RTX 5080, with what does not fit in CPU memory
    assert any("offload='auto'" in str(a) for a in plan.assumptions)
    held = hg.recommend(image=dict(model="FLUX.1-dev", weights="fp8", offload="none"), budget=30000, currency="CNY",
                        gpu_counts=(1,))  # fmt: skip
    assert held.builds.empty or (held.builds["gpu"].map(lambda g: hg.gpu(g).memory_gib) > 16).all()
