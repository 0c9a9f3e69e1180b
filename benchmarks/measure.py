"""Measure it yourself: run a model built from its config (random weights) and compare with hwguide.

    python benchmarks/measure.py --model Llama-3.1-8B --workload inference --weights bf16 --batch 1 --seq-len 2048
    python benchmarks/measure.py --model Qwen2.5-0.5B --workload lora --seq-len 512 --layers 4 --csv my.csv

The model is built with Hugging Face transformers from the config.json the kit stores (or a path to
your own), with random weights: nothing is downloaded. ``--layers N`` keeps only the first N layers
so a large model can be sampled; the estimate is made for the same shortened model, and the report
says so. Workloads: ``inference`` (a prompt of --seq-len tokens, then --new-tokens generated with a
KV cache), ``lora`` and ``full`` (one training step with AdamW; LoRA through PEFT).

On a CUDA GPU it records peak allocated and reserved memory after a warm-up
(torch.cuda.max_memory_allocated / max_memory_reserved), the CUDA context size, decode tokens/s and
prefill time, and the GPU's name and driver. On the CPU it records the exact bytes of parameters,
gradients and AdamW states read from the live tensors. It prints them beside hwguide's estimate
and, with --csv, appends a row shaped like data/measurements.csv.

Needs torch, transformers and peft (benchmarks/requirements-measure.txt), which are not part of the
kit's own requirements.
"""

from __future__ import annotations

import argparse
import csv
import datetime as _dt
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}
LORA_TARGETS = ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]


def load_config(model: str, layers: int | None) -> tuple[dict[str, Any], str]:
    """The config.json dict of a catalog model (or a path), shortened to ``layers`` if given."""
    import hwguide as hg

    path = Path(model)
    if path.suffix == ".json" or path.is_dir():
        config = json.loads((path / "config.json" if path.is_dir() else path).read_text(encoding="utf-8"))
        name = path.stem
    else:
        name = hg.model(model).name
        row = hg.load_table("models").set_index("name").loc[name]
        config = json.loads((hg.data_dir() / row["config_file"]).read_text(encoding="utf-8"))
    config = {k: v for k, v in config.items() if not k.startswith("_hwguide")}
    config.pop("quantization_config", None)  # build plain weights from the architecture
    if layers:
        for key in ("num_hidden_layers", "num_layers", "n_layer"):
            if key in config:
                config[key] = layers
        if "layer_types" in config:
            config["layer_types"] = config["layer_types"][:layers]
    return config, name


def build(config: dict[str, Any], dtype: str, device: str) -> Any:
    """A transformers causal LM from ``config`` with random weights, on ``device``."""
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "config.json").write_text(json.dumps(config), encoding="utf-8")
        hf_config = AutoConfig.from_pretrained(folder)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(hf_config, dtype=getattr(torch, DTYPES[dtype]))
    return model.to(device)


def tensor_bytes(tensors: Any) -> int:
    return int(sum(t.numel() * t.element_size() for t in tensors))


def model_state_bytes(model: Any, optimizer: Any) -> dict[str, int]:
    """Exact bytes of parameters, gradients and AdamW moments (exp_avg, exp_avg_sq) from live tensors."""
    params = [p for p in model.parameters()]
    trainable = [p for p in params if p.requires_grad]
    moments = [t for state in optimizer.state.values() for k, t in state.items() if k in ("exp_avg", "exp_avg_sq")]
    return {
        "parameters": tensor_bytes(params),
        "trainable_parameters": int(sum(p.numel() for p in trainable)),
        "gradients": tensor_bytes(p.grad for p in trainable if p.grad is not None),
        "optimizer_states": tensor_bytes(moments),
    }


def train_step(model: Any, batch: int, seq_len: int, vocab: int, device: str) -> Any:
    import torch

    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
    tokens = torch.randint(0, vocab, (batch, seq_len), device=device)
    loss = model(input_ids=tokens, labels=tokens).loss
    loss.backward()
    optimizer.step()
    return optimizer


