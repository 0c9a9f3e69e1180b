"""Malformed input files: a config.json or a CSV that breaks its rules fails at once, naming the file.

The contract (docs/api.md): a malformed ``config.json`` raises ValueError and a malformed CSV
raises :class:`hwguide.DataError` (a ValueError), each naming the file (and the key, or the row
and column), never another exception and never a hang.
"""

import csv
import io
import json

import pytest

import hwguide as hg
from hwguide.architecture import CONFIG_LIMITS, param_count

LLAMA = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
}
MIXTRAL = {**LLAMA, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2}
DEEPSEEK = {
    **LLAMA,
    "model_type": "deepseek_v3",
    "n_routed_experts": 64,
    "num_experts_per_tok": 6,
    "n_shared_experts": 1,
    "moe_intermediate_size": 1408,
    "first_k_dense_replace": 1,
    "moe_layer_freq": 1,
    "kv_lora_rank": 512,
    "q_lora_rank": 1536,
    "qk_rope_head_dim": 64,
    "qk_nope_head_dim": 128,
    "v_head_dim": 128,
}
QWEN_MOE = {**LLAMA, "model_type": "qwen2_moe", "num_experts": 60, "num_experts_per_tok": 4, "mlp_only_layers": []}


def _refused(config, *fragments, **keywords):
    """from_hf_config(config) raises ValueError without hanging, its message holding every fragment."""
    with pytest.raises(ValueError) as caught:
        param_count(hg.from_hf_config(config, **keywords))  # the count too: the parser refuses before it
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


def _write(tmp_path, config):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# config.json: the file itself
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[]", "must hold a JSON object"),
        ("[1, 2, 3]", "must hold a JSON object"),
        ("42", "must hold a JSON object"),
        ('"llama"', "must hold a JSON object"),
        ("null", "must hold a JSON object"),
        ("", "not valid JSON"),
        ("{,}", "not valid JSON"),
        ('{"num_hidden_layers": 32', "not valid JSON"),
        ('{"num_hidden_layers": NaN}', "num_hidden_layers must be a whole number"),  # JSON as Python writes it,
        ('{"num_hidden_layers": Infinity}', "num_hidden_layers must be a whole number"),  # refused where read
        ('{"vocab_size": ' + "9" * 5000 + "}", "not valid JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"a": ' * 100_000 + "1" + "}" * 100_000, "nested too deeply"),
    ],
)
def test_malformed_json_names_the_file(tmp_path, text, fragment):
    path = tmp_path / "config.json"
    path.write_text(text, encoding="utf-8")
    _refused(path, str(path), fragment)


def test_non_utf8_config_names_the_file(tmp_path):
    path = tmp_path / "config.json"
    path.write_bytes('{"_name_or_path": "caf\xe9"}'.encode("latin-1"))
    _refused(path, str(path), "not UTF-8")


def test_utf8_with_bom_is_read(tmp_path):
    path = tmp_path / "config.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(LLAMA).encode())
    assert hg.from_hf_config(path).layers == 32


def test_missing_paths_and_folders(tmp_path):
    _refused(tmp_path, str(tmp_path), "holds no config.json")  # a folder without config.json
    _refused(tmp_path / "nothing.json", "nothing.json", "no such file")
    _refused(str(tmp_path / "missing" / "config.json"), "no such file")
    (tmp_path / "config.json").mkdir()  # a folder named config.json
    _refused(tmp_path, "config.json")
    _refused("x" * 5000, "cannot read")  # a name too long for the file system


@pytest.mark.parametrize("config", [None, 5, 3.5, b"config.json", ["config.json"], ("a", 1), "", "   "])
def test_config_must_be_a_path_or_a_dict(config):
    _refused(config, "config")


@pytest.mark.parametrize(
    ("keyword", "fragment"),
    [
        (dict(params_total_b=-1), "params_total_b"),
        (dict(params_total_b=0), "params_total_b"),
        (dict(params_total_b=float("nan")), "params_total_b"),
        (dict(params_total_b=float("inf")), "params_total_b"),
        (dict(params_total_b="7"), "params_total_b"),
        (dict(params_total_b=True), "params_total_b"),
        (dict(params_active_b=-0.5), "params_active_b"),
        (dict(params_active_b=10**400), "params_active_b"),
        (dict(params_total_b=7, params_active_b=8), "params_active_b"),
        (dict(name=5), "name"),
        (dict(name=""), "name"),
        (dict(source=["hf"]), "source"),
    ],
)
def test_keyword_arguments_are_checked(keyword, fragment):
    _refused(LLAMA, fragment, **keyword)


