"""Speed models: roofline, decode, prefill, multi-GPU, training time, buy vs rent."""

import math
import re

import pytest

import hwguide as hg
from hwguide.speed import (
    allreduce_seconds,
    arithmetic_intensity,
    break_even_days,
    decode_tokens_per_s,
    default_link,
    peak_flops,
    prefill_seconds,
    roofline,
    training_time,
)


def test_roofline_h100():
    r = roofline("H100 SXM", "bf16")
    assert r["peak_tflops"] == pytest.approx(989.5)
    assert r["ridge_flops_per_byte"] == pytest.approx(989.5e12 / 3350e9)


def test_peak_flops_refuses_missing_figures():
    with pytest.raises(ValueError, match="A10G.*has no fp16"):
        peak_flops("A10G", "fp16")
    with pytest.raises(ValueError, match="fp8"):
        peak_flops("RTX 3090", "fp8")  # Ampere has no FP8
    with pytest.raises(ValueError, match="precision"):
        peak_flops("RTX 3090", "fp12")


def test_decode_is_memory_bound_at_batch_one():
    ai = arithmetic_intensity("Llama-3.1-8B", "decode", batch=1)
    assert ai < 2  # about 1 FLOP per byte, far below any card's ridge
    assert roofline("RTX 4090")["ridge_flops_per_byte"] > 100


def test_decode_scales_with_bandwidth_and_saturates_with_batch():
    a = decode_tokens_per_s("Llama-2-7B", "RTX 3060 12GB", weights="Q4_0")
    b = decode_tokens_per_s("Llama-2-7B", "RTX 4090", weights="Q4_0")
    assert 1.5 < b / a < 1008 / 360 * 1.01  # faster, but the fixed per-token overhead caps the gain
    one = decode_tokens_per_s("Llama-3.1-8B", "A100 SXM4 80GB", weights="bf16", batch=1, engine="vllm")
    many = decode_tokens_per_s("Llama-3.1-8B", "A100 SXM4 80GB", weights="bf16", batch=64, engine="vllm")
    assert many > 20 * one  # batching reuses each weight read
    assert many / 64 < one  # but every user gets fewer tokens/s


def test_moe_reads_only_active_experts_at_batch_one():
    dense_like = decode_tokens_per_s("Mixtral-8x7B", "H100 SXM", weights="fp16", batch=1)
    batched = decode_tokens_per_s("Mixtral-8x7B", "H100 SXM", weights="fp16", batch=64)
    # at batch 1 a token reads ~12.9B of 46.7B parameters; a batch of 64 touches every expert
    assert dense_like > decode_tokens_per_s("Llama-2-70B", "H100 SXM", weights="fp16", batch=1)
    assert batched / 64 < dense_like


def test_tensor_parallel_uses_nvlink_when_the_card_has_it():
    assert default_link("RTX 3090", gpus=2).startswith("RTX 3090 NVLink")
    assert default_link("RTX 4090", gpus=2) == "PCIe 4.0 x16"
    assert default_link("H100 SXM", gpus=8).startswith("NVLink 4")
    slow = allreduce_seconds(1e9, gpus=2, link="PCIe 4.0 x16")
    fast = allreduce_seconds(1e9, gpus=2, link="NVLink 3 (A100 SXM4)")
    latency = hg.engine("vllm").allreduce_latency_us * 1e-6  # fitted; the rest is bytes / link bandwidth
    assert (slow - latency) / (fast - latency) == pytest.approx(300 / 31.51, rel=1e-6)
    assert allreduce_seconds(1e9, gpus=1, link="PCIe 4.0 x16") == 0


def test_prefill_is_compute_bound():
    short = prefill_seconds("Llama-3.1-8B", "RTX 4090", 512, weights="Q4_K_M")
    long = prefill_seconds("Llama-3.1-8B", "RTX 4090", 4096, weights="Q4_K_M")
    assert long > 8 * short  # linear in tokens, plus the quadratic attention


def test_training_flops_follow_palm_appendix_b():
    # 6 × non-embedding parameters + 12 × layers × heads × head_dim × context (PaLM, Appendix B)
    m = hg.model("Llama-2-7B")
    n = hg.param_count(m) - 32000 * 4096
    assert hg.training_flops_per_token(m, context=4096) == pytest.approx(6 * n + 12 * 32 * 32 * 128 * 4096)
    moe = hg.model("Mixtral-8x7B")  # only the 2 routed experts of 8 count
    active = hg.param_count(moe, active=True) - 32000 * 4096
    assert hg.training_flops_per_token(moe, context=1) == pytest.approx(6 * active + 12 * 32 * 32 * 128)


