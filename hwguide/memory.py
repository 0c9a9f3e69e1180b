"""GPU memory for inference, fine-tuning and training, part by part.

Everything is computed in bytes from the model's architecture (:func:`hwguide.architecture.tensors`)
and returned as a :class:`~hwguide.result.Memory`, whose ``assumptions`` cite where each rule
comes from. Display is in GiB (2**30 bytes).

Formulas, in one place:

* weights: parameters × bits of the format (:func:`weights_bytes`); library formats (bitsandbytes
  NF4, GPTQ, AWQ, GGUF) keep their real layouts, scales included;
* KV cache: 2 × layers × KV heads × head dim × bytes × tokens × batch, sliding-window layers
  capped at the window, MLA caching its latent (:func:`kv_cache_bytes`);
* training model states: ZeRO paper (Rajbhandari et al. 2020, §3.1 and Figure 1): mixed-precision
  Adam holds 2 + 2 + 12 = 16 bytes per parameter, sharded over data-parallel GPUs by stage;
* activations: Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer
  Models", §4), generalised to GQA and gated FFNs term by term (:func:`activation_bytes`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import warnings
from collections.abc import Callable, Sequence

from . import checks, i18n
from .architecture import LINEAR_KINDS, Model, Tensor, param_count, tensors
from .catalog import Engine, lookup_engine, lookup_model
from .i18n import N_
from .result import GIB, Memory

__all__ = [
    "KV_DTYPES",
    "OPTIMIZERS",
    "WEIGHT_FORMATS",
    "Parallelism",
    "Runtime",
    "activation_bytes",
    "finetune_memory",
    "inference_memory",
    "is_gguf",
    "kv_cache_bytes",
    "state_bytes",
    "lora_params",
    "max_context",
    "max_users",
    "training_memory",
    "weights_bytes",
]

MIB = 2**20
RECOMPUTE = ("none", "selective", "full")


# ---------------------------------------------------------------------------------------------
# Weights
# ---------------------------------------------------------------------------------------------

# Plain formats: every parameter stored at this many bytes (the textbook figure), except fp8, whose
# checkpoints keep the embeddings, output head and norms in 16-bit (see _tensor_bytes).
PLAIN_BYTES = {"fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "int4": 0.5}

# Library formats quantise the transformer blocks' linear layers and keep the rest (embeddings,
# output head, norms) in 16-bit. Bits per parameter of a quantised matrix, scales included:
#  - nf4: 4-bit NormalFloat + one fp32 absmax per 64-weight block = 4 + 32/64 = 4.5 bits; with
#    double quantisation the absmax is stored in 8 bits with an fp32 constant per 256 blocks:
#    4 + 8/64 + 32/(64*256) ≈ 4.127 bits (Dettmers et al. 2023, QLoRA, §2 "Double Quantization").
#  - bnb-int8: LLM.int8() int8 weights + one fp32 scale per output row (bitsandbytes Int8Params
#    SCB; Dettmers et al. 2022).
#  - gptq-<b>bit-g<g>: b-bit packed weights + per group of g inputs an fp16 scale and a b-bit zero
#    point per output column, + int32 g_idx per input row (AutoGPTQ's QuantLinear buffers qweight,
#    qzeros, scales, g_idx). awq-<b>bit-g<g>: the same without g_idx (AutoAWQ WQLinear).
#  - mxfp4: OCP Microscaling MXFP4, blocks of 32 FP4 (E2M1) values sharing one 8-bit E8M0 scale:
#    4 + 8/32 = 4.25 bits (OCP MX Specification v1.0, Table 1; ggml's MXFP4 block: 17 bytes per
#    32). gpt-oss ships only its MoE experts in MXFP4 ("modules_to_not_convert": attention, router,
#    embeddings, lm_head stay BF16), so in a MoE model only the experts are MXFP4.
#  - nvfp4: NVIDIA's NVFP4, blocks of 16 FP4 values with one FP8 (E4M3) scale each, plus one FP32
#    scale per tensor: 4 + 8/16 = 4.5 bits (NVIDIA "Introducing NVFP4", 2025; ggml's NVFP4 block:
#    36 bytes per 64 values).
#  - fp8-block128: FP8 (E4M3) weights with one FP32 scale per 128 × 128 block, DeepSeek-V3's
#    checkpoint format ("weight_block_size": [128, 128]): 8 + 32/16,384 bits.
BLOCK_FORMAT_BITS = {"mxfp4": 4 + 8 / 32, "nvfp4": 4 + 8 / 16, "fp8-block128": 8 + 32 / (128 * 128)}
EXPERT_KINDS = {"expert_gate", "expert_up", "expert_down"}
LIBRARY_FORMATS = ("nf4", "nf4-dq", "bnb-int8", "gptq-4bit-g128", "awq-4bit-g128", *BLOCK_FORMAT_BITS)
_GROUPED = re.compile(r"^(gptq|awq)-(\d+)bit-g(\d+)$")


# Weight-format names are case-insensitive: "bf16" and "BF16" both name plain bf16 (a GGUF BF16
# file differs only by its fp32 norms), so the GGUF list starts at F16.
GGUF_FILE_TYPES = (
    "F16", "Q8_0", "Q6_K", "Q5_K_M", "Q5_K_S", "Q5_1", "Q5_0", "Q4_K_M", "Q4_K_S",
    "Q4_1", "Q4_0", "Q3_K_L", "Q3_K_M", "Q3_K_S", "Q2_K",
    "IQ4_XS", "IQ4_NL", "IQ3_M", "IQ3_S", "IQ3_XS", "IQ3_XXS", "IQ2_M", "IQ2_S", "IQ2_XS", "IQ2_XXS", "IQ1_M", "IQ1_S",
    "MXFP4_MOE",
)  # fmt: skip
WEIGHT_FORMATS = tuple(PLAIN_BYTES) + LIBRARY_FORMATS + GGUF_FILE_TYPES


def is_gguf(weights: str) -> bool:
    """Whether ``weights`` names a GGUF file type (Q4_K_M, Q8_0, F16 …), llama.cpp's formats."""
    if not isinstance(weights, str):
        return False
    text = weights.strip()
    return text.lower() not in (*PLAIN_BYTES, *LIBRARY_FORMATS) and text.upper() in GGUF_FILE_TYPES


def check_weights(weights: object, name: str = "weights") -> str:
    """The canonical spelling of a weight format, or a ValueError listing the formats."""
    if isinstance(weights, str):
        text = weights.strip()
        if text.lower() in (*PLAIN_BYTES, *LIBRARY_FORMATS):
            return text.lower()
        if is_gguf(text):
            return text.upper()
        match = _GROUPED.match(text.lower())
        if match:
            bits, group = int(match.group(2)), int(match.group(3))
            if not 2 <= bits <= 8:
                raise ValueError(i18n.msg("{name}={weights!r}: GPTQ/AWQ store 2 to 8 bits per weight, not {bits}",
                                          name=name, weights=weights, bits=bits))  # fmt: skip
            if not 1 <= group <= 65_536:
                raise ValueError(i18n.msg("{name}={weights!r}: the group size must be 1 to 65,536 weights, not {group}",
                                          name=name, weights=weights, group=group))  # fmt: skip
            return text.lower()
    return checks.choice(weights, name, tuple(PLAIN_BYTES) + LIBRARY_FORMATS + ("gptq-<bits>bit-g<group>",)
                         + GGUF_FILE_TYPES)  # fmt: skip