def apply_lora(model: Any, rank: int) -> Any:
    from peft import LoraConfig, get_peft_model

    present = {name.split(".")[-1] for name, _ in model.named_modules()}
    targets = [t for t in LORA_TARGETS if t in present]
    return get_peft_model(model, LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=targets, lora_dropout=0.0))


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """Run the workload; return what was measured (bytes, seconds, tokens/s) and the device."""
    import torch

    device = "cuda" if torch.cuda.is_available() and args.device != "cpu" else "cpu"
    config, name = load_config(args.model, args.layers)
    result: dict[str, Any] = {"model": name, "config": config, "device": device}
    if device == "cuda":
        torch.cuda.init()
        free_before, total = torch.cuda.mem_get_info()
        torch.ones(1, device="cuda")
        free_after, _ = torch.cuda.mem_get_info()
        result.update(gpu=torch.cuda.get_device_name(), driver=torch.version.cuda,
                      cuda_context_bytes=free_before - free_after)  # fmt: skip
    model = build(config, args.weights, device)
    vocab = model.config.vocab_size
    if args.workload == "inference":
        model.eval()
        tokens = torch.randint(0, vocab, (args.batch, args.seq_len), device=device)
        with torch.no_grad():
            for _ in range(2 if device == "cuda" else 1):  # warm-up, then the measured run
                if device == "cuda":
                    torch.cuda.synchronize()
                    torch.cuda.reset_peak_memory_stats()
                start = time.perf_counter()
                out = model(input_ids=tokens, use_cache=True)
                if device == "cuda":
                    torch.cuda.synchronize()
                prefill = time.perf_counter() - start
                past = out.past_key_values
                nxt = out.logits[:, -1:].argmax(-1)
                start = time.perf_counter()
                for _ in range(args.new_tokens):
                    out = model(input_ids=nxt, past_key_values=past, use_cache=True)
                    past, nxt = out.past_key_values, out.logits[:, -1:].argmax(-1)
                if device == "cuda":
                    torch.cuda.synchronize()
                decode = time.perf_counter() - start
        result.update(prefill_seconds=prefill, decode_tokens_per_s=args.batch * args.new_tokens / decode,
                      parameters=tensor_bytes(model.parameters()))  # fmt: skip
    else:
        if args.workload == "lora":
            model = apply_lora(model, args.rank)
        model.train()
        if device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        optimizer = train_step(model, args.batch, args.seq_len, vocab, device)
        if device == "cuda":  # the measured step, after the warm-up step above
            torch.cuda.reset_peak_memory_stats()
            optimizer.zero_grad(set_to_none=True)
            tokens = torch.randint(0, vocab, (args.batch, args.seq_len), device=device)
            model(input_ids=tokens, labels=tokens).loss.backward()
            optimizer.step()
        result.update(model_state_bytes(model, optimizer))
    if device == "cuda":
        result.update(peak_allocated=torch.cuda.max_memory_allocated(), peak_reserved=torch.cuda.max_memory_reserved())
    return result


def estimate(args: argparse.Namespace, measured: dict[str, Any]) -> dict[str, Any]:
    """hwguide's estimate for the same (possibly shortened) model and setup."""
    import warnings

    import hwguide as hg

    model = hg.from_hf_config(measured["config"], name=measured["model"])
    warnings.simplefilter("ignore")
    n = hg.param_count(model)
    width = {"fp32": 4, "fp16": 2, "bf16": 2}[args.weights]
    out: dict[str, Any] = {"parameters": n * width}
    if args.workload == "inference":
        mem = hg.inference_memory(model, weights=args.weights, kv="fp16" if width == 2 else "fp32", batch=args.batch,
                                  context=args.seq_len + args.new_tokens)  # fmt: skip
        out["peak_allocated"] = mem.per_gpu_bytes - mem.per_gpu["cuda_context"]
    elif args.workload == "full":
        precision = "fp32" if args.weights == "fp32" else "bf16"
        mem = hg.training_memory(model, precision=precision, optimizer="adamw", batch=args.batch,
                                 context=args.seq_len, flash_attention=True)  # fmt: skip
        out.update(trainable_parameters=n, gradients=mem.per_gpu["gradients"],
                   optimizer_states=mem.per_gpu["optimizer_states"],
                   peak_allocated=mem.per_gpu_bytes - mem.per_gpu["cuda_context"])  # fmt: skip
    else:
        lora = hg.lora_params(model, rank=args.rank, targets="all-linear")
        mem = hg.finetune_memory(model, method="lora", rank=args.rank, targets="all-linear", weights=args.weights,
                                 batch=args.batch, context=args.seq_len)  # fmt: skip
        # PEFT keeps the adapters in the base dtype here (the model was built in it): count them so
        adapter_width = width
        out.update(parameters=n * width + lora * adapter_width, trainable_parameters=lora,
                   gradients=lora * adapter_width, optimizer_states=lora * 2 * adapter_width,
                   peak_allocated=mem.per_gpu_bytes - mem.per_gpu["cuda_context"])  # fmt: skip
    return out


