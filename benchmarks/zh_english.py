"""How much English a Chinese learner sees: printed lines and table headers of the saved outputs of
``notebooks/zh/`` (lessons, solutions, app) that carry an English word other than a name of a card,
model, engine or format, a unit or a standard acronym.

    python benchmarks/zh_english.py            # the two shares, per notebook and in all
    python benchmarks/zh_english.py --show 20  # and the first 20 offending lines
    python benchmarks/zh_english.py --api      # and what the public API says with the language set to Chinese

Names come from the data (cards, models, engines, image pipelines, vendors, architectures); units and
acronyms from the list below, the kit's format and optimizer names from the package; file names, row ids
(inf-13), domains, HTML tags, code (calls, ``name=value``) are taken out first, and the glossary's English
column (a bilingual glossary) is not counted. A word counts as English when it has two or more Latin
letters and is in neither. Targets (issue 25): at most 5% of lines and of headers; the API at most 10%.
"""

from __future__ import annotations

import argparse
import csv
import html
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ZH = ROOT / "notebooks" / "zh"

# units, standard acronyms and names that a Chinese text writes in Latin letters
STANDARD = """
GPU GPUs CPU CPUs TPU NPU DCU KV LoRA QLoRA FP FP4 FP6 FP8 FP16 BF16 FP32 FP64 TF32 INT4 INT8 MXFP4 NVFP4
PCIe NVLink NVSwitch SXM OAM HGX DGX MIG HBM HBM2 HBM2e HBM3 HBM3e GDDR GDDR5 GDDR5X GDDR6 GDDR6X GDDR7 LPDDR5
LPDDR5X DDR4 DDR5 ECC TDP CUDA ROCm cuDNN NCCL RDMA InfiniBand RoCE NDR HDR ZeRO FSDP MoE MLA GQA MHA MQA FFN
SwiGLU RoPE Adam AdamW SGD Lion bitsandbytes GiB GB MiB MB KiB KB TB TiB GB/s TB/s TFLOPS TOPS PFLOPS FLOPS
FLOP FLOPs TFLOP MFU ms µs ns kW W Hz GHz MHz token tokens tok AI LLM LLMs API CLI URL CSV PDF HTML XLSX Markdown
Jupyter JupyterLab Voilà Voila Python pip PyTorch TensorRT TensorRT-LLM vLLM SGLang llama.cpp Ollama ExLlamaV2
transformers HF Hugging Face nvidia-smi NVIDIA AMD Intel Apple Huawei Ascend Google Meta Qwen DeepSeek Llama
Mistral Gemma Phi Kimi GLM gpt-oss BERT GPT SD SDXL FLUX VAE CLIP T5 UNet DiT CFG NF4 GGUF AWQ GPTQ EXL2 fp16 bf16
fp32 fp8 int8 int4 nf4 Q4_K_M Q8_0 Q4_0 Q5_K_M Q6_K K_M iq iquants RTX GTX Ti SUPER Max Ultra Pro Ada Blackwell
Hopper Ampere Turing Volta Pascal Ada Lovelace Instinct Radeon Gaudi Arc MI300X MI325X MI250X H100 H200 H800 H20
A100 A800 A10 A40 L40 L40S L20 L4 T4 V100 P100 P40 B200 B100 GB200 GH200 Xeon EPYC Threadripper Ryzen Core
CNY USD RMB EUR FX OK NaN NA DP TP PP EP SP CP MFU BW IO SRAM L2 ALU SM SMs FMA MAC ridge 6ND ND Transformer
Chinchilla Megatron DeepSpeed Accelerate FlashAttention Flash SDPA ComfyUI diffusers webui Forge A1111 ISO
CC MSRP Lambda AutoDL Tencent Alibaba Aliyun JD Taobao eBay Amazon nbval ipywidgets hwguide hg Windows macOS
Linux Ubuntu Debian WSL vs x86 ARM x4 x8 x16 PSU SSD NVMe RAM DRAM VRAM Mac Studio Spark TB
True False None all-reduce TTFT bit oneAPI CANN Metal SynapseAI WMMA OCP FNUZ MPS vGPU GFLOP kWh PUE logits it/s
HPC GH FHFL BTU gate up all-linear nf4-dq q_proj v_proj PEFT DDP PaLM log-softmax
""".split()  # noqa: SIM905 (a word list reads better as text)