def _quantised_matrix_bits(fmt: str, rows: int, cols: int) -> float:
    """Bits per parameter of one (rows × cols) linear weight in a library format."""
    if fmt == "nf4":
        return 4 + 32 / 64
    if fmt == "nf4-dq":
        return 4 + 8 / 64 + 32 / (64 * 256)
    if fmt == "bnb-int8":
        return 8 + 32 / cols
    if fmt in BLOCK_FORMAT_BITS:
        return BLOCK_FORMAT_BITS[fmt]
    match = _GROUPED.match(fmt)
    assert match, fmt
    kind, bits, group = match.group(1), int(match.group(2)), int(match.group(3))
    per_group = (16 + bits) / group  # fp16 scale + packed zero point, per output column
    g_idx = 32 / rows if kind == "gptq" else 0.0  # one int32 per input channel
    return bits + per_group + g_idx


def tensor_bytes(model: Model | str, weights: str = "fp16") -> tuple[tuple[Tensor, float, str], ...]:
    """(tensor, bytes of all its copies, storage type) for every weight tensor in format ``weights``."""
    return _tensor_bytes(lookup_model(model), check_weights(weights))


@functools.lru_cache(maxsize=1024)
def _tensor_bytes(m: Model, fmt: str) -> tuple[tuple[Tensor, float, str], ...]:
    if is_gguf(fmt):
        from .gguf import gguf_tensor_bytes

        return tuple(gguf_tensor_bytes(m, fmt))
    out = []
    for t in tensors(m):
        if fmt == "fp8" and t.kind not in LINEAR_KINDS:
            # FP8 checkpoints quantise only the blocks' linear layers; embeddings, the output head and
            # norms stay 16-bit: "Only the weights and activations of the linear operators within
            # transformers blocks are quantized" (huggingface.co/neuralmagic/Meta-Llama-3.1-70B-FP8).
            out.append((t, t.size * t.count * 2.0, "16-bit"))
        elif fmt in PLAIN_BYTES:
            out.append((t, t.size * t.count * PLAIN_BYTES[fmt], fmt))
        elif fmt == "mxfp4" and m.experts and t.kind not in EXPERT_KINDS:
            out.append((t, t.size * t.count * 2.0, "16-bit"))  # gpt-oss: only the experts are MXFP4
        elif t.kind in LINEAR_KINDS and len(t.shape) == 2:
            bits = _quantised_matrix_bits(fmt, t.shape[0], t.shape[1])
            out.append((t, t.size * t.count * bits / 8, fmt))
        else:
            out.append((t, t.size * t.count * 2.0, "16-bit"))
    return tuple(out)


def weights_bytes(model: Model | str, weights: str = "fp16", *, active: bool = False) -> int:
    """Bytes of the model's weights stored in format ``weights``.

    Formats: fp32, fp16, bf16, fp8, int8, int4 (every parameter at that width); nf4 and nf4-dq
    (bitsandbytes 4-bit, without/with double quantisation), bnb-int8 (LLM.int8), gptq-4bit-g128
    and awq-4bit-g128 (any ``gptq-<bits>bit-g<group>`` with 2–8 bits works), and GGUF file types
    (Q2_K … Q8_0, F16, the mixed K-quants Q4_K_M, Q5_K_M, Q3_K_M …) laid out per tensor as
    llama.cpp does. ``active=True`` counts only what one token reads (MoE: the routed experts it uses).
    """
    active = checks.flag(active, "active")
    total = 0.0
    for t, size, _ in tensor_bytes(model, weights):
        total += size * (t.active / t.count if active else 1)
    return int(round(total))


def cpu_moe_layers(m: Model, cpu_moe: int | str) -> int:
    """How many MoE layers keep their routed experts in CPU memory: ``"all"`` (llama.cpp's
    ``--cpu-moe``, ``-ot "exps=CPU"``), or a count of layers (``--n-cpu-moe N``), at most the model's."""
    if isinstance(cpu_moe, str) and cpu_moe.strip().lower() == "all":
        return m.moe_layers
    if isinstance(cpu_moe, str) and cpu_moe.strip().isdigit():  # from a measurement row's args
        cpu_moe = int(cpu_moe)
    count = checks.whole(cpu_moe, "cpu_moe", low=0, high=10_000)
    if count and not m.experts:
        raise ValueError(i18n.msg("cpu_moe={cpu_moe!r}: {model} is a dense model; it has no experts to keep in CPU "
                                  "memory", cpu_moe=cpu_moe, model=m.name))  # fmt: skip
    return min(count, m.moe_layers)


# ---------------------------------------------------------------------------------------------
# KV cache
# ---------------------------------------------------------------------------------------------

# Bytes per cached element. q8_0 / q4_0 are llama.cpp's block types (34 bytes per 32 values,
# 18 per 32: GGML_QUANT_SIZES in llama.cpp gguf-py/gguf/constants.py).
KV_DTYPES = {
    "fp32": 4.0, "fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0,
    "q8_0": 34 / 32, "q4_0": 18 / 32, "int4": 0.5,
}  # fmt: skip


# DeepSeek sparse attention's indexer keys, per token and layer: FP8 (E4M3) values and one fp32 scale per
# 128 of them, whatever the KV cache's format (deepseek-ai/DeepSeek-V3.2-Exp inference/model.py, class Indexer:
# k_cache float8_e4m3fn [.., index_head_dim] and k_scale_cache float32 [.., index_head_dim // block_size],
# block_size = 128): 128 + 4 = 132 bytes for DeepSeek-V3.2.
INDEXER_SCALE_BLOCK = 128


def indexer_key_bytes(m: Model) -> int:
    """Bytes one token's indexer key takes in one layer of a DeepSeek sparse-attention model (0 for others)."""
    if not m.index_head_dim:
        return 0
    return m.index_head_dim + 4 * math.ceil(m.index_head_dim / INDEXER_SCALE_BLOCK)


def kv_cache_bytes(model: Model | str, context: int, *, batch: int = 1, kv: str = "fp16") -> int:
    """Bytes of the KV cache holding ``context`` tokens for each of ``batch`` sequences.

    2 (K and V) × KV heads × head dim × bytes per element, per layer and token (hf-mem
    ``kv_cache.py``; llm-analysis ``get_memory_kv_cache_per_layer``). Sliding-window layers keep
    at most ``sliding_window`` tokens. MLA layers (DeepSeek-V2/V3) cache one compressed latent of
    ``kv_lora_rank + qk_rope_head_dim`` values per token, as MLA-aware engines (vLLM, SGLang)
    store it; DeepSeek-V3.2's sparse attention adds its indexer's key per token and layer
    (:func:`indexer_key_bytes`, FP8 with scales whatever ``kv``). Hybrid models (Qwen3-Next, Nemotron-H) cache
    only on their attention layers: their linear-attention or Mamba-2 layers keep a fixed-size state instead
    (:func:`state_bytes`), and Nemotron-H's MLP-only blocks keep nothing. Check: LLaMA-7B in fp16 at 2,048
    tokens = 1,024 MiB (llama.cpp PR #2325 log).
    """
    m = lookup_model(model)
    tokens = checks.whole(context, "context")
    batch = checks.whole(batch, "batch")
    size = KV_DTYPES[checks.choice(kv, "kv", KV_DTYPES)]
    if m.attention == "MLA":
        per_token_layer = ((m.kv_lora_rank or 0) + (m.qk_rope_head_dim or 0)) * size + indexer_key_bytes(m)
        return int(m.layers * tokens * per_token_layer * batch)
    per_token_layer = 2 * m.kv_heads * m.head_dim
    window_layers = m.sliding_window_layers if m.sliding_window else 0
    windowed = min(tokens, m.sliding_window or tokens)
    cached = (m.attention_layers - window_layers) * tokens + window_layers * windowed
    return int(cached * per_token_layer * size * batch)


# Families whose recurrent (SSM) state vLLM keeps in the config's mamba_ssm_cache_dtype, float32 when the config
# names none: "Only `float32` is known to have no accuracy issues by default" (vllm/model_executor/models/config.py,
# NemotronHForCausalLMConfig.update_mamba_ssm_cache_dtype; docs.vllm.ai API reference). Their convolution window
# stays in the model's dtype.
FP32_SSM_STATE_TYPES = {"nemotron_h"}
SSM_STATE_BYTES = {"float32": 4.0, "bfloat16": 2.0, "float16": 2.0}


