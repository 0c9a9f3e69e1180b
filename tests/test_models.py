"""Model look-ups and Hugging Face config parsing."""

import json

import pytest

import hwguide as hg


@pytest.mark.parametrize(
    "query", ["Llama-3.1-8B", "llama-3.1-8b", "llama 3.1 8b", "meta-llama/Llama-3.1-8B", "LLAMA3.1-8B"]
)
def test_model_lookup(query):
    assert hg.model(query).name == "Llama-3.1-8B"


def test_unknown_model_suggests():
    with pytest.raises(LookupError, match="Llama-3.1-8B"):
        hg.model("Llama-3.1-9B")


def test_models_table_has_the_required_architectures():
    table = hg.models()
    assert len(table) >= 20
    required = [
        "Llama-2-7B",
        "Llama-2-13B",
        "Llama-2-70B",
        "Llama-3.1-8B",
        "Llama-3.1-70B",
        "Llama-3.1-405B",
        "Mistral-7B",
        "Mixtral-8x7B",
        "Qwen2.5-0.5B",
        "Qwen2.5-7B",
        "Qwen2.5-72B",
        "DeepSeek-V3",
        "Gemma-2-9B",
        "Phi-3-mini",
        "GPT-3-175B",
        "ChatGLM3-6B",
        "Yi-34B",
        "BERT-large",
    ]
    assert set(required) <= set(table["name"])
    assert table["layers"].gt(0).all() and table["kv_heads"].gt(0).all()
    assert any(table["name"].str.startswith("Qwen3"))


# Architecture facts, each read from the model's config.json (data/models/) and its model card.
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "Llama-2-7B",
            dict(
                layers=32,
                hidden_size=4096,
                heads=32,
                kv_heads=32,
                attention="MHA",
                ffn_size=11008,
                vocab_size=32000,
                max_context=4096,
            ),
        ),
        ("Llama-2-70B", dict(layers=80, kv_heads=8, attention="GQA", ffn_size=28672)),
        (
            "Llama-3.1-8B",
            dict(
                layers=32,
                kv_heads=8,
                head_dim=128,
                vocab_size=128256,
                max_context=131072,
                tied_embeddings=False,
            ),
        ),
        ("Mistral-7B", dict(kv_heads=8, sliding_window=4096, sliding_window_layers=32)),
        ("Mixtral-8x7B", dict(experts=8, experts_per_token=2, moe_layers=32, ffn_size=14336)),
        ("Qwen2.5-7B", dict(layers=28, kv_heads=4, qkv_bias=True, sliding_window=None)),
        ("Qwen2.5-0.5B", dict(tied_embeddings=True)),
        (
            "Gemma-2-9B",
            dict(layers=42, head_dim=256, sliding_window=4096, sliding_window_layers=21, tied_embeddings=True),
        ),
        (
            "DeepSeek-V3",
            dict(
                attention="MLA",
                kv_lora_rank=512,
                qk_rope_head_dim=64,
                experts=256,
                experts_per_token=8,
                shared_experts=1,
                moe_layers=58,
                layers=61,
            ),
        ),
        ("ChatGLM3-6B", dict(layers=28, kv_heads=2, head_dim=128, ffn_size=13696, vocab_size=65024)),
        (
            "BERT-large",
            dict(
                layers=24,
                hidden_size=1024,
                gated_ffn=False,
                norm="layernorm",
                position_embedding="learned",
                linear_bias=True,
            ),
        ),
        ("GPT-3-175B", dict(layers=96, hidden_size=12288, heads=96, max_context=2048, gated_ffn=False)),
    ],
)
def test_architecture_fields(name, expected):
    record = hg.model(name)
    for field, value in expected.items():
        assert getattr(record, field) == value, field


def test_published_parameter_counts_are_attached():
    assert hg.model("Mixtral-8x7B").params_total_b == pytest.approx(46.7)
    assert hg.model("Mixtral-8x7B").params_active_b == pytest.approx(12.9)
    assert hg.model("DeepSeek-V3").params_total_b == 671
    assert hg.model("DeepSeek-V3").params_active_b == 37


def test_from_hf_config_accepts_path_folder_and_dict(tmp_path):
    config = json.loads((hg.data_dir() / "models" / "llama-3-1-8b.json").read_text())
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    by_dict = hg.Model.from_hf_config(config, name="mine")
    by_folder = hg.from_hf_config(folder)
    by_file = hg.from_hf_config(folder / "config.json")
    assert by_dict.layers == by_folder.layers == by_file.layers == 32
    assert by_folder.name == "my-model"
    assert by_dict == hg.Model.from_hf_config(config, name="mine")


