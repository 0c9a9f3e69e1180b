"""The Chinese app in a real browser: labels, results and messages in Chinese, and still live."""

from __future__ import annotations

import os

import pytest

import hwguide as hg

pytestmark = pytest.mark.e2e


def test_the_chinese_app_reads_and_works_in_chinese(new_page, voila_zh_url, load_app):
    from playwright.sync_api import expect

    page = new_page(1280, 900)
    try:
        load_app(page, voila_zh_url)
        calc = page.locator(".hwguide-calc-vram")
        output = calc.locator(".hwguide-output")
        expect(output).to_contain_text("每卡 17.61 GiB：1 × RTX 4090 装得下", timeout=20_000)  # as nvidia-smi shows it
        expect(calc).to_contain_text("上下文长度")
        box = calc.locator(".widget-inline-hbox", has=page.locator("label", has_text="上下文长度")).locator("input")
        box.fill("65536")
        box.press("Enter")
        gib = hg.inference_memory("Llama-3.1-8B", context=65536).per_gpu_gib
        expect(output).to_contain_text(f"每卡 {gib:.2f} GiB", timeout=20_000)
        box.fill("0")  # clamped to the field's range, which the field states in Chinese
        expect(calc).to_contain_text("超出范围的值按边界值计")
        if os.environ.get("HWGUIDE_SCREENSHOTS"):  # for a person to look at the page
            page.screenshot(path=os.path.join(os.environ["HWGUIDE_SCREENSHOTS"], "voila-zh.png"), full_page=False)
    finally:
        page.close()
