"""The source material's conclusions, checked against the kit's data and models.

Each claim is paraphrased (the source's own sentences are not reproduced), then judged
"holds", "holds with caveats" or "does not hold", with the numbers that decide it. Everything is
computed when called, so new data or prices change the verdicts.
"""

from __future__ import annotations

import pandas as pd

from .catalog import gpu
from .value import rank_gpus, value_ranking

__all__ = ["source_claims"]


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def source_claims(*, currency: str = "CNY") -> pd.DataFrame:
    """One row per conclusion of the source material: claim, verdict and evidence."""
    infer = rank_gpus("inference").set_index("gpu")["score"]
    train = rank_gpus("training").set_index("gpu")["score"]
    g = {n: gpu(n) for n in ("RTX 3090", "RTX 4090", "A100 SXM4 80GB", "A800 SXM4 80GB", "H100 SXM", "L40", "L20",
                             "A10", "T4")}  # fmt: skip
    a100, r3090, r4090 = g["A100 SXM4 80GB"], g["RTX 3090"], g["RTX 4090"]
    rows = []

    def add(claim: str, verdict: str, evidence: str) -> None:
        rows.append({"claim": claim, "verdict": verdict, "evidence": evidence})

    upto_h100 = train.drop([n for n in train.index if gpu(n).architecture == "Blackwell" or n.startswith("H200")
                            or n.startswith("GH200")])  # fmt: skip
    leader = " / ".join(sorted(upto_h100[upto_h100 == upto_h100.max()].index))
    add("The H-series leads training at every precision.", "holds",
        f"Among cards up to the H100 (the source's cut-off) the training leaders are {leader}: H100 SXM "
        f"{g['H100 SXM'].bf16_tflops:g} dense BF16 TFLOPS vs A100 {a100.bf16_tflops:g}; FP8 only on Ada/Hopper. "
        "Blackwell (B200, GB200) has since overtaken it.")  # fmt: skip
    add("The RTX 4090 is stronger than the A100 for inference.", "does not hold",
        f"LLM decode is bandwidth-bound: 4090 {r4090.bandwidth_gbs:g} GB/s vs A100 80GB {a100.bandwidth_gbs:g} GB/s; "
        f"on the kit's 8B inference workload the 4090 scores {infer['RTX 4090']:.0f} against the A100's 100, and "
        "its 24 GiB holds one user of an 8B fp16 model, not 32. Only compute-bound FP8 work favours the 4090 "
        f"({r4090.fp8_tflops:g} dense FP8 TFLOPS; the A100 has no FP8).")  # fmt: skip
    add(
        "The RTX 4090 trains worse than the A100, held back by memory size and bandwidth.",
        "holds",
        f"Dense BF16 {r4090.bf16_tflops:g} vs {a100.bf16_tflops:g} TFLOPS, memory 24 vs 80 GiB, bandwidth "
        f"{r4090.bandwidth_gbs:g} vs {a100.bandwidth_gbs:g} GB/s; training score {train['RTX 4090']:.0f} vs 100.",
    )
    add(
        "The RTX 3090 reaches about 60% of an A100 in theory.",
        "does not hold",
        f"No catalog figure gives 60%: dense FP16 (FP32 accumulate) {_pct(r3090.fp16_tflops / a100.fp16_tflops)}, "
        f"FP16 accumulate {_pct(r3090.fp16_acc16_tflops / a100.fp16_tflops)}, bandwidth "
        f"{_pct(r3090.bandwidth_gbs / a100.bandwidth_gbs)}; the kit's inference score is {infer['RTX 3090']:.0f}%.",
    )
    add(
        "The A10 and T4 are weak for LLM inference and training.",
        "holds",
        f"Inference scores A10 {infer['A10']:.0f} and T4 {infer['T4']:.0f} (A100 = 100); "
        f"training A10 {train['A10']:.0f}, T4 {train['T4']:.0f}; {g['T4'].memory_gib:g} GiB on the T4.",
    )
    a800 = g["A800 SXM4 80GB"]
    add("The A800 is the China version of the A100 with lower memory and NVLink bandwidth; "
        "performance within 20%.", "holds with caveats",
        f"Only NVLink is cut ({a800.nvlink_gbs:g} vs {a100.nvlink_gbs:g} GB/s); memory bandwidth is the same "
        f"({a800.bandwidth_gbs:g} GB/s). Single-card speed is identical; multi-GPU training loses up to the "
        "link difference.")  # fmt: skip
    add(
        "The RTX 30 series dropped NVLink.",
        "does not hold",
        f"The RTX 3090 has a {r3090.nvlink_gbs:g} GB/s NVLink bridge; the RTX 40 series has none.",
    )
    add(
        "RTX 4090 vs 3090: 56% more CUDA cores, 4.6× the Tensor Cores.",
        "holds with caveats",
        f"CUDA cores +{_pct(r4090.cuda_cores / r3090.cuda_cores - 1)} holds. Tensor Cores ×"
        f"{r4090.tensor_cores / r3090.tensor_cores:.2f} in count and ×{r4090.fp16_tflops / r3090.fp16_tflops:.2f} "
        "in dense FP16 rate; 4.6× compares the 4090's sparse FP8 'AI TOPS' with the 3090's sparse FP16 figure.",
    )
    add(
        "The RTX 4090 can stand in for the RTX 3090 (and vice versa) in the recommendation tables.",
        "holds with caveats",
        f"Same 24 GiB, bandwidth ×{r4090.bandwidth_gbs / r3090.bandwidth_gbs:.2f} (decode nearly equal), but "
        f"×{r4090.bf16_tflops / r3090.bf16_tflops:.1f} the training compute; the 3090 has NVLink, the 4090 not.",
    )
    l40, l20 = g["L40"], g["L20"]
    add(
        "The L40 can be replaced by the China-market L20.",
        "holds with caveats",
        f"Same {l20.memory_gib:g} GiB and {l20.bandwidth_gbs:g} GB/s (inference equal), but "
        f"{l20.fp16_tflops:g} vs {l40.fp16_tflops:g} dense FP16 TFLOPS for training and prefill.",
    )
    value = value_ranking("training", currency=currency, condition="any").set_index("gpu")
    order = ["RTX 2080 Ti 22GB", "RTX 4080", "RTX 3090", "RTX 4090", "RTX 2080"]
    priced = [n for n in order if pd.notna(value.loc[n, "score_per_1000"])]
    ours = sorted(priced, key=lambda n: -value.loc[n, "score_per_1000"])
    missing = [n for n in order if n not in priced]
    verdict = (
        "holds" if ours == priced and not missing else ("holds with caveats" if ours == priced else "does not hold")
    )
    add("Compute per yuan: 2080 Ti 22G > 4080 > 3090 > 4090 > 2080 11G.", verdict,
        f"Training score per 1,000 {currency} from the latest prices in the data: "
        + ", ".join(f"{n} {value.loc[n, 'score_per_1000']:.2f} ({value.loc[n, 'price']:,.0f}, "
                    f"{value.loc[n, 'price_kind']})" for n in ours)
        + (f"; no {currency} price for {', '.join(missing)}" if missing else "") + ".")  # fmt: skip
    return pd.DataFrame(rows)
