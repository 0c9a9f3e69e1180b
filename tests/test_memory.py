"""The memory math against exact, published figures (formulas, counts, KV cache)."""

import math
import re
import warnings

import pytest

import hwguide as hg
from hwguide.architecture import param_count
from hwguide.memory import (
    activation_bytes,
    finetune_memory,
    inference_memory,
    kv_cache_bytes,
    lora_params,
    training_memory,
    weights_bytes,
)

GIB, MIB = 2**30, 2**20


# Exact counts as Hugging Face reports them (model.num_parameters()).
@pytest.mark.parametrize(
    ("name", "exact"),
    [
        ("Llama-2-7B", 6_738_415_616),
        ("Llama-3.1-8B", 8_030_261_248),
        ("Qwen2.5-7B", 7_615_616_512),
        ("BERT-large", 335_141_888),
        ("DeepSeek-R1-Distill-Llama-8B", 8_030_261_248),  # HF count quoted with the config (models.csv notes)
        ("DeepSeek-R1-Distill-Qwen-32B", 32_763_876_352),
    ],
)
def test_parameter_counts_are_exact(name, exact):
    assert param_count(hg.model(name)) == exact


@pytest.mark.parametrize(
    ("name", "total_b", "active_b", "rel"),
    [
        ("Mixtral-8x7B", 46.7, 12.9, 0.01),  # Mistral AI's announcement
        ("DeepSeek-V3", 671, None, 0.01),  # DeepSeek-V3 README
        ("Qwen3-30B-A3B", 30.5, 3.3, 0.02),  # model card (rounded to 0.1B)
        ("Gemma-2-9B", 9.242164736, None, 0.0001),  # Gemma 2 report, Table 2 (vocab 256,128)
        ("Llama-3.1-405B", 405, None, 0.01),
        ("Qwen2.5-72B", 72.706, None, 0.001),
        ("DeepSeek-R1", 671, 37, 0.016),  # R1 README table: 671B total, 37B activated
        ("Qwen3-235B-A22B", 235, 22, 0.01),  # "a total of 235B parameters with 22B activated ones"
        ("Qwen3-32B", 32.8, None, 0.002),  # model card: "Number of Parameters: 32.8B"
        ("Qwen3-14B", 14.8, None, 0.004),  # model card: 14.8B (rounded to 0.1B)
        ("Qwen3-1.7B", 1.7, None, 0.02),  # Qwen3 technical report, Table 8
        ("Kimi-K2-Instruct", 1000, 32, 0.03),  # "32 billion activated parameters and 1 trillion total"
        ("gpt-oss-120b", 117, None, 0.005),  # OpenAI: "117B parameters with 5.1B active parameters"
        ("gpt-oss-20b", 21, None, 0.005),  # "21B parameters with 3.6B active parameters"
        ("Gemma-3-27B", 27.43240664, None, 1e-9),  # HF / keras-hub: 27,432,406,640 with the SigLIP tower
        ("Phi-4", 14, None, 0.05),  # model card: "14B parameters"
    ],
)
def test_parameter_counts_match_published(name, total_b, active_b, rel):
    m = hg.model(name)
    assert param_count(m) / 1e9 == pytest.approx(total_b, rel=rel)
    if active_b:
        assert param_count(m, active=True) / 1e9 == pytest.approx(active_b, rel=rel)


def test_gpt_oss_active_parameters_leave_out_the_embedding_table():
    # OpenAI's active counts (5.1B, 3.6B) leave out the token embedding (one row is read per
    # token); the kit's active count includes it (201,088 × 2,880 = 0.58B).
    for name, published in (("gpt-oss-120b", 5.1), ("gpt-oss-20b", 3.6)):
        m = hg.model(name)
        embedding = m.vocab_size * m.hidden_size
        assert (param_count(m, active=True) - embedding) / 1e9 == pytest.approx(published, rel=0.01)


def test_deepseek_v3_active_parameters():
    # DeepSeek's README_WEIGHTS gives 36.7B activated (embedding and head included), its paper
    # 37B. The architecture gives 37.55B: 61 layers × 0.58B + 1.85B embedding and head.
    active = param_count(hg.model("DeepSeek-V3"), active=True) / 1e9
    assert active == pytest.approx(37.0, rel=0.016)


