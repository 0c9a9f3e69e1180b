"""The Chinese accelerators (issue 27): the cards, their software rows, and how the planner treats them."""

import re

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
