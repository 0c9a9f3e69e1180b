"""Calculators: their logic and what their output areas show, without a browser (the exercise checker is
tested in test_exercises.py)."""

import pytest
from ipywidgets import HBox

import hwguide as hg
from hwguide import widgets as w


def _controls(box):
    # a number field sits in a row with its allowed range beside it
    flat = [c.children[0] if isinstance(c, HBox) else c for c in box.children]
    return {c.description: c for c in flat if getattr(c, "description", "")}


def _shown(box):
    """What the calculator's output area shows: one (mime type, content) per output, HTML preferred."""
    out = box.children[-1]
    assert "hwguide-output" in out._dom_classes
    shown = []
    for output in out.outputs:
        assert output["output_type"] == "display_data"
        data = output["data"]
        kind = "text/html" if "text/html" in data else "text/plain"
        shown.append((kind, data[kind]))
    return shown


def test_vram_report_matches_the_package():
    line, frame, *_ = w.vram_report(model="Llama-3.1-8B", weights="fp16", kv="fp16", batch=1, context=4096,
                                engine="transformers", card="RTX 4090")  # fmt: skip
    mem = hg.inference_memory("Llama-3.1-8B", weights="fp16", kv="fp16", batch=1, context=4096, engine="transformers")
    assert frame.iloc[-1]["GiB per GPU"] == round(mem.per_gpu_gib, 2)
    assert "fits on 1 × RTX 4090" in line.data and "does not fit" not in line.data
    with pytest.raises(TypeError):  # keyword-only, with the glossary's names
        w.vram_report("Llama-3.1-8B", "fp16", "fp16", 1, 4096, "transformers", "RTX 4090")


def test_finetune_and_training_reports_give_the_real_verdict():
    line, frame, *_ = w.finetune_report(model="Llama-3.1-8B", method="qlora", rank=16, context=2048, batch=1,
                                    recompute="full", card="RTX 4090")  # fmt: skip
    expected = hg.finetune_memory("Llama-3.1-8B", method="qlora", rank=16, context=2048, recompute="full")
    assert frame.iloc[-1]["GiB per GPU"] == round(expected.per_gpu_gib, 2)
    assert "fits on 1 × RTX 4090" in line.data and "does not fit" not in line.data
    line, *_ = w.finetune_report(model="Llama-2-70B", method="full", rank=16, context=2048, batch=1,
                                recompute="full", card="RTX 4090")  # fmt: skip
    assert "does not fit on 1 × RTX 4090" in line.data
    line, frame, *_ = w.training_report(model="Llama-2-7B", precision="bf16-mixed", optimizer="adamw", context=2048,
                                    batch=1, gpus=8, zero=3, recompute="full", card="A100 SXM4 80GB")  # fmt: skip
    expected = hg.training_memory("Llama-2-7B", precision="bf16-mixed", optimizer="adamw", batch=1, context=2048,
                                  gpus=8, zero=3, recompute="full")  # fmt: skip
    assert frame.iloc[-1]["GiB per GPU"] == round(expected.per_gpu_gib, 2)
    assert "fits on 8 × A100 SXM4 80GB" in line.data and "does not fit" not in line.data
    line, *_ = w.training_report(model="Llama-2-70B", precision="bf16-mixed", optimizer="adamw", context=2048,
                                batch=1, gpus=1, zero=0, recompute="none", card="A100 SXM4 80GB")  # fmt: skip
    assert "does not fit on 1 × A100 SXM4 80GB" in line.data