def state_bytes(model: Model | str, *, batch: int = 1, kv: str = "fp16") -> int:
    """Bytes of the fixed-size state the linear-attention or Mamba-2 layers of a hybrid keep, ``batch`` sequences.

    :meth:`Model.state_elements` values per sequence (recurrent state and convolution window), at the KV
    cache's bytes per value (the kit's assumption: engines keep this state in the model's dtype or wider),
    except a Nemotron-H's recurrent state, which vLLM keeps in ``mamba_ssm_cache_dtype`` (float32 unless the
    config says otherwise). It does not grow with the context. 0 for a model without such layers.
    """
    m = lookup_model(model)
    batch = checks.whole(batch, "batch")
    size = KV_DTYPES[checks.choice(kv, "kv", KV_DTYPES)]
    recurrent, ssm = m.recurrent_state_elements(), size
    if m.model_type in FP32_SSM_STATE_TYPES:
        ssm = SSM_STATE_BYTES.get(str(m.config.get("mamba_ssm_cache_dtype") or "float32").lower(), 4.0)
    return int((recurrent * ssm + (m.state_elements() - recurrent) * size) * batch)


# ---------------------------------------------------------------------------------------------
# Activations (Korthikanti et al. 2022, generalised term by term)
# ---------------------------------------------------------------------------------------------


def _has_dropout(m: Model) -> bool:
    keys = ("hidden_dropout_prob", "attention_probs_dropout_prob", "hidden_dropout", "resid_pdrop")
    return any(float(m.config.get(k) or 0) > 0 for k in keys) or m.model_type == "gpt3"


def _ffn_width(m: Model) -> int:
    """Width of the FFN intermediate one token passes through (MoE: its experts together)."""
    if m.experts:
        return (m.moe_ffn_size or m.ffn_size) * (m.experts_per_token + m.shared_experts)
    return m.ffn_size


def activation_bytes(
    model: Model | str,
    context: int,
    *,
    batch: int = 1,
    flash_attention: bool = True,
    recompute: str = "none",
    tp: int = 1,
    bytes_per_value: int = 2,
) -> int:
    """Activation memory kept for the backward pass, all layers of one model replica, in bytes.

    Korthikanti et al. (2022), Table 2: per layer s·b·h·(34 + 5·a·s/h) bytes for a GPT block with
    16-bit activations and dropout (s = ``context`` tokens per sequence, b = ``batch``). Here each
    stored tensor is counted for the actual shapes: attention keeps the block input, Q, K, V (with
    KV heads), the attention output and (without flash attention) the a·s² softmax scores; the FFN
    keeps its input and intermediates (two for a plain MLP, four for a gated one); norms keep their
    inputs; dropout keeps 1-byte masks only when the model uses dropout. For a GPT block this gives
    exactly 34 + 5·a·s/h. Flash attention (or selective recomputation) drops the a·s² terms; full
    recomputation keeps only each layer's input plus one layer's activations while it is
    recomputed. Tensor parallelism with sequence parallelism divides everything by ``tp``
    (Korthikanti §4.2.2).
    """
    m = lookup_model(model)
    s, b = checks.whole(context, "context"), checks.whole(batch, "batch")
    recompute = checks.choice(recompute, "recompute", RECOMPUTE)
    tp = checks.whole(tp, "tp")
    flash_attention = checks.flag(flash_attention, "flash_attention")
    bytes_per_value = checks.choice(bytes_per_value, "bytes_per_value", (1, 2, 4))
    h, a, v = m.hidden_size, m.heads, bytes_per_value
    q, kv = m.heads * m.head_dim, m.kv_heads * m.head_dim
    if m.attention == "MLA":
        kv = m.heads * ((m.qk_nope_head_dim or 0) + (m.qk_rope_head_dim or 0))  # decompressed K
        q = kv
    drop = _has_dropout(m)
    f = _ffn_width(m)
    attention = v * (h + q + 2 * kv + q) + (h if drop else 0)  # input, Q, K, V, output; mask
    if not (flash_attention or recompute == "selective"):
        attention += a * s * (v + (1 + v if drop else 0))  # softmax output (+ dropout mask, output)
    else:
        attention += a * 4  # flash attention's fp32 log-sum-exp per head and token
    ffn = v * (h + (4 if m.gated_ffn else 2) * f) + (h if drop else 0)
    norms = 2 * v * h
    per_layer = s * b * (attention + ffn + norms) / tp
    if recompute == "full":
        return int(m.layers * s * b * h * v / tp + per_layer)
    return int(m.layers * per_layer)


def logits_bytes(m: Model, tokens: int, batch: int) -> int:
    """Output-layer memory of the loss: 16-bit logits, their fp32 copy and the fp32 log-softmax.

    2 + 4 + 4 = 10 bytes per token and vocabulary entry (transformers upcasts logits with
    ``.float()`` before the cross-entropy, which keeps its fp32 log-softmax for the backward pass;
    the survey's asmirnov reference counts the two fp32 tensors, 8 bytes).
    """
    if m.model_type in ("bert", "roberta"):
        return 0  # an encoder fine-tuned with a small task head has no vocabulary-sized output
    return int(10 * tokens * batch * m.vocab_size)


# ---------------------------------------------------------------------------------------------
# Runtime: the engine and its CUDA context
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Runtime:
    """The engine a job runs on and the CUDA context each GPU carries (MiB)."""

    engine: Engine
    cuda_context_mib: float
    measured: bool  # True when the user gave the CUDA context instead of the engine's figure

    @property
    def source(self) -> str | i18n.Message:
        """Where the CUDA-context figure comes from (a message when it was given)."""
        return i18n.msg("measured, given") if self.measured else self.engine.source.split(" ; ")[0]


def runtime(engine: object, cuda_context_mib: object) -> Runtime:
    """Check ``engine`` and ``cuda_context_mib`` (None: the engine's figure in data/engines.csv)."""
    eng = lookup_engine(engine, "engine")
    if cuda_context_mib is None:
        if eng.cuda_context_mib is None:
            raise ValueError(
                i18n.msg(
                    "engine={engine!r} has no sourced CUDA-context figure in data/engines.csv; pass "
                    "cuda_context_mib= (measured with nvidia-smi) or choose transformers, vllm or llama.cpp",
                    engine=eng.name,
                )
            )
        return Runtime(eng, float(eng.cuda_context_mib), False)
    mib = checks.number(cuda_context_mib, "cuda_context_mib", high=1_000_000, unit="MiB")
    return Runtime(eng, mib, True)


# What a reader compares the estimate with (the ``reading`` argument): the kit says which.
READINGS = {
    "nvidia-smi": N_("what nvidia-smi shows for the process: what the framework allocates, the allocator's "
                     "reserve, the CUDA context and the libraries' memory outside the allocator"),
    "reserved": N_("what PyTorch reserves (torch.cuda.max_memory_reserved): what it allocates plus its "
                   "allocator's reserve; no CUDA context"),
    "allocated": N_("what the framework allocates (torch.cuda.max_memory_allocated): tensors only; no "
                    "allocator reserve, no CUDA context"),
}  # fmt: skip
#: PyTorch's caching allocator rounds every allocation over 10 MiB up to a multiple of 2 MiB
#: (c10/cuda/CUDACachingAllocator.cpp: kMinLargeAlloc = 10485760, kRoundLarge = 2097152).
ROUND_ABOVE, ROUND_TO = 10 * MIB, 2 * MIB
#: Parts a reading leaves out: "allocated" is tensors only, "reserved" adds the allocator's reserve.
LEFT_OUT_BY_READING = {
    "nvidia-smi": (),
    "reserved": ("cuda_context", "cuda_graphs", "workspace"),
    "allocated": ("cuda_context", "cuda_graphs", "workspace", "allocator_reserve"),
}


