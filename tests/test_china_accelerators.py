"""The Chinese accelerators (issue 27): the cards, their software rows, and how the planner treats them."""

import re

import pytest

import hwguide as hg

CJK = re.compile(r"[\u4e00-\u9fff]")


# ---------------------------------------------------------------------------------------------
# The planner and the engines a platform runs (data/support.csv, columns vllm and llama_cpp)
# ---------------------------------------------------------------------------------------------


def test_an_engine_that_does_not_run_on_a_platform_is_unsupported_with_the_reason():
    # Cambricon's row says llama.cpp has no backend for it ("no: ..."); a GGUF need is served by llama.cpp
    assert hg.support_of("MLU370-X8")["llama_cpp"].startswith("no")
    plan = hg.recommend(inference=dict(model="Qwen2.5-7B", weights="Q4_K_M"), cards=["MLU370-X8"], gpu_counts=(1, 2))
    assert plan.builds.empty and list(plan.failed["status"]) == ["unsupported", "unsupported"]
    why = plan.failed.iloc[0]["why"]
    assert "llama.cpp does not run on Cambricon MLU" in str(why)
    assert CJK.search(why.render("zh")) and "llama.cpp" in why.render("zh")
    # allowed anyway, it is tried and the assumptions carry a warning
    tried = hg.recommend(inference=dict(model="Qwen2.5-7B", weights="Q4_K_M"), cards=["MLU370-X8"], gpu_counts=(1,),
                         allow_unsupported=True)  # fmt: skip
    assert tried.failed.iloc[0]["status"] != "unsupported"
    assert any("does not run on it" in str(a) for a in tried.assumptions)


def test_words_that_do_not_say_no_leave_the_engine_tried():
    # "not confirmed" (Cambricon and vLLM) and "not stated" (Hygon and llama.cpp) are not a "no"
    assert hg.support_of("MLU370-X8")["vllm"].startswith("not confirmed")
    assert hg.support_of("Hygon BW200")["llama_cpp"].startswith("not stated")
    for card, weights in (("MLU370-X8", "bf16"), ("Hygon BW200", "Q4_K_M")):
        plan = hg.recommend(inference=dict(model="Qwen2.5-7B", weights=weights), cards=[card], gpu_counts=(1,))
        assert plan.failed.iloc[0]["status"] != "unsupported", card


def test_a_plan_whose_every_card_is_left_out_is_empty_not_an_error():
    plan = hg.recommend(inference=dict(model="Qwen2.5-7B"), cards=["Tesla P40"], gpu_counts=(1,))
    assert plan.builds.empty and list(plan.failed["status"]) == ["unsupported"]


# ---------------------------------------------------------------------------------------------
# The cards (data/gpus.csv) and their software rows (data/support.csv)
# ---------------------------------------------------------------------------------------------


def _chinese_cards():
    table = hg.gpus()
    return table[(table["market"] == "china") & (table["vendor"] != "NVIDIA")]


@pytest.mark.parametrize(
    ("typed", "card"),
    [
        ("Ascend 910B", "Ascend 910B"),  # the names lessons and tests use stay resolvable
        ("910B", "Ascend 910B"),
        ("Atlas 800T A2", "Ascend 910B"),
        ("Ascend 910B 376T", "Ascend 910B"),
        ("910B 313T", "Ascend 910B 313T"),
        ("ATLAS_800_A2_280T_64G", "Ascend 910B 280T"),
        ("910C", "Ascend 910C"),
        ("Ascend 910C 560T", "Ascend 910C 560T"),
        ("A350_112G", "Atlas 350 112GB"),
        ("Atlas 350 84G", "Atlas 350 84GB"),
        ("950PR", "Ascend 950PR"),
        ("K100 AI", "Hygon K100 AI"),
        ("K100_AI", "Hygon K100 AI"),
        ("BW200", "Hygon BW200"),
        ("S4000", "MTT S4000"),
        ("曦云C550", "MetaX C550"),
        ("C550", "MetaX C550"),
        ("思元370-X8", "MLU370-X8"),
    ],
)
def test_the_names_buyers_type_resolve(typed, card):
    assert hg.gpu(typed).name == card


def test_at_least_five_chinese_vendors_each_card_with_its_own_support_row():
    cards = _chinese_cards()
    assert set(cards["vendor"]) >= {"Huawei", "Hygon", "Moore Threads", "MetaX", "Cambricon"}
    stacks = {}
    for name, vendor in zip(cards["name"], cards["vendor"]):
        row = hg.support_of(name)
        assert row["vendor"] == vendor and row["sources"] and row["current"], name
        stacks[vendor] = stacks.get(vendor, set()) | {row["stack"]}
    assert stacks == {"Huawei": {"CANN"}, "Hygon": {"DTK"}, "Moore Threads": {"MUSA"}, "MetaX": {"MACA"},
                      "Cambricon": {"Neuware"}}  # fmt: skip
    # every support row of these vendors is used by a card (no row for a stack without a card)
    rows = hg.support()
    used = set(hg.gpus()["support"])
    assert set(rows[rows["vendor"].isin(stacks)]["name"]) <= used