def test_lora_trainable_parameters_match_peft():
    # PEFT print_trainable_parameters for meta-llama/Llama-2-7b-hf, r=8, q_proj and v_proj:
    # "trainable params: 4,194,304 || all params: 6,742,609,920"
    m = hg.model("Llama-2-7B")
    trainable = lora_params(m, rank=8, targets=["q_proj", "v_proj"])
    assert trainable == 4_194_304
    assert trainable + param_count(m) == 6_742_609_920
    assert lora_params(m, rank=8, targets="qv") == trainable


def test_kv_cache_llama_7b_is_1024_mib():
    # llama.cpp PR #2325 log: "kv self size = 1024.00 MB" for LLaMA-7B, n_ctx 2048, f16
    assert kv_cache_bytes(hg.model("Llama-2-7B"), 2048, batch=1, kv="fp16") == 1024 * MIB


def test_kv_cache_uses_kv_heads_not_hidden_size():
    # GQA: Llama-3.1-8B caches 8 of 32 heads: 2 × 32 layers × 8 × 128 × 2 bytes = 128 KiB per token
    assert kv_cache_bytes("Llama-3.1-8B", 1) == 128 * 1024
    assert kv_cache_bytes("Llama-2-70B", 1000) == kv_cache_bytes("Llama-2-7B", 1000) * 80 * 8 / (32 * 32)


def test_kv_cache_sliding_window_caps_tokens():
    mistral = hg.model("Mistral-7B")  # 4,096-token window on every layer
    assert kv_cache_bytes(mistral, 32768) == kv_cache_bytes(mistral, 4096)
    gemma = hg.model("Gemma-2-9B")  # window on 21 of 42 layers
    per_token = 2 * 8 * 256 * 2
    assert kv_cache_bytes(gemma, 8192) == per_token * (21 * 8192 + 21 * 4096)


def test_kv_cache_mla_caches_the_latent():
    # DeepSeek-V2/V3: (kv_lora_rank 512 + rope 64) values per token and layer
    assert kv_cache_bytes("DeepSeek-V3", 1, kv="bf16") == 61 * 576 * 2


def test_kv_cache_dtypes():
    m = hg.model("Llama-3.1-8B")
    fp16 = kv_cache_bytes(m, 4096)
    assert kv_cache_bytes(m, 4096, kv="fp8") == fp16 / 2
    assert kv_cache_bytes(m, 4096, kv="q8_0") == fp16 / 2 * 34 / 32
    assert kv_cache_bytes(m, 4096, kv="q4_0") == fp16 / 2 * 18 / 32
    assert kv_cache_bytes(m, 4096, batch=3) == 3 * fp16


@pytest.mark.parametrize(
    ("fmt", "bytes_per_param"), [("fp32", 4), ("fp16", 2), ("bf16", 2), ("int8", 1), ("int4", 0.5)]
)
def test_plain_weight_formats(fmt, bytes_per_param):
    m = hg.model("Llama-2-7B")
    assert weights_bytes(m, fmt) == round(6_738_415_616 * bytes_per_param)


def test_library_formats_count_their_scales():
    m = hg.model("Llama-2-7B")
    linear = param_count(m) - 2 * 32000 * 4096 - (2 * 32 + 1) * 4096  # minus embeddings, head, norms
    rest = (param_count(m) - linear) * 2  # kept in 16-bit
    assert weights_bytes(m, "nf4") == pytest.approx(linear * 4.5 / 8 + rest, rel=1e-9)
    assert weights_bytes(m, "nf4-dq") == pytest.approx(linear * (4 + 8 / 64 + 32 / 16384) / 8 + rest, rel=1e-9)
    awq = weights_bytes(m, "awq-4bit-g128")
    assert awq == pytest.approx(linear * (4 + 20 / 128) / 8 + rest, rel=1e-9)
    assert weights_bytes(m, "gptq-4bit-g128") > awq  # + g_idx
    assert weights_bytes(m, "gptq-8bit-g64") > weights_bytes(m, "gptq-4bit-g64")


def test_training_model_states_are_16_bytes_per_parameter():
    m = hg.model("Llama-2-7B")
    n = param_count(m)
    mem = training_memory(m)
    states = sum(mem.per_gpu[k] for k in ("weights", "gradients", "master_weights", "optimizer_states"))
    assert states == pytest.approx(16 * n, abs=4)  # ZeRO paper §3.1: 2 + 2 + 12
    mem18 = training_memory(m, fp32_grads=True)
    assert sum(mem18.per_gpu[k] for k in ("weights", "gradients", "master_weights", "optimizer_states")) == (
        pytest.approx(18 * n, abs=4)
    )