def test_speed_and_interconnect_reports():
    line, frame, *_ = w.speed_report(model="Llama-2-7B", card="RTX 3090", weights="Q4_0", batch=1, context=128, gpus=1,
                                 engine="llama.cpp")  # fmt: skip
    assert "Fits" in line.data
    assert frame.iloc[0]["value"] == pytest.approx(
        hg.decode_tokens_per_s("Llama-2-7B", "RTX 3090", weights="Q4_0", context=128), abs=1e-3
    )
    too_big = w.speed_report(model="Llama-2-70B", card="RTX 3090", weights="fp16", batch=1, context=128, gpus=1,
                             engine="vllm")  # fmt: skip
    assert "Does not fit" in too_big.data and "tokens/s" not in too_big.data  # a verdict, not a speed
    links, _ = w.interconnect_report(model="Llama-2-7B", gpus=8)
    assert links.iloc[0]["seconds"] <= links.iloc[-1]["seconds"]
    for gpus in (1, 0, 2.5, "8", 10**9):
        with pytest.raises(ValueError, match="gpus"):
            w.interconnect_report(model="Llama-2-7B", gpus=gpus)
    assert w.compare_report(a="RTX 3090", b="RTX 4090").shape[0] > 10


def test_planner_report_and_impossible_need():
    frame, _ = w.planner_report(model="Qwen2.5-14B", weights="Q4_K_M", users=5, tokens_per_s=10, method="qlora",
                             budget=30000, currency="CNY", modded=True)  # fmt: skip
    assert 0 < len(frame) <= 5 and "gpus" in frame.columns
    with pytest.raises(ValueError, match="no build"):
        w.planner_report(model="Llama-3.1-405B", weights="fp16", users=200, tokens_per_s=50, method="full",
                         budget=1000, currency="CNY", modded=False)  # fmt: skip


def test_calculator_output_follows_its_controls():
    box = w.vram_calculator(model="Llama-3.1-8B", card="RTX 4090")
    controls = _controls(box)
    shown = _shown(box)
    mem = hg.inference_memory("Llama-3.1-8B", weights="fp16", context=4096)
    assert shown[0] == ("text/html", w._fit_line(mem, "RTX 4090", 1).data)
    assert f"<b>{mem.per_gpu_gib:.2f} GiB per GPU: fits on 1 × RTX 4090" in shown[0][1]
    assert shown[1][0] == "text/html" and "<table" in shown[1][1]  # the part-by-part table
    controls["Context"].value = 65536  # 8 GiB of KV cache more: no longer fits a 24 GiB card
    mem = hg.inference_memory("Llama-3.1-8B", weights="fp16", context=65536)
    shown = _shown(box)
    assert f"<b>{mem.per_gpu_gib:.2f} GiB per GPU: does not fit on 1 × RTX 4090" in shown[0][1]
    controls["GPUs"].value = 3  # 32 heads do not split evenly over 3: a message, not a traceback
    text = " ".join(content for _, content in _shown(box))
    assert "GiB per GPU" in text or "Check the input" in text
    assert "Traceback" not in text


def test_calculators_show_a_message_not_a_traceback():
    box = w.speed_calculator()
    _controls(box)["GPU"].value = "A10G"  # no sourced Tensor rate: a message
    shown = _shown(box)
    assert [kind for kind, _ in shown] == ["text/html"]
    assert "hwguide-error" in shown[0][1] and "Check the input" in shown[0][1] and "A10G" in shown[0][1]
    assert "Traceback" not in shown[0][1]
    message = w.error_message(ValueError("A10G has no fp16 Tensor rate\nmore"))
    assert "Check the input" in message.data and "more" not in message.data
    box = w.finetune_calculator()
    controls = _controls(box)
    assert {"Context", "Recompute"} <= set(controls) and "Sequence" not in controls
    assert controls["Recompute"].value == "full" and list(controls["Recompute"].options) == [
        "none",
        "selective",
        "full",
    ]
    controls["Method"].value = "lora"
    controls["Recompute"].value = "none"
    expected = hg.finetune_memory("Llama-3.1-8B", method="lora", context=2048, recompute="none")
    assert f"{expected.per_gpu_gib:.2f} GiB per GPU" in _shown(box)[0][1]
    for make in (w.training_calculator, w.roofline_calculator, w.interconnect_calculator, w.compare_calculator,
                 w.planner_calculator):  # fmt: skip
        box = make()
        shown = _shown(box)
        assert shown and not any("hwguide-error" in content for _, content in shown), make.__name__