def test_keyword_arguments_are_attached():
    m = hg.from_hf_config(MIXTRAL, name="mine", params_total_b=46.7, params_active_b=12.9, source="card")
    assert (m.name, m.params_total_b, m.params_active_b, m.source) == ("mine", 46.7, 12.9, "card")


# ---------------------------------------------------------------------------------------------
# config.json: the values, each bounded by CONFIG_LIMITS
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "change", "fragments"),
    [
        (LLAMA, dict(num_hidden_layers=10**7), ["num_hidden_layers=10000000 is outside 1..1,024"]),
        (LLAMA, dict(num_hidden_layers=0), ["num_hidden_layers=0", "1..1,024"]),
        (LLAMA, dict(num_hidden_layers=32.5), ["num_hidden_layers must be a whole number"]),
        (LLAMA, dict(num_hidden_layers=True), ["num_hidden_layers", "True"]),
        (LLAMA, dict(num_hidden_layers="32"), ["num_hidden_layers", "'32'"]),
        (LLAMA, dict(num_hidden_layers=[32]), ["num_hidden_layers"]),
        (LLAMA, dict(num_hidden_layers=None), ["layer count", "num_hidden_layers"]),
        (LLAMA, dict(hidden_size=10**6), ["hidden_size=1000000", "262,144"]),
        (LLAMA, dict(hidden_size=-4096), ["hidden_size=-4096"]),
        (LLAMA, dict(hidden_size=16), ["hidden_size=16", "num_attention_heads=32"]),
        (LLAMA, dict(num_attention_heads=4096), ["num_attention_heads=4096", "1,024"]),
        (LLAMA, dict(num_key_value_heads=0), ["num_key_value_heads=0", "1..32"]),
        (LLAMA, dict(num_key_value_heads=64), ["num_key_value_heads=64", "1..32"]),
        (LLAMA, dict(num_key_value_heads=5), ["do not divide"]),
        (LLAMA, dict(head_dim=10_000), ["head_dim=10000", "4,096"]),
        (LLAMA, dict(intermediate_size=0), ["intermediate_size=0"]),
        (LLAMA, dict(intermediate_size=float("nan")), ["intermediate_size", "nan"]),
        (LLAMA, dict(vocab_size=10**9), ["vocab_size=1000000000", "4,194,304"]),
        (LLAMA, dict(vocab_size=10**400), ["vocab_size", "400 digits"]),
        (LLAMA, dict(max_position_embeddings=2**40), ["max_position_embeddings", "2,147,483,648"]),
        (LLAMA, dict(max_position_embeddings=-1), ["max_position_embeddings=-1"]),
        (LLAMA, dict(sliding_window=0), ["sliding_window=0"]),
        (LLAMA, dict(sliding_window="4096"), ["sliding_window"]),
        (LLAMA, dict(use_sliding_window="yes", sliding_window=4096), ["use_sliding_window", "'yes'"]),
        (LLAMA, dict(sliding_window=4096, use_sliding_window=True, max_window_layers="x"), ["max_window_layers"]),
        (LLAMA, dict(sliding_window=4096, layer_types=["sliding_attention"]), ["layer_types", "32"]),
        (LLAMA, dict(tie_word_embeddings="no"), ["tie_word_embeddings", "'no'"]),
        (LLAMA, dict(tie_word_embeddings=0), ["tie_word_embeddings"]),
        (LLAMA, dict(attention_bias="false"), ["attention_bias"]),
        (LLAMA, dict(model_type=["llama"]), ["model_type"]),
        (LLAMA, dict(torch_dtype={"a": 1}), ["torch_dtype"]),
        (LLAMA, dict(_name_or_path=7), ["_name_or_path"]),
        (LLAMA, dict(text_config=[1]), ["text_config"]),
        (LLAMA, dict(text_config={"num_hidden_layers": 10**7}), ["num_hidden_layers=10000000"]),
        (MIXTRAL, dict(num_local_experts=-8), ["num_local_experts=-8", "0..4,096"]),
        (MIXTRAL, dict(num_local_experts=10**5), ["num_local_experts=100000"]),
        (MIXTRAL, dict(num_experts_per_tok=9), ["num_experts_per_tok=9", "1..8"]),
        (MIXTRAL, dict(num_experts_per_tok=-2), ["num_experts_per_tok=-2"]),
        (MIXTRAL, dict(num_experts_per_tok=0), ["num_experts_per_tok=0"]),
        (MIXTRAL, dict(num_experts_per_tok=None), ["experts per token"]),
        (LLAMA, dict(num_experts_per_tok=-1), ["num_experts_per_tok=-1"]),
        (DEEPSEEK, dict(first_k_dense_replace="x"), ["first_k_dense_replace", "'x'"]),
        (DEEPSEEK, dict(first_k_dense_replace=-1), ["first_k_dense_replace=-1"]),
        (DEEPSEEK, dict(moe_layer_freq=0), ["moe_layer_freq=0"]),
        (DEEPSEEK, dict(moe_layer_freq=1.5), ["moe_layer_freq"]),
        (DEEPSEEK, dict(n_shared_experts=65), ["n_shared_experts=65", "0..64"]),
        (DEEPSEEK, dict(kv_lora_rank=0), ["kv_lora_rank=0"]),
        (DEEPSEEK, dict(q_lora_rank=10**6), ["q_lora_rank=1000000"]),
        (DEEPSEEK, dict(qk_rope_head_dim="64"), ["qk_rope_head_dim"]),
        (DEEPSEEK, dict(moe_intermediate_size=-1), ["moe_intermediate_size=-1"]),
        (QWEN_MOE, dict(decoder_sparse_step=0), ["decoder_sparse_step=0"]),
        (QWEN_MOE, dict(mlp_only_layers=["x"]), ["mlp_only_layers", "'x'"]),
        (QWEN_MOE, dict(mlp_only_layers=[32]), ["mlp_only_layers", "0..31"]),
        (QWEN_MOE, dict(mlp_only_layers=3), ["mlp_only_layers must be a list"]),
        ({**LLAMA, "model_type": "bert"}, dict(type_vocab_size=-2), ["type_vocab_size=-2"]),
    ],
)
def test_implausible_values_name_the_key_and_the_limit(tmp_path, base, change, fragments):
    config = {k: v for k, v in {**base, **change}.items() if v is not None}
    _refused(config, "config.json", *fragments)  # a dict
    try:
        text = json.dumps(config, allow_nan=False)
    except ValueError:  # NaN, which JSON cannot hold: the dict case is enough
        return
    if len(text) < 4000:
        path = tmp_path / "config.json"
        path.write_text(text, encoding="utf-8")
        _refused(path, str(path), *fragments)  # the same values in a file


