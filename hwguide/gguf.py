"""GGUF file sizes: llama.cpp's per-tensor quantisation rules applied to the model's tensors.

A GGUF "file type" such as Q4_K_M is a recipe, not one type: llama.cpp's quantiser gives each
tensor its own type (``llama_tensor_get_type`` in ``src/llama-quant.cpp``; ``get_k_quant_type``
in the 2023 ``llama.cpp``). The rules below are transcribed from those functions, quoted with
their sources in docs/gguf-rules.md: ggml-org/llama.cpp @ 007dbbf for ``rules="current"``, and
the Oct 2023 code (DOGEwbx/llama.cpp @ aa67518) for ``rules="2023"``, the version TheBloke's
Llama-2 and Mistral files were made with. Block sizes and bytes per block come from the ``gguf``
package (``GGML_QUANT_SIZES``, llama.cpp's own constants). 1-D tensors (norms, biases) and the
MoE router (``ffn_gate_inp``: "do not quantize expert gating tensors") stay F32. The i-quants
(IQ1_S … IQ4_XS) and MXFP4_MOE follow ``llama_tensor_get_type_impl`` @ 007dbbf (docs/gguf-rules.md §9).
"""

from __future__ import annotations

import functools
import math

from . import checks, i18n
from .architecture import Model, Tensor, _model_of, tensors

__all__ = ["GGUF_METADATA_BYTES_PER_VOCAB", "RULES", "gguf_file_bytes", "gguf_tensor_bytes", "gguf_tensor_types"]

# Default type of each file type (llama_ftype_get_default_type / the 2023 switch).
DEFAULT_TYPE = {
    "F16": "F16", "BF16": "BF16", "Q8_0": "Q8_0", "Q6_K": "Q6_K", "Q5_K_M": "Q5_K", "Q5_K_S": "Q5_K",
    "Q5_1": "Q5_1", "Q5_0": "Q5_0", "Q4_K_M": "Q4_K", "Q4_K_S": "Q4_K", "Q4_1": "Q4_1", "Q4_0": "Q4_0",
    "Q3_K_L": "Q3_K", "Q3_K_M": "Q3_K", "Q3_K_S": "Q3_K", "Q2_K": "Q2_K",
    # the i-quants and MXFP4 (current rules only: llama_ftype_get_default_type @ 007dbbf)
    "IQ4_XS": "IQ4_XS", "IQ4_NL": "IQ4_NL", "IQ3_M": "IQ3_S", "IQ3_S": "IQ3_S", "IQ3_XS": "IQ3_S",
    "IQ3_XXS": "IQ3_XXS", "IQ2_M": "IQ2_S", "IQ2_S": "IQ2_XS", "IQ2_XS": "IQ2_XS", "IQ2_XXS": "IQ2_XXS",
    "IQ1_M": "IQ1_M", "IQ1_S": "IQ1_S", "MXFP4_MOE": "MXFP4",
}  # fmt: skip
# File types the 2023 llama.cpp did not have.
CURRENT_ONLY = {"IQ4_XS", "IQ4_NL", "IQ3_M", "IQ3_S", "IQ3_XS", "IQ3_XXS", "IQ2_M", "IQ2_S", "IQ2_XS", "IQ2_XXS",
                "IQ1_M", "IQ1_S", "MXFP4_MOE"}  # fmt: skip