def check_reading(reading: object) -> str:
    """``reading`` checked against :data:`READINGS` (nvidia-smi, reserved, allocated)."""
    return checks.choice(reading, "reading", tuple(READINGS))


def rounding_bytes(sizes: Sequence[tuple[float, int]]) -> float:
    """Bytes PyTorch's caching allocator reserves beyond ``sizes`` ((bytes, count) of tensors) by rounding.

    Each tensor over 10 MiB gets a segment rounded up to a multiple of 2 MiB (kRoundLarge), so a
    model's large weight matrices, loaded one by one, each leave up to 2 MiB unused: about 1 MiB
    each, 220 MiB for a 7B Llama's 226 large matrices.
    """
    total = 0.0
    for size, count in sizes:
        if size > ROUND_ABOVE:
            total += (math.ceil(size / ROUND_TO) * ROUND_TO - size) * count
    return total


def _weight_rounding(m: Model, fmt: str, copies: float = 1.0) -> float:
    """:func:`rounding_bytes` of the model's weight tensors in ``fmt`` (``copies`` of each, e.g. gradients)."""
    sizes = [(size / t.count, t.count) for t, size, _ in tensor_bytes(m, fmt)]
    return rounding_bytes(sizes) * copies


def _apply_reading(
    per_gpu: dict[str, float], run: Runtime, reserve: float, reading: str, notes: list[i18n.Message]
) -> None:
    """Add the runtime parts a ``reading`` sees to ``per_gpu`` and say which quantity the total is."""
    eng = run.engine
    added = {
        "allocator_reserve": reserve + (eng.reserve_mib or 0.0) * MIB if eng.allocator == "pytorch" else 0.0,
        # a measured context (cuda_context_mib=) is read as everything outside the allocator: no workspace on top
        "workspace": 0.0 if run.measured else (eng.workspace_mib or 0.0) * MIB,
    }
    per_gpu.update({part: size for part, size in added.items() if size > 0})  # a part of nothing is not shown
    for part in LEFT_OUT_BY_READING[reading]:
        per_gpu.pop(part, None)
    notes.append(i18n.msg("The total is {quantity}.", quantity=i18n.msg(READINGS[reading])))
    if "allocator_reserve" in per_gpu:
        notes.append(i18n.msg("Allocator reserve, {gib:.2f} GiB: PyTorch's caching allocator keeps freed blocks for "
                              "reuse and rounds each allocation over 10 MiB up to a multiple of 2 MiB "
                              "(CUDACachingAllocator.cpp); torch.cuda.max_memory_reserved and nvidia-smi see it "
                              "({engine}'s reserve in data/engines.csv: {mib:.0f} MiB plus the rounding).",
                              gib=per_gpu["allocator_reserve"] / GIB, engine=eng.name,
                              mib=eng.reserve_mib or 0))  # fmt: skip
    if "workspace" in per_gpu:
        notes.append(i18n.msg("Libraries outside the allocator: {mib:.0f} MiB per GPU that nvidia-smi shows beyond "
                              "the bare CUDA context once the first step has run (kernels loaded on first use, "
                              "cuBLAS and attention workspaces; {engine}'s figure in data/engines.csv).",
                              mib=eng.workspace_mib, engine=eng.name))  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Inference
# ---------------------------------------------------------------------------------------------