@pytest.mark.parametrize(
    ("zero", "per_gpu"),
    [
        (0, lambda p, n: 16 * p),
        (1, lambda p, n: 4 * p + 12 * p / n),
        (2, lambda p, n: 2 * p + 14 * p / n),
        (3, lambda p, n: 16 * p / n),
    ],
)
def test_zero_stages_follow_the_zero_paper(zero, per_gpu):
    # Rajbhandari et al. 2020, Figure 1: (2 + 2 + K)Ψ, 2Ψ + 2Ψ + KΨ/N, 2Ψ + (2 + K)Ψ/N, (2 + 2 + K)Ψ/N
    m = hg.model("Llama-2-7B")
    p = param_count(m)
    mem = training_memory(m, gpus=64, zero=zero)
    states = sum(mem.per_gpu[k] for k in ("weights", "gradients", "master_weights", "optimizer_states"))
    assert states == pytest.approx(per_gpu(p, 64), rel=1e-6)


def test_activations_reproduce_korthikanti():
    # Korthikanti et al. 2022, Table 2: s·b·h·(34 + 5·a·s/h) per layer, GPT block with dropout
    m = hg.model("GPT-3-175B")
    s, b, h, a = 2048, 1, 12288, 96
    per_layer = s * b * h * (34 + 5 * a * s / h)
    assert activation_bytes(m, s, batch=b, flash_attention=False) == pytest.approx(96 * per_layer, rel=1e-9)
    # selective recomputation (or flash attention) keeps 34·s·b·h plus the fp32 softmax statistics
    assert activation_bytes(m, s, batch=b, recompute="selective") == pytest.approx(
        96 * (34 * s * h + 4 * a * s), rel=1e-9
    )
    # tensor + sequence parallelism divide by t
    assert activation_bytes(m, s, batch=b, flash_attention=False, tp=8) == pytest.approx(96 * per_layer / 8, rel=1e-9)
    # full recomputation keeps each layer's input (2·s·b·h) and one layer while recomputing
    full = activation_bytes(m, s, batch=b, flash_attention=False, recompute="full")
    assert full == pytest.approx(96 * 2 * s * h + per_layer, rel=1e-9)


def test_lora_keeps_the_activations_and_drops_the_states():
    m = hg.model("Llama-3.1-8B")
    full = finetune_memory(m, method="full")
    lora = finetune_memory(m, method="lora", rank=16)
    assert lora.per_gpu["optimizer_states"] < full.per_gpu["optimizer_states"] / 100
    assert lora.per_gpu["activations"] >= full.per_gpu["activations"]  # activations do not shrink
    qlora = finetune_memory(m, method="qlora")
    assert qlora.per_gpu["weights"] < lora.per_gpu["weights"] / 2.5


def test_inference_parts_add_up_and_split_over_gpus():
    one = inference_memory("Llama-2-70B", batch=4, context=4096)
    two = inference_memory("Llama-2-70B", batch=4, context=4096, gpus=2)
    assert one.total_bytes == sum(one.parts.values()) == one.per_gpu_bytes
    assert two.per_gpu["weights"] == pytest.approx(one.per_gpu["weights"] / 2, abs=1)
    assert two.per_gpu["cuda_context"] == one.per_gpu["cuda_context"]
    assert two.total_bytes > one.total_bytes  # a second CUDA context


def test_memory_result_fits_and_frames():
    mem = inference_memory("Llama-3.1-8B", weights="bf16", context=8192)
    assert mem.fits("RTX 4090") and not mem.fits("RTX 4060 Ti 16GB")
    assert not mem.fits("RTX 4090", headroom=0.5)
    frame = mem.to_frame()
    assert frame["component"].iloc[-1] == "total"
    assert frame["per_gpu_bytes"].iloc[-1] == mem.per_gpu_bytes
    assert "GiB" in mem._repr_html_() and "Assumptions" in mem._repr_html_()
    assert math.isclose(mem.total_gib, mem.total_bytes / GIB)
    with pytest.raises(ValueError, match="gpus=2"):
        mem.fits("RTX 4090", count=2)


