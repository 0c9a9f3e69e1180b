"""The calculators in a real browser: change an input, see the value the package computes."""

from __future__ import annotations

import pytest

import hwguide as hg

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def page(new_page, voila_url, load_app):
    page = new_page(1280, 900)
    load_app(page, voila_url)
    yield page
    page.close()


def _calc(page, name):
    return page.locator(f".hwguide-calc-{name}")


def _field(calc, label):
    return calc.locator(".widget-inline-hbox", has=calc.page.locator("label", has_text=label))


def _set_number(calc, label, value):
    box = _field(calc, label).locator("input")
    box.fill(str(value))
    box.press("Enter")


def _choose(calc, label, value):
    _field(calc, label).locator("select").select_option(value)


def _output(calc):
    return calc.locator(".hwguide-output")


def _expect_text(calc, text, timeout=20_000):
    from playwright.sync_api import expect

    expect(_output(calc)).to_contain_text(text, timeout=timeout)


def test_vram_calculator_follows_context_and_format(page):
    calc = _calc(page, "vram")
    _set_number(calc, "Context", 32768)
    _choose(calc, "Weights", "Q4_K_M")
    expected = hg.inference_memory(
        "Llama-3.1-8B", weights="Q4_K_M", kv="fp16", batch=1, context=32768, engine="transformers"
    ).per_gpu_gib
    _expect_text(calc, f"{expected:.2f} GiB per GPU")
    _choose(calc, "GPU", "RTX 4060 Ti 16GB")
    _expect_text(calc, "on 1 × RTX 4060 Ti 16GB")


def test_finetune_calculator_follows_method_and_gpus(page):
    calc = _calc(page, "finetune")
    _choose(calc, "Method", "lora")
    _set_number(calc, "GPUs", 2)
    mem = hg.finetune_memory("Llama-3.1-8B", method="lora", rank=16, batch=1, context=2048, recompute="full",
                             gpus=2, zero=3)  # fmt: skip
    _expect_text(calc, f"{mem.per_gpu_gib:.2f} GiB per GPU")


def test_training_calculator_follows_zero_stage(page):
    calc = _calc(page, "training")
    _field(calc, "ZeRO stage").locator("select").select_option("1")
    mem = hg.training_memory(
        "Llama-2-7B", precision="bf16-mixed", optimizer="adamw", batch=1, context=2048, gpus=8, zero=1, recompute="full"
    )
    _expect_text(calc, f"{mem.per_gpu_gib:.2f} GiB per GPU")


def test_speed_calculator_follows_gpu(page):
    calc = _calc(page, "speed")
    _choose(calc, "GPU", "RTX 3090")
    tokens = hg.decode_tokens_per_s(
        "Llama-3.1-8B", "RTX 3090", weights="Q4_K_M", batch=1, context=2048, gpus=1, engine="llama.cpp"
    )
    _expect_text(calc, f"{round(tokens, 3):g}")


def test_compare_and_planner_calculators(page):
    calc = _calc(page, "compare")
    _choose(calc, "Card B", "A100 SXM4 80GB")
    _expect_text(calc, "A100 SXM4 80GB")
    planner = _calc(page, "planner")
    _set_number(planner, "Budget", 20000)
    best = hg.widgets.planner_report(
        model="Qwen2.5-14B",
        weights="Q4_K_M",
        users=5,
        tokens_per_s=10,
        method="qlora",
        budget=20000,
        currency="CNY",
        modded=True,
    )[0].iloc[0]["gpu"]
    _expect_text(planner, best)


def test_bad_input_shows_a_message_not_a_traceback(page):
    calc = _calc(page, "speed")
    _choose(calc, "GPU", "A10G")  # its Tensor rate is not published: the speed cannot be computed
    _expect_text(calc, "Check the input")
    text = _output(calc).inner_text()
    assert "Traceback" not in text and "A10G" in text
    _choose(calc, "GPU", "RTX 4090")  # and it recovers
    _expect_text(calc, "decode, all users")


def test_image_calculator_follows_model_and_offload(page):
    calc = _calc(page, "image")
    _choose(calc, "Model", "FLUX.1-dev")
    _choose(calc, "Denoiser", "fp8")
    run = hg.image_seconds("FLUX.1-dev", "RTX 4090", weights="fp8", text_weights="fp16", width=1024, height=1024,
                           steps=30)  # fmt: skip
    _expect_text(calc, f"{run['per_image_s']:.2f} s per image")
    _choose(calc, "Offload", "model")
    _expect_text(calc, "wait in CPU memory")
    calc.screenshot(path="/tmp/image_calculator.png")
