"""The models of 2026: Nemotron-H hybrids (Mamba-2, MLP, MoE and attention blocks of one kind each), vision
towers of multimodal models, Llama 4 and DeepSeek-V3.2's sparse attention. Parameter counts are held to the
published totals and to sums written out by hand from the modeling code named in hwguide/architecture.py."""

import json

import pytest

import hwguide as hg
from hwguide.architecture import param_count, tensors
from hwguide.speed import _flops_per_token

GIB = 2**30


def _vision(m):
    return sum(t.size * t.count for t in tensors(m) if t.kind == "vision")


# ---------------------------------------------------------------------------------------------
# Nemotron-H
# ---------------------------------------------------------------------------------------------


def test_nemotron_h_56b_counts_each_block_kind_by_hand():
    m = hg.model("Nemotron-H-56B")
    assert (m.layers, m.linear_layers, m.mlp_layers, m.attention_layers) == (118, 54, 54, 10)  # NVIDIA: 54/54/10
    h, vocab = 8192, 131072
    heads, head_dim, state, groups, kernel = 256, 64, 256, 8, 4  # mamba_num_heads, mamba_head_dim, ssm_state_size
    inner, conv = heads * head_dim, heads * head_dim + 2 * groups * state
    mamba = h * (2 * inner + 2 * groups * state + heads) + conv * kernel + conv + 3 * heads + inner + inner * h + h
    mlp = 2 * h * 32768 + h  # up, down (squared ReLU, no gate), block norm
    attention = 2 * h * 64 * 128 + 2 * h * 8 * 128 + h  # q, o; k, v (8 KV heads of 128); block norm
    by_hand = 54 * mamba + 54 * mlp + 10 * attention + 2 * vocab * h + h  # untied embeddings, final norm
    assert param_count(m) == by_hand == 56_324_350_464
    assert param_count(m) / 1e9 == pytest.approx(m.params_total_b, rel=0.01)  # the card's "56B"


def test_nemotron_h_caches_keys_on_its_attention_blocks_and_a_state_in_its_mamba_blocks():
    m = hg.model("Nemotron-H-56B")
    # 10 attention blocks × 2 (K, V) × 8 KV heads × 128 × 2 bytes = 40,960 bytes a token
    assert hg.kv_cache_bytes(m, 8192) == 10 * 2 * 8 * 128 * 2 * 8192 == 320 * 2**20
    # per Mamba-2 block: 256 heads × 64 × 256 state + (4 − 1) × (16,384 + 2 × 8 × 256) convolution inputs
    assert m.state_elements() == 54 * (256 * 64 * 256 + 3 * (16384 + 2 * 8 * 256))
    memory = hg.inference_memory(m, weights="fp8", context=8192, batch=2)
    # vLLM keeps a Nemotron-H's recurrent state in fp32 (mamba_ssm_cache_dtype, float32 by default), the
    # convolution window in the kv format (fp16 here)
    recurrent = 54 * 256 * 64 * 256
    assert m.recurrent_state_elements() == recurrent
    assert (
        memory.parts["state"]
        == hg.state_bytes(m, batch=2)
        == 2 * (4 * recurrent + 2 * (m.state_elements() - recurrent))
    )
    bf16 = hg.from_hf_config(dict(m.config, mamba_ssm_cache_dtype="bfloat16"))
    assert hg.state_bytes(bf16) == 2 * m.state_elements()


def test_nemotron_3_nano_matches_the_released_weights():
    m = hg.model("Nemotron-3-Nano-30B-A3B")
    assert (m.layers, m.linear_layers, m.mlp_layers, m.moe_layers, m.attention_layers) == (52, 23, 23, 23, 6)
    assert param_count(m) == 31_577_940_288  # llama.cpp's n_params for the released weights
    assert param_count(m, active=True) / 1e9 == pytest.approx(m.params_active_b, abs=0.1)  # card: 3.5B active
    # one MoE block by hand: router + score bias, 128 experts of up/down 1,856, shared expert of 3,712, norm
    h = 2688
    moe = 128 * h + 128 + 128 * 2 * 1856 * h + 2 * 3712 * h + h
    assert sum(t.size * t.count for t in tensors(m) if t.layer == 1) == moe
    assert hg.kv_cache_bytes(m, 1) == 6 * 2 * 2 * 128 * 2  # 6 attention blocks, 2 KV heads of 128, fp16