def inference_memory(
    model: Model | str,
    *,
    weights: str = "fp16",
    kv: str = "fp16",
    batch: int = 1,
    context: int = 4096,
    engine: str = "transformers",
    gpus: int = 1,
    flash_attention: bool = True,
    cuda_context_mib: float | None = None,
    cpu_moe: int | str = 0,
    gpu_layers: int | None = None,
    reading: str = "nvidia-smi",
) -> Memory:
    """GPU memory to serve ``batch`` sequences of ``context`` tokens (prompt + output) each.

    Parts: weights (in ``weights`` format), KV cache (in ``kv``), activations/workspace of the
    engine's largest step, and the runtime (CUDA context, CUDA graphs). ``gpus`` > 1 splits
    weights and KV cache by tensor parallelism (KV heads are replicated when there are fewer
    than GPUs, as vLLM does); each GPU carries its own runtime. A context beyond the model's
    maximum is computed with a warning. ``cuda_context_mib`` replaces the engine's CUDA-context
    figure (data/engines.csv) with one you measured, in MiB. ``cpu_moe`` keeps the routed experts
    of that many MoE layers (``"all"``: every one) in CPU memory, as llama.cpp's ``--n-cpu-moe N`` /
    ``--cpu-moe`` and KTransformers do: they move from the GPU's weights to ``offloaded``.
    ``gpu_layers`` keeps only that many of the model's layers on the GPU, as llama.cpp's
    ``--n-gpu-layers`` (``-ngl``) does for a dense model: the other layers' weights and their KV cache
    stay in CPU memory (``offloaded``), and so does the output layer unless every layer is on the GPU.
    ``reading`` says which quantity to estimate (:data:`READINGS`): ``"nvidia-smi"`` (the default:
    what users compare with) adds the CUDA context, the libraries' memory outside the allocator and
    the caching allocator's reserve; ``"reserved"`` is torch.cuda.max_memory_reserved; ``"allocated"``
    is torch.cuda.max_memory_allocated (tensors only). An engine whose cache is a tuple rebuilt every
    step (transformers before 4.36: engines.csv ``kv_copies`` 2) holds the old and the new cache at
    once, so its peak counts the KV cache twice.
    """
    m = lookup_model(model)
    batch, context, gpus = checks.whole(batch, "batch"), checks.whole(context, "context"), checks.whole(gpus, "gpus")
    reading = check_reading(reading)
    fmt = check_weights(weights)
    kv = checks.choice(kv, "kv", KV_DTYPES)
    flash_attention = checks.flag(flash_attention, "flash_attention")
    run = runtime(engine, cuda_context_mib)
    eng = run.engine
    notes: list[i18n.Message] = []
    warns = _context_warning(m, context)
    w = weights_bytes(m, fmt)
    cache = kv_cache_bytes(m, context, batch=batch, kv=kv)
    kv_per_gpu = cache / gpus * (math.ceil(m.kv_heads / gpus) * gpus / m.kv_heads if m.attention != "MLA" else 1)
    state = state_bytes(m, batch=batch, kv=kv)
    h, f, heads = m.hidden_size, _ffn_width(m), m.heads
    if eng.workspace_rule == "ggml-compute-buffer":
        ub = eng.ubatch_tokens or 512
        step = min(ub, batch * context)
        scores = 0 if flash_attention else step * context * heads
        work = 4 * (step * m.vocab_size + max(3 * f * step, scores))
        scored = (
            i18n.msg("no attention scores (flash attention)") if flash_attention else i18n.msg("the attention scores")
        )
        notes.append(
            i18n.msg(
                "{engine} compute buffer: fp32 logits and the larger of the FFN intermediates and {scores} "
                "for one micro-batch of {ubatch} tokens; measured 153 MB for LLaMA-7B at n_ctx 2048, "
                "n_batch 512 (llama.cpp PR #2411).",
                engine=eng.name,
                scores=scored,
                ubatch=ub,
            )
        )
    else:  # forward-step: the largest transient of one forward step of a PyTorch stack
        step = min(eng.prefill_chunk_tokens or batch * context, batch * context)
        work = 2 * step * (2 * h + 3 * f) + 4 * batch * m.vocab_size
        if not flash_attention:
            work += 2 * batch * heads * min(step, context) * context
        scores = (
            i18n.msg("no s² attention matrix (flash/SDPA attention).")
            if flash_attention
            else i18n.msg("eager attention keeps the s² scores.")
        )
        notes.append(
            i18n.msg(
                "Activations: the largest transient of one forward step over {step:,} tokens (residual "
                "and normed hidden states, and the FFN's gate, up and product in 16-bit) plus fp32 "
                "logits for the last position of each sequence; {scores}",
                step=step,
                scores=scores,
            )
        )
    graphs = (eng.graphs_mib or 0) * MIB
    offloaded: dict[str, float] = {}
    if eng.embeddings_in_host:  # the input embedding stays in host memory (llama.cpp's "CPU buffer")
        embd = sum(size for t, size, _ in tensor_bytes(m, fmt) if t.kind in ("embedding", "position"))
        offloaded["token_embd"] = embd
        w -= embd
        notes.append(i18n.msg("{engine} keeps the token-embedding matrix in CPU memory (the log's CPU buffer).",
                              engine=eng.name))  # fmt: skip
    cpu_layers = cpu_moe_layers(m, cpu_moe)
    if cpu_layers:
        experts = sum(size for t, size, _ in tensor_bytes(m, fmt) if t.kind in EXPERT_KINDS) * cpu_layers / m.moe_layers
        offloaded["experts"] = experts
        w -= experts
        notes.append(
            i18n.msg(
                "Routed experts of {layers} of {moe_layers} MoE layers in CPU memory: {gib:.2f} GiB; "
                "attention, shared experts, norms and the KV cache stay on the GPU.",
                layers=cpu_layers,
                moe_layers=m.moe_layers,
                gib=experts / GIB,
            )
        )
    if gpu_layers is not None:
        n = checks.whole(gpu_layers, "gpu_layers", low=0, high=m.layers)
        if n < m.layers:
            share = (m.layers - n) / m.layers
            sizes = [(t.kind, size) for t, size, _ in tensor_bytes(m, fmt) if t.kind not in ("embedding", "position")]
            layers_cpu = sum(size for kind, size in sizes if kind != "lm_head") * share
            layers_cpu += sum(size for kind, size in sizes if kind == "lm_head")
            kv_cpu = kv_per_gpu * share
            offloaded["layers"], offloaded["kv_cache"] = layers_cpu, kv_cpu
            w -= layers_cpu
            kv_per_gpu -= kv_cpu
            notes.append(
                i18n.msg(
                    "{gpu} of {layers} layers on the GPU (llama.cpp --n-gpu-layers {gpu}): {weights:.2f} GiB of "
                    "weights (the other layers and the output layer) and {kv:.2f} GiB of their KV cache stay in "
                    "CPU memory.",
                    gpu=n,
                    layers=m.layers,
                    weights=layers_cpu / GIB,
                    kv=kv_cpu / GIB,
                )
            )
    per_gpu = {
        "weights": w / gpus,
        "kv_cache": kv_per_gpu,
        "activations": work / gpus,
        "cuda_context": run.cuda_context_mib * MIB,
    }
    copies = eng.kv_copies or 1
    if copies > 1:  # the previous step's cache is alive while the new one is built
        per_gpu["kv_copy"] = kv_per_gpu * (copies - 1)
        notes.append(i18n.msg("{engine} rebuilds the cache as a new tuple every step (legacy cache of transformers "
                              "before 4.36): at the peak the previous step's cache is still alive, so the KV cache "
                              "counts {copies} times.", engine=eng.name, copies=copies))  # fmt: skip
    if graphs:
        per_gpu["cuda_graphs"] = graphs
    if state:
        per_gpu["state"] = state / gpus
        notes.append(i18n.msg("Linear-attention state: {layers} of {total} layers keep a fixed {mib:.1f} MiB per "
                              "sequence (recurrent state and convolution window) instead of a KV cache.",
                              layers=m.linear_layers, total=m.layers, mib=state / batch / MIB))  # fmt: skip
    vision = sum(size for t, size, _ in tensor_bytes(m, fmt) if t.kind == "vision")
    if vision:
        notes.append(i18n.msg("Weights include the vision tower and projector: {billions:.2f}B parameters, "
                              "{gib:.2f} GiB; images add their tokens to the context.",
                              billions=sum(t.size for t in tensors(m) if t.kind == "vision") / 1e9,
                              gib=vision / GIB))  # fmt: skip
    runtime_notes: list[i18n.Message] = []
    _apply_reading(per_gpu, run, _weight_rounding(m, fmt) / gpus, reading, runtime_notes)
    parts = {k: v * gpus for k, v in per_gpu.items()}
    parts["weights"], parts["activations"] = w, work
    assumptions = [
        i18n.msg(
            "Weights: {format}, {gib:.2f} GiB for {billions:.2f}B parameters counted from the architecture.",
            format=fmt,
            gib=w / GIB,
            billions=param_count(m) / 1e9,
        ),
        i18n.msg(
            "KV cache: {kv}, {batch} × {tokens:,} tokens; {rule}", kv=kv, batch=batch, tokens=context, rule=_kv_rule(m)
        ),
        *notes,
        *runtime_notes,
    ]
    if "cuda_context" in per_gpu:
        assumptions.append(_context_note(run))
    if graphs:
        assumptions.append(i18n.msg("CUDA graphs: {mib:.0f} MiB per GPU ({engine} engine notes).",
                                    mib=eng.graphs_mib, engine=eng.name))  # fmt: skip
    if eng.preallocate_fraction:
        assumptions.append(
            i18n.msg(
                "{engine} pre-allocates {fraction:.0%} of each GPU's memory and fills the rest with KV cache: "
                "nvidia-smi shows that much whatever the model; the total here is what the workload needs.",
                engine=eng.name,
                fraction=eng.preallocate_fraction,
            )
        )
    if gpus > 1:
        assumptions.append(
            i18n.msg(
                "Tensor parallel over {gpus} GPUs: weights, KV cache and activations split; each GPU "
                "keeps its own CUDA context.",
                gpus=gpus,
            )
        )
    return Memory(
        kind="inference",
        per_gpu={k: int(round(v)) for k, v in per_gpu.items()},
        parts={k: int(round(v)) for k, v in parts.items()},
        gpus=gpus,
        assumptions=tuple(assumptions),
        offloaded={k: int(round(v)) for k, v in offloaded.items()},
        warnings=tuple(warns),
    )


def _kv_rule(m: Model) -> i18n.Message:
    if m.attention == "MLA" and m.index_head_dim:
        return i18n.msg("MLA caches a {latent}+{rope}-value latent per token and layer, and the sparse-attention "
                        "indexer a {index}-value FP8 key ({bytes} bytes with its scales).", latent=m.kv_lora_rank,
                        rope=m.qk_rope_head_dim, index=m.index_head_dim, bytes=indexer_key_bytes(m))  # fmt: skip
    if m.attention == "MLA":
        return i18n.msg("MLA caches a {latent}+{rope}-value latent per token and layer.",
                        latent=m.kv_lora_rank, rope=m.qk_rope_head_dim)  # fmt: skip
    shape = {"layers": m.attention_layers, "kv_heads": m.kv_heads, "head_dim": m.head_dim}
    if m.sliding_window:
        return i18n.msg("2 × {layers} layers × {kv_heads} KV heads × {head_dim} head dim per token; "
                        "{window_layers} layers keep at most {window:,} tokens.",
                        window_layers=m.sliding_window_layers, window=m.sliding_window, **shape)  # fmt: skip
    return i18n.msg("2 × {layers} layers × {kv_heads} KV heads × {head_dim} head dim per token.", **shape)


def _context_note(run: Runtime) -> i18n.Message:
    return i18n.msg("CUDA context: {mib:.0f} MiB per GPU ({source}).", mib=run.cuda_context_mib, source=run.source)


