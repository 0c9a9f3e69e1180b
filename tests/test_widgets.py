"""Calculators (logic without a browser) and the exercise checker."""

import pytest

import hwguide as hg
from hwguide import exercises
from hwguide import widgets as w


def test_vram_report_matches_the_package():
    line, frame = w.vram_report("Llama-3.1-8B", "fp16", "fp16", 1, 4096, "transformers", "RTX 4090")
    mem = hg.inference_memory("Llama-3.1-8B", "fp16", "fp16", 1, 4096, "transformers")
    assert frame.iloc[-1]["GiB per GPU"] == round(mem.per_gpu_gib, 2)
    assert "fits on 1 × RTX 4090" in line.data


def test_finetune_and_training_reports():
    line, frame = w.finetune_report("Llama-3.1-8B", "qlora", 16, 2048, 1, True, "RTX 4090")
    assert frame.iloc[-1]["GiB per GPU"] == round(
        hg.finetune_memory("Llama-3.1-8B", "qlora", gradient_checkpointing=True).per_gpu_gib, 2
    )
    line, frame = w.training_report("Llama-2-7B", "bf16-mixed", "adamw", 2048, 1, 8, 3, "full", "A100 SXM4 80GB")
    assert "fits" in line.data


def test_speed_and_interconnect_reports():
    frame = w.speed_report("Llama-2-7B", "RTX 3090", "Q4_0", 1, 128, 1, "llama.cpp")
    assert frame.iloc[0]["value"] == pytest.approx(
        hg.decode_tokens_per_s("Llama-2-7B", "RTX 3090", "Q4_0", context=128), abs=1e-3
    )
    links = w.interconnect_report("Llama-2-7B", 8)
    assert links.iloc[0]["seconds"] <= links.iloc[-1]["seconds"]
    assert w.compare_report("RTX 3090", "RTX 4090").shape[0] > 10


def test_planner_report_and_impossible_need():
    frame = w.planner_report("Qwen2.5-14B", "Q4_K_M", 5, 10, "qlora", 30000, "CNY", True)
    assert 0 < len(frame) <= 5
    with pytest.raises(ValueError, match="no build"):
        w.planner_report("Llama-3.1-405B", "fp16", 200, 50, "full", 1000, "CNY", False)


def test_calculators_show_a_message_not_a_traceback(capsys):
    box = w.vram_calculator()
    controls = {c.description: c for c in box.children if hasattr(c, "description")}
    controls["Context"].value = 8192  # a valid change: no error
    controls["GPUs"].value = 3  # 32 heads do not split evenly: still an answer
    box = w.speed_calculator()
    controls = {c.description: c for c in box.children if hasattr(c, "description")}
    controls["GPU"].value = "A10G"  # no sourced Tensor rate: a message
    message = w.error_message(ValueError("A10G has no fp16 Tensor rate\nmore"))
    assert "Check the input" in message.data and "more" not in message.data
    for make in (
        w.finetune_calculator,
        w.training_calculator,
        w.roofline_calculator,
        w.interconnect_calculator,
        w.compare_calculator,
        w.planner_calculator,
    ):
        assert make().children


def test_every_exercise_accepts_its_own_answer_and_rejects_a_wrong_one():
    for exercise_id in exercises.EXERCISES:
        expected = exercises.answer(exercise_id)
        assert exercises.check(exercise_id, expected, show=False), exercise_id
        wrong = "RTX 2080" if isinstance(expected, str) else expected * 1.5 + 1
        assert not exercises.check(exercise_id, wrong, show=False), exercise_id


def test_exercise_names_accept_aliases_and_unknown_ids_suggest():
    assert exercises.check("02.2", "a100-sxm4-80gb", show=False)
    with pytest.raises(LookupError, match="03.1"):
        exercises.check("03.10", 1)