def test_nemotron_nano_9b_v2_reconstruction_makes_the_published_count():
    m = hg.model("Nemotron-Nano-9B-v2")
    assert (m.layers, m.linear_layers, m.mlp_layers, m.attention_layers) == (56, 27, 25, 4)
    assert param_count(m) == 8_888_227_328  # HF-computed count
    assert hg.kv_cache_bytes(m, 1) == 4 * 2 * 8 * 128 * 2
    recurrent, conv = 27 * 128 * 80 * 128, 27 * 3 * (128 * 80 + 2 * 8 * 128)
    assert hg.state_bytes(m) == 4 * recurrent + 2 * conv  # fp32 recurrent state (vLLM's default), fp16 window


def test_a_nemotron_h_config_refuses_what_it_cannot_read():
    config = json.loads((hg.data_dir() / "models/nemotron-3-nano-30b-a3b.json").read_text())
    with pytest.raises(ValueError, match="MoE blocks but no routed experts"):
        hg.from_hf_config({k: v for k, v in config.items() if k != "n_routed_experts"})
    with pytest.raises(ValueError, match="must list its blocks"):
        hg.from_hf_config({k: v for k, v in config.items() if k != "hybrid_override_pattern"})
    listed = hg.from_hf_config(
        dict(
            config,
            layers_block_type=[
                "mamba" if c == "M" else "moe" if c == "E" else "attention" for c in config["hybrid_override_pattern"]
            ],
        )
    )
    assert param_count(listed) == param_count(hg.model("Nemotron-3-Nano-30B-A3B"))


def test_a_config_with_infinity_is_read_and_a_size_of_infinity_is_refused(tmp_path):
    path = tmp_path / "config.json"
    path.write_text((hg.data_dir() / "models/nemotron-h-56b-base-8k.json").read_text())
    assert "Infinity" in path.read_text() and hg.from_hf_config(path).layers == 118  # time_step_limit [0.0, Infinity]
    path.write_text(path.read_text().replace('"hidden_size": 8192', '"hidden_size": Infinity'))
    with pytest.raises(ValueError, match="hidden_size must be a whole number"):
        hg.from_hf_config(path)


# ---------------------------------------------------------------------------------------------
# Vision towers
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "published", "text"),
    [
        # keras-hub gemma3_presets.py / HF: the multimodal checkpoints (vocabulary 262,208)
        ("Gemma-3-4B", 4_300_079_472, 3_880_263_168),
        ("Gemma-3-12B", 12_187_325_040, 11_766_034_176),
        ("Gemma-3-27B", 27_432_406_640, 27_009_346_304),
        ("Qwen3-VL-8B", 8_767_123_696, 8_190_735_360),  # HF safetensors total
    ],
)
def test_vision_towers_make_the_published_totals(name, published, text):
    m = hg.model(name)
    assert param_count(m) == published
    assert param_count(m, active=True) == text == published - _vision(m)  # a text token skips the tower


def test_the_siglip_tower_of_gemma_3_by_hand():
    # SigLIP-So400m of 27 blocks, hidden 1,152, MLP 4,304, 14-pixel patches of an 896-pixel image (64² positions)
    h, f = 1152, 4304
    block = 4 * (h * h + h) + 2 * 2 * h + (h * f + f) + (f * h + h)
    tower = 3 * 14 * 14 * h + h + 64 * 64 * h + 27 * block + 2 * h
    assert [t.size for t in tensors("Gemma-3-27B") if t.kind == "vision"] == [tower, h * 5376 + h]


def test_memory_shows_the_vision_weights():
    m = hg.model("Gemma-3-27B")
    memory = hg.inference_memory(m, weights="bf16", context=4096)
    assert memory.parts["weights"] == hg.weights_bytes(m, "bf16") == 2 * 27_432_406_640
    assert any("vision tower" in str(a) for a in memory.assumptions)
    assert not any("vision tower" in str(a) for a in hg.inference_memory("Gemma-3-1B").assumptions)