def test_training_time_uses_the_fitted_factors_and_active_parameters():
    # Llama 2 7B: 2T tokens, 184,320 A100-80GB GPU-hours (Meta's model card); the estimate is checked
    # against it out of sample in benchmarks/accuracy.py; here only that the arithmetic holds together.
    result = training_time("Llama-2-7B", "A100 SXM4 80GB", tokens=2e12, gpus=1024, context=4096)
    per_gpu = hg.training_tokens_per_s("Llama-2-7B", "A100 SXM4 80GB", context=4096, gpus=1024)
    goodput = hg.engine("megatron").train_goodput  # a whole run: steps plus the time lost between them
    assert result.gpu_hours == pytest.approx(2e12 / per_gpu / 3600 / goodput)
    assert result.flops == pytest.approx(hg.training_flops_per_token("Llama-2-7B", context=4096) * 2e12)
    assert 0.2 < result.mfu < 0.8
    assert result.energy_kwh == pytest.approx(result.gpu_hours * 0.4)
    assert result.days == pytest.approx(result.gpu_hours / 1024 / 24)
    slower = training_time("Llama-2-7B", "A100 SXM4 80GB", tokens=2e12, gpus=1024, context=4096, recompute="full")
    assert slower.gpu_hours > result.gpu_hours  # the forward pass runs twice
    given = training_time(1e9, "A100 SXM4 80GB", tokens=2e10, mfu=0.4)  # a bare count needs an MFU
    assert given.gpu_hours == pytest.approx(6 * 1e9 * 2e10 / (312e12 * 0.4) / 3600)
    priced = training_time("Qwen2.5-0.5B", "RTX 4090", tokens=2e10, electricity_price=0.6)
    assert priced.electricity_cost == pytest.approx(priced.energy_kwh * 0.6)
    # DeepSeek-V3 trains 37B active parameters of 671B: the FLOPs follow the active ones
    v3 = training_time("DeepSeek-V3", "H800 SXM", tokens=14.8e12, context=4096, precision="fp8")
    assert v3.flops < 6 * 60e9 * 14.8e12


def test_break_even_days_follows_dettmers():
    # purchase / (hourly × 24 × utilisation − kW × 24 × utilisation × price)
    assert break_even_days(
        15000, cloud_hourly=2.0, utilization=0.5, power_w=450, electricity_price=1.0
    ) == pytest.approx(15000 / (24 * 0.5 * (2.0 - 0.45)))
    assert math.isinf(break_even_days(15000, cloud_hourly=0.1, utilization=1.0, power_w=450, electricity_price=1.0))


@pytest.mark.parametrize(
    "call",
    [
        lambda: decode_tokens_per_s("Llama-2-7B", "RTX 4090", batch=0),
        lambda: decode_tokens_per_s("Llama-2-7B", "RTX 4090", interconnect="PCIe 9", gpus=2),
        lambda: training_time("Llama-2-7B", "RTX 4090", tokens=-1),
        lambda: training_time("Llama-2-7B", "RTX 4090", tokens=1e9, mfu=1.5),
        lambda: training_time(0, "RTX 4090", tokens=1e9, mfu=0.4),
        lambda: break_even_days(-1, cloud_hourly=1.0),
        lambda: break_even_days(1000, cloud_hourly=1.0, utilization=0),
    ],
)
def test_bad_speed_input_is_a_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_unknown_gpu_is_a_lookup_error():
    with pytest.raises(LookupError, match="RTX 4090"):
        decode_tokens_per_s("Llama-2-7B", "RTX 4095")