def test_from_hf_config_gpt2_style_keys():
    m = hg.from_hf_config(
        {
            "model_type": "gpt2",
            "n_embd": 768,
            "n_layer": 12,
            "n_head": 12,
            "n_positions": 1024,
            "vocab_size": 50257,
        }
    )
    assert (m.hidden_size, m.layers, m.ffn_size, m.max_context) == (768, 12, 3072, 1024)
    assert m.tied_embeddings and not m.gated_ffn and m.attention == "MHA"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (dict(num_hidden_layers=None), "layer count"),
        (dict(hidden_size=0), r"hidden_size=0 is outside 1\.\.262,144"),
        (dict(num_attention_heads=32.5), "num_attention_heads must be a whole number"),
        (dict(num_key_value_heads=5), "do not divide"),
        (dict(num_hidden_layers=10**7), r"config.json: num_hidden_layers=10000000 is outside 1\.\.1,024"),
        (dict(num_key_value_heads=0), "num_key_value_heads=0"),
        (dict(tie_word_embeddings="no"), "tie_word_embeddings"),
    ],
)
def test_from_hf_config_bad_configs(change, message):
    config = {
        "model_type": "llama",
        "hidden_size": 4096,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "num_key_value_heads": 8,
        "intermediate_size": 14336,
        "vocab_size": 128256,
        "max_position_embeddings": 8192,
    }
    config.update(change)
    config = {k: v for k, v in config.items() if v is not None}
    with pytest.raises(ValueError, match=message):
        hg.from_hf_config(config)


def test_from_hf_config_missing_file(tmp_path):
    with pytest.raises(ValueError, match="no config.json"):
        hg.from_hf_config(tmp_path / "nothing.json")


def test_every_config_parses():
    index = hg.load_table("models")
    for name in index["name"]:
        assert hg.model(name).layers > 0


def test_param_count_and_tensors_take_a_model_or_a_name():
    m = hg.model("Mixtral-8x7B")
    assert hg.param_count("Mixtral-8x7B") == hg.param_count(m) == sum(t.size * t.count for t in hg.tensors(m))
    assert hg.param_count("mixtral 8x7b", active=True) == hg.param_count(m, active=True) < hg.param_count(m)
    assert hg.tensors("Mixtral-8x7B") == hg.tensors(m)
    with pytest.raises(LookupError, match="model"):
        hg.param_count("Mixtral-9x7B")
    with pytest.raises(LookupError, match="model"):
        hg.tensors("no such model")


@pytest.mark.parametrize("active", ["yes", 1, None, "False"])
def test_param_count_active_must_be_a_bool(active):
    with pytest.raises(ValueError, match="active must be True or False"):
        hg.param_count("Llama-2-7B", active=active)


def test_param_count_active_is_keyword_only():
    with pytest.raises(TypeError):
        hg.param_count("Llama-2-7B", True)


def test_gguf_functions_take_weights_and_keyword_rules():
    from hwguide.gguf import gguf_tensor_bytes, gguf_tensor_types

    m = hg.model("Llama-2-7B")
    assert hg.gguf_file_bytes("Llama-2-7B", "Q4_K_M") == hg.gguf_file_bytes(m, "q4_k_m")
    assert hg.gguf_file_bytes(m, "Q4_K_M", rules="2023") == pytest.approx(4_081_004_224, rel=1e-5)
    assert [k for _, k in gguf_tensor_types("Llama-2-7B", "Q8_0")] == [k for _, _, k in gguf_tensor_bytes(m, "Q8_0")]
    with pytest.raises(TypeError):
        hg.gguf_file_bytes(m, "Q4_K_M", "2023")  # rules is keyword-only


@pytest.mark.parametrize(
    ("weights", "rules", "message"),
    [
        ("Q4_K_X", "current", r"weights='Q4_K_X' is not one of: F16.*Did you mean Q4_K_S, Q4_K_M"),
        ("fp16", "current", "Did you mean F16"),
        (4, "current", "weights=4"),
        (None, "current", "weights=None"),
        ("Q4_K_M", "2024", r"rules='2024' is not one of: current, 2023"),
        ("Q4_K_M", None, "rules=None"),
    ],
)
def test_gguf_bad_weights_or_rules(weights, rules, message):
    with pytest.raises(ValueError, match=message):
        hg.gguf_file_bytes("Llama-2-7B", weights, rules=rules)


def test_attention_kind_and_config_errors_speak_the_readers_language():
    kind = hg.model("Llama-3.1-8B").attention_kind
    assert str(kind) == "GQA (8 KV heads)" and hg.model("Llama-3.1-8B").attention == "GQA"
    assert kind.render("zh") == "GQA（8 个 KV 头）"
    assert "滑动窗口" in hg.model("gemma-3-27b").attention_kind.render("zh")
    with pytest.raises(ValueError) as err:
        hg.from_hf_config({"num_hidden_layers": 2})
    assert str(err.value) == "config.json has no hidden size: looked for 'hidden_size', 'n_embd', 'd_model'"
    with hg.i18n.using("zh"):
        assert str(err.value).startswith("config.json 中没有隐藏层维度：")
    with pytest.raises(ValueError) as err:
        hg.from_hf_config({"num_hidden_layers": 2.5})
    with hg.i18n.using("zh"):
        assert "整数" in str(err.value) and "must be" not in str(err.value)