def test_an_unknown_vision_tower_is_named_not_skipped():
    config = json.loads((hg.data_dir() / "models/qwen3-vl-8b.json").read_text())
    config["vision_config"]["model_type"] = "mystery_vit"
    with pytest.raises(ValueError, match="does not know the vision tower 'mystery_vit'"):
        param_count(hg.from_hf_config(config))


# ---------------------------------------------------------------------------------------------
# Llama 4
# ---------------------------------------------------------------------------------------------


def test_llama_4_scout_text_model_by_hand():
    m = hg.model("Llama-4-Scout")
    h, vocab, expert = 5120, 202048, 8192
    attention = 2 * h * 40 * 128 + 2 * h * 8 * 128
    moe = 16 * h + 16 * 3 * expert * h + 3 * expert * h  # router, 16 SwiGLU experts, the shared expert
    text = 48 * (attention + moe + 2 * h) + 2 * vocab * h + h
    assert param_count(m) - _vision(m) == text == 107_769_861_120
    assert param_count(m) / 1e9 == pytest.approx(m.params_total_b, rel=0.01)  # the card's 109B
    assert param_count(m, active=True) / 1e9 == pytest.approx(m.params_active_b, abs=0.2)  # 17B activated


def test_llama_4_vision_encoder_by_hand_makes_the_hf_totals():
    # NeMo's Llama4ViTModel: 34 blocks of 1,408 (MLP 5,632, biases), 336-pixel images in 14-pixel patches + a class
    # token, pixel-shuffle MLP 5,632 -> 4,096 -> 4,096, projector 4,096 -> 5,120 (no biases)
    h, f = 1408, 5632
    block = 4 * (h * h + h) + (h * f + f) + (f * h + h) + 4 * h
    tower = 3 * 14 * 14 * h + h + (24 * 24 + 1) * h + 4 * h + 34 * block + 5632 * 4096 + 4096 * 4096
    assert _vision(hg.model("Llama-4-Scout")) == tower + 4096 * 5120 == 871_932_416
    assert param_count("Llama-4-Scout") == 108_641_793_536  # HF safetensors total
    assert param_count("Llama-4-Maverick") == 401_583_781_376


def test_llama_4_maverick_alternates_dense_and_moe_layers():
    m = hg.model("Llama-4-Maverick")
    assert (m.moe_layers, m.ffn_size, m.moe_ffn_size, m.shared_experts) == (24, 16384, 8192, 1)
    assert param_count(m) / 1e9 == pytest.approx(m.params_total_b, rel=0.01)  # 400B
    assert param_count(m, active=True) / 1e9 == pytest.approx(m.params_active_b, abs=0.2)  # 17B


def test_llama_4_chunked_layers_cache_at_most_one_chunk():
    m = hg.model("Llama-4-Scout")
    assert (m.sliding_window, m.sliding_window_layers) == (8192, 36)  # every 4th layer is global
    per_token = 2 * 8 * 128 * 2  # K and V, 8 KV heads of 128, fp16
    assert hg.kv_cache_bytes(m, 100_000) == (12 * 100_000 + 36 * 8192) * per_token


# ---------------------------------------------------------------------------------------------
# DeepSeek-V3.2 (DeepSeek sparse attention)
# ---------------------------------------------------------------------------------------------


def test_deepseek_v3_2_is_v3_plus_its_indexers():
    indexer = 64 * 128 * 1536 + 128 * 7168 + 2 * 128 + 64 * 7168  # wq_b, wk, k_norm (LayerNorm), weights_proj
    assert param_count("DeepSeek-V3.2") - param_count("DeepSeek-V3") == 61 * indexer == 851_524_864
    assert param_count("DeepSeek-V3.2") / 1e9 == pytest.approx(hg.model("DeepSeek-V3.2").params_total_b, rel=0.01)