def test_layer_split_pipelines_the_prompt_but_not_decode():
    from hwguide.speed import pipeline_speedup

    # GPipe's bubble (Huang et al. 2019): m micro-batches over p stages take m + p - 1 stage-times
    assert pipeline_speedup(1, 4) == 1
    assert pipeline_speedup(4, 4) == pytest.approx(16 / 7)
    # llama.cpp splits layers across GPUs by default: a token passes them one after another ...
    one = decode_tokens_per_s("Llama-3.1-8B", "RTX 3090", weights="Q4_K_M", engine="llama.cpp")
    two = decode_tokens_per_s("Llama-3.1-8B", "RTX 3090", weights="Q4_K_M", engine="llama.cpp", gpus=2)
    assert two == pytest.approx(one)
    # ... while the 512-token micro-batches of a 2,048-token prompt overlap (n_batch 2048, n_ubatch 512)
    t1 = prefill_seconds("Llama-3.1-8B", "RTX 3090", 2048, weights="Q4_K_M", engine="llama.cpp")
    t2 = prefill_seconds("Llama-3.1-8B", "RTX 3090", 2048, weights="Q4_K_M", engine="llama.cpp", gpus=2)
    assert t1 / t2 == pytest.approx(pipeline_speedup(4, 2))
    # a 512-token prompt is one micro-batch: nothing to overlap
    s1 = prefill_seconds("Llama-3.1-8B", "RTX 3090", 512, weights="Q4_K_M", engine="llama.cpp")
    s2 = prefill_seconds("Llama-3.1-8B", "RTX 3090", 512, weights="Q4_K_M", engine="llama.cpp", gpus=2)
    assert s2 == pytest.approx(s1)
    # vLLM splits every layer instead (tensor parallelism): each GPU reads half the weights
    v2 = decode_tokens_per_s("Llama-3.1-70B", "H100 SXM", weights="bf16", engine="vllm", gpus=2)
    v4 = decode_tokens_per_s("Llama-3.1-70B", "H100 SXM", weights="bf16", engine="vllm", gpus=4)
    assert v4 > 1.3 * v2


def test_experts_in_cpu_memory_are_read_at_system_memory_bandwidth():
    # DDR5-4800 × 12 channels = 460.8 GB/s (data/cpus.csv, AMD EPYC 9654)
    assert hg.ram_bandwidth_gbs("AMD EPYC 9654") == pytest.approx(460.8)
    assert hg.ram_bandwidth_gbs("Intel Xeon Gold 6133", sockets=2) == pytest.approx(2 * 6 * 2666 * 8 / 1000)
    slow = hg.decode_tokens_per_s("DeepSeek-R1", "RTX 4090", weights="Q4_K_M", cpu_moe="all", ram_gbs=100)
    fast = hg.decode_tokens_per_s("DeepSeek-R1", "RTX 4090", weights="Q4_K_M", cpu_moe="all", ram_gbs=400)
    assert 2.5 < fast / slow < 4  # the CPU part dominates: nearly proportional to RAM bandwidth
    on_gpu = hg.decode_tokens_per_s("Qwen3-30B-A3B", "RTX 4090", weights="Q4_K_M")
    split = hg.decode_tokens_per_s("Qwen3-30B-A3B", "RTX 4090", weights="Q4_K_M", cpu_moe=24, ram_gbs=89.6)
    assert split < on_gpu
    with pytest.raises(ValueError, match="ram_gbs"):
        hg.decode_tokens_per_s("Qwen3-30B-A3B", "RTX 4090", weights="Q4_K_M", cpu_moe="all")


# ---- messages: the working and the results render in the reader's language; codes stay codes ----

CJK = re.compile(r"[\u4e00-\u9fff]")
# names, units and acronyms that stay as they are in Chinese text
KEPT = {
    "GB",
    "GFLOP",
    "TFLOPS",
    "KV",
    "GiB",
    "FLOPs",
    "MFU",
    "TDP",
    "PUE",
    "kWh",
    "tokens",
    "token",
    "data",
    "engines",
    "csv",
    "llama",
    "cpp",
    "vllm",
    "transformers",
    "megatron",
    "max",
    "all",
    "reduce",
    "PaLM",
    "NVLink",
    "SXM",
    "RTX",
    "Llama",
    "Qwen",
    "Mixtral",
    "Mistral",
    "GPU",
    "bf16",
    "fp16",
    "recompute",
    "none",
    "card",
    "engine",
    "README",
    "md",
    "cpu_moe",
    "ram_gbs",
    "hg",
    "ram_bandwidth_gbs",
    "cpu",
    "nemo",
    "torchtitan",
    "deepspeed",
    "other",
    "autoawq",
    "sglang",
    "tensorrt",
    "llm",
    "lmdeploy",
    "exllamav2",
    "mlc",
    "A10G",
}


