"""Property tests: no valid input raises, and memory moves the way physics says it must."""

import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hwguide as hg
from hwguide.memory import (
    KV_DTYPES,
    LIBRARY_FORMATS,
    OPTIMIZERS,
    PLAIN_BYTES,
    finetune_memory,
    inference_memory,
    training_memory,
)

MODELS = st.sampled_from(list(hg.models()["name"]))
SMALL = st.sampled_from(
    [
        "Llama-2-7B",
        "Qwen2.5-0.5B",
        "Mixtral-8x7B",
        "Gemma-2-9B",
        "DeepSeek-V3",
        "ChatGLM3-6B",
        "BERT-large",
        "Phi-3-mini",
    ]
)
FORMATS = st.sampled_from([*PLAIN_BYTES, *LIBRARY_FORMATS, "gptq-3bit-g32", "Q4_K_M", "Q8_0", "Q2_K"])
settings.register_profile("kit", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("kit")


@given(
    model=MODELS,
    weights=FORMATS,
    kv=st.sampled_from(list(KV_DTYPES)),
    batch=st.integers(1, 64),
    context=st.integers(1, 300_000),
    gpus=st.sampled_from([1, 2, 4, 8]),
    engine=st.sampled_from(["transformers", "vllm", "llama.cpp"]),
    flash=st.booleans(),
)
def test_inference_never_raises_inside_the_domain(model, weights, kv, batch, context, gpus, engine, flash):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = inference_memory(model, weights=weights, kv=kv, batch=batch, context=context, engine=engine, gpus=gpus,
                               flash_attention=flash)  # fmt: skip
    assert mem.per_gpu_bytes > 0 and all(v >= 0 for v in mem.parts.values())


@given(
    model=SMALL,
    precision=st.sampled_from(["bf16-mixed", "fp16-mixed", "fp32", "bf16"]),
    optimizer=st.sampled_from(list(OPTIMIZERS)),
    batch=st.integers(1, 16),
    seq=st.integers(1, 32768),
    dp=st.sampled_from([1, 2, 8]),
    tp=st.sampled_from([1, 2]),
    pp=st.sampled_from([1, 2]),
    zero=st.integers(0, 3),
    recompute=st.sampled_from(["none", "selective", "full"]),
    offload=st.sampled_from([None, "optimizer", "optimizer+params"]),
)
def test_training_never_raises_inside_the_domain(
    model, precision, optimizer, batch, seq, dp, tp, pp, zero, recompute, offload
):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = training_memory(
            model,
            precision=precision,
            optimizer=optimizer,
            batch=batch,
            context=seq,
            gpus=dp * tp * pp,
            zero=zero,
            tp=tp,
            pp=pp,
            recompute=recompute,
            offload=offload,
        )
    assert mem.per_gpu_bytes > 0 and all(v >= 0 for v in mem.per_gpu.values())


@given(
    model=SMALL,
    method=st.sampled_from(["full", "lora", "qlora"]),
    rank=st.integers(1, 256),
    targets=st.sampled_from(["all-linear", "attention", "qv"]),
    seq=st.integers(1, 16384),
    recompute=st.sampled_from(["none", "selective", "full"]),
)
def test_finetune_never_raises_inside_the_domain(model, method, rank, targets, seq, recompute):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = finetune_memory(model, method=method, rank=rank, targets=targets, context=seq, recompute=recompute)
    assert mem.per_gpu_bytes > 0


@given(model=SMALL, context=st.integers(1, 100_000), extra=st.integers(1, 50_000), batch=st.integers(1, 32))
def test_memory_grows_with_context_and_batch(model, context, extra, batch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        base = inference_memory(model, batch=batch, context=context).per_gpu_bytes
        assert inference_memory(model, batch=batch, context=context + extra).per_gpu_bytes >= base
        assert inference_memory(model, batch=batch + 1, context=context).per_gpu_bytes >= base
        train = training_memory(model, context=context % 8192 + 1, batch=batch).per_gpu_bytes
        assert training_memory(model, context=context % 8192 + 1, batch=batch + 1).per_gpu_bytes > train


@given(model=SMALL)
def test_memory_grows_with_bits(model):
    order = ["Q2_K", "Q3_K_M", "Q4_K_M", "Q5_K_M", "Q6_K", "Q8_0", "fp16", "fp32"]
    sizes = [inference_memory(model, weights=f, context=512).per_gpu_bytes for f in order]
    assert sizes == sorted(sizes)
    plain = [inference_memory(model, weights=f, context=512).per_gpu_bytes for f in ("int4", "int8", "fp16")]
    assert plain == sorted(plain)


@given(model=SMALL, n=st.sampled_from([1, 2, 4, 8, 16]))
def test_zero3_per_gpu_memory_shrinks_with_more_gpus(model, n):
    per = [training_memory(model, gpus=g, zero=3, context=512).per_gpu_bytes for g in (n, 2 * n)]
    assert per[1] < per[0]
