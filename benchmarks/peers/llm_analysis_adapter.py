"""Run cases through llm-analysis (cli99/llm-analysis, PyPI llm-analysis 0.2.2) in its own environment.

Reads a JSON list of cases on stdin (architecture and GPU from hwguide's data, the setup from
data/measurements.csv) and writes a JSON list of estimates (bytes, tokens/s or GPU-hours, or null
with the reason) on stdout. llm-analysis is used with its defaults (flops and memory efficiency 1),
as a user calling it would; model and GPU configs are built from hwguide's data because its own
config files cover few of these models and cards.
"""

import contextlib
import io
import json
import sys

from llm_analysis.analysis import ActivationRecomputation, DSZeRO, LLMAnalysis
from llm_analysis.config import DtypeConfig, GPUConfig, ModelConfig, ParallelismConfig


def dtype(bits: int) -> DtypeConfig:
    return DtypeConfig(name=f"w{bits}a16e16", weight_bits=bits, activation_bits=16, embedding_bits=16)


def run(case: dict) -> dict:
    m, g = case["model"], case["gpu"]
    # llm-analysis models an FFN as two matrices; its own Llama configs stand a gated FFN of width f in for one
    # of width 1.5 f (Llama-2-7B: 16,384 for 11,008), which keeps the parameter count. Do the same.
    ffn = 1.5 * m["ffn_size"] if m["gated_ffn"] else m["ffn_size"]
    model = ModelConfig(
        name=m["name"],
        num_layers=m["layers"],
        n_head=m["heads"],
        hidden_dim=m["hidden_size"],
        vocab_size=m["vocab_size"],
        max_seq_len=10**7,
        num_key_value_heads=m["kv_heads"],
        ffn_embed_dim=int(ffn),
        expansion_ratio=ffn / m["hidden_size"],
        model_type="llama",
        moe_num_experts=max(m["experts"], 1),
        moe_top_k=max(m["experts_per_token"], 1),
    )
    gpu = GPUConfig(
        name=g["name"],
        mem_per_GPU_in_GB=g["memory_gib"] * 2**30 / 1e9,
        hbm_bandwidth_in_GB_per_sec=g["bandwidth_gbs"],
        intra_node_bandwidth_in_GB_per_sec=g["link_gbs"],
        intra_node_min_message_latency=8e-6,
        peak_fp16_TFLOPS=g["fp16_tflops"],
    )
    gpus = case.get("gpus", 1)
    analysis = LLMAnalysis(model, gpu, dtype(case.get("weight_bits", 16)), ParallelismConfig(tp_size=gpus))
    kind = case["kind"]
    with contextlib.redirect_stdout(io.StringIO()):
        if kind in ("inference_memory", "decode_tps", "prefill_tps"):
            out = analysis.inference(
                batch_size_per_gpu=case.get("batch", 1),
                seq_len=case["seq_len"],
                num_tokens_to_generate=case.get("generate", 1),
                kv_cache_dtype_bytes=case.get("kv_bytes", 2),
            )
            if kind == "decode_tps":
                return {"value": out["decode_tokens_per_sec"]}
            if kind == "prefill_tps":
                return {"value": out["prefill_tokens_per_sec"]}
            act = max(out["prefill_activation_memory_per_gpu"], out["decode_activation_memory_per_gpu"])
            per_gpu = out["weight_memory_per_gpu"] + out["kv_cache_memory_per_gpu"] + act
            return {"value": per_gpu * (gpus if case.get("all_gpus") else 1)}
        recompute = ActivationRecomputation.FULL if case.get("recompute") == "full" else ActivationRecomputation.NONE
        zero = DSZeRO(case.get("zero", 0)) if case.get("zero", 0) else DSZeRO.NONE
        if kind == "training_gpu_hours":
            out = analysis.training(
                batch_size_per_gpu=1,
                seq_len=2048,
                total_num_tokens=int(case["tokens"]),
                global_batch_size=gpus,
                activation_recomputation=recompute,
                ds_zero=zero,
            )
            return {"value": out["total_training_latency"] * out["total_num_gpus"] / 3600}
        out = analysis.training(
            batch_size_per_gpu=case.get("batch", 1),
            seq_len=case["seq_len"],
            global_batch_size=case.get("batch", 1) * gpus,
            activation_recomputation=recompute,
            ds_zero=zero,
            flash_attn=case.get("flash_attention", True),
        )
        memory = sum(
            out[k]
            for k in (
                "weight_memory_per_gpu",
                "gradient_memory_per_gpu",
                "optimizer_state_memory_per_gpu",
                "activation_memory_per_gpu",
            )
        )
        return {"value": memory}


def main() -> None:
    results = []
    for case in json.load(sys.stdin):
        try:
            results.append(run(case))
        except Exception as err:  # one failing case must not hide the others: report it
            results.append({"value": None, "error": f"{type(err).__name__}: {str(err)[:160]}"})
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