def _names() -> set[str]:
    words: set[str] = set()

    def add(text: str) -> None:
        for word in re.findall(r"[A-Za-z][A-Za-z0-9_.+\-]*", text or ""):
            words.add(word.lower().strip(".-"))

    for table, columns in {
        "gpus": ("name", "aliases", "vendor", "architecture"),
        "models": ("name", "aliases", "family"),
        "engines": ("engine",),
        "image_models": ("name",),
        "cpus": ("name",),
        "interconnects": ("name",),
    }.items():
        path = ROOT / "data" / f"{table}.csv"
        if not path.is_file():
            continue
        with path.open(encoding="utf-8") as f:
            for row in csv.DictReader(f):
                for column in columns:
                    add(row.get(column, ""))
    for word in STANDARD:
        add(word)
    try:  # the kit's own format, optimizer and precision names
        from hwguide import image
        from hwguide.memory import KV_DTYPES, OPTIMIZERS, PRECISIONS, WEIGHT_FORMATS

        for name in (*WEIGHT_FORMATS, *KV_DTYPES, *OPTIMIZERS, *PRECISIONS, *image.IMAGE_FORMATS):
            add(name)
    except ImportError:
        pass
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():  # package names
        add(re.split(r"[<>=#\s]", line.strip(), maxsplit=1)[0])
    return words


ALLOWED = _names()
WORD = re.compile(r"[A-Za-z][A-Za-z0-9_.+\-]*")


def english_words(line: str) -> list[str]:
    """The words of ``line`` that are English: Latin-letter words outside the names, units and acronyms."""
    line = re.sub(
        r"https?://\S+|\S+\.(csv|json|ipynb|py|md|html|pdf|xlsx)\b|hg\.[\w.]+\(?|\b\w+\([^)]*\)?|\b\d\d_[a-z_]+\b"
        r"|\b[a-z]{2,4}-\d+\b|[\w.-]+\.(com|co|org|io|cn)\b(/[\w./-]*)?|<[!/]?\w+[^>]*>|\b\w+=\S*",
        " ",
        line,
    )  # file names, code, row ids (inf-13), domains, HTML tags, arguments (cpu_moe=all)
    out = []
    for word in WORD.findall(line):
        key = word.lower().strip(".-_+")
        letters = re.sub(r"[^a-z]", "", key)
        if len(letters) < 2 or key in ALLOWED or re.fullmatch(r"[a-z]?\d[\w.]*", key):
            continue
        if any(part in ALLOWED for part in re.split(r"[-_.+]", key) if part) and all(
            part in ALLOWED or not re.sub(r"[^a-z]", "", part) or len(re.sub(r"[^a-z]", "", part)) < 2
            for part in re.split(r"[-_.+]", key)
            if part
        ):
            continue
        out.append(word)
    return out


