"""benchmarks/measure.py on the CPU: the live model states equal hwguide's estimate, byte for byte."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for needed in ("torch", "transformers", "peft"):
    if importlib.util.find_spec(needed) is None:
        pytest.skip(f"{needed} is not installed (pip install -r benchmarks/requirements-measure.txt)",
                    allow_module_level=True)  # fmt: skip

sys.path.insert(0, str(ROOT / "benchmarks"))
import measure  # noqa: E402

TINY = {"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64, "intermediate_size": 176,
        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 300,
        "max_position_embeddings": 256, "tie_word_embeddings": False, "rms_norm_eps": 1e-5}  # fmt: skip


@pytest.fixture(scope="module")
def config_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny") / "config.json"
    path.write_text(json.dumps(TINY))
    return path


def _run(config_path, *extra):
    args = measure.build_parser().parse_args(
        ["--model", str(config_path), "--device", "cpu", "--weights", "fp32", "--batch", "2", "--seq-len", "16",
         "--rank", "8", *extra]
    )  # fmt: skip
    measured = measure.measure(args)
    return measured, measure.estimate(args, measured)


def test_full_finetuning_states_are_exact(config_path):
    measured, estimated = _run(config_path, "--workload", "full")
    for key in ("parameters", "trainable_parameters", "gradients", "optimizer_states"):
        assert measured[key] == estimated[key], key


def test_lora_trainable_parameters_are_exact(config_path):
    measured, estimated = _run(config_path, "--workload", "lora")
    for key in ("parameters", "trainable_parameters", "gradients", "optimizer_states"):
        assert measured[key] == estimated[key], key


def test_inference_runs_and_appends_a_row(config_path, tmp_path):
    out = tmp_path / "rows.csv"
    code = measure.main(["--model", str(config_path), "--device", "cpu", "--workload", "inference",
                         "--weights", "fp32", "--seq-len", "8", "--new-tokens", "2", "--csv", str(out)])  # fmt: skip
    assert code == 0
    import pandas as pd

    row = pd.read_csv(out).iloc[0]
    assert row["kind"] == "inference_memory" and "measure.py on CPU" in row["source"]