def _context_warning(m: Model, context: int) -> list[i18n.Message]:
    """A warning (issued now, in the current language, and returned) when ``context`` exceeds the model's maximum."""
    if context > m.max_context:
        message = i18n.msg(
            "context={tokens:,} exceeds {model}'s maximum of {maximum:,} tokens; the memory is computed anyway",
            tokens=context,
            model=m.name,
            maximum=m.max_context,
        )
        warnings.warn(str(message), UserWarning, stacklevel=3)
        return [message]
    return []


# ---------------------------------------------------------------------------------------------
# Training and fine-tuning
# ---------------------------------------------------------------------------------------------

PRECISIONS = ("bf16-mixed", "fp16-mixed", "fp32", "bf16")
# Optimizer state bytes per trainable parameter, with the source of each figure.
OPTIMIZERS: dict[str, tuple[float, str]] = {
    "adamw": (8.0, N_("Adam/AdamW keep two fp32 moments, 8 bytes "
                      "(ZeRO paper §3.1: K = 12 with the fp32 master copy)")),
    "adamw-8bit": (2.0, N_("8-bit Adam keeps two 1-byte moments, 2 bytes "
                           "(Dettmers et al. 2022, 8-bit Optimizers; transformers perf_train_gpu_one)")),
    "paged-adamw-8bit": (2.0, N_("paged 8-bit AdamW: 2 bytes, pageable to CPU memory under pressure "
                                 "(QLoRA §2, paged optimizers)")),
    "sgd": (4.0, N_("SGD with momentum keeps one fp32 buffer, 4 bytes (transformers perf_train_gpu_one)")),
    "lion": (4.0, N_("Lion keeps one fp32 momentum, 4 bytes (Chen et al. 2023)")),
    "adafactor": (0.0, N_("Adafactor keeps factored row and column second moments: about "
                          "4 × (rows + cols) bytes per matrix (Shazeer & Stern 2018)")),
}  # fmt: skip


def _optimizer_state_bytes(trainable: Sequence[Tensor], optimizer: str, pure_bf16: bool) -> float:
    per_param, _ = OPTIMIZERS[optimizer]
    if optimizer == "adafactor":
        return sum(4.0 * (sum(t.shape) if len(t.shape) == 2 else t.size) * t.count for t in trainable)
    if pure_bf16 and optimizer in ("adamw", "sgd", "lion"):
        per_param /= 2  # states kept in bf16
    return per_param * sum(t.size * t.count for t in trainable)


_SHARDED = (N_("nothing"), N_("optimizer states"), N_("gradients and optimizer states"),
            N_("weights, gradients and optimizer states"))  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Parallelism:
    """How a training job is split: ``gpus`` = data-parallel × ``tp`` × ``pp``, with a ZeRO stage."""

    gpus: int = 1
    tp: int = 1
    pp: int = 1
    zero: int = 0
    offload: str | None = None

    @property
    def dp(self) -> int:
        """Data-parallel replicas."""
        return self.gpus // (self.tp * self.pp)


def parallelism(
    *, gpus: object, tp: object = 1, pp: object = 1, zero: object = 0, offload: object = None
) -> Parallelism:
    """Check the parallel layout of a training job."""
    gpus, tp, pp = checks.whole(gpus, "gpus"), checks.whole(tp, "tp"), checks.whole(pp, "pp")
    zero = checks.choice(zero, "zero", (0, 1, 2, 3))
    if offload is not None:
        offload = checks.choice(offload, "offload", ("optimizer", "optimizer+params"))
    if gpus % (tp * pp):
        raise ValueError(i18n.msg("gpus={gpus} is not a multiple of tp × pp = {product}", gpus=gpus, product=tp * pp))
    return Parallelism(gpus, tp, pp, zero, offload)


def _zero_split(zero: int, dp: int) -> tuple[int, int, int]:
    """Divisors of (weights, gradients, optimizer states) under ZeRO stage ``zero`` with dp replicas."""
    return {0: (1, 1, 1), 1: (1, 1, dp), 2: (1, dp, dp), 3: (dp, dp, dp)}[zero]


def training_memory(
    model: Model | str,
    *,
    precision: str = "bf16-mixed",
    optimizer: str = "adamw",
    batch: int = 1,
    context: int = 2048,
    gpus: int = 1,
    zero: int = 0,
    tp: int = 1,
    pp: int = 1,
    recompute: str = "none",
    flash_attention: bool = True,
    offload: str | None = None,
    fp32_grads: bool = False,
    engine: str = "transformers",
    cuda_context_mib: float | None = None,
    reading: str = "nvidia-smi",
) -> Memory:
    """GPU memory to train every parameter of ``model`` (pre-training or full fine-tuning).

    Model states per parameter (ZeRO paper, Rajbhandari et al. 2020, §3.1): ``bf16-mixed`` /
    ``fp16-mixed`` keep 16-bit weights (2 B) and gradients (2 B; 4 B with ``fp32_grads=True``,
    as DeepSpeed's and transformers' 18 B/param accounts do) plus an fp32 master copy (4 B) and
    the optimizer's states (AdamW 8 B): 16 bytes per parameter. ``fp32`` keeps 4 + 4 + states;
    pure ``bf16`` keeps 2 + 2 + states in bf16. ZeRO stage 1/2/3 (or FSDP) shards optimizer
    states / + gradients / + weights over the data-parallel GPUs (gpus / (tp × pp)); tensor and
    pipeline parallelism divide the model first. ``offload`` = "optimizer" (ZeRO-Offload) or
    "optimizer+params" moves those states to CPU memory. Activations follow
    :func:`activation_bytes` (``recompute`` none, selective or full); the output layer adds
    :func:`logits_bytes`. Per micro-batch of ``batch`` sequences of ``context`` tokens. ``reading``:
    which quantity (:data:`READINGS`; default what nvidia-smi shows).
    """
    m = lookup_model(model)
    reading = check_reading(reading)
    precision = checks.choice(precision, "precision", PRECISIONS)
    optimizer = checks.choice(optimizer, "optimizer", OPTIMIZERS)
    split = parallelism(gpus=gpus, tp=tp, pp=pp, zero=zero, offload=offload)
    fp32_grads = checks.flag(fp32_grads, "fp32_grads")
    run = runtime(engine, cuda_context_mib)
    context, batch = checks.whole(context, "context"), checks.whole(batch, "batch")
    warns = _context_warning(m, context)
    everything = tensors(m)
    n = param_count(m)
    states = _model_states(everything, everything, precision, optimizer, fp32_grads)
    act = activation_bytes(m, context, batch=batch, flash_attention=flash_attention, recompute=recompute,
                           tp=split.tp, bytes_per_value=4 if precision == "fp32" else 2)  # fmt: skip
    logits = logits_bytes(m, context, batch) / split.tp
    notes = [
        i18n.msg("All {billions:.2f}B parameters are trained.", billions=n / 1e9),
        i18n.msg(
            "Model states ({precision}): {rule}; {optimizer}. "
            "Mixed-precision AdamW totals 16 bytes per parameter (ZeRO paper, §3.1).",
            precision=precision,
            rule=i18n.msg(_STATE_RULE[precision]),
            optimizer=i18n.msg(OPTIMIZERS[optimizer][1]),
        ),
    ]
    return _assemble("training", m, states, act + logits, act, split, run, warns, notes,
                     _activation_note(batch, context, flash_attention, recompute), reading,
                     _weight_rounding(m, "bf16"))  # fmt: skip


_STATE_RULE = {
    "bf16-mixed": N_("16-bit weights and gradients, fp32 master weights"),
    "fp16-mixed": N_("16-bit weights and gradients, fp32 master weights"),
    "fp32": N_("fp32 weights and gradients"),
    "bf16": N_("pure bf16 weights, gradients and optimizer states (no fp32 copy)"),
}


