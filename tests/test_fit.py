"""Fitting the engines' factors, leaving sources out, and the questions the kit answers with them."""

import dataclasses
import warnings

import fitting
import pytest

import hwguide as hg
from hwguide import fit


@pytest.fixture(scope="module")
def rows():
    usable, _ = fit.speed_rows()
    return usable


def test_sources_group_by_author():
    # one author's repositories are left out together: Qwen2.5's and Qwen3's speed pages share a harness
    assert fit.source_group("https://github.com/QwenLM/Qwen2.5/blob/abc/docs/x.rst") == "github.com/qwen"
    assert fit.source_group("https://github.com/QwenLM/Qwen3/blob/abc/docs/y.md") == "github.com/qwen"
    assert fit.source_group("https://github.com/NVIDIA-NeMo/Megatron-Bridge/x") == "github.com/nvidia"
    assert fit.source_group("https://huggingface.co/docs/transformers/x ; https://other") == "huggingface.co"
    assert fit.source_group("https://huggingface.co/Qwen/Qwen3-8B") == "huggingface.co/qwen"


def test_every_speed_row_is_used_or_says_why(rows):
    table = hg.load_table("measurements")
    speed = table[table["kind"].isin(fit.SPEED_KINDS) & table["excluded_because"].isna()]
    _, skipped = fit.speed_rows()
    assert len(rows) + len(skipped) == len(speed)
    assert len(rows) >= 500 and skipped["reason"].str.len().gt(0).all()


def test_the_fit_recovers_factors_it_made_the_data_with(rows):
    # rows whose "measurements" were computed from known factors: the fit must find them again
    known = {**{f: v[0] for f, v in fit.FACTORS.items()}, "bw_16bit": 0.6, "step_us": 900.0, "prefill_mfu": 0.55}
    sample = [r for r in rows if r.kind != "training_gpu_hours"][::7]
    synthetic = [dataclasses.replace(r, engine="vllm", measured=fit.predict(r, known)) for r in sample]
    fitted = fitting.fit_factors(synthetic)["vllm"]
    errors = sorted(abs(fit.predict(r, fitted) / r.measured - 1) for r in synthetic)
    assert errors[len(errors) // 2] < 0.02
    for factor in ("bw_16bit", "bw_lowbit", "decode_mfu", "prefill_mfu"):  # step_us and layer_us trade off
        assert fitted[factor] == pytest.approx(known[factor], rel=0.05), factor


def test_out_of_sample_estimates_never_see_their_own_source(rows):
    report = fitting.cross_validate(rows)
    assert len(report) == len(rows)
    source = "github.com/mlc-ai/llm-perf-bench"
    held = [r for r in rows if r.source == source]
    without = fitting.fit_factors([r for r in rows if r.source != source])
    for r in held[:5]:
        expected = fit.predict(r, without.get(r.engine, without[""]))
        assert report.set_index("id").loc[r.id, "out_of_sample"] == pytest.approx(expected)
    summary = fit.summary(report).set_index("kind")
    assert {"decode_tps", "prefill_tps", "throughput_tps", "training_tps"} <= set(summary.index)


def test_engines_table_holds_the_factors_the_fit_writes(rows):
    vllm = hg.engine("vllm")
    assert 0 < vllm.bw_16bit <= 1 and vllm.step_us >= 0 and "benchmarks/fit.py" in vllm.fitted
    assert hg.engine("other").fitted.startswith("benchmarks/fit.py")  # the pooled factors
    with pytest.raises(ValueError, match="training"):
        hg.decode_tokens_per_s("Llama-3.1-8B", "H100 SXM", engine="megatron")


def test_transformers_loops_over_every_expert():
    # the same MoE model is much slower per token where the engine runs a Python loop over experts
    eager = hg.decode_tokens_per_s("Qwen3-30B-A3B", "H100 SXM", weights="bf16", engine="transformers")
    fused = hg.decode_tokens_per_s("Qwen3-30B-A3B", "H100 SXM", weights="bf16", engine="vllm")
    assert eager < fused / 5


def test_serving_throughput_is_prefill_plus_decode_steps():
    kw = dict(weights="fp16", engine="vllm")
    total = hg.serving_tokens_per_s("Llama-3.1-8B", "A100 SXM4 80GB", prompt=512, output=128, batch=16, **kw)
    pre = hg.prefill_seconds("Llama-3.1-8B", "A100 SXM4 80GB", 512, batch=16, **kw)
    step = 16 / hg.decode_tokens_per_s("Llama-3.1-8B", "A100 SXM4 80GB", batch=16, context=512 + 64, **kw)
    assert total == pytest.approx(16 * 128 / (pre + 128 * step))


def test_a_speed_answer_says_when_the_workload_does_not_fit():
    too_big = hg.inference_speed("Llama-3.1-70B", "RTX 4090", weights="fp16")
    assert not too_big.fits and too_big.tokens_per_s is None and "GiB per GPU" in str(too_big)
    fits = hg.inference_speed("Llama-3.1-8B", "RTX 4090", weights="Q4_K_M", engine="llama.cpp", batch=2)
    assert fits.fits and fits.tokens_per_s_per_user == pytest.approx(fits.tokens_per_s / 2)


def test_longest_context_and_most_users_are_the_largest_that_fit():
    kw = dict(weights="fp16", engine="vllm")
    longest = hg.max_context("Llama-3.1-8B", "RTX 4090", **kw)
    assert 0 < longest < 131072
    assert hg.inference_memory("Llama-3.1-8B", context=longest, **kw).fits("RTX 4090")
    assert not hg.inference_memory("Llama-3.1-8B", context=longest + 1, **kw).fits("RTX 4090")
    users = hg.max_users("Llama-3.1-8B", "A100 SXM4 80GB", context=4096, **kw)
    assert hg.inference_memory("Llama-3.1-8B", batch=users, context=4096, **kw).fits("A100 SXM4 80GB")
    assert not hg.inference_memory("Llama-3.1-8B", batch=users + 1, context=4096, **kw).fits("A100 SXM4 80GB")
    assert hg.max_users("Llama-3.1-70B", "RTX 4090", **kw) == 0  # the weights alone do not fit
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning, match="exceeds"):
            hg.max_users("Llama-2-7B", "A100 SXM4 80GB", context=8192, **kw)