# ----- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: inference_memory("Llama-2-7B", batch=0), "batch"),
        (lambda: inference_memory("Llama-2-7B", batch=1.5), "batch"),
        (lambda: inference_memory("Llama-2-7B", context=float("nan")), "context"),
        (lambda: inference_memory("Llama-2-7B", weights="q4km"), "weights"),
        (lambda: inference_memory("Llama-2-7B", kv="fp12"), "kv"),
        (lambda: inference_memory("Llama-2-7B", engine="ollamaa"), "llama.cpp"),
        (lambda: training_memory("Llama-2-7B", zero=4), "zero"),
        (lambda: training_memory("Llama-2-7B", optimizer="adam_w"), "adamw"),
        (lambda: training_memory("Llama-2-7B", precision="fp16-mix"), "fp16-mixed"),
        (lambda: training_memory("Llama-2-7B", gpus=6, tp=4), "multiple"),
        (lambda: finetune_memory("Llama-2-7B", method="dora"), "full, lora, qlora"),
        (lambda: finetune_memory("Llama-2-7B", targets=["q_porj"]), "q_proj"),
        (lambda: kv_cache_bytes("Llama-2-7B", -5), "context"),
    ],
)
def test_bad_input_names_the_argument_and_choices(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_context_beyond_the_maximum_warns_but_answers():
    with pytest.warns(UserWarning, match="exceeds"):
        mem = inference_memory("Llama-2-7B", context=8192)
    assert mem.warnings and mem.per_gpu_bytes > 0


def test_unknown_model_is_a_lookup_error():
    with pytest.raises(LookupError, match="Llama-2-7B"):
        inference_memory("Llama-2-7", context=10)


# New weight formats against published files (data/measurements.csv rows file-58 … file-71).
@pytest.mark.parametrize(
    ("name", "weights", "published", "rel"),
    [
        ("gpt-oss-120b", "mxfp4", 65_248_893_184, 0.002),  # openai/gpt-oss-120b, 15 safetensors shards
        ("Llama-3.1-8B", "IQ4_XS", 4_447_667_616, 0.002),  # bartowski Meta-Llama-3.1-8B-Instruct-IQ4_XS.gguf
        ("Qwen3-30B-A3B", "IQ4_XS", 16_378_073_504, 0.001),  # unsloth Qwen3-30B-A3B-Instruct-2507-IQ4_XS.gguf
        ("Qwen3-30B-A3B", "Q4_K_M", 18_556_689_568, 0.0005),  # unsloth Qwen3-Coder-30B-A3B-Instruct-Q4_K_M.gguf
        ("gpt-oss-20b", "MXFP4_MOE", 12_109_566_624, 0.004),  # ggml-org gpt-oss-20b-MXFP4.gguf
    ],
)
def test_new_formats_match_published_files(name, weights, published, rel):
    size = hg.gguf_file_bytes(name, weights) if hg.is_gguf(weights) else weights_bytes(name, weights)
    assert size == pytest.approx(published, rel=rel)


def test_block_format_bits_come_from_the_format_definitions():
    from hwguide.memory import BLOCK_FORMAT_BITS

    assert BLOCK_FORMAT_BITS["mxfp4"] == 4.25  # 32 FP4 values + one E8M0 byte (OCP MX v1.0)
    assert BLOCK_FORMAT_BITS["nvfp4"] == 4.5  # 16 FP4 values + one E4M3 byte
    # gpt-oss keeps attention, router, embeddings and head in BF16: only the experts are MXFP4
    m = hg.model("gpt-oss-20b")
    types = {t.kind: kind for t, _, kind in hg.memory.tensor_bytes(m, "mxfp4")}
    assert types["expert_up"] == "mxfp4" and types["attn_q"] == "16-bit" and types["embedding"] == "16-bit"


def test_iq_types_need_current_rules():
    with pytest.raises(ValueError, match="2023"):
        hg.gguf_file_bytes("Llama-2-7B", "IQ4_XS", rules="2023")


def test_experts_in_cpu_memory_move_from_the_gpu():
    full = inference_memory("DeepSeek-R1", weights="Q4_K_M", engine="llama.cpp")
    split = inference_memory("DeepSeek-R1", weights="Q4_K_M", engine="llama.cpp", cpu_moe="all")
    tensors = hg.memory.tensor_bytes("DeepSeek-R1", "Q4_K_M")
    experts = sum(size for t, size, _ in tensors if t.kind.startswith("expert_"))
    assert split.offloaded["experts"] == pytest.approx(experts, rel=1e-9)
    assert split.per_gpu_bytes == pytest.approx(full.per_gpu_bytes - experts, rel=1e-9)
    assert 8 < split.per_gpu_gib < 14  # attention, shared experts, KV cache: a 16-24 GB card's worth
    half = inference_memory("Qwen3-30B-A3B", weights="Q4_K_M", engine="llama.cpp", cpu_moe=24)  # 24 of 48 layers
    whole = inference_memory("Qwen3-30B-A3B", weights="Q4_K_M", engine="llama.cpp", cpu_moe="all")
    assert half.offloaded["experts"] == pytest.approx(whole.offloaded["experts"] / 2, rel=1e-9)
    with pytest.raises(ValueError, match="dense model"):
        inference_memory("Llama-3.1-8B", cpu_moe=4)
    with pytest.raises(ValueError, match="cpu_moe"):
        inference_memory("Qwen3-30B-A3B", cpu_moe=-1)


def test_gemma_3_1b_count_is_exact():
    # Hugging Face's API record for google/gemma-3-1b-it: 999,885,952 parameters (QK norms and
    # Gemma's four norms per block included)
    assert param_count(hg.model("Gemma-3-1B")) == 999_885_952


def test_whole_job_counts_one_copy_of_a_sharded_state():
    # ZeRO-3 over 8 GPUs: each GPU holds 1/8 of the weights, the job one copy (2 bytes × 6.74B)
    sharded = hg.training_memory("Llama-2-7B", gpus=8, zero=3, context=2048, recompute="full")
    weights = 2 * hg.param_count("Llama-2-7B")
    assert sharded.parts["weights"] == pytest.approx(weights, rel=1e-6)
    assert sharded.per_gpu["weights"] == pytest.approx(weights / 8, rel=1e-6)
    # without ZeRO every data-parallel GPU holds a full copy
    replicated = hg.training_memory("Llama-2-7B", gpus=8, zero=0, context=2048, recompute="full")
    assert replicated.parts["weights"] == pytest.approx(8 * weights, rel=1e-6)
    many = hg.training_memory("Llama-2-7B", gpus=4096, zero=3, context=2048, recompute="full")
    assert many.parts["optimizer_states"] == pytest.approx(sharded.parts["optimizer_states"], rel=1e-6)


# ----- the reader's language ----------------------------------------------------------------------

CJK = re.compile(r"[\u4e00-\u9fff]")
# English words that stay English in Chinese: names, terms of the trade, the sources' titles
KEEP = {"flash", "attention", "logits", "softmax", "recompute", "Korthikanti", "Dettmers", "Shazeer", "Stern",
        "transformers", "Optimizers", "optimizers", "paged", "DeepSpeed", "Offload", "Infinity", "Adafactor",
        "autocast", "adapter", "dtype", "allocated", "reserved", "latent", "buffer", "eager", "Graph",
        "nvidia", "llama", "micro", "token", "tokens"}  # fmt: skip


def english_left(words: str) -> set[str]:
    """Lower-case English words of five letters or more left in a Chinese rendering (codes and names aside)."""
    # codes, keys, paths, file names and quoted formats go first
    words = re.sub(r"[^\s，；：（）]*[-_=./:][^\s，；：（）]*|'[^']*'", " ", words)
    return {w for w in re.findall(r"[A-Za-z]{5,}", words) if w not in KEEP and not w[0].isupper() or w == "Weights"}


@pytest.mark.parametrize(
    "call",
    [
        lambda: inference_memory("Llama-3.1-8B", weights="Q4_K_M", batch=4, context=8192, engine="llama.cpp"),
        lambda: inference_memory("Llama-3.1-70B", weights="fp8", context=200_000, engine="vllm", gpus=4),
        lambda: inference_memory("DeepSeek-R1", weights="Q4_K_M", engine="llama.cpp", cpu_moe="all"),
        lambda: training_memory("Llama-2-13B", gpus=8, zero=3, offload="optimizer", flash_attention=False),
        lambda: finetune_memory("Qwen2.5-14B", method="qlora"),
        lambda: finetune_memory("Qwen2.5-14B", method="lora", optimizer="adafactor", gpus=2, zero=2),
    ],
)
def test_memory_speaks_chinese_after_setup_and_keeps_its_codes(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = call()
    assert mem.kind in ("inference", "finetune", "training")
    assert all(isinstance(a, hg.i18n.Message) for a in mem.assumptions + mem.warnings)
    for line in mem.assumptions + mem.warnings:
        zh = line.render("zh")
        assert CJK.search(zh) and not english_left(zh), (line.render("en"), zh)
    with hg.i18n.using("zh"):
        shown, html = str(mem), mem._repr_html_()
        frame = hg.i18n.labelled(mem.to_frame())
    assert CJK.search(shown.splitlines()[0]) and "GiB per GPU" not in shown and "memory" not in shown
    assert "Assumptions" not in html and "component" not in html and "share" not in html
    assert "weights" not in shown and "kv_cache" not in html
    assert (frame.iloc[:, 0] != mem.to_frame()["component"]).all()  # every component in the reader's words
    assert list(mem.to_frame()["component"])[:2] in (["weights", "kv_cache"], ["weights", "gradients"])


def test_english_stays_as_it_was():
    mem = inference_memory("Llama-3.1-8B", weights="Q4_K_M", batch=4, context=8192, engine="llama.cpp")
    with hg.i18n.using("en"):
        assert str(mem).splitlines()[:2] == ["inference memory: 8.93 GiB per GPU",
                                             "  weights                    4.300 GiB"]  # fmt: skip
        assert str(mem.assumptions[1]) == ("KV cache: fp16, 4 × 8,192 tokens; "
                                           "2 × 32 layers × 8 KV heads × 128 head dim per token.")  # fmt: skip
        assert "<b>Inference memory: 8.93 GiB per GPU</b>" in mem._repr_html_()


def test_errors_speak_the_readers_language():
    with pytest.raises(ValueError) as err:
        training_memory("Llama-2-7B", gpus=6, tp=4)
    with hg.i18n.using("zh"):  # an error's words are rendered when it is shown, in the language of that moment
        assert CJK.search(str(err.value)) and "gpus=6" in str(err.value)
    assert str(err.value) == "gpus=6 is not a multiple of tp × pp = 4"
    with hg.i18n.using("zh"), pytest.warns(UserWarning) as caught:
        mem = inference_memory("Llama-3.1-8B", context=200_000)
    assert CJK.search(str(caught[0].message)) and mem.warnings[0].render("en").startswith("context=200,000 exceeds")


def test_partial_offload_keeps_the_other_layers_in_cpu_memory():
    """llama.cpp's --n-gpu-layers for a dense model (issue 27): 40 of Llama-3.1-70B's 80 layers on the GPU
    hold about half the weights; the rest, the output layer and their KV cache go to CPU memory."""
    whole = hg.inference_memory("Llama-3.1-70B", weights="Q4_K_M", engine="llama.cpp")
    half = hg.inference_memory("Llama-3.1-70B", weights="Q4_K_M", engine="llama.cpp", gpu_layers=40)
    share = half.per_gpu["weights"] / whole.per_gpu["weights"]
    assert 0.45 < share < 0.5  # half the layers, less the output layer that moved too
    assert half.per_gpu["kv_cache"] == pytest.approx(whole.per_gpu["kv_cache"] / 2, rel=1e-6)
    moved = half.offloaded["layers"] + half.offloaded["kv_cache"] + half.per_gpu["weights"] + half.per_gpu["kv_cache"]
    assert moved == pytest.approx(whole.per_gpu["weights"] + whole.per_gpu["kv_cache"], rel=1e-6)
    assert hg.inference_memory("Llama-3.1-70B", weights="Q4_K_M", engine="llama.cpp", gpu_layers=80) == whole
    with pytest.raises(ValueError, match="gpu_layers"):
        hg.inference_memory("Llama-3.1-70B", weights="Q4_K_M", engine="llama.cpp", gpu_layers=81)


def test_partial_offload_decodes_at_the_system_memory_speed():
    kwargs = dict(weights="Q4_K_M", engine="llama.cpp")
    slow = hg.decode_tokens_per_s("Llama-3.1-70B", "RTX 4090", gpu_layers=40, ram_gbs=89.6, **kwargs)
    bound = 89.6e9 / (hg.weights_bytes("Llama-3.1-70B", "Q4_K_M") / 2)  # reading the CPU half at peak
    assert 0 < slow < bound
    with pytest.raises(ValueError, match="ram_gbs"):
        hg.decode_tokens_per_s("Llama-3.1-70B", "RTX 4090", gpu_layers=40, **kwargs)
