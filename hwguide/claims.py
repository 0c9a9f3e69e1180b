"""The source material's conclusions, checked against the kit's data and models.

Each claim is paraphrased (the source's own sentences are not reproduced), then judged
"holds", "holds with caveats" or "does not hold" (codes, labelled in the reader's language when
shown), with the numbers that decide it. Everything is
computed when called, so new data or prices change the verdicts.
"""

from __future__ import annotations

import pandas as pd

from . import i18n
from .catalog import gpu, support, support_of
from .memory import weights_bytes
from .speed import allreduce_seconds, decode_tokens_per_s, prefill_seconds
from .value import rank_gpus, value_ranking

__all__ = ["VERDICTS", "source_claims"]


VERDICTS = ("holds", "holds with caveats", "does not hold")


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def _listing(items: list[i18n.Message]) -> i18n.Message | str:
    """Messages as one list, separated by commas (full-width ones in Chinese)."""
    if not items:
        return ""
    out: i18n.Message = items[-1]
    for item in reversed(items[:-1]):
        out = i18n.msg("{first}, {rest}", first=item, rest=out)
    return out


def _kind(kind: object) -> object:
    """A price's kind ("street-used", a code) as its label in the reader's language; a message as it is."""
    return i18n.Message(kind, context="value") if isinstance(kind, str) else kind