def test_a_warning_shows_as_a_note_without_a_file_path(recwarn):
    box = w.vram_calculator(model="Llama-2-7B")
    _controls(box)["Context"].value = 8192  # the model's maximum is 4,096 tokens
    shown = _shown(box)
    notes = [content for kind, content in shown if "hwguide-note" in content]
    assert len(notes) == 1 and "context=8,192 exceeds" in notes[0] and "4,096" in notes[0]
    assert ".py" not in notes[0] and "UserWarning" not in notes[0] and "line" not in notes[0]
    assert "GiB per GPU" in shown[1][1]  # the answer still follows the note
    assert not [r for r in recwarn if "exceeds" in str(r.message)]  # nothing leaked to stderr


def test_a_saved_calculator_carries_a_static_view_of_its_result():
    # readers of a saved notebook (GitHub, nbconvert) see the inputs and the result, not a widget repr
    from IPython.core.formatters import DisplayFormatter

    data, _ = DisplayFormatter().format(w.vram_calculator())
    assert "application/vnd.jupyter.widget-view+json" in data  # the live widget stays first
    expected = hg.inference_memory("Llama-3.1-8B", weights="fp16", context=4096).per_gpu_gib
    assert f"{expected:.2f} GiB per GPU" in data["text/html"] and "Context = 4096" in data["text/html"]
    # in a notebook the chart's PNG is inlined too (checked on the committed notebook 01)
    import json
    from pathlib import Path

    saved = json.loads((Path(__file__).parent.parent / "notebooks" / "01_gpu_parameters.ipynb").read_text("utf-8"))
    views = ["".join(o["data"]["text/html"]) for c in saved["cells"] for o in c.get("outputs", [])
             if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]  # fmt: skip
    assert views and all("hwguide-static" in v for v in views)
    assert any("<b>Roofline</b>" in v and "data:image/png;base64," in v for v in views)


def test_calculators_take_experts_in_cpu_memory():
    line, frame, ram, *_ = w.vram_report(model="DeepSeek-R1", weights="Q4_K_M", kv="fp16", batch=1, context=4096,
                                     engine="llama.cpp", card="RTX 4090", cpu_moe="all")  # fmt: skip
    mem = hg.inference_memory("DeepSeek-R1", weights="Q4_K_M", context=4096, engine="llama.cpp", cpu_moe="all")
    assert f"{mem.per_gpu_gib:.2f} GiB per GPU" in line.data and f"{mem.offloaded_gib:.1f} GiB" in ram.data
    line, table, *_ = w.speed_report(model="Qwen3-30B-A3B", card="RTX 4060 Ti 8GB", weights="Q4_K_M", batch=1,
                                 context=2048, gpus=1, engine="llama.cpp", cpu_moe="all", ram_gbs=89.6)  # fmt: skip
    expected = hg.decode_tokens_per_s("Qwen3-30B-A3B", "RTX 4060 Ti 8GB", weights="Q4_K_M", context=2048,
                                      cpu_moe="all", ram_gbs=89.6)  # fmt: skip
    assert table["value"].iloc[0] == pytest.approx(expected, rel=1e-3)
    assert "CPU memory" in line.data


def test_image_report_and_calculator():
    line, frame, *_ = w.image_report(model="SDXL 1.0 base", card="RTX 4090", weights="fp16", text_weights="fp16",
                                 width=1024, height=1024, steps=30, batch=1, engine="diffusers",
                                 offload="none")  # fmt: skip
    run = hg.image_seconds("sdxl", "RTX 4090", steps=30)
    assert f"{run['per_image_s']:.2f} s per image" in line.data and "fits" in line.data
    assert frame["value"].iloc[4] == pytest.approx(run["total_s"], abs=1e-3)
    box = w.image_calculator()
    _controls(box)["Width (px)"].value = 1000  # not a multiple of 16: a message, not a traceback
    shown = _shown(box)
    assert any("multiples of 16" in text for _, text in shown)
    assert not any("Traceback" in text for _, text in shown)