def english_left(text: str) -> set[str]:
    """Words of three or more Latin letters in ``text`` that are not names, units or acronyms."""
    return {w for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", text) if w not in KEPT and w.isalpha()}


def test_decode_working_is_messages_rendered_in_either_language():
    parts = hg.speed.decode_breakdown("Mixtral-8x7B", "H100 SXM", weights="fp16", batch=64, engine="transformers")
    assert parts["bound"] == "overhead" and parts["bound"] in hg.speed.BOUNDS
    english = [line.render("en") for line in parts["working"]]
    assert english[0].startswith("Memory: ") and "256 expert calls" in english[2]
    assert "most of it fixed overheads; 64 sequence(s) ÷ step" in english[-1]
    for line in parts["working"]:
        zh = line.render("zh")
        assert CJK.search(zh) and not english_left(zh), zh
    with hg.i18n.using("zh"):
        assert str(parts["working"][-1]).startswith("每步")
    memory = hg.speed.decode_breakdown("Llama-3.1-8B", "RTX 4090", weights="fp16", context=4096)
    assert memory["bound"] == "memory" and "most of it GPU memory bandwidth" in memory["working"][-1].render("en")
    compute = hg.speed.decode_breakdown("Llama-3.1-8B", "A100 SXM4 80GB", weights="bf16", batch=256, engine="vllm")
    assert compute["bound"] == "compute"
    moved = hg.speed.decode_breakdown("Qwen3-30B-A3B", "RTX 4090", weights="Q4_K_M", cpu_moe=24, ram_gbs=89.6)
    assert moved["bound"] == "cpu" and not english_left(hg.i18n.join(moved["working"], "zh"))
    tp = hg.speed.decode_breakdown("Llama-3.1-70B", "H100 SXM", weights="bf16", engine="vllm", gpus=4)
    assert any("all-reduce" in line.render("zh") for line in tp["working"])


def test_training_time_and_speed_answers_render_in_chinese():
    run = training_time("Qwen2.5-0.5B", "RTX 4090", tokens=2e10, electricity_price=0.6)
    assert str(run).endswith(f"kWh, electricity {run.electricity_cost:,.0f} CNY")  # the figure follows the fit
    zh = run.message().render("zh")
    assert zh.endswith(f"电费 {run.electricity_cost:,.0f} 元") and "卡时" in zh and not english_left(zh)
    for result in (
        run,
        training_time(7e9, "H100 SXM", tokens=2e10),
        training_time(1e9, "A100 SXM4 80GB", tokens=2e10, mfu=0.4),
    ):
        for line in result.assumptions:
            assert line.render("en")[0].isascii() and not english_left(line.render("zh")), line.render("zh")
    too_big = hg.inference_speed("Llama-3.1-70B", "RTX 4090", weights="fp16")
    assert str(too_big).startswith("does not fit: needs 134.9 GiB per GPU")
    assert too_big.message().render("zh").startswith("装不下") and not english_left(too_big.message().render("zh"))
    fits = hg.inference_speed("Llama-3.1-8B", "RTX 4090", weights="Q4_K_M", engine="llama.cpp")
    assert not english_left(fits.message().render("zh"))


def test_bad_input_errors_render_in_chinese():
    for call in (
        lambda: peak_flops("A10G", "fp16"),
        lambda: decode_tokens_per_s("Llama-3.1-8B", "H100 SXM", engine="megatron"),
        lambda: training_time("Llama-2-7B", "RTX 4090", tokens=1e9, engine="vllm"),
        lambda: decode_tokens_per_s("Qwen3-30B-A3B", "RTX 4090", weights="Q4_K_M", cpu_moe="all"),
    ):
        with pytest.raises(ValueError) as err:
            call()
        message = err.value.args[0]
        assert isinstance(message, hg.i18n.Message)
        with hg.i18n.using("zh"):
            assert CJK.search(str(err.value)) and not english_left(str(err.value)), str(err.value)


# (The RTX 5090 D and D v2 were here until their dense rates were derived from NVIDIA's AI TOPS, issue 27.)
@pytest.mark.parametrize("card", ["Apple M3 Ultra 512GB", "Apple M4 Max 128GB", "DGX Spark"])
def test_decode_is_estimated_from_bandwidth_when_the_tensor_rate_is_unpublished(card):
    """Decode of one sequence is bound by memory bandwidth, which the catalog has for these cards; the
    working says the compute part is left out (issue 27)."""
    parts = hg.speed.decode_breakdown("Llama-3.1-8B", card, weights="Q4_K_M", engine="llama.cpp")
    assert parts["tokens_per_s"] > 0 and parts["bound"] in ("memory", "overhead")
    assert "left out" in parts["working"][1].render("en")
    bound = hg.gpu(card).bandwidth_gbs * 1e9 / hg.weights_bytes("Llama-3.1-8B", "Q4_K_M")
    assert parts["tokens_per_s"] < bound  # never faster than reading the weights once per token
    with pytest.raises(ValueError, match="Tensor rate"):
        hg.prefill_seconds("Llama-3.1-8B", card, 2048, weights="Q4_K_M")  # prefill needs the compute rate