def _activation_note(batch: int, context: int, flash_attention: bool, recompute: str) -> i18n.Message:
    attention = i18n.msg("flash attention") if flash_attention else i18n.msg("standard attention with stored s² scores")
    return i18n.msg("Activations: {batch} × {tokens:,} tokens per micro-batch, {attention}, "
                    "recompute={recompute} (Korthikanti et al. 2022, Table 2, per stored tensor).",
                    batch=batch, tokens=context, attention=attention, recompute=recompute)  # fmt: skip


def _model_states(
    everything: Sequence[Tensor],
    trainable: Sequence[Tensor],
    precision: str,
    optimizer: str,
    fp32_grads: bool,
    frozen_bytes: float | None = None,
) -> dict[str, float]:
    """Bytes of weights, gradients, master weights and optimizer states (whole model, one replica)."""
    n_all = sum(t.size * t.count for t in everything)
    n_train = sum(t.size * t.count for t in trainable)
    mixed = precision.endswith("-mixed")
    weight_bytes = 4 if precision == "fp32" else 2
    weights = frozen_bytes if frozen_bytes is not None else n_all * weight_bytes
    if frozen_bytes is not None:  # adapters are stored in fp32 next to the frozen base (PEFT)
        weights += n_train * 4
    grad_bytes = 4 if (precision == "fp32" or fp32_grads or frozen_bytes is not None) else 2
    return {
        "weights": weights,
        "gradients": n_train * grad_bytes,
        "master_weights": n_train * 4 if (mixed and frozen_bytes is None) else 0,
        "optimizer_states": _optimizer_state_bytes(trainable, optimizer, precision == "bf16"),
    }


def _assemble(
    kind: str,
    m: Model,
    states: dict[str, float],
    activations_and_logits: float,
    activations: float,
    split: Parallelism,
    run: Runtime,
    warns: list[i18n.Message],
    notes: list[i18n.Message],
    activation_note: i18n.Message,
    reading: str = "nvidia-smi",
    rounding: float = 0.0,
) -> Memory:
    """Spread model states over the GPUs by the parallel layout and add activations and runtime.

    ``rounding`` is the allocator's rounding of one copy of the weights (:func:`_weight_rounding`);
    each model-state tensor (weights, gradients, master weights, optimizer states) leaves as much.
    """
    w_div, g_div, o_div = _zero_split(split.zero, split.dp)
    model_split = split.tp * split.pp
    per_gpu: dict[str, float] = {
        "weights": states["weights"] / model_split / w_div,
        "gradients": states["gradients"] / model_split / g_div,
        "master_weights": states["master_weights"] / model_split / o_div,
        "optimizer_states": states["optimizer_states"] / model_split / o_div,
        "activations": activations,  # per micro-batch on the first pipeline stage (Korthikanti §4.2.3)
        "logits_and_loss": activations_and_logits - activations,
        "cuda_context": run.cuda_context_mib * MIB,
    }
    sixteen = max(states["weights"], 1.0)  # state copies: 16-bit ones by bytes, fp32 ones at twice the bytes
    copies = (states["weights"] + states["gradients"]) / sixteen + (
        states["master_weights"] + states["optimizer_states"]
    ) / (2 * sixteen)
    runtime_notes: list[i18n.Message] = []
    _apply_reading(per_gpu, run, rounding * copies / model_split, reading, runtime_notes)
    dp = split.dp
    # the whole job is every GPU's share added up: one copy of a sharded state, dp copies of a
    # replicated one, and each GPU's activations and context
    parts = {k: v * split.gpus for k, v in per_gpu.items()}
    offloaded: dict[str, float] = {}
    offload_parts = {"optimizer": ("master_weights", "optimizer_states"),
                     "optimizer+params": ("master_weights", "optimizer_states", "weights")}  # fmt: skip
    moved = offload_parts.get(split.offload or "", ())
    for key in moved:
        offloaded[key] = parts[key]
        per_gpu[key] = parts[key] = 0
    if "weights" in moved:  # ZeRO-Infinity streams one layer at a time back to the GPU
        largest = max(states["weights"] / max(m.layers, 1) / model_split, 0)
        per_gpu["weights"] = parts["weights"] = largest
    assumptions = [
        *notes,
        activation_note,
        i18n.msg(
            "Logits and loss: 16-bit logits plus fp32 copy and fp32 log-softmax, 10 bytes per token × vocabulary."
        ),
        *runtime_notes,
        *([_context_note(run)] if "cuda_context" in per_gpu else []),
        i18n.msg(
            "Not included: fragmentation of the activations' memory beyond the allocator's rounding, DDP "
            "gradient buckets and communication buffers, and temporary copies during the optimizer step."
        ),
    ]
    if split.gpus > 1:
        assumptions.append(
            i18n.msg(
                "{gpus} GPUs = {dp} data-parallel × {tp} tensor-parallel × {pp} pipeline stages; "
                "ZeRO stage {zero} shards {sharded} over {dp}.",
                gpus=split.gpus,
                dp=dp,
                tp=split.tp,
                pp=split.pp,
                zero=split.zero,
                sharded=i18n.msg(_SHARDED[split.zero]),
            )
        )
    if split.offload == "optimizer":
        assumptions.append(i18n.msg("Offloaded to CPU memory: master_weights, optimizer_states "
                                    "(DeepSpeed ZeRO-Offload / Infinity)."))  # fmt: skip
    elif split.offload:
        assumptions.append(i18n.msg("Offloaded to CPU memory: master_weights, optimizer_states, weights "
                                    "(DeepSpeed ZeRO-Offload / Infinity)."))  # fmt: skip
    return Memory(
        kind=kind,
        per_gpu={k: int(round(v)) for k, v in per_gpu.items()},
        parts={k: int(round(v)) for k, v in parts.items()},
        gpus=split.gpus,
        assumptions=tuple(assumptions),
        offloaded={k: int(round(v)) for k, v in offloaded.items()},
        warnings=tuple(warns),
    )


LORA_TARGETS = {
    "all-linear": ("attn_q", "attn_k", "attn_v", "attn_o", "ffn_gate", "ffn_up", "ffn_down",
                   "attn_q_a", "attn_q_b", "attn_kv_a", "attn_kv_b", "shared_gate", "shared_up",
                   "shared_down", "expert_gate", "expert_up", "expert_down"),
    "attention": ("attn_q", "attn_k", "attn_v", "attn_o", "attn_q_a", "attn_q_b", "attn_kv_a", "attn_kv_b"),
    "qv": ("attn_q", "attn_v"),
}  # fmt: skip
_MODULE_KINDS = {
    "q_proj": "attn_q", "k_proj": "attn_k", "v_proj": "attn_v", "o_proj": "attn_o",
    "gate_proj": "ffn_gate", "up_proj": "ffn_up", "down_proj": "ffn_down",
    "query": "attn_q", "key": "attn_k", "value": "attn_v", "dense": "attn_o",
}  # fmt: skip


def _target_kinds(targets: str | Sequence[str]) -> set[str]:
    if isinstance(targets, str):
        return set(LORA_TARGETS[checks.choice(targets, "targets", LORA_TARGETS)])
    kinds = {_MODULE_KINDS[checks.choice(name, "targets", _MODULE_KINDS)] for name in checks.names(targets, "targets")}
    if "ffn_gate" in kinds or "ffn_up" in kinds or "ffn_down" in kinds:  # MoE equivalents
        kinds |= {k.replace("ffn_", "expert_") for k in kinds if k.startswith("ffn_")}
    return kinds


def lora_params(model: Model | str, *, rank: int = 16, targets: str | Sequence[str] = "all-linear") -> int:
    """Trainable LoRA parameters: rank × (in + out) for every adapted matrix (Hu et al. 2021, §4).

    ``targets``: "all-linear" (PEFT's ``target_modules="all-linear"``: every linear layer of the
    blocks, not the output head), "attention" (q, k, v, o), "qv" (the LoRA paper's choice), or a
    list of module names such as ``["q_proj", "v_proj"]``.
    """
    m = lookup_model(model)
    rank = checks.whole(rank, "rank")
    kinds = _target_kinds(targets)
    return sum(rank * sum(t.shape) * t.count for t in tensors(m) if t.kind in kinds)