def test_the_figures_are_the_sourced_ones():
    a910b = hg.gpu("Ascend 910B")  # Huawei's msmodeling profile ATLAS_800_A2_376T_64G
    assert (a910b.memory_gib, a910b.bandwidth_gbs, a910b.fp16_tflops, a910b.bf16_tflops) == (64, 1600, 376, 353.9)
    assert a910b.tdp_w == 350 and a910b.support == "Ascend A2/A3" and a910b.vendor == "Huawei"
    # the 910C package is two dies of the 752T profile: BF16 2 x 353.9, not the secondary summaries' 752
    a910c = hg.gpu("Ascend 910C")
    assert a910c.bf16_tflops == pytest.approx(2 * 353.9) and a910c.fp16_tflops == 752
    assert (a910c.memory_gib, a910c.bandwidth_gbs) == (2 * 64, 2 * 1600)
    assert "752" in a910c.notes and "Secondary" not in a910c.sources[0]
    assert hg.gpu("Ascend 910B 313T").bf16_tflops == 294.9 and hg.gpu("Ascend 910B 280T").fp16_tflops == 280
    assert (hg.gpu("Atlas 350 112GB").memory_gib, hg.gpu("Atlas 350 84GB").memory_gib) == (112, 84)
    assert hg.gpu("Atlas 350 112GB").fp4_tflops == 1512 and hg.gpu("Atlas 350 112GB").support == "Ascend 950"
    bw200, k100 = hg.gpu("Hygon BW200"), hg.gpu("Hygon K100 AI")
    assert (bw200.bandwidth_gbs, bw200.fp16_tflops, k100.bandwidth_gbs, k100.fp16_tflops) == (1600, 480, 896, 196)
    s4000 = hg.gpu("MTT S4000")
    assert (s4000.memory_gib, s4000.memory_type, s4000.bus_bits, s4000.bandwidth_gbs) == (48, "GDDR6", 384, 768)
    mlu = hg.gpu("MLU370-X8")
    assert (mlu.memory_gib, mlu.memory_type, mlu.bandwidth_gbs, mlu.tdp_w) == (48, "LPDDR5", 614.4, 250)
    # MetaX's rated 1.8 TB/s is the spec; the 1,495.7 GB/s FlagPerf measured is a measurement, in the notes only
    c550 = hg.gpu("MetaX C550")
    assert c550.bandwidth_gbs == 1800 and "1495.7" in c550.notes and c550.fp16_tflops is None


def test_press_only_rows_say_so_and_every_row_is_dated():
    rates = ["fp16_tflops", "bf16_tflops", "fp8_tflops", "int8_tops", "fp4_tflops"]
    for _, row in _chinese_cards().iterrows():
        assert str(row["checked"]) >= "2026-12-02" and row["sources"], row["name"]
        if row[rates].notna().any():  # a rate says whether it is dense (or that the source does not say)
            assert "dense" in row["notes"].lower(), row["name"]
    for name in ("Ascend 950PR", "Hygon K100 AI", "Hygon BW200", "MTT S4000", "MLU370-X8"):
        assert "Secondary source:" in hg.gpu(name).notes, name


def test_the_cards_left_out_are_left_out():
    names = set(hg.gpus()["name"])
    for typed in ("MetaX C500", "BI-V150", "Kunlun P800", "Ascend 950DT", "Hygon K100"):
        assert typed not in names
    text = (hg.data_dir() / "README.md").read_text(encoding="utf-8")
    for why in ("Ascend 950DT", "MetaX C500", "Iluvatar CoreX BI-V150", "Kunlunxin P800"):
        assert f"| {why}" in text, why


# ---------------------------------------------------------------------------------------------
# The public API on each card: a number or a clear refusal
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("card", list(_chinese_cards()["name"]))
def test_memory_and_decode_give_a_number_or_a_clear_refusal(card):
    mem = hg.inference_memory("Qwen2.5-7B", weights="fp16")
    assert mem.fits(card)  # every card holds 48 GiB or more
    assert hg.decode_tokens_per_s("Qwen2.5-7B", card, weights="fp16", batch=1) > 0  # bound by bandwidth
    g = hg.gpu(card)
    if g.fp16_tflops is None:  # no sourced 16-bit rate: a full batch is refused with the reason
        with pytest.raises(ValueError, match="no fp16 Tensor rate"):
            hg.decode_tokens_per_s("Qwen2.5-7B", card, weights="fp16", batch=32)
    else:
        assert hg.decode_tokens_per_s("Qwen2.5-7B", card, weights="fp16", batch=32) > 0


def test_huawei_modules_are_built_in_a_server_with_their_power():
    build = hg.build_system("Ascend 910B", 1)
    assert build["platform"] == "server" and build["power_w"] == 350 + hg.platform("server")["host_w"]
    assert "baseboard" in str(build["notes"])
    assert hg.build_system("MTT S4000", 2)["platform"] == "desktop"  # a PCIe card
    # no power published for the 910C: the draw stays unknown rather than guessed
    assert hg.build_system("Ascend 910C", 1)["power_w"] != hg.build_system("Ascend 910C", 1)["power_w"]


def test_the_ascend_measurement_is_excluded_and_the_kit_lands_near_it():
    rows = hg.load_table("measurements").set_index("id")
    ours = rows[rows.index.str.startswith("cn-")]
    assert len(ours) >= 10 and ours["excluded_because"].notna().all()
    assert ours["source"].str.startswith("https://").all()
    row = ours.loc["cn-01"]  # ChatGLM3-6B, DeepSpeed ZeRO-3, 8 NPUs of an Atlas 800T A2 (FlagPerf, vendor-run)
    # the run's own layout (args: dp=8;zero=3): the kit counts ZeRO-3's traffic between the 8 NPUs since issue 28
    estimate = hg.training_tokens_per_s("ChatGLM3-6B", "Ascend 910B", context=int(row["context"]), engine="deepspeed",
                                        gpus=8, zero=3)  # fmt: skip
    assert estimate == pytest.approx(row["measured"], rel=0.15)