def test_deepseek_v3_2_caches_the_indexer_keys_in_fp8():
    # per token and layer: MLA's 512 + 64 latent values, plus 128 FP8 indexer values and one fp32 scale
    assert hg.kv_cache_bytes("DeepSeek-V3.2", 1) == 61 * (576 * 2 + 128 + 4) == 78_324
    assert hg.kv_cache_bytes("DeepSeek-V3.2", 1, kv="fp8") == 61 * (576 + 132)
    assert hg.kv_cache_bytes("DeepSeek-V3", 1) == 61 * 576 * 2  # V3 has no indexer


def test_deepseek_v3_2_attends_to_2048_tokens():
    m = hg.model("DeepSeek-V3.2")
    # past 2,048 tokens only the indexer's scoring grows: 2 × 61 layers × 64 heads × 128 per extra token
    assert _flops_per_token(m, 200_000) - _flops_per_token(m, 100_000) == 2 * 61 * 64 * 128 * 100_000
    v3 = hg.model("DeepSeek-V3")
    assert _flops_per_token(v3, 200_000) - _flops_per_token(v3, 100_000) == 4 * 61 * 128 * 192 * 100_000


# ---------------------------------------------------------------------------------------------
# Qwen3.5 (Gated DeltaNet hybrids with Qwen3-VL's vision tower)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "published"),
    [("Qwen3.5-27B", 27_356_728_560), ("Qwen3.5-35B-A3B", 35_107_181_936)],  # keras-hub presets
)
def test_qwen3_5_counts_equal_keras_hub(name, published):
    assert param_count(name) == published


def test_qwen3_5_27b_caches_a_quarter_of_its_layers():
    m = hg.model("Qwen3.5-27B")
    assert (m.layers, m.linear_layers, m.attention_layers) == (64, 48, 16)
    assert hg.kv_cache_bytes(m, 1) == 16 * 2 * 4 * 256 * 2  # 4 KV heads of 256, fp16
    # 48 DeltaNet layers: 48 value heads × 128 × 128 and 3 × (2 × 16 × 128 + 48 × 128) convolution inputs
    assert m.state_elements() == 48 * (48 * 128 * 128 + 3 * (2 * 16 * 128 + 48 * 128))
    assert param_count(m, active=True) == 27_356_728_560 - _vision(m)


# ---------------------------------------------------------------------------------------------
# GLM-4.5 (reconstructed configs, held to HF's counts)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "hf_with_mtp", "without"),
    [("GLM-4.5", 358_337_791_296, 352_797_829_024), ("GLM-4.5-Air", 110_468_824_832, 106_852_251_264)],
)
def test_glm_4_5_plus_its_mtp_layer_makes_hf_count(name, hf_with_mtp, without):
    m = hg.model(name)
    h, vocab = m.hidden_size, m.vocab_size
    assert param_count(m) == without
    assert param_count(m) / 1e9 == pytest.approx(m.params_total_b, rel=0.01)  # README: 355B, 106B
    moe_layer = sum(t.size * t.count for t in tensors(m) if t.layer == m.layers - 1)
    # the MTP layer: one more MoE layer, eh_proj (2h -> h), enorm, hnorm and its head's norm, its own
    # embedding and output copies
    assert without + moe_layer + 2 * h * h + 3 * h + 2 * vocab * h == hf_with_mtp


def test_glm_4_5_attention_by_hand():
    m = hg.model("GLM-4.5")
    attention = [t for t in tensors(m) if t.layer == 10 and t.kind.startswith("attn")]
    q, kv = 96 * 128, 8 * 128
    assert sum(t.size for t in attention) == 2 * 5120 * q + 2 * 5120 * kv  # q, o; k, v
    biases_and_norms = [t for t in tensors(m) if t.layer == 10 and t.kind in ("bias", "norm")]
    # q/k/v biases, the router's score bias (160), two RMSNorms of 5,120 and q/k norms of 128
    assert sum(t.size for t in biases_and_norms) == (q + 2 * kv) + 160 + 2 * 5120 + 2 * 128
    assert hg.kv_cache_bytes(m, 1) == 92 * 2 * 8 * 128 * 2
