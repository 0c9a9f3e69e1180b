"""Speed models: roofline, decode, prefill, multi-GPU, training time, buy vs rent."""

import math

import pytest

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
    assert slow / fast == pytest.approx(300 / 31.51, rel=1e-6)
    assert allreduce_seconds(1e9, gpus=1, link="PCIe 4.0 x16") == 0


def test_prefill_is_compute_bound():
    short = prefill_seconds("Llama-3.1-8B", "RTX 4090", 512, weights="Q4_K_M")
    long = prefill_seconds("Llama-3.1-8B", "RTX 4090", 4096, weights="Q4_K_M")
    assert long > 8 * short  # linear in tokens, plus the quadratic attention


def test_training_time_llama2_7b():
    # Llama 2 7B: 2T tokens, 184,320 A100-80GB GPU-hours (Meta's model card)
    result = training_time("Llama-2-7B", "A100 SXM4 80GB", tokens=2e12, gpus=1024)
    assert result.gpu_hours == pytest.approx(184_320, rel=0.2)
    assert result.flops == pytest.approx(6 * 6_738_415_616 * 2e12)
    assert result.energy_kwh == pytest.approx(result.gpu_hours * 0.4)
    assert result.days == pytest.approx(result.gpu_hours / 1024 / 24)
    recomputed = training_time(6.7e9, "A100 SXM4 80GB", tokens=2e12, recompute="full")
    assert recomputed.flops == pytest.approx(8 * 6.7e9 * 2e12)
    priced = training_time(1e9, "RTX 4090", tokens=2e10, electricity_price=0.6)
    assert priced.electricity_cost == pytest.approx(priced.energy_kwh * 0.6)


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
        lambda: training_time(0, "RTX 4090", tokens=1e9),
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


def test_speed_accuracy_targets_hold():
    from hwguide.validate import summary, validate

    table = summary(validate(show=False)).set_index(["kind", "method"])
    decode = table.loc[("decode_tps", "hwguide")]
    assert decode["median_abs_err"] <= 0.25 and decode["rank_correlation"] >= 0.9
    assert table.loc[("training_gpu_hours", "hwguide"), "median_abs_err"] <= 0.2
