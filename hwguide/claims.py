"""The source material's conclusions, checked against the kit's data and models.

Each claim is paraphrased (the source's own sentences are not reproduced), then judged
"holds", "holds with caveats" or "does not hold", with the numbers that decide it. Everything is
computed when called, so new data or prices change the verdicts.
"""

from __future__ import annotations

import pandas as pd

from . import i18n
from .catalog import gpu, support, support_of
from .memory import weights_bytes
from .speed import allreduce_seconds, decode_tokens_per_s, prefill_seconds
from .value import rank_gpus, value_ranking

__all__ = ["source_claims"]


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def source_claims(*, currency: str = "CNY", lang: str | None = None) -> pd.DataFrame:
    """One row per conclusion of the source material: claim, verdict and evidence.

    ``lang`` ("en" or "zh"; the language of ``hg.setup`` when None) is the language of the claim
    and the verdict; the evidence, a sentence built around the numbers, is in English.
    """
    lang = i18n.resolve(lang)
    infer = rank_gpus("inference").set_index("gpu")["score"]
    train = rank_gpus("training").set_index("gpu")["score"]
    g = {n: gpu(n) for n in ("RTX 3090", "RTX 4090", "A100 SXM4 80GB", "A800 SXM4 80GB", "H100 SXM", "L40", "L20",
                             "A10", "T4")}  # fmt: skip
    a100, r3090, r4090 = g["A100 SXM4 80GB"], g["RTX 3090"], g["RTX 4090"]
    rows = []

    def add(claim: str, verdict: str, evidence: str) -> None:
        rows.append({"claim": claim, "verdict": verdict, "evidence": evidence})

    # the source compares NVIDIA cards up to the H100; newer and other vendors' cards are named apart
    nvidia_then = [n for n in train.index if gpu(n).vendor == "NVIDIA" and gpu(n).architecture != "Blackwell"
                   and not n.startswith(("H200", "GH200"))]  # fmt: skip
    upto_h100 = train[nvidia_then]
    leader = " / ".join(sorted(upto_h100[upto_h100 == upto_h100.max()].index))
    since = train.drop(nvidia_then).dropna()
    newer = ", ".join(since[since > upto_h100.max()].index[:6])
    add("The H-series leads training at every precision.", "holds",
        f"Among NVIDIA cards up to the H100 (the source's cut-off) the training leaders are {leader}: H100 SXM "
        f"{g['H100 SXM'].bf16_tflops:g} dense BF16 TFLOPS vs A100 {a100.bf16_tflops:g}; FP8 only on Ada/Hopper. "
        f"Since then these score higher on the kit's training workload: {newer}.")  # fmt: skip
    # phase by phase: decode reads the weights (bandwidth), prefill multiplies them (Tensor rate)
    kw = dict(weights="Q4_K_M", engine="llama.cpp")
    dec = {c: decode_tokens_per_s("Llama-3.1-8B", c, context=2048, **kw) for c in ("RTX 4090", "A100 SXM4 80GB")}
    pre = {c: prefill_seconds("Llama-3.1-8B", c, 2000, **kw) for c in ("RTX 4090", "A100 SXM4 80GB")}
    phases = (("prefill of a Q4_K_M model (INT8 Tensor path)", pre["RTX 4090"] < pre["A100 SXM4 80GB"]),
              ("FP8 (the A100 has none)", bool(r4090.fp8_tflops) and not a100.fp8_tflops))  # fmt: skip
    wins = [phase for phase, yes in phases if yes]
    add("The RTX 4090 is stronger than the A100 for inference.", "holds with caveats" if wins else "does not hold",
        f"It depends on the phase and the format. Decode is bandwidth-bound: 4090 {r4090.bandwidth_gbs:g} GB/s vs "
        f"A100 80GB {a100.bandwidth_gbs:g} GB/s; Llama-3.1-8B Q4_K_M on llama.cpp at a 2,048-token context decodes at "
        f"{dec['RTX 4090']:.0f} vs {dec['A100 SXM4 80GB']:.0f} tokens/s, and on the kit's fp16 8B workload "
        f"(1 and 32 users) the 4090 scores {infer['RTX 4090']:.0f} against the A100's 100; its 24 GiB holds one "
        f"user's 8B fp16 model, not 32. Prefill is compute-bound: a 2,000-token prompt takes "
        f"{pre['RTX 4090']:.2f} s on the 4090 vs {pre['A100 SXM4 80GB']:.2f} s (INT8 {r4090.int8_tops:g} vs "
        f"{a100.int8_tops:g} dense TOPS), and only the 4090 has FP8 ({r4090.fp8_tflops:g} dense TFLOPS). "
        + (f"The 4090 wins: {'; '.join(wins)}." if wins else "The 4090 wins no phase."))  # fmt: skip
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
    per_yuan = value["score_per_1000"]
    ratio = per_yuan.get("RTX 3090") / per_yuan.get("RTX 4090")
    add("Per yuan, the RTX 3090 buys 1.5 times the LLM training of the RTX 4090.",
        "holds with caveats" if abs(ratio - 1.5) <= 0.3 else "does not hold",
        f"Training score per 1,000 {currency}: RTX 3090 {per_yuan['RTX 3090']:.2f} "
        f"({value.loc['RTX 3090', 'price']:,.0f}, {value.loc['RTX 3090', 'price_kind']} "
        f"{value.loc['RTX 3090', 'price_date']}) vs RTX 4090 {per_yuan['RTX 4090']:.2f} "
        f"({value.loc['RTX 4090', 'price']:,.0f}, {value.loc['RTX 4090', 'price_kind']} "
        f"{value.loc['RTX 4090', 'price_date']}): {ratio:.2f} times. The ratio moves with the prices.")  # fmt: skip
    grads = weights_bytes("Llama-2-7B", "fp16")  # one 16-bit gradient per parameter, as notebooks 01 and 02 use
    pcie, nvlink = (allreduce_seconds(grads, gpus=8, link=link) for link in ("PCIe 4.0 x16", "NVLink 3 (A100 SXM4)"))
    add("Single cards ignore multi-card losses; in clusters the A100/H100 remain first.", "holds with caveats",
        f"One all-reduce of Llama-2-7B's fp16 gradients over 8 GPUs takes {pcie:.2f} s over PCIe 4.0 (consumer "
        f"cards; the RTX 40 series has no NVLink) vs {nvlink:.3f} s over the A100 SXM4's NVLink, every training "
        "step. Stability (ECC memory, server cooling) is not in the data.")  # fmt: skip
    mod = support_of("RTX 2080 Ti 22GB")
    mod_ratio = per_yuan.get("RTX 2080 Ti 22GB") / per_yuan.get("RTX 4080")
    add("The modded 22 GB RTX 2080 Ti beats the RTX 4080 on value, at some risk.",
        "holds with caveats" if mod_ratio > 1 else "does not hold",
        f"Training score per 1,000 {currency} {per_yuan['RTX 2080 Ti 22GB']:.2f} vs {per_yuan['RTX 4080']:.2f} "
        f"({mod_ratio:.1f} times). The risks are in the data: an aftermarket mod with no NVIDIA warranty, usually "
        f"sold used; on Turing, BF16: {mod['bf16']}; FlashAttention-2: {mod['flash_attention_2']}.")  # fmt: skip
    platforms = support()
    dropped = platforms[~platforms["current"]]
    first = dropped.iloc[0]  # its first reason, as an example
    add("Older GPUs have software incompatibilities.", "holds",
        f"Not supported by today's frameworks: {', '.join(dropped['name'])} ({first['name']}: "
        f"{first['why_not'].split(';')[0]}; data/support.csv, checked {dropped['checked'].max()}). Turing still "
        "runs CUDA 13 but has no BF16 and no FlashAttention-2.")  # fmt: skip
    # "2080 11G" is the 11 GB RTX 2080 Ti: the RTX 2080 has 8 GB
    order = ["RTX 2080 Ti 22GB", "RTX 4080", "RTX 3090", "RTX 4090", "RTX 2080 Ti"]
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
    frame = pd.DataFrame(rows)
    for column in ("claim", "verdict"):  # data/translations.csv, kind ui
        frame[column] = frame[column].map(lambda words: i18n.text(words, lang))
    return frame