def test_the_limits_are_inclusive():
    top = {
        **LLAMA,
        "num_hidden_layers": CONFIG_LIMITS["layers"][1],
        "max_position_embeddings": CONFIG_LIMITS["max_context"][1],
        "num_key_value_heads": 32,
        "hidden_size": 256,
        "num_attention_heads": 32,
        "intermediate_size": 512,
        "vocab_size": 1000,
    }
    m = hg.from_hf_config(top)
    assert param_count(m) > 0  # the largest sizes allowed are counted, not refused
    assert m.layers == 1024 and m.max_context == 2**31
    assert hg.from_hf_config({**LLAMA, "num_hidden_layers": 32.0}).layers == 32  # a whole float is fine


def test_every_catalog_config_is_within_the_limits():
    for path in sorted((hg.data_dir() / "models").glob("*.json")):
        assert hg.from_hf_config(path).layers > 0, path


def test_a_hand_built_model_is_checked_too():
    import dataclasses

    m = hg.model("Llama-3.1-8B")
    with pytest.raises(ValueError, match="layers=10000000 is outside 1..1,024"):
        dataclasses.replace(m, layers=10**7)
    with pytest.raises(ValueError, match="kv_heads"):
        dataclasses.replace(m, kv_heads=0)


# ---------------------------------------------------------------------------------------------
# CSV files through hg.load_table(kind, path)
# ---------------------------------------------------------------------------------------------