def _html_headers(markup: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", h)).strip() for h in re.findall(r"<th[^>]*>(.*?)</th>", markup, re.S)]


def outputs(path: Path) -> tuple[list[str], list[str], list[str]]:
    """The printed lines (stream text, results shown as text or HTML other than tables), the table
    headers and the table cells."""
    lines: list[str] = []
    headers: list[str] = []
    cells: list[str] = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if "hg.glossary(" in "".join(cell.get("source", "")):
            continue  # the bilingual glossary: its English column is the point of it
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if out.get("output_type") == "stream":
                lines += "".join(out.get("text", "")).splitlines()
            elif "text/html" in data and "<th" in "".join(data["text/html"]):
                markup = "".join(data["text/html"])
                headers += [h for h in _html_headers(markup) if h]
                found = re.findall(r"<td[^>]*>(.*?)</td>", markup, re.S)
                cells += [html.unescape(re.sub(r"<[^>]+>", " ", c)).strip() for c in found]
            elif "text/html" in data:
                text = html.unescape(re.sub(r"<[^>]+>", "\n", "".join(data["text/html"])))
                lines += text.splitlines()
            elif "text/plain" in data and not any(k.startswith("image/") for k in data):  # a chart shows its image
                lines += "".join(data["text/plain"]).splitlines()
    return [x for x in lines if x.strip()], headers, [x for x in cells if x]


def measure(paths: list[Path]) -> dict[str, dict[str, int]]:
    result = {}
    for path in paths:
        lines, headers, cells = outputs(path)
        result[str(path.relative_to(ROOT))] = {
            "lines": len(lines),
            "english_lines": sum(bool(english_words(x)) for x in lines),
            "headers": len(headers),
            "english_headers": sum(bool(english_words(x)) for x in headers),
            "cells": len(cells),
            "english_cells": sum(bool(english_words(x)) for x in cells),
        }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=0, help="print this many offending lines and headers")
    parser.add_argument("--api", action="store_true", help="also measure what the public API says in Chinese")
    args = parser.parse_args()
    if args.api:
        english, lines = api_share()
        print(f"API in Chinese: {english} of {lines} lines carry English ({english / lines:.1%})")
    paths = sorted(ZH.rglob("*.ipynb"))
    result = measure(paths)
    keys = ("lines", "english_lines", "headers", "english_headers", "cells", "english_cells")
    total = {k: sum(r[k] for r in result.values()) for k in keys}
    for name, r in result.items():
        print(
            f"{name:48} lines {r['english_lines']:4}/{r['lines']:<5} headers {r['english_headers']:4}/"
            f"{r['headers']:<5} table cells {r['english_cells']:4}/{r['cells']}"
        )
    share_l = total["english_lines"] / max(total["lines"], 1)
    share_h = total["english_headers"] / max(total["headers"], 1)
    print(
        f"{'all':48} lines {total['english_lines']}/{total['lines']} = {share_l:.1%}   "
        f"headers {total['english_headers']}/{total['headers']} = {share_h:.1%}   table cells "
        f"{total['english_cells']}/{total['cells']} = {total['english_cells'] / max(total['cells'], 1):.1%}"
    )
    if args.show:
        shown = 0
        for path in paths:
            lines, headers, cells = outputs(path)
            for x in lines + headers + cells:
                words = english_words(x)
                if words and shown < args.show:
                    print(f"{path.name}: {x[:140]!r}  <- {words[:5]}")
                    shown += 1


def api_lines() -> list[str]:
    """What the public API says in Chinese, line by line: the planner's builds and failures, memory and
    training-time assumptions, compare(), decode_name(), source_claims(), build_system() notes and
    export_status() labels, for a spread of inputs (issue 25's second target)."""
    import warnings

    import hwguide as hg
    from hwguide import i18n

    lines: list[str] = []
    with i18n.using("zh"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = hg.recommend(inference=dict(model="Llama-3.1-70B", weights="awq-4bit-g128", users=20, context=8192,
                                           tokens_per_s=15), finetune=dict(model="Qwen3-8B", method="lora"),
                            budget=200000, currency="CNY")  # fmt: skip
        for frame in (plan.builds.head(10), plan.failed):
            lines += [str(v) for v in frame["why"]]
        lines += [str(a) for a in plan.assumptions]
        for mem in (hg.inference_memory("Llama-3.1-8B", weights="fp16", context=8192),
                    hg.finetune_memory("Qwen2.5-14B", method="qlora"),
                    hg.training_memory("Llama-2-7B", gpus=8, zero=3)):  # fmt: skip
            lines += [str(a) for a in mem.assumptions] + str(mem).splitlines()
        time = hg.training_time("Llama-2-7B", "A100 SXM4 80GB", tokens=2e12, gpus=1024)
        lines += [str(a) for a in time.assumptions] + str(time).splitlines()
        lines += [str(v) for v in i18n.labelled(hg.compare("RTX 3090", "RTX 4090")).astype(str).to_numpy().ravel()]
        for name in ("RTX 4090", "A800 SXM4 80GB", "H20", "RTX 2080 Ti 22GB"):
            lines += [f"{i18n.label(k)} {v}" for k, v in hg.decode_name(name).items()]
        claims = hg.source_claims()
        lines += [str(v) for v in claims["claim"]] + [str(v) for v in claims["evidence"]]
        for card, count in (("RTX 4090", 2), ("H100 SXM", 8), ("RTX 3090", 4)):
            lines.append(str(hg.build_system(card, count)["notes"]))
        for card in ("RTX 4090", "H20", "A800 SXM4 80GB", "H100 SXM"):
            lines.append(str(hg.export_status(card)["label"]))
    return [x for x in lines if x.strip()]


def api_share() -> tuple[int, int]:
    """(lines with English words, lines) of :func:`api_lines`."""
    lines = api_lines()
    return sum(bool(english_words(x)) for x in lines), len(lines)


if __name__ == "__main__":
    main()