def test_fp8_checkpoints_keep_embeddings_and_head_in_16_bit():
    # "Only the weights and activations of the linear operators within transformers blocks are quantized"
    m = hg.model("Llama-3.1-8B")
    linear = sum(t.size * t.count for t in hg.tensors(m) if t.kind.startswith(("attn_", "ffn_")))
    rest = hg.param_count(m) - linear
    assert hg.weights_bytes(m, "fp8") == linear + 2 * rest


def test_training_moe_counts_active_experts_and_runs_them_slower():
    # Qwen3-30B-A3B: 30.5B parameters, 3.3B active (model card): 6N counts the active ones
    assert hg.training_flops_per_token("Qwen3-30B-A3B", context=1) < 6 * 3.5e9
    cost = hg.speed.training_cost(hg.model("Qwen3-30B-A3B"), hg.gpu("H100 SXM"), "bf16", 4096, "none")
    factors = {**hg.speed.training_factors(hg.engine("megatron"), "bf16"), "train_moe_eff": 1.0}
    slower = hg.speed.training_token_seconds(cost, {**factors, "train_moe_eff": 0.5})
    assert slower > hg.speed.training_token_seconds(cost, factors)


def test_engines_csv_holds_what_the_fit_gives_today(rows):
    # the factors are fitted, not typed: benchmarks/fit.py on today's rows reproduces data/engines.csv
    fitted = fitting.fit_factors(fit.fit_rows(rows))  # the held-out authors never reach the fit
    table = hg.engines().set_index("engine")
    for name, factors in fitted.items():
        row = table.loc[name or "other"]
        for factor, value in factors.items():
            stored = row[factor]
            if stored == stored:  # not NaN: a factor of this engine's role
                assert stored == pytest.approx(value, rel=0.02, abs=0.05), (name, factor)


def test_an_engine_version_borrows_from_its_family():
    from fitting import _parent

    pairs = [("", "layer_us"), ("transformers", "layer_us"), ("transformers-4.3x", "layer_us")]
    assert _parent(("transformers-4.3x", "layer_us"), pairs) == ("transformers", "layer_us")
    assert _parent(("transformers", "layer_us"), pairs) == ("", "layer_us")
    # the family not fitted (no rows of its own): the pooled factors
    assert _parent(("transformers-4.3x", "layer_us"), pairs[::2]) == ("", "layer_us")
    assert hg.engine("megatron").train_util == hg.engine("nemo").train_util  # no rows: its family's factors


def test_the_fit_frames_have_chinese_labels_for_their_columns_and_codes():
    import re

    from hwguide import i18n

    frame = fit.summary(fit.cross_validation())
    shown = i18n.labelled(frame, "zh")
    assert all(re.search(r"[\u4e00-\u9fff]", str(c)) for c in shown.columns)
    assert all(re.search(r"[\u4e00-\u9fff]", str(v)) for v in shown.iloc[:, 0])
    assert list(frame.columns)[0] == "kind" and set(frame["kind"]) <= set(fit.SPEED_KINDS)  # codes stay codes
    assert i18n.label("(other)", "zh", context="engine") == "（其他）"