def test_answers_that_used_to_mislead():
    # a zero or negative budget is refused, as the API refuses it, not read as "no budget"
    for budget in (0, -100):
        with pytest.raises(ValueError, match="budget must be"):
            w.planner_report(model="Qwen2.5-14B", weights="Q4_K_M", users=5, tokens_per_s=10, method="none",
                             budget=budget, currency="CNY", modded=True)  # fmt: skip
    # no build: the reasons in words, and the example blames memory when memory is the cause
    with pytest.raises(ValueError) as err:
        w.planner_report(model="Llama-3.1-405B", weights="fp16", users=1, tokens_per_s=0, method="full",
                         budget=1e9, currency="CNY", modded=True)  # fmt: skip
    text = str(err.value)
    assert "{" not in text and "does not fit" in text and "needs" in text
    box = w.roofline_calculator()
    _controls(box)["Cards"].value = ()
    assert "choose at least one GPU" in _shown(box)[0][1]
    _controls(box)["Cards"].value = ("RTX 4090",)
    assert "prefill 2,048 tokens 1,949.9." in _shown(box)[1][1]  # the field named context used to stay unfilled
    across, _ = w.interconnect_report(model="Llama-2-7B", gpus=1024)  # beyond one machine: the network only
    assert list(across["kind"]) == ["network"] and "InfiniBand" in across.iloc[0]["link"]
    box = w.speed_calculator()
    ranges = [c.children[1].value for c in box.children if isinstance(c, HBox)]
    assert any("1 to 4,096; values outside are clamped" in r for r in ranges)


def test_every_calculator_shows_its_working():
    for make in (w.vram_calculator, w.finetune_calculator, w.training_calculator, w.speed_calculator,
                 w.image_calculator, w.roofline_calculator, w.interconnect_calculator,
                 w.planner_calculator):  # fmt: skip
        shown = _shown(make())
        assert any("How this was computed" in text for _, text in shown), make.__name__
    parts = hg.speed.decode_breakdown("Llama-3.1-8B", "RTX 4090", weights="Q4_K_M", engine="llama.cpp")
    assert parts["tokens_per_s"] == pytest.approx(
        hg.decode_tokens_per_s("Llama-3.1-8B", "RTX 4090", weights="Q4_K_M", engine="llama.cpp"))  # fmt: skip
    assert parts["bound"] in ("memory", "overhead", "GPU memory bandwidth", "fixed overheads")  # codes after issue 25
    assert any("GB/s" in str(line) for line in parts["working"])


def test_a_failed_plan_is_explained_from_its_status_codes():
    import pandas as pd

    from hwguide import i18n

    failed = pd.DataFrame({
        "gpu": ["RTX 4090", "H100 SXM", "H100 SXM", "T4"], "gpus": [1, 8, 4, 1],
        "status": ["does_not_fit", "over_budget", "over_budget", "no_price"],
        "why": [i18n.msg("Model"), i18n.msg("over budget"), (i18n.msg("too slow"), i18n.msg("over budget")),
                "no price: no CNY price"],
        "per_gpu_gib": [30.0, 50.0, 60.0, 5.0], "build_price": [1.0, 3.0, 2.0, float("nan")],
    })  # fmt: skip
    assert w._failure_summary(failed) == ("2 over budget, 1 does not fit, 1 no price; for example 8 × H100 SXM: "
                                          "over budget")  # fmt: skip
    with i18n.using("zh"):
        assert w._failure_summary(failed) == "超出预算 2 个、装不下 1 个、无价格 1 个；例如 8 × H100 SXM：超出预算"
    failed["status"] = failed["status"].str.replace("_", " ")  # planner.py's codes before issue 25
    assert w._failure_summary(failed).startswith("2 over budget, 1 does not fit, 1 no price; for example 8 ×")