# The lowest-bit file types, which llama_tensor_get_type_impl treats as one group.
LOW_IQ = {"IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ2_S", "IQ2_M", "IQ1_M"}
# Types with 256-value blocks that fall back to IQ4_NL (32-value blocks) when a row does not divide.
IQ_256 = {"IQ1_S", "IQ1_M", "IQ2_XXS", "IQ2_XS", "IQ2_S", "IQ3_XXS", "IQ3_S", "IQ4_XS"}
K_TYPES = {"Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"}
# Which llama.cpp's rules to apply: today's, or those of Oct 2023 (TheBloke's Llama-2 files).
RULES = ("current", "2023")
# Fallback when a row is not a multiple of the block size (2023: Q3_K -> Q4_1; now Q3_K -> Q4_0).
FALLBACK = {
    "2023": {"Q2_K": "Q4_0", "Q3_K": "Q4_1", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"},
    "current": {"Q2_K": "Q4_0", "Q3_K": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"},
}
# GGUF metadata (tokenizer vocabulary, key-value pairs, alignment padding) besides the tensors:
# TheBloke's Llama-2-7B files are exactly 741,056 bytes larger than their tensors, in every
# file type (Llama-2-13B 745,344; Llama-2-70B 766,880; Mistral-7B 734,848), about 23 bytes per
# vocabulary entry at 32,000 entries.
GGUF_METADATA_BYTES_PER_VOCAB = 23.2


@functools.cache
def _sizes() -> dict[str, tuple[int, int]]:
    from gguf.constants import GGML_QUANT_SIZES

    return {t.name: sizes for t, sizes in GGML_QUANT_SIZES.items()}


def _use_more_bits(i: int, n: int) -> bool:
    # llama.cpp: i_layer < n/8 || i_layer >= 7*n/8 || (i_layer - n/8) % 3 == 2 (integer division;
    # C++ % keeps the sign of the dividend, so negative values never equal 2)
    return i < n // 8 or i >= 7 * n // 8 or math.fmod(i - n // 8, 3) == 2


def _category(kind: str) -> str:
    return {
        "attn_v": "attn_v", "attn_kv_b": "attn_v", "attn_k": "attn_k", "attn_q": "attn_q",
        "attn_o": "attn_output", "ffn_down": "ffn_down", "expert_down": "ffn_down",
        "shared_down": "ffn_down", "ffn_gate": "ffn_gate", "expert_gate": "ffn_gate",
        "shared_gate": "ffn_gate", "ffn_up": "ffn_up", "expert_up": "ffn_up", "shared_up": "ffn_up",
        "lm_head": "output", "embedding": "token_embd",
    }.get(kind, "other")  # fmt: skip


def _iq_rule(cat: str, weights: str, t: str, i: int, n: int, m: Model, counted: int) -> str:
    """llama_tensor_get_type_impl (@ 007dbbf) for the i-quant and MXFP4_MOE file types.

    ``i``/``n`` are the layer and layer count; ``counted`` is how many tensors of the category came
    before (llama.cpp's ``i_ffn_down`` counter, which the lowest-bit types use as is). Published
    i-quant files are made with an importance matrix (IQ1–IQ3_XXS require one), so the rules that
    apply only without one are left out.
    """
    gqa = m.heads // m.kv_heads if m.kv_heads else 1
    eight = m.experts == 8
    if cat == "output":
        return "Q5_K" if weights in LOW_IQ | {"IQ3_XXS"} else "Q6_K"
    if weights == "MXFP4_MOE":
        return t  # set by the caller: expert tensors MXFP4, everything else Q8_0
    if cat == "token_embd":
        if weights in ("IQ2_XXS", "IQ2_XS", "IQ1_S", "IQ1_M"):
            return "Q2_K"
        return "IQ3_S" if weights in ("IQ2_S", "IQ2_M", "IQ3_XXS") else t
    two_s = weights in ("IQ2_S", "IQ2_M")
    if weights in LOW_IQ:
        if cat == "attn_v":
            return "Q4_K" if gqa >= 4 or m.experts >= 4 else ("IQ3_S" if two_s else "Q2_K")
        if cat == "attn_k" and eight:
            return "Q4_K"
        if cat == "ffn_down":
            return ("IQ3_S" if two_s else "Q2_K") if counted < n // 8 else t
        if cat == "attn_output":
            if eight:
                return "Q5_K"
            return "IQ2_XXS" if weights in ("IQ1_S", "IQ1_M") else ("IQ3_S" if two_s else t)
        return t
    if cat == "attn_v":
        if weights == "IQ3_XXS":
            t = "Q4_K" if gqa >= 4 else "IQ3_XXS"
        elif weights in ("IQ3_XS", "IQ3_S") and gqa >= 4 or weights == "IQ3_M":
            t = "Q4_K"
        elif weights in ("IQ4_NL", "IQ4_XS") and gqa >= 4:
            t = "Q5_K"
        if m.model_type == "llama" and m.layers == 80 and m.heads != m.kv_heads and t in ("Q3_K", "Q4_K"):
            t = "Q5_K"  # "In the 70B model we have 8 heads sharing the same attn_v weights"
        return "Q8_0" if eight else t
    if cat == "attn_k":
        return "Q8_0" if eight else {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(weights, t)
    if cat == "attn_q":
        return {"IQ3_XS": "IQ3_XXS", "IQ3_XXS": "IQ2_S"}.get(weights, t)
    if cat == "ffn_down":
        return "Q4_K" if weights == "IQ3_M" and (i < n // 8 or (eight and _use_more_bits(i, n))) else t
    if cat == "attn_output":
        if eight:
            return "Q5_K" if weights in ("IQ3_XS", "IQ3_XXS", "IQ4_NL", "IQ3_S", "IQ3_M", "IQ4_XS") else t
        return {"IQ3_XXS": "IQ3_S", "IQ3_M": "Q4_K"}.get(weights, t)
    if cat in ("ffn_gate", "ffn_up") and weights == "IQ3_XS" and n // 8 <= i < 7 * n // 8:
        return "IQ3_XXS"
    return t


def _rule(cat: str, weights: str, t: str, i: int, n: int, m: Model, rules: str) -> str:
    """llama_tensor_get_type for one tensor: ``t`` is the default type, ``i``/``n`` the layer counter."""
    is_70b = m.model_type == "llama" and m.layers == 80 and m.heads != m.kv_heads
    gqa = m.heads // m.kv_heads if m.kv_heads else 1
    eight_experts = m.experts == 8 and rules == "current"
    if cat == "output":
        return t if t in ("F16", "BF16") and rules == "current" else ("Q8_0" if t == "Q8_0" else "Q6_K")
    if cat == "attn_v":
        if weights == "Q2_K":
            t = "Q4_K" if rules == "current" and gqa >= 4 else "Q3_K"
        elif weights == "Q3_K_M":
            t = "Q5_K" if i < 2 else "Q4_K"
        elif weights == "Q3_K_L":
            t = "Q5_K"
        elif weights in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i, n):
            t = "Q6_K"
        elif weights == "Q4_K_S" and i < 4:
            t = "Q5_K"
        if is_70b and t in ("Q3_K", "Q4_K"):
            t = "Q5_K"  # "In the 70B model we have 8 heads sharing the same attn_v weights"
        return "Q8_0" if eight_experts and t in _sizes() and t not in ("F16", "BF16") else t
    if cat == "attn_k":
        return "Q8_0" if eight_experts and t not in ("F16", "BF16") else t
    if cat == "ffn_down":
        if weights == "Q2_K":
            return "Q3_K"
        if weights == "Q3_K_M":
            return "Q5_K" if i < (2 if rules == "2023" else n // 16) else "Q4_K"
        if weights == "Q3_K_L":
            return "Q5_K"
        if weights in ("Q4_K_M", "Q5_K_M") and _use_more_bits(i, n):
            return "Q6_K"
        if weights == "Q4_K_S" and i < (4 if rules == "2023" else n // 8):
            return "Q5_K"
        return t
    if cat == "attn_output":
        if eight_experts and weights in ("Q2_K", "Q3_K_S", "Q3_K_M", "Q3_K_L", "Q4_K_S", "Q4_K_M"):
            return "Q5_K"
        return {"Q2_K": "Q3_K", "Q3_K_M": "Q4_K", "Q3_K_L": "Q5_K"}.get(weights, t)
    if cat in ("ffn_gate", "ffn_up") and weights == "Q2_K" and rules == "2023":
        return "Q3_K"  # removed later: "else Q2_K is almost the same as Q3_K_S"
    return t


def _arguments(model: Model | str, weights: str, rules: str) -> tuple[Model, str, str]:
    """The checked arguments: a Model, a GGUF file type (e.g. ``"Q4_K_M"``) and a rules version."""
    m = _model_of(model)
    return m, checks.choice(weights, "weights", DEFAULT_TYPE), checks.choice(rules, "rules", RULES)


def gguf_tensor_types(model: Model | str, weights: str, *, rules: str = "current") -> list[tuple[Tensor, str]]:
    """(tensor, GGML type) for every tensor of ``model`` quantised as the GGUF file type ``weights``.

    ``model`` is a :class:`~hwguide.Model` or a catalog name; ``weights`` one of the file types of
    :data:`DEFAULT_TYPE` (``"Q4_K_M"``, ``"Q8_0"``, ``"F16"`` …); ``rules`` ``"current"`` or
    ``"2023"`` (the llama.cpp version whose rules to apply).
    """
    model, weights, rules = _arguments(model, weights, rules)
    return _tensor_types(model, weights, rules)


def _stays_f32(t: Tensor) -> bool:
    """1-D tensors (norms, biases) and the MoE router (ffn_gate_inp): llama.cpp leaves them unquantised."""
    return len(t.shape) < 2 or t.kind in ("norm", "bias", "pooler", "router")


def _fallback(t: Tensor, new: str, rules: str) -> str:
    """``tensor_type_fallback``: a type whose block does not divide the row falls back (the i-quants
    with 256-value blocks to IQ4_NL, the K-quants to a 32-value type), and to F16 as a last resort."""
    if new not in _sizes() or t.shape[1] % _sizes()[new][0] == 0:
        return new
    new = "IQ4_NL" if new in IQ_256 else FALLBACK[rules].get(new, "F16")
    return "F16" if t.shape[1] % _sizes()[new][0] else new


def _iq_types(model: Model, weights: str) -> list[tuple[Tensor, str]]:
    """(tensor, type) for the i-quant and MXFP4_MOE file types (current rules)."""
    default = DEFAULT_TYPE[weights]
    all_tensors = tensors(model)
    has_output = any(t.kind == "lm_head" for t in all_tensors)
    counted = {"attn_v": 0, "ffn_down": 0}
    out = []
    for t in all_tensors:
        if t.kind == "vision":  # the vision tower ships as a separate mmproj file, commonly F16
            out.append((t, "F16"))
            continue
        if _stays_f32(t):
            out.append((t, "F32"))
            continue
        cat = _category(t.kind)
        if cat == "token_embd" and not has_output:
            cat = "output"
        if weights == "MXFP4_MOE" and cat != "output":
            new = "MXFP4" if t.count > 1 else "Q8_0"  # "MoE tensors -> MXFP4, other tensors -> Q8_0"
        elif cat == "output" and (weights == "MXFP4_MOE" or t.shape[1] % 256):
            new = "Q8_0"
        else:
            n = model.layers
            new = _iq_rule(cat, weights, default, t.layer or 0, n, model, counted.get(cat, 0))
        if cat in counted:
            counted[cat] += 1
        out.append((t, _fallback(t, new, "current")))
    return out


def _tensor_types(model: Model, weights: str, rules: str) -> list[tuple[Tensor, str]]:
    if weights in CURRENT_ONLY:
        if rules != "current":
            raise ValueError(i18n.msg("weights={weights!r}: the 2023 llama.cpp had no such file type; "
                                      "use rules='current'", weights=weights))  # fmt: skip
        return _iq_types(model, weights)
    default = DEFAULT_TYPE[weights]
    quantised = default not in ("F16", "BF16")
    all_tensors = tensors(model)
    has_output = any(t.kind == "lm_head" for t in all_tensors)
    counters = {"attn_v": 0, "ffn_down": 0}
    totals = {
        "attn_v": sum(1 for t in all_tensors if _category(t.kind) == "attn_v"),
        "ffn_down": model.layers,
    }
    out = []
    for t in all_tensors:
        if t.kind == "vision":  # the vision tower ships as a separate mmproj file, commonly F16
            out.append((t, "F16"))
            continue
        if _stays_f32(t):
            out.append((t, "F32"))
            continue
        cat = _category(t.kind)
        if cat == "token_embd" and not has_output and rules == "current":
            cat = "output"  # tied embeddings are quantised like the output (llama-quant.cpp)
        new = default
        if quantised or rules == "2023":
            if cat in counters:
                i = counters[cat] if cat == "attn_v" else (t.layer or 0)
                new = _rule(cat, weights, default, i, totals[cat], model, rules)
                if cat == "attn_v" or t.kind == "ffn_down" or t.kind == "expert_down":
                    counters[cat] += 1
            elif cat != "token_embd":
                new = _rule(cat, weights, default, 0, 1, model, rules)
        if cat == "output" and t.shape[1] % 256:
            new = "Q8_0"  # llama.cpp: nx % QK_K != 0 -> Q8_0
        out.append((t, _fallback(t, new, rules)))
    return out


def gguf_tensor_bytes(model: Model | str, weights: str, *, rules: str = "current") -> list[tuple[Tensor, float, str]]:
    """(tensor, bytes of all its copies, GGML type) for a GGUF file of type ``weights``.

    Arguments as for :func:`gguf_tensor_types`.
    """
    model, weights, rules = _arguments(model, weights, rules)
    return _tensor_bytes(model, weights, rules)


def _tensor_bytes(model: Model, weights: str, rules: str) -> list[tuple[Tensor, float, str]]:
    sizes = _sizes()
    out = []
    for t, kind in _tensor_types(model, weights, rules):
        block, nbytes = sizes[kind]
        out.append((t, t.size * t.count / block * nbytes, kind))
    return out


def gguf_file_bytes(model: Model | str, weights: str, *, rules: str = "current") -> int:
    """Size in bytes of the GGUF file of type ``weights`` (e.g. ``"Q4_K_M"``) for ``model``.

    Its tensors plus metadata (about 23 bytes per vocabulary entry). Arguments as for
    :func:`gguf_tensor_types`: ``model`` a :class:`~hwguide.Model` or a catalog name, ``rules``
    ``"current"`` or ``"2023"``.
    """
    model, weights, rules = _arguments(model, weights, rules)
    tensor_total = sum(size for _, size, _ in _tensor_bytes(model, weights, rules))
    return int(round(tensor_total + GGUF_METADATA_BYTES_PER_VOCAB * model.vocab_size))