FINETUNE_METHODS = ("full", "lora", "qlora")


def finetune_memory(
    model: Model | str,
    *,
    method: str = "lora",
    weights: str | None = None,
    rank: int = 16,
    targets: str | Sequence[str] = "all-linear",
    batch: int = 1,
    context: int = 2048,
    recompute: str = "none",
    optimizer: str = "adamw",
    flash_attention: bool = True,
    gpus: int = 1,
    zero: int = 0,
    offload: str | None = None,
    engine: str = "transformers",
    cuda_context_mib: float | None = None,
    reading: str = "nvidia-smi",
) -> Memory:
    """GPU memory to fine-tune ``model`` with ``method`` full, lora or qlora.

    * full: :func:`training_memory` in bf16 mixed precision.
    * lora: the base stays frozen in ``weights`` format (no gradients, no optimizer states); only
      the adapters train, stored in fp32 as PEFT does by default, with fp32 gradients and optimizer
      states (4 + 4 + 8 bytes per adapter parameter with AdamW). Activations do **not** shrink:
      backpropagation still runs through every frozen layer to reach the adapters below.
    * qlora: lora over a 4-bit NF4 base, with double quantisation unless ``weights="nf4"`` (QLoRA,
      Dettmers et al. 2023); set ``optimizer="paged-adamw-8bit"`` for QLoRA's paged optimizer.

    ``weights`` (the frozen base's format) defaults to bf16 for lora and nf4-dq for qlora; full
    fine-tuning trains 16-bit weights, so it takes none. ``recompute="full"`` is gradient
    checkpointing. ``reading``: which quantity (:data:`READINGS`; default what nvidia-smi shows).
    """
    m = lookup_model(model)
    method = checks.choice(method, "method", FINETUNE_METHODS)
    reading = check_reading(reading)
    if method == "full":
        if weights is not None and check_weights(weights) not in ("bf16", "fp16"):
            raise ValueError(i18n.msg("weights={weights!r}: full fine-tuning trains 16-bit weights; leave weights=None",
                                      weights=weights))  # fmt: skip
        return training_memory(
            m, precision="bf16-mixed", optimizer=optimizer, batch=batch, context=context, gpus=gpus, zero=zero,
            recompute=recompute, flash_attention=flash_attention, offload=offload, engine=engine,
            cuda_context_mib=cuda_context_mib, reading=reading,
        )  # fmt: skip
    split = parallelism(gpus=gpus, zero=zero, offload=offload)
    optimizer = checks.choice(optimizer, "optimizer", OPTIMIZERS)
    base_fmt = check_weights(weights if weights is not None else ("nf4-dq" if method == "qlora" else "bf16"))
    run = runtime(engine, cuda_context_mib)
    context, batch = checks.whole(context, "context"), checks.whole(batch, "batch")
    recompute = checks.choice(recompute, "recompute", RECOMPUTE)
    warns = _context_warning(m, context)
    rank = checks.whole(rank, "rank")
    kinds = _target_kinds(targets)
    adapters = [
        Tensor(f"{t.name}.lora", "lora", (rank, sum(t.shape)), t.layer, t.count, t.active)
        for t in tensors(m) if t.kind in kinds
    ]  # fmt: skip
    n_train = sum(t.size * t.count for t in adapters)
    frozen = weights_bytes(m, base_fmt)
    states = _model_states(tensors(m), adapters, "bf16-mixed", optimizer, True, frozen_bytes=frozen)
    act = activation_bytes(m, context, batch=batch, flash_attention=flash_attention, recompute=recompute)
    # each adapter also keeps its rank-r intermediate x·A (16-bit) for the backward pass
    routed = sum(t.active for t in adapters)
    act += 2 * context * batch * rank * (routed if recompute != "full" else routed / m.layers)
    target_text = targets if isinstance(targets, str) else ", ".join(targets)
    n_all = param_count(m)
    notes = [
        i18n.msg(
            "{method}: rank {rank} on {targets}: {millions:.1f}M trainable parameters ({percent:.2f}% of "
            "{billions:.2f}B), frozen base in {base} ({gib:.2f} GiB).",
            method="QLoRA" if method == "qlora" else "LoRA",
            rank=rank,
            targets=target_text,
            millions=n_train / 1e6,
            percent=100 * n_train / n_all,
            billions=n_all / 1e9,
            base=base_fmt,
            gib=frozen / GIB,
        ),
        i18n.msg("Adapters in fp32 with fp32 gradients (PEFT's default autocast_adapter_dtype=True)."),
    ]
    if method == "qlora":
        notes.append(i18n.msg("QLoRA: {base} base, bf16 compute (Dettmers et al. 2023, §2).", base=base_fmt))
    notes.append(i18n.msg("Trainable adapter states: fp32 weights and gradients; {optimizer}.",
                          optimizer=i18n.msg(OPTIMIZERS[optimizer][1])))  # fmt: skip
    return _assemble("finetune", m, states, act + logits_bytes(m, context, batch), act, split, run, warns, notes,
                     _activation_note(batch, context, flash_attention, recompute), reading,
                     _weight_rounding(m, base_fmt))  # fmt: skip


# ---------------------------------------------------------------------------------------------
# How much fits: the longest context and the most users
# ---------------------------------------------------------------------------------------------


def _largest(fits: Callable[[int], bool], high: int) -> int:
    """The largest n in [1, high] with fits(n) (fits is monotone: true, then false), or 0."""
    if not fits(1):
        return 0
    low, step = 1, 1
    while low + step <= high and fits(low + step):  # gallop up, then bisect
        low, step = low + step, step * 2
    top = min(low + step, high + 1)
    while top - low > 1:
        mid = (low + top) // 2
        low, top = (mid, top) if fits(mid) else (low, mid)
    return low


def max_context(
    model: Model | str,
    card: str,
    *,
    weights: str = "fp16",
    kv: str = "fp16",
    batch: int = 1,
    engine: str = "vllm",
    gpus: int = 1,
    headroom: float = 0.1,
) -> int:
    """The longest context (tokens per sequence, for each of ``batch`` sequences) that fits ``gpus`` × ``card``.

    Searched with :func:`inference_memory` up to the model's own maximum context; 0 when not
    even one token fits (the weights alone are too large).
    """
    m = lookup_model(model)
    batch = checks.whole(batch, "batch")
    headroom = checks.fraction(headroom, "headroom", zero_ok=True, one_ok=False)

    def fits(context: int) -> bool:
        mem = inference_memory(m, weights=weights, kv=kv, batch=batch, context=context, engine=engine, gpus=gpus)
        return mem.fits(card, headroom=headroom)

    return _largest(fits, m.max_context)


def max_users(
    model: Model | str,
    card: str,
    *,
    context: int = 4096,
    weights: str = "fp16",
    kv: str = "fp16",
    engine: str = "vllm",
    gpus: int = 1,
    headroom: float = 0.1,
) -> int:
    """How many sequences of ``context`` tokens fit at once (concurrent users) on ``gpus`` × ``card``; 0 if none."""
    m = lookup_model(model)
    context = checks.whole(context, "context")
    headroom = checks.fraction(headroom, "headroom", zero_ok=True, one_ok=False)

    def fits(batch: int) -> bool:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a context beyond the model's maximum warns once, below
            mem = inference_memory(m, weights=weights, kv=kv, batch=batch, context=context, engine=engine, gpus=gpus)
        return mem.fits(card, headroom=headroom)

    _context_warning(m, context)
    return _largest(fits, checks.LIMITS["batch"])
