"""Is it right? hwguide side by side with the methods people use instead, on published measurements.

    python benchmarks/accuracy.py            # hwguide, rules of thumb and llm-analysis
    python benchmarks/accuracy.py --no-peers # without llm-analysis

Every usable row of data/measurements.csv is estimated by hwguide (`hg.validate()`), by the rules
of thumb (2 GB per billion parameters in fp16; ×1.2 of the weights for inference; ×4 of the 16-bit
weights for Adam training; nominal bits × parameters for quantised files; bandwidth ÷ size for
decode; peak ÷ 2P for prefill; 6ND at 50% MFU for pre-training), and by the open-source estimator
llm-analysis (PyPI `llm-analysis`, cli99/llm-analysis), which is installed into its own virtual
environment under benchmarks/.venv-llm-analysis on first use, never into the kit's requirements.
It prints one table per kind: rows, median and worst absolute error per method — hwguide out of
sample (each author's rows estimated by factors fitted without any of them: the figure to quote)
and in sample (factors fitted on all rows) — and the ratio of hwguide's out-of-sample median error
to the best peer's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd

ROOT = Path(__file__).resolve().parent
PEER_ENV = ROOT / ".venv-llm-analysis"
ADAPTER = ROOT / "peers" / "llm_analysis_adapter.py"


def _peer_python() -> Path:
    """The llm-analysis environment's interpreter, created with pip on first use."""
    python = PEER_ENV / "bin" / "python"
    if not python.exists():
        print("creating benchmarks/.venv-llm-analysis with llm-analysis (once) ...", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(PEER_ENV)], check=True)
        requirements = ROOT / "peers" / "requirements-peers.txt"
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(requirements)], check=True)
    return python


def _bits(fmt: str) -> int:
    text = fmt.lower()
    for bits in (2, 3, 4, 5, 6, 8):
        if f"{bits}bit" in text or text.startswith((f"q{bits}", f"int{bits}")) or text in (f"nf{bits}", f"nf{bits}-dq"):
            return bits
    return 16


def _case(row: dict[str, Any]) -> dict[str, Any] | None:
    import hwguide as hg
    from hwguide.fit import parse_args
    from hwguide.speed import default_link

    kind = row["kind"]
    if kind in ("file_size", "throughput_tps", "training_tps") or row.get("excluded_because"):
        return None  # llm-analysis estimates no file sizes, serving throughput or per-GPU training rates
    if kind in ("finetune_memory", "training_memory") and (row.get("method") or "full") != "full":
        return None  # llm-analysis has no LoRA / QLoRA
    args = parse_args(row.get("args"))
    try:
        m = hg.model(row["model"])
        speed = kind in ("decode_tps", "prefill_tps", "training_gpu_hours")
        card = hg.gpu(row["gpu"]) if row.get("gpu") and speed else hg.gpu("A100 SXM4 80GB")  # memory: card unused
    except LookupError:
        return None
    gpus = int(args.get("gpus") or args.get("tp") or 1)
    if card.fp16_tflops is None:
        return None
    link = hg.interconnects().set_index("name").loc[default_link(card, gpus=max(gpus, 2)), "per_direction_gbs"]
    case = {
        "kind": kind,
        "model": {k: getattr(m, k) for k in ("name", "layers", "heads", "hidden_size", "vocab_size", "kv_heads",
                                             "ffn_size", "experts", "experts_per_token", "gated_ffn")},
        "gpu": {"name": card.name, "memory_gib": card.memory_gib * (8 if kind.endswith("memory") else 1),
                "bandwidth_gbs": card.bandwidth_gbs, "fp16_tflops": card.fp16_tflops, "link_gbs": float(link)},
        "gpus": gpus, "weight_bits": _bits(row.get("weights") or "fp16"), "batch": int(row.get("batch") or 1),
        "all_gpus": row.get("scope") == "all_gpus",
    }  # fmt: skip
    context = int(row.get("context") or 1)
    if kind == "decode_tps":
        prompt = int(args.get("input") or 1)
        case.update(seq_len=prompt, generate=max(int(args.get("output") or context - prompt), 1))
    elif kind == "prefill_tps":
        case.update(seq_len=context, generate=1)
    elif kind == "inference_memory":
        if row.get("compares") in ("weights", "kv_cache", "activations"):
            return None  # single-buffer rows (llama.cpp logs) have no llm-analysis counterpart
        case.update(seq_len=context, generate=1, kv_bytes=1 if "int8" in str(row.get("kv_dtype")) else 2)
    elif kind == "training_gpu_hours":
        case.update(tokens=float(args["tokens"]), gpus=64, zero=3, recompute="full")
    else:
        case.update(seq_len=context, recompute=row.get("recompute") or "none", zero=int(args.get("zero", 0)),
                    flash_attention=args.get("flash_attention", "true") != "false")  # fmt: skip
    return case


def _peer(table: pd.DataFrame) -> pd.Series:
    rows = table.to_dict("records")
    cases = [(i, _case(r)) for i, r in enumerate(rows)]
    cases = [(i, c) for i, c in cases if c is not None]
    done = subprocess.run([str(_peer_python()), str(ADAPTER)], input=json.dumps([c for _, c in cases]),
                          capture_output=True, text=True, check=True)  # fmt: skip
    results = json.loads(done.stdout)
    values = pd.Series([None] * len(rows), dtype=object)
    for (i, _), result in zip(cases, results):
        values[i] = result.get("value")
    return values


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--no-peers", action="store_true", help="skip llm-analysis")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    import hwguide as hg
    from hwguide.validate import RULES, UNITS

    report = hg.validate(show=False)
    table = hg.load_table("measurements").astype(object).where(lambda f: f.notna(), None)
    methods = ["hwguide_oos", "hwguide", *RULES]
    if not args.no_peers:
        estimates = _peer(table)
        measured = [float(r["measured"]) * UNITS[r["unit"]] for r in table.to_dict("records")]
        peer_err = [None if e is None else e / m - 1 for e, m in zip(estimates, measured)]
        report["llm-analysis_err"] = pd.Series(peer_err, index=table.index)
        methods.append("llm-analysis")
    used = report[report["hwguide_err"].notna()]
    print("hwguide accuracy next to the methods people use (absolute error against published measurements)\n")
    for kind, part in used.groupby("kind"):
        rows = []
        for method in methods:
            errors = pd.to_numeric(part[f"{method}_err"], errors="coerce").dropna().abs()
            if len(errors):
                rows.append({"method": method, "rows": len(errors), "median": errors.median(), "worst": errors.max()})
        frame = pd.DataFrame(rows)
        peers = frame[~frame["method"].isin(["hwguide", "hwguide_oos"])]
        label = {"hwguide_oos": "hwguide (out of sample)", "hwguide": "hwguide (in sample)"}
        print(f"== {kind} ==  ({len(part)} rows)")
        for r in frame.itertuples():
            name = label.get(r.method, r.method)
            print(f"  {name:24} rows {r.rows:4}   median {r.median:7.1%}   worst {r.worst:8.1%}")
        if len(peers):
            best = peers.sort_values("median").iloc[0]
            ours = frame.loc[frame["method"] == "hwguide_oos", "median"].iloc[0]
            ratio = ours / best["median"] if best["median"] else float("nan")
            print(f"  hwguide out-of-sample median / best peer ({best['method']}) median = {ratio:.2f} (goal ≤ 0.5)")

        print()


if __name__ == "__main__":
    main()
