"""Hybrid models (linear-attention layers beside full attention): the KV cache grows on the attention
layers only, and each sequence keeps a fixed state in the linear ones (transformers Qwen3-Next)."""

import json
from pathlib import Path

import pytest

import hwguide as hg
from hwguide.architecture import param_count

ROOT = Path(__file__).resolve().parent.parent
CONFIG = json.loads((ROOT / "data/models/qwen3-next-80b-a3b.json").read_text())
GIB, MIB = 2**30, 2**20


def test_qwen3_next_reads_its_layer_kinds_and_counts_80b():
    m = hg.model("Qwen3-Next-80B-A3B")
    assert (m.layers, m.linear_layers, m.attention_layers) == (48, 36, 12)  # full_attention_interval 4
    assert param_count(m) / 1e9 == pytest.approx(80, rel=0.01)  # 79.67B counted, 80B by name
    # active: 10 routed + 1 shared expert of 512, the attention or DeltaNet layer, both embedding matrices
    assert param_count(m, active=True) / 1e9 == pytest.approx(3.87, abs=0.01)


def test_a_hybrid_keeps_kv_only_on_its_attention_layers():
    # 64 layers, every 4th full attention: 16 layers × 4 KV heads × 256 × 2 (K, V) × 2 bytes × 32,768 tokens
    m = hg.Model.from_hf_config(dict(CONFIG, num_hidden_layers=64, num_key_value_heads=4, num_attention_heads=24))
    assert m.attention_layers == 16
    assert hg.kv_cache_bytes(m, 32768) == 16 * 2 * 4 * 256 * 2 * 32768 == 2 * GIB
    every = hg.Model.from_hf_config({k: v for k, v in CONFIG.items() if k != "full_attention_interval"} |
                                    dict(model_type="llama", num_hidden_layers=64, num_key_value_heads=4,
                                         num_attention_heads=24))  # fmt: skip
    assert hg.kv_cache_bytes(every, 32768) == 8 * GIB  # what the kit said before: 4 × too much


def test_layer_types_say_the_same_as_the_interval():
    kinds = ["linear_attention" if (i + 1) % 4 else "full_attention" for i in range(48)]
    listed = hg.Model.from_hf_config({k: v for k, v in CONFIG.items() if k != "full_attention_interval"}
                                     | dict(layer_types=kinds))  # fmt: skip
    assert listed.linear_layers == 36 and param_count(listed) == param_count(hg.model("Qwen3-Next-80B-A3B"))
    with pytest.raises(ValueError, match="every layer is linear attention"):
        hg.Model.from_hf_config(dict(CONFIG, layer_types=["linear_attention"] * 48))


def test_the_linear_layers_keep_a_fixed_state_per_sequence():
    m = hg.model("Qwen3-Next-80B-A3B")
    # per layer: 32 value heads × 128 × 128 recurrent + (4 − 1) × (2 × 16 × 128 + 32 × 128) convolution window
    per_layer = 32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)
    assert m.state_elements() == 36 * per_layer == 19_759_104
    assert hg.state_bytes(m, batch=4) == 4 * 2 * 19_759_104  # fp16, about 37.7 MiB a sequence
    short, long = (hg.inference_memory(m, weights="fp8", context=c, batch=4) for c in (4096, 32768))
    assert short.parts["state"] == long.parts["state"] == hg.state_bytes(m, batch=4)  # does not grow
    assert long.parts["kv_cache"] == hg.kv_cache_bytes(m, 32768, batch=4) == 3 * GIB
    assert any("Linear-attention state" in str(a) for a in long.assumptions)
    assert hg.state_bytes("Llama-3.1-8B") == 0 and "state" not in hg.inference_memory("Llama-3.1-8B").parts


def test_a_nemotron_h_pattern_is_read_block_by_block():
    # Mamba-2 (M), MLP (-) and attention (*) blocks, one kind each: the KV cache only on the 6 attention blocks
    pattern = "M-M-M-M*-" * 6
    config = dict(CONFIG, model_type="nemotron_h", num_hidden_layers=len(pattern), hybrid_override_pattern=pattern)
    m = hg.Model.from_hf_config(config)
    assert (m.layers, m.linear_layers, m.mlp_layers, m.attention_layers) == (54, 24, 24, 6)
    assert hg.kv_cache_bytes(m, 1000) == 6 * 2 * m.kv_heads * m.head_dim * 2 * 1000
    with pytest.raises(ValueError, match="block list has 54 blocks but num_hidden_layers=48"):
        hg.Model.from_hf_config(dict(config, num_hidden_layers=48))
    with pytest.raises(ValueError, match="hybrid_override_pattern must be a string of the block codes"):
        hg.Model.from_hf_config(dict(config, hybrid_override_pattern="M-X*"))
    with pytest.raises(ValueError, match="no block is an attention block"):
        hg.Model.from_hf_config(dict(config, hybrid_override_pattern="M-" * 27))