def source_claims(*, currency: str = "CNY", lang: str | None = None) -> pd.DataFrame:
    """One row per conclusion of the source material: claim, verdict and evidence.

    ``verdict`` is a code: "holds", "holds with caveats" or "does not hold" (:data:`VERDICTS`; its words
    are ``i18n.label(verdict, context="verdict")``, and a notebook's table shows them). ``claim`` and
    ``evidence`` are messages rendered as text in ``lang`` ("en" or "zh"; the language of ``hg.setup``
    when None), the evidence's numbers filled in.
    """
    lang = i18n.resolve(lang)
    infer = rank_gpus("inference").set_index("gpu")["score"]
    train = rank_gpus("training").set_index("gpu")["score"]
    g = {n: gpu(n) for n in ("RTX 3090", "RTX 4090", "A100 SXM4 80GB", "A100 PCIe 40GB", "A800 SXM4 80GB", "H100 SXM",
                             "L40", "L20", "A10", "T4")}  # fmt: skip
    a100, r3090, r4090 = g["A100 SXM4 80GB"], g["RTX 3090"], g["RTX 4090"]
    rows = []

    def add(claim: str, verdict: str, evidence: i18n.Message) -> None:
        rows.append({"claim": i18n.Message(claim), "verdict": verdict, "evidence": evidence})

    # the source compares NVIDIA cards up to the H100; newer and other vendors' cards are named apart
    nvidia_then = [n for n in train.index if gpu(n).vendor == "NVIDIA" and gpu(n).architecture != "Blackwell"
                   and not n.startswith(("H200", "GH200"))]  # fmt: skip
    upto_h100 = train[nvidia_then]
    leader = " / ".join(sorted(upto_h100[upto_h100 == upto_h100.max()].index))
    since = train.drop(nvidia_then).dropna()
    newer = ", ".join(since[since > upto_h100.max()].index[:6])
    add(i18n.N_("The H-series leads training at every precision."), "holds",
        i18n.msg("Among NVIDIA cards up to the H100 (the source's cut-off) the training leaders are {leader}: H100 SXM "
                 "{h100:g} dense BF16 TFLOPS vs A100 {a100:g}; FP8 only on Ada/Hopper. Since then these score higher "
                 "on the kit's training workload: {newer}.", leader=leader, h100=g["H100 SXM"].bf16_tflops,
                 a100=a100.bf16_tflops, newer=newer))  # fmt: skip
    # phase by phase: decode reads the weights (bandwidth), prefill multiplies them (Tensor rate)
    kw = dict(weights="Q4_K_M", engine="llama.cpp")
    dec = {c: decode_tokens_per_s("Llama-3.1-8B", c, context=2048, **kw) for c in ("RTX 4090", "A100 SXM4 80GB")}
    pre = {c: prefill_seconds("Llama-3.1-8B", c, 2000, **kw) for c in ("RTX 4090", "A100 SXM4 80GB")}
    phases = ((i18n.msg("prefill of a Q4_K_M model (INT8 Tensor path)"), pre["RTX 4090"] < pre["A100 SXM4 80GB"]),
              (i18n.msg("FP8 (the A100 has none)"), bool(r4090.fp8_tflops) and not a100.fp8_tflops))  # fmt: skip
    wins = [phase for phase, yes in phases if yes]
    add(i18n.N_("The RTX 4090 is stronger than the A100 for inference."),
        "holds with caveats" if wins else "does not hold",
        i18n.msg("It depends on the phase and the format. Decode is bandwidth-bound: 4090 {bw_4090:g} GB/s vs A100 "
                 "80GB {bw_a100:g} GB/s; Llama-3.1-8B Q4_K_M on llama.cpp at a 2,048-token context decodes at "
                 "{decode_4090:.0f} vs {decode_a100:.0f} tokens/s, and on the kit's fp16 8B workload (1 and 32 users) "
                 "the 4090 scores {score:.0f} against the A100's 100; its 24 GiB holds one user's 8B fp16 model, not "
                 "32. Prefill is compute-bound: a 2,000-token prompt takes {prefill_4090:.2f} s on the 4090 vs "
                 "{prefill_a100:.2f} s (INT8 {int8_4090:g} vs {int8_a100:g} dense TOPS), and only the 4090 has FP8 "
                 "({fp8:g} dense TFLOPS). {outcome}", bw_4090=r4090.bandwidth_gbs, bw_a100=a100.bandwidth_gbs,
                 decode_4090=dec["RTX 4090"], decode_a100=dec["A100 SXM4 80GB"], score=infer["RTX 4090"],
                 prefill_4090=pre["RTX 4090"], prefill_a100=pre["A100 SXM4 80GB"], int8_4090=r4090.int8_tops,
                 int8_a100=a100.int8_tops, fp8=r4090.fp8_tflops,
                 outcome=i18n.msg("The 4090 wins: {wins}.", wins=wins) if wins
                 else i18n.msg("The 4090 wins no phase.")))  # fmt: skip
    add(i18n.N_("The RTX 4090 trains worse than the A100, held back by memory size and bandwidth."), "holds",
        i18n.msg("Dense BF16 {bf16_4090:g} vs {bf16_a100:g} TFLOPS, memory 24 vs 80 GiB, bandwidth {bw_4090:g} vs "
                 "{bw_a100:g} GB/s; training score {score:.0f} vs 100.", bf16_4090=r4090.bf16_tflops,
                 bf16_a100=a100.bf16_tflops, bw_4090=r4090.bandwidth_gbs, bw_a100=a100.bandwidth_gbs,
                 score=train["RTX 4090"]))  # fmt: skip
    # the A100 of the source's own company build is the 40 GB card (data/scenarios.csv), and a 40 GB A100
    # has 1,555 GB/s against the 80 GB card's 2,039: the 60% is memory bandwidth against the 40 GB card
    a100_40 = g["A100 PCIe 40GB"]
    to_40 = r3090.bandwidth_gbs / a100_40.bandwidth_gbs
    add(i18n.N_("The RTX 3090 reaches about 60% of an A100 in theory."),
        "holds with caveats" if 0.55 <= to_40 < 0.65 else "does not hold",
        i18n.msg("It holds for memory bandwidth against the A100 40GB, the card of the source's own company build: "
                 "{bw_3090:g} vs {bw_a100_40:g} GB/s = {bandwidth_40}, and bandwidth is what sets LLM decode speed "
                 "(against the A100 80GB's {bw_a100_80:g} GB/s it is {bandwidth_80}). It does not hold for compute: "
                 "dense FP16 Tensor with FP32 accumulate {fp16_3090:g} vs {fp16_a100:g} TFLOPS = {fp16}, with FP16 "
                 "accumulate {acc16}. The kit's inference score, which also counts 32 users' batches, puts the 3090 "
                 "at {score:.0f}% of the A100 40GB.", bw_3090=r3090.bandwidth_gbs, bw_a100_40=a100_40.bandwidth_gbs,
                 bandwidth_40=_pct(to_40), bw_a100_80=a100.bandwidth_gbs,
                 bandwidth_80=_pct(r3090.bandwidth_gbs / a100.bandwidth_gbs), fp16_3090=r3090.fp16_tflops,
                 fp16_a100=a100_40.fp16_tflops, fp16=_pct(r3090.fp16_tflops / a100_40.fp16_tflops),
                 acc16=_pct(r3090.fp16_acc16_tflops / a100_40.fp16_tflops),
                 score=100 * infer["RTX 3090"] / infer["A100 PCIe 40GB"]))  # fmt: skip
    add(i18n.N_("The A10 and T4 are weak for LLM inference and training."), "holds",
        i18n.msg("Inference scores A10 {infer_a10:.0f} and T4 {infer_t4:.0f} (A100 = 100); training A10 "
                 "{train_a10:.0f}, T4 {train_t4:.0f}; {memory:g} GiB on the T4.", infer_a10=infer["A10"],
                 infer_t4=infer["T4"], train_a10=train["A10"], train_t4=train["T4"],
                 memory=g["T4"].memory_gib))  # fmt: skip
    a800 = g["A800 SXM4 80GB"]
    add(i18n.N_("The A800 is the China version of the A100 with lower memory and NVLink bandwidth; "
                "performance within 20%."), "holds with caveats",
        i18n.msg("Only NVLink is cut ({nvlink_a800:g} vs {nvlink_a100:g} GB/s); memory bandwidth is the same "
                 "({bandwidth:g} GB/s). Single-card speed is identical; multi-GPU training loses up to the link "
                 "difference.", nvlink_a800=a800.nvlink_gbs, nvlink_a100=a100.nvlink_gbs,
                 bandwidth=a800.bandwidth_gbs))  # fmt: skip
    add(i18n.N_("The RTX 30 series dropped NVLink."), "does not hold",
        i18n.msg("The RTX 3090 has a {nvlink:g} GB/s NVLink bridge; the RTX 40 series has none.",
                 nvlink=r3090.nvlink_gbs))  # fmt: skip
    add(i18n.N_("RTX 4090 vs 3090: 56% more CUDA cores, 4.6× the Tensor Cores."), "holds with caveats",
        i18n.msg("CUDA cores +{cuda} holds. Tensor Cores ×{tensor:.2f} in count and ×{fp16:.2f} in dense FP16 rate; "
                 "4.6× compares the 4090's sparse FP8 'AI TOPS' with the 3090's sparse FP16 figure.",
                 cuda=_pct(r4090.cuda_cores / r3090.cuda_cores - 1), tensor=r4090.tensor_cores / r3090.tensor_cores,
                 fp16=r4090.fp16_tflops / r3090.fp16_tflops))  # fmt: skip
    add(i18n.N_("The RTX 4090 can stand in for the RTX 3090 (and vice versa) in the recommendation tables."),
        "holds with caveats",
        i18n.msg("Same 24 GiB, bandwidth ×{bandwidth:.2f} (decode nearly equal), but ×{compute:.1f} the training "
                 "compute; the 3090 has NVLink, the 4090 not.", bandwidth=r4090.bandwidth_gbs / r3090.bandwidth_gbs,
                 compute=r4090.bf16_tflops / r3090.bf16_tflops))  # fmt: skip
    l40, l20 = g["L40"], g["L20"]
    add(i18n.N_("The L40 can be replaced by the China-market L20."), "holds with caveats",
        i18n.msg("Same {memory:g} GiB and {bandwidth:g} GB/s (inference equal), but {fp16_l20:g} vs {fp16_l40:g} dense "
                 "FP16 TFLOPS for training and prefill.", memory=l20.memory_gib, bandwidth=l20.bandwidth_gbs,
                 fp16_l20=l20.fp16_tflops, fp16_l40=l40.fp16_tflops))  # fmt: skip
    value = value_ranking("training", currency=currency, condition="any").set_index("gpu")
    per_yuan = value["score_per_1000"]
    ratio = per_yuan.get("RTX 3090") / per_yuan.get("RTX 4090")

    def priced(card: str) -> i18n.Message:
        row = value.loc[card]
        return i18n.msg("{price:,.0f}, {kind} {date}", price=row["price"], kind=_kind(row["price_kind"]),
                        date=row["price_date"])  # fmt: skip

    add(i18n.N_("Per yuan, the RTX 3090 buys 1.5 times the LLM training of the RTX 4090."),
        "holds with caveats" if abs(ratio - 1.5) <= 0.3 else "does not hold",
        i18n.msg("Training score per 1,000 {currency}: RTX 3090 {score_3090:.2f} ({price_3090}) vs RTX 4090 "
                 "{score_4090:.2f} ({price_4090}): {ratio:.2f} times. The ratio moves with the prices.",
                 currency=i18n.Message(currency, context="currency"), score_3090=per_yuan["RTX 3090"],
                 price_3090=priced("RTX 3090"), score_4090=per_yuan["RTX 4090"], price_4090=priced("RTX 4090"),
                 ratio=ratio))  # fmt: skip
    grads = weights_bytes("Llama-2-7B", "fp16")  # one 16-bit gradient per parameter, as notebooks 01, 02 and 07 use
    pcie, nvlink = (allreduce_seconds(grads, gpus=8, link=link) for link in ("PCIe 4.0 x16", "NVLink 3 (A100 SXM4)"))
    add(i18n.N_("Single cards ignore multi-card losses; in clusters the A100/H100 remain first."), "holds with caveats",
        i18n.msg("One all-reduce of Llama-2-7B's fp16 gradients over 8 GPUs takes {pcie:.2f} s over PCIe 4.0 (consumer "
                 "cards; the RTX 40 series has no NVLink) vs {nvlink:.3f} s over the A100 SXM4's NVLink, every "
                 "training step. Stability (ECC memory, server cooling) is not in the data.", pcie=pcie,
                 nvlink=nvlink))  # fmt: skip
    mod = support_of("RTX 2080 Ti 22GB")
    mod_ratio = per_yuan.get("RTX 2080 Ti 22GB") / per_yuan.get("RTX 4080")
    add(i18n.N_("The modded 22 GB RTX 2080 Ti beats the RTX 4080 on value, at some risk."),
        "holds with caveats" if mod_ratio > 1 else "does not hold",
        i18n.msg("Training score per 1,000 {currency} {score_mod:.2f} vs {score_4080:.2f} ({ratio:.1f} times). The "
                 "risks are in the data: an aftermarket mod with no NVIDIA warranty, usually sold used; on Turing, "
                 "BF16: {bf16}; FlashAttention-2: {fa2}.", currency=i18n.Message(currency, context="currency"),
                 score_mod=per_yuan["RTX 2080 Ti 22GB"], score_4080=per_yuan["RTX 4080"], ratio=mod_ratio,
                 bf16=i18n.Message(mod["bf16"], context="value"),
                 fa2=i18n.Message(mod["flash_attention_2"], context="value")))  # fmt: skip
    platforms = support()
    dropped = platforms[~platforms["current"]]
    first = dropped.iloc[0]  # its first reason, as an example
    add(i18n.N_("Older GPUs have software incompatibilities."), "holds",
        i18n.msg("Not supported by today's frameworks: {platforms} ({first}: {reason}; data/support.csv, checked "
                 "{checked}). Turing still runs CUDA 13 but has no BF16 and no FlashAttention-2.",
                 platforms=", ".join(dropped["name"]), first=first["name"],
                 reason=i18n.Message(first["why_not"].split(";")[0], context="why_not"),
                 checked=dropped["checked"].max()))  # fmt: skip
    # "2080 11G" is the 11 GB RTX 2080 Ti: the RTX 2080 has 8 GB
    order = ["RTX 2080 Ti 22GB", "RTX 4080", "RTX 3090", "RTX 4090", "RTX 2080 Ti"]
    with_price = [n for n in order if pd.notna(value.loc[n, "score_per_1000"])]
    ours = sorted(with_price, key=lambda n: -value.loc[n, "score_per_1000"])
    missing = [n for n in order if n not in with_price]
    verdict = (
        "holds" if ours == with_price and not missing
        else ("holds with caveats" if ours == with_price else "does not hold")
    )  # fmt: skip
    cards = _listing([i18n.msg("{card} {score:.2f} ({price:,.0f}, {kind})", card=n,
                               score=value.loc[n, "score_per_1000"], price=value.loc[n, "price"],
                               kind=_kind(value.loc[n, "price_kind"])) for n in ours])  # fmt: skip
    money = i18n.Message(currency, context="currency")
    add(i18n.N_("Compute per yuan: 2080 Ti 22G > 4080 > 3090 > 4090 > 2080 11G."), verdict,
        i18n.msg("Training score per 1,000 {currency} from the latest prices in the data: {cards}; no {currency} price "
                 "for {missing}.", currency=money, cards=cards, missing=", ".join(missing)) if missing
        else i18n.msg("Training score per 1,000 {currency} from the latest prices in the data: {cards}.",
                      currency=money, cards=cards))  # fmt: skip
    frame = pd.DataFrame(rows)
    for column in ("claim", "evidence"):  # text to read (and wrap), in the reader's language
        frame[column] = frame[column].map(lambda message: message.render(lang))
    return frame