def _rows(kind):
    return list(csv.reader(io.StringIO((hg.data_dir() / f"{kind}.csv").read_text(encoding="utf-8"))))


def _write_csv(path, rows):
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    return path


def _bad_table(kind, path, *fragments):
    with pytest.raises(hg.DataError) as caught:
        hg.load_table(kind, path)
    message = str(caught.value)
    assert str(path) in message, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


def test_copies_of_the_data_files_load():
    for kind in ("gpus", "prices"):
        assert len(hg.load_table(kind, hg.data_dir() / f"{kind}.csv")) == len(hg.load_table(kind))


def test_missing_csv(tmp_path):
    _bad_table("gpus", tmp_path / "mine.csv", "no such file")


def test_folder_instead_of_csv(tmp_path):
    _bad_table("gpus", tmp_path, "folder")


@pytest.mark.parametrize("text", ["", "\n\n   \n"])
def test_empty_csv(tmp_path, text):
    path = tmp_path / "gpus.csv"
    path.write_text(text, encoding="utf-8")
    _bad_table("gpus", path, "empty")


def test_non_utf8_csv(tmp_path):
    path = tmp_path / "gpus.csv"
    path.write_bytes(",".join(_rows("gpus")[0]).encode() + b"\nRTX\xff 4090\n")
    _bad_table("gpus", path, "not UTF-8")


def test_wrong_columns(tmp_path):
    rows = _rows("gpus")
    rows[0][0] = "card"
    _bad_table("gpus", _write_csv(tmp_path / "gpus.csv", rows), "columns differ", "card")


@pytest.mark.parametrize("index", [1, 3, 10])
def test_row_with_an_extra_cell_names_its_row(tmp_path, index):
    rows = _rows("gpus")
    rows[index] = [*rows[index], "surplus"]
    _bad_table("gpus", _write_csv(tmp_path / "gpus.csv", rows), f"row {index + 1}:", "cells")


def test_row_with_a_missing_cell_names_its_row(tmp_path):
    rows = _rows("gpus")
    rows[4] = rows[4][:-1]
    _bad_table("gpus", _write_csv(tmp_path / "gpus.csv", rows), "row 5:")


def test_bad_value_names_row_and_column(tmp_path):
    rows = _rows("gpus")
    rows[2][rows[0].index("memory_gib")] = "lots"
    _bad_table("gpus", _write_csv(tmp_path / "gpus.csv", rows), "row 3", "memory_gib", "'lots'")


@pytest.mark.parametrize("rename", [lambda n: n, lambda n: "  " + n, lambda n: n + " ", lambda n: n.lower()])
def test_duplicate_gpu_names(tmp_path, rename):
    rows = _rows("gpus")
    name_at, aliases_at = rows[0].index("name"), rows[0].index("aliases")
    twin = list(rows[1])
    twin[name_at], twin[aliases_at] = rename(twin[name_at]), ""
    rows.append(twin)
    _bad_table("gpus", _write_csv(tmp_path / "gpus.csv", rows), f"row {len(rows)}", "repeats row 2")


def test_price_for_an_unknown_gpu(tmp_path):
    rows = _rows("prices")
    rows[3][rows[0].index("gpu")] = "RTX 9999"
    _bad_table("prices", _write_csv(tmp_path / "prices.csv", rows), "row 4", "'RTX 9999'", "gpus.csv")


def test_dense_above_sparse(tmp_path):
    rows = _rows("gpus")
    dense, sparse = rows[0].index("fp16_tflops"), rows[0].index("fp16_sparse_tflops")
    index = next(i for i, row in enumerate(rows[1:], 1) if row[sparse])
    rows[index][dense] = str(2 * float(rows[index][sparse]))
    message = _bad_table("gpus", _write_csv(tmp_path / "gpus.csv", rows), f"row {index + 1}", "fp16_tflops")
    assert "sparse" in message


def test_engine_family_must_be_another_engine(tmp_path):
    rows = _rows("engines")
    family, name = rows[0].index("family"), rows[0].index("engine")
    rows[2][family] = "transformerz"
    _bad_table("engines", _write_csv(tmp_path / "engines.csv", rows), "row 3", "'transformerz'", "family")
    rows[2][family] = rows[2][name]  # itself
    _bad_table("engines", _write_csv(tmp_path / "engines.csv", rows), "row 3", "family")