def report(args: argparse.Namespace, measured: dict[str, Any], estimated: dict[str, Any]) -> list[tuple]:
    rows = []
    for key, value in measured.items():
        if key in estimated and isinstance(value, (int, float)):
            est = estimated[key]
            rows.append((key, value, est, est / value - 1 if value else float("nan")))
    return rows


def append_csv(path: Path, args: argparse.Namespace, measured: dict[str, Any], estimated: dict[str, Any]) -> None:
    """Append one row shaped like data/measurements.csv (peak memory on a GPU, model states on the CPU)."""
    columns = ["id", "kind", "model", "gpu", "gpu_count", "engine", "weights", "kv_dtype", "batch", "context",
               "method", "precision", "optimizer", "zero", "recompute", "lora_rank", "lora_targets", "measured",
               "unit", "what", "compares", "scope", "args", "excluded_because", "source", "source_detail", "checked",
               "notes"]  # fmt: skip
    on_gpu = measured["device"] == "cuda"
    value = measured.get("peak_allocated") if on_gpu else measured.get("parameters")
    kind = "inference_memory" if args.workload == "inference" else "finetune_memory"
    today = _dt.date.today().isoformat()
    where = measured.get("gpu", "CPU")
    row = {
        "id": f"measure-{args.workload}-{int(time.time())}", "kind": kind, "model": measured["model"],
        "gpu": measured.get("gpu", ""), "gpu_count": 1, "engine": "transformers", "weights": args.weights,
        "batch": args.batch, "context": args.seq_len + (args.new_tokens if args.workload == "inference" else 0),
        "method": "" if args.workload == "inference" else args.workload,
        "precision": args.weights if args.workload != "inference" else "", "optimizer": "adamw",
        "lora_rank": args.rank if args.workload == "lora" else "", "measured": value, "unit": "bytes",
        "what": "torch.cuda.max_memory_allocated" if on_gpu else "parameter bytes of the live tensors (CPU)",
        "compares": "allocated" if on_gpu else "weights", "scope": "per_gpu",
        "source": f"measured with benchmarks/measure.py on {where}, {today}", "checked": today,
        "notes": f"random weights from the config; layers={args.layers or 'all'}",
    }  # fmt: skip
    new = not path.exists()
    with path.open("a", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerow({c: row.get(c, "") for c in columns})


def build_parser() -> argparse.ArgumentParser:
    """The command line: model, workload, weights, batch, sequence length, layers, rank, device, csv."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a catalog model name, or a path to a config.json")
    parser.add_argument("--workload", choices=["inference", "lora", "full"], default="inference")
    parser.add_argument("--weights", choices=list(DTYPES), default="bf16")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--context", "--seq-len", dest="seq_len", type=int, default=2048,
                        help="tokens per sequence (the prompt, for inference)")  # fmt: skip
    parser.add_argument("--new-tokens", type=int, default=32, help="tokens to generate (inference)")
    parser.add_argument("--layers", type=int, default=None, help="keep only the first N layers")
    parser.add_argument("--rank", type=int, default=16, help="LoRA rank")
    parser.add_argument("--device", choices=["auto", "cpu"], default="auto")
    parser.add_argument("--csv", type=Path, default=None, help="append a measurements-style row to this CSV")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        import peft  # noqa: F401
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as err:
        print(f"measure.py needs torch, transformers and peft: pip install -r benchmarks/requirements-measure.txt "
              f"({err})", file=sys.stderr)  # fmt: skip
        return 2
    measured = measure(args)
    estimated = estimate(args, measured)
    shortened = f" (first {args.layers} layers only)" if args.layers else ""
    print(f"{measured['model']}{shortened}, {args.workload}, {args.weights}, batch {args.batch}, "
          f"{args.seq_len} tokens, on {measured.get('gpu', 'CPU')}")  # fmt: skip
    print(f"{'quantity':24} {'measured':>16} {'hwguide':>16} {'error':>8}")
    for key, value, est, err in report(args, measured, estimated):
        print(f"{key:24} {value:16,.0f} {est:16,.0f} {err:+8.1%}")
    for key in ("cuda_context_bytes", "peak_reserved", "prefill_seconds", "decode_tokens_per_s"):
        if key in measured:
            print(f"{key:24} {measured[key]:16,.3f}")
    if args.csv:
        append_csv(args.csv, args, measured, estimated)
        print(f"appended a row to {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
