"""A model's architecture, read from its Hugging Face ``config.json``.

:func:`from_hf_config` turns any config.json (a path or a dict) into a frozen :class:`Model`
holding exactly what the memory and speed math needs. It knows the key names of the common
families (Llama-style, Mistral/Mixtral, Qwen2/Qwen3 and their MoE, Gemma 2, Phi-3, DeepSeek-V3
with MLA, ChatGLM, BERT and GPT-2 style configs) and says which key it missed otherwise. Every
size is checked against :data:`CONFIG_LIMITS`, physical sense rather than software limits, so a
typo fails at once with the file, the key and the limit named.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import math
import os
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import checks, i18n
from .i18n import N_

__all__ = ["CONFIG_LIMITS", "Model", "Tensor", "from_hf_config", "param_count", "tensors"]

# The range each architecture size may take, by Model field (a config may spell the key in several
# ways; messages name the key it used). The bounds are physical sense with wide margins over the
# largest published models (Llama-3.1-405B: 126 layers; GPT-3: hidden 12,288; DeepSeek-V3: 256
# experts, 8 per token; Gemma 2: vocabulary 256,000; Llama 4 Scout: a 10M-token window). They stop
# a typo such as 10**7 layers from becoming an hour-long loop or an overflow.
CONFIG_LIMITS: dict[str, tuple[int, int]] = {
    "layers": (1, 1024),
    "hidden_size": (1, 262_144),
    "heads": (1, 1024),
    "kv_heads": (1, 1024),  # and at most the attention heads, which they must divide
    "head_dim": (1, 4096),
    "ffn_size": (1, 1_048_576),
    "moe_ffn_size": (1, 1_048_576),
    "vocab_size": (1, 4_194_304),
    "max_context": (1, 2**31),
    "experts": (0, 4096),  # routed experts per MoE layer (0: a dense model)
    "experts_per_token": (1, 4096),  # and at most the experts (of a MoE model)
    "shared_experts": (0, 4096),  # and at most the routed experts (of a MoE model)
    "kv_lora_rank": (1, 65_536),  # MLA widths
    "q_lora_rank": (1, 65_536),
    "qk_rope_head_dim": (1, 65_536),
    "qk_nope_head_dim": (1, 65_536),
    "v_head_dim": (1, 65_536),
    "sliding_window": (1, 2**31),  # tokens
    "layer_count": (0, 1024),  # first_k_dense_replace, max_window_layers; a layer index (below the layers)
    "layer_step": (1, 1024),  # moe_layer_freq, decoder_sparse_step
    "type_vocab_size": (0, 1024),  # BERT's token types (2)
    "linear_heads": (1, 65_536),  # linear-attention (Gated DeltaNet) heads and head widths
    "linear_head_dim": (1, 65_536),
    "linear_key_heads": (1, 65_536),
    "linear_value_heads": (1, 65_536),
    "linear_key_head_dim": (1, 65_536),
    "linear_value_head_dim": (1, 65_536),
    "conv_kernel": (1, 64),  # the causal convolution of a linear-attention layer
    "index_heads": (1, 65_536),  # DeepSeek sparse attention's lightning indexer (DeepSeek-V3.2)
    "index_head_dim": (1, 65_536),
    "index_topk": (1, 2**31),  # tokens each query attends to
    "vision_size": (1, 262_144),  # vision tower widths, layers and patch sizes
}
# The largest published parameter count a Model may carry, in billions (a quadrillion parameters).
PARAMS_B_LIMIT = 1_000_000.0

# Families whose feed-forward block is a plain two-matrix MLP (up, activation, down); all others
# here use a gated MLP (gate, up, down: SwiGLU / GeGLU), as their modeling_*.py files show. MPT
# (llm-foundry llmfoundry/models/layers/ffn.py, MPTMLP: up_proj, GELU, down_proj) is plain; so are
# Nemotron-H's MLP and experts: up_proj, squared ReLU, down_proj (transformers NemotronHMLP, NemotronHExperts).
PLAIN_MLP_TYPES = {"bert", "roberta", "gpt2", "gpt3", "gptj", "gpt_neox", "opt", "bloom", "falcon", "mpt", "nemotron_h"}
# Families normalised with LayerNorm (weight and bias); the others use RMSNorm (weight only).
LAYERNORM_TYPES = (PLAIN_MLP_TYPES - {"nemotron_h"}) | {"phi"}
# Families with learned absolute position embeddings; the others use rotary embeddings (RoPE).
LEARNED_POSITION_TYPES = {"bert", "roberta", "gpt2", "gpt3", "opt"}
# Families whose linear layers all carry biases.
BIASED_TYPES = {"bert", "roberta", "gpt2", "gpt3", "gptj", "gpt_neox", "opt", "bloom"}
# Families whose q/k/v projections carry biases while the other linear layers do not
# (Qwen2 and Qwen2-MoE: transformers models/qwen2/modeling_qwen2.py, q_proj(bias=True)).
QKV_BIAS_TYPES = {"qwen2", "qwen2_moe"}
# Families that normalise queries and keys per head (an RMSNorm of head_dim weights each): Qwen3
# (transformers models/qwen3/modeling_qwen3.py, q_norm / k_norm) and Gemma 3 (modeling_gemma3.py).
QK_NORM_TYPES = {"qwen3", "qwen3_moe", "gemma3_text", "qwen3_next", "qwen3_vl_text", "qwen3_5_text", "qwen3_5_moe_text"}
# Families whose q/k norms are switched on by the config's use_qk_norm (GLM-4.5: transformers Glm4MoeAttention,
# q_norm / k_norm of head_dim when use_qk_norm). Llama 4's use_qk_norm is a parameter-free L2 norm, so not here.
QK_NORM_FLAG_TYPES = {"glm4_moe"}
# Families whose full-attention layers gate their output with a second query-sized projection (q_proj
# twice as wide): Qwen3-Next (transformers models/qwen3_next/modular_qwen3_next.py, Qwen3NextAttention).
GATED_ATTENTION_TYPES = {"qwen3_next", "qwen3_5_text", "qwen3_5_moe_text"}  # Qwen3.5: attn_output_gate
# Families with four norms per block (pre- and post-norm around attention and the MLP): Gemma 2/3.
FOUR_NORM_TYPES = {"gemma2", "gemma3_text"}
# Routers that carry a per-expert score-correction bias whatever the config says (transformers
# DeepseekV3TopkRouter.e_score_correction_bias, reused by NemotronHTopkRouter and Glm4MoeTopkRouter).
ROUTER_BIAS_TYPES = {"nemotron_h", "glm4_moe"}
# Families with shared experts that their config does not count (Llama 4: Llama4TextMoe always has
# one shared_expert of intermediate_size beside the routed ones).
IMPLIED_SHARED_EXPERTS = {"llama4_text": 1}
# transformers' default for `tie_word_embeddings` when a config omits it: PretrainedConfig
# defaults to True; these configuration_*.py classes set False.
UNTIED_BY_DEFAULT = {
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "phi3",
    "deepseek_v3",
    "deepseek_v32",
    "chatglm",
    "llama4_text",
    "glm4_moe",
    "nemotron_h",
}


@dataclasses.dataclass(frozen=True)
class Model:
    """A transformer's architecture, as the memory and speed formulas need it.

    Sizes are counts (not bytes). ``ffn_size`` is the intermediate size of the dense feed-forward
    layers; ``moe_ffn_size`` the intermediate size of one expert. ``params_total_b`` and
    ``params_active_b`` are the *published* counts in billions (None when not given); the
    counts computed from the architecture come with the memory module.
    """

    name: str
    model_type: str
    layers: int
    hidden_size: int
    ffn_size: int
    gated_ffn: bool
    heads: int
    kv_heads: int
    head_dim: int
    vocab_size: int
    tied_embeddings: bool
    max_context: int
    attention: str  # "MHA", "GQA", "MQA" or "MLA"
    norm: str  # "rmsnorm" or "layernorm"
    position_embedding: str  # "rope" or "learned"
    qkv_bias: bool
    linear_bias: bool
    sliding_window: int | None = None  # tokens; None when no layer uses a window
    sliding_window_layers: int = 0  # how many layers attend within the window
    experts: int = 0  # routed experts per MoE layer (0 for a dense model)
    experts_per_token: int = 0
    shared_experts: int = 0
    moe_ffn_size: int | None = None
    moe_layers: int = 0  # how many layers are MoE layers
    kv_lora_rank: int | None = None  # MLA: width of the compressed KV latent
    q_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None
    # Hybrid models (Qwen3-Next): layers whose token mixer is linear attention (Gated DeltaNet) keep a
    # fixed-size state per sequence instead of a KV cache that grows with the context.
    linear_layers: int = 0
    linear_key_heads: int | None = None
    linear_value_heads: int | None = None
    linear_key_head_dim: int | None = None
    linear_value_head_dim: int | None = None
    conv_kernel: int | None = None
    # Hybrids whose blocks hold one mixer each (Nemotron-H): blocks with a feed-forward only (MLP or MoE), no
    # token mixer, so no KV cache. Their Mamba-2 blocks are the linear layers above, read as Mamba-2's
    # state-space duality names them (Dao & Gu 2024, SSD: C, B, X play the roles of Q, K, V): key heads =
    # n_groups, key head dim = ssm_state_size, value heads = mamba_num_heads, value head dim = mamba_head_dim.
    mlp_layers: int = 0
    # DeepSeek sparse attention (DeepSeek-V3.2): a lightning indexer with index_heads heads of index_head_dim
    # picks the index_topk earlier tokens each query attends to, and caches one key of index_head_dim per token.
    index_heads: int | None = None
    index_head_dim: int | None = None
    index_topk: int | None = None
    params_total_b: float | None = None
    params_active_b: float | None = None
    dtype: str | None = None  # the checkpoint's torch_dtype
    source: str | None = None
    config: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        # The same limits as from_hf_config, for a Model built by hand or with dataclasses.replace.
        label = i18n.msg("Model {name!r}", name=self.name) if isinstance(self.name, str) else i18n.msg("Model")
        for field in ("layers", "hidden_size", "ffn_size", "heads", "head_dim", "vocab_size", "max_context"):
            _whole(getattr(self, field), field, label, field)
        _whole(self.kv_heads, "kv_heads", label, "kv_heads", high=self.heads)
        _whole(self.experts, "experts", label, "experts")
        if self.experts:
            _whole(self.experts_per_token, "experts_per_token", label, "experts_per_token", high=self.experts)
        else:
            _whole(self.experts_per_token, "experts_per_token", label, "experts", high=0)
        _whole(self.shared_experts, "shared_experts", label, "shared_experts", high=self.experts or None)
        _whole(self.moe_layers, "moe_layers", label, "layer_count", high=self.layers)
        _whole(self.sliding_window_layers, "sliding_window_layers", label, "layer_count", high=self.layers)
        _whole(self.linear_layers, "linear_layers", label, "layer_count", high=self.layers - 1)
        _whole(self.mlp_layers, "mlp_layers", label, "layer_count", high=self.layers - self.linear_layers - 1)
        for field in ("moe_ffn_size", "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim",
                      "v_head_dim", "sliding_window", "linear_key_heads", "linear_value_heads",
                      "linear_key_head_dim", "linear_value_head_dim", "conv_kernel", "index_heads",
                      "index_head_dim", "index_topk"):  # fmt: skip
            if getattr(self, field) is not None:
                _whole(getattr(self, field), field, label, field)
        for field in ("gated_ffn", "tied_embeddings", "qkv_bias", "linear_bias"):
            checks.flag(getattr(self, field), field)
        for field in ("name", "model_type"):
            if not isinstance(getattr(self, field), str):
                raise ValueError(i18n.msg("{label}: {key} must be a string, not {value}", label=label, key=field,
                                          value=_show(getattr(self, field))))  # fmt: skip

    @classmethod
    def from_hf_config(cls, config: str | os.PathLike[str] | Mapping[str, Any], **kwargs: Any) -> Model:
        """Build a Model from a Hugging Face config.json path or dict (see :func:`from_hf_config`)."""
        return from_hf_config(config, **kwargs)

    @property
    def attention_layers(self) -> int:
        """Layers with softmax attention, whose KV cache grows with the context (all but the linear ones and,
        in Nemotron-H, the blocks that hold only an MLP or MoE)."""
        return self.layers - self.linear_layers - self.mlp_layers

    def state_elements(self) -> int:
        """Values of the fixed-size state one sequence keeps in the linear-attention layers (all of them).

        Per layer: the recurrent state, value heads × key head dim × value head dim, and the causal
        convolution's last (kernel − 1) inputs of width 2 × key dim + value dim (transformers
        Qwen3NextGatedDeltaNet: ``conv_dim = key_dim * 2 + value_dim``; recurrent state
        ``[batch, heads, k_head_dim, v_head_dim]``). 0 for a model without linear-attention layers.
        A Mamba-2 block (Nemotron-H) is the same sum in its own names: ``mamba_num_heads × mamba_head_dim ×
        ssm_state_size`` recurrent values and (conv_kernel − 1) × (heads × head_dim + 2 × n_groups ×
        ssm_state_size) convolution inputs (transformers Zamba2MambaMixer / NemotronHMamba2Mixer: ``conv_dim``).
        """
        if not self.linear_layers:
            return 0
        nk, nv = self.linear_key_heads or 0, self.linear_value_heads or 0
        dk, dv = self.linear_key_head_dim or 0, self.linear_value_head_dim or 0
        conv = ((self.conv_kernel or 1) - 1) * (2 * nk * dk + nv * dv)
        return self.recurrent_state_elements() + self.linear_layers * conv

    def recurrent_state_elements(self) -> int:
        """The recurrent part of :meth:`state_elements`: value heads × key head dim × value head dim per layer."""
        dk, dv = self.linear_key_head_dim or 0, self.linear_value_head_dim or 0
        return self.linear_layers * (self.linear_value_heads or 0) * dk * dv

    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model."""
        return self.experts > 0

    @property
    def attention_kind(self) -> i18n.Message:
        """The attention in words (a message), e.g. ``"GQA (8 KV heads) + sliding window 4096 on 21 of 42 layers"``;
        :attr:`attention` is its code."""
        if self.attention == "MLA":
            kind = i18n.msg("MLA (latent {latent} + rope {rope})", latent=self.kv_lora_rank, rope=self.qk_rope_head_dim)
        elif self.attention == "GQA":
            kind = i18n.msg("GQA ({kv_heads} KV heads)", kv_heads=self.kv_heads)
        else:
            kind = i18n.msg("{attention}", attention=self.attention)
        if not self.sliding_window:
            return kind
        if self.sliding_window_layers == self.layers:
            return i18n.msg("{attention} + sliding window {window}", attention=kind, window=self.sliding_window)
        return i18n.msg(
            "{attention} + sliding window {window} on {window_layers} of {layers} layers",
            attention=kind,
            window=self.sliding_window,
            window_layers=self.sliding_window_layers,
            layers=self.layers,
        )


def _show(value: Any) -> str | i18n.Message:
    """``repr(value)``, short for a huge integer (whose decimal text Python refuses past 4,300 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 128:
        return i18n.msg("an integer of about {digits} digits", digits=int(value.bit_length() * 0.30103))
    shown = repr(value)
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _whole(value: Any, key: str, label: str | i18n.Message, limit: str, *, high: int | None = None) -> int:
    """A whole-number config value within ``CONFIG_LIMITS[limit]`` (and at most ``high``)."""
    low, top = CONFIG_LIMITS[limit]
    if high is not None:
        top = min(top, high)
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars in a dict
        with contextlib.suppress(TypeError, ValueError):
            value = value.item()
    whole = isinstance(value, int) and not isinstance(value, bool)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        whole, value = True, int(value)
    if not whole:
        raise ValueError(i18n.msg("{label}: {key} must be a whole number in {low:,}..{top:,}, not {value}",
                                  label=label, key=key, low=low, top=top, value=_show(value)))  # fmt: skip
    if not low <= value <= top:
        raise ValueError(i18n.msg("{label}: {key}={value} is outside {low:,}..{top:,}", label=label, key=key,
                                  value=_show(value), low=low, top=top))  # fmt: skip
    return int(value)


def _pick(config: Mapping[str, Any], keys: tuple[str, ...]) -> tuple[str, Any]:
    """(key, value) of the first of ``keys`` the config sets (not null), or (keys[0], None)."""
    for key in keys:
        if config.get(key) is not None:
            return key, config[key]
    return keys[0], None


def _required(config: Mapping[str, Any], keys: tuple[str, ...], what: str, label: str, limit: str) -> tuple[str, int]:
    key, value = _pick(config, keys)
    if value is None:
        raise ValueError(i18n.msg("{label} has no {what}: looked for {keys}", label=label, what=i18n.msg(what),
                                  keys=", ".join(repr(k) for k in keys)))  # fmt: skip
    return key, _whole(value, key, label, limit)


def _optional(config: Mapping[str, Any], key: str, label: str, limit: str, *, high: int | None = None) -> int | None:
    value = config.get(key)
    return None if value is None else _whole(value, key, label, limit, high=high)


def _flag(config: Mapping[str, Any], key: str, label: str) -> bool | None:
    """A true/false config value (None when unset): ``"no"`` or ``1`` are refused, not read as true."""
    value = config.get(key)
    if value is None:
        return None
    try:
        return checks.flag(value, key)
    except ValueError as err:
        raise ValueError(i18n.msg("{label}: {error}", label=label, error=err.args[0] if err.args else err)) from None


def _text(config: Mapping[str, Any], key: str, label: str) -> str | None:
    value = config.get(key)
    if value is None or isinstance(value, str):
        return value
    raise ValueError(i18n.msg("{label}: {key} must be a string, not {value}", label=label, key=key, value=_show(value)))


def _layer_list(config: Mapping[str, Any], key: str, label: str) -> list[Any]:
    value = config.get(key)
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        raise ValueError(i18n.msg("{label}: {key} must be a list, not {value}", label=label, key=key,
                                  value=_show(value)))  # fmt: skip
    return list(value)


# Class defaults of text configs that store only the keys that differ from them (Gemma 3's
# text_config lists hidden size, layers and window, not heads or vocabulary). From transformers
# 5.24.0, models/gemma3/configuration_gemma3.py, Gemma3TextConfig: its sliding_window_pattern
# default of 6 makes every sixth layer global ("sliding_attention" if (i + 1) % 6 else
# "full_attention"), the 5:1 local/global pattern of the Gemma 3 report.
TEXT_CONFIG_DEFAULTS: dict[str, dict[str, Any]] = {
    "gemma3_text": {
        "vocab_size": 262_208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
        "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "max_position_embeddings": 131_072,
        "tie_word_embeddings": True, "sliding_window": 4096, "sliding_window_pattern": 6,
        "hidden_activation": "gelu_pytorch_tanh",
    },
}  # fmt: skip


def _moe_layers(config: Mapping[str, Any], model_type: str, layers: int, label: str) -> frozenset[int]:
    """The indices of the layers whose feed-forward block is a mixture of experts (for a MoE model)."""
    if "first_k_dense_replace" in config or "moe_layer_freq" in config:
        # DeepSeek-V3 style, also Kimi K2 (kimi_k2) and GLM-4.5 (glm4_moe); transformers models/deepseek_v3:
        # layer_idx >= first_k_dense_replace and layer_idx % moe_layer_freq == 0
        first_dense = _optional(config, "first_k_dense_replace", label, "layer_count") or 0
        freq = _optional(config, "moe_layer_freq", label, "layer_step") or 1
        return frozenset(i for i in range(layers) if i >= first_dense and i % freq == 0)
    if "interleave_moe_layer_step" in config or "moe_layers" in config:
        # Llama 4 (transformers Llama4TextConfig): moe_layers, by default every interleave_moe_layer_step-th
        # layer counting from step - 1: list(range(step - 1, num_hidden_layers, step))
        listed = _layer_list(config, "moe_layers", label)
        if listed:
            return frozenset(_whole(i, "moe_layers entry", label, "layer_count", high=layers - 1) for i in listed)
        step = _optional(config, "interleave_moe_layer_step", label, "layer_step") or 1
        return frozenset(range(step - 1, layers, step))
    # Qwen2/Qwen3-MoE: not in mlp_only_layers and (layer_idx + 1) % decoder_sparse_step == 0
    step = _optional(config, "decoder_sparse_step", label, "layer_step") or 1
    dense_only = {
        _whole(i, "mlp_only_layers entry", label, "layer_count", high=layers - 1)
        for i in _layer_list(config, "mlp_only_layers", label)
    }
    return frozenset(i for i in range(layers) if i not in dense_only and (i + 1) % step == 0)


# Nemotron-H's block codes (transformers NemotronHConfig._pattern_to_list: M Mamba-2, * attention, - MLP,
# E MoE) and the names its layers_block_type lists use (old and new spellings), one kind each.
BLOCK_CODES = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
BLOCK_NAMES = {"mamba": "mamba", "linear_attention": "mamba", "attention": "attention",
               "full_attention": "attention", "mlp": "mlp", "moe": "moe"}  # fmt: skip


def block_types(config: Mapping[str, Any], label: str = "config.json") -> tuple[str, ...]:
    """The kind of each block of a hybrid whose blocks hold one mixer each (NVIDIA Nemotron-H), else ().

    Kinds: "mamba", "attention", "mlp", "moe"; read from ``layers_block_type`` or else from
    ``hybrid_override_pattern`` (one character a block: M, *, -, E), as transformers' NemotronHConfig does.
    """
    if config.get("layers_block_type") is not None:
        listed = _layer_list(config, "layers_block_type", label)
        if not listed or not all(isinstance(b, str) and b in BLOCK_NAMES for b in listed):
            raise ValueError(i18n.msg("{label}: layers_block_type must list block kinds from {kinds}, not {value}",
                                      label=label, kinds=", ".join(BLOCK_NAMES), value=_show(listed)))  # fmt: skip
        return tuple(BLOCK_NAMES[b] for b in listed)
    pattern = config.get("hybrid_override_pattern")
    if pattern is None:
        return ()
    if not isinstance(pattern, str) or not pattern or set(pattern) - set(BLOCK_CODES):
        raise ValueError(i18n.msg("{label}: hybrid_override_pattern must be a string of the block codes {codes} "
                                  "(Mamba-2, attention, MLP, MoE), not {value}", label=label,
                                  codes=" ".join(BLOCK_CODES), value=_show(pattern)))  # fmt: skip
    return tuple(BLOCK_CODES[c] for c in pattern)


def linear_layer_indices(config: Mapping[str, Any], layers: int, label: str = "config.json") -> frozenset[int]:
    """The layers whose token mixer is linear attention, as transformers reads a hybrid config.

    ``layer_types`` entries "linear_attention"; without ``layer_types``, Qwen3-Next's rule: with
    ``full_attention_interval`` n (default 4 for qwen3_next), layer i is linear unless (i + 1) % n == 0
    (transformers models/qwen3_next/configuration_qwen3_next.py, ``Qwen3NextConfig.__post_init__``).
    Nemotron-H: its Mamba-2 blocks (:func:`block_types`).
    """
    blocks = block_types(config, label)
    if blocks:
        return frozenset(i for i, kind in enumerate(blocks) if kind == "mamba")
    layer_types = _layer_list(config, "layer_types", label)
    if layer_types:
        return frozenset(i for i, kind in enumerate(layer_types) if kind == "linear_attention")
    if str(config.get("model_type", "")).lower() == "qwen3_next" or "full_attention_interval" in config:
        interval = _optional(config, "full_attention_interval", label, "layer_step") or 4
        return frozenset(i for i in range(layers) if (i + 1) % interval)
    return frozenset()


def _sliding(config: Mapping[str, Any], model_type: str, layers: int, label: str) -> tuple[int | None, int]:
    """(window in tokens, number of layers that use it), following transformers' rules."""
    use = _flag(config, "use_sliding_window", label)
    window = _optional(config, "sliding_window", label, "sliding_window")
    max_window_layers = _optional(config, "max_window_layers", label, "layer_count")
    layer_types = _layer_list(config, "layer_types", label)
    if layer_types and (len(layer_types) != layers or not all(isinstance(t, str) for t in layer_types)):
        raise ValueError(
            i18n.msg(
                "{label}: layer_types must list one attention type (a string) per layer, {layers:,} in all, "
                "not {value}",
                label=label,
                layers=layers,
                value=_show(layer_types),
            )
        )
    chunk = _optional(config, "attention_chunk_size", label, "sliding_window")
    if chunk and window is None and not layer_types:
        # Llama 4: RoPE layers attend within chunks of attention_chunk_size tokens (so cache at most that many);
        # every no_rope_layer_interval-th layer (default 4) attends to all tokens (transformers Llama4TextConfig:
        # no_rope_layers[i] = int((i + 1) % interval != 0), "chunked_attention" where it is 1)
        listed = _layer_list(config, "no_rope_layers", label)
        if listed:
            return chunk, sum(1 for flag in listed if flag)
        interval = _optional(config, "no_rope_layer_interval", label, "layer_step") or 4
        return chunk, sum(1 for i in range(layers) if (i + 1) % interval)
    if window is None or use is False:
        return None, 0
    if layer_types:
        return window, sum(1 for t in layer_types if t == "sliding_attention")
    pattern = _optional(config, "sliding_window_pattern", label, "layer_step")
    if pattern:  # Gemma 3: "sliding_attention" if (i + 1) % pattern else "full_attention"
        return window, sum(1 for i in range(layers) if (i + 1) % pattern)
    if model_type == "gemma2":
        # Gemma 2 alternates local (even layers) and global attention:
        # transformers models/gemma2/modeling_gemma2.py, `is_sliding = not bool(layer_idx % 2)`.
        return window, math.ceil(layers / 2)
    if max_window_layers is not None and use:
        return window, max(0, layers - max_window_layers)
    return window, layers


# The most bytes a config.json may have: real ones are a few KB (with a label map, a few hundred).
MAX_CONFIG_BYTES = 32 * 2**20


def _read_config(config: str | os.PathLike[str]) -> tuple[dict[str, Any], str, str]:
    """(parsed config, label for messages, default model name) of a config.json path or its folder."""
    given = os.fspath(config)
    if not isinstance(given, str) or not given.strip():
        raise ValueError(i18n.msg("config must be the path of a config.json file or of its folder, not {config!r}",
                                  config=config))  # fmt: skip
    path = Path(given)
    problem: i18n.Message | None = None
    raw = b""
    try:
        if path.is_dir():
            path = path / "config.json"
            absent = i18n.msg("config: the folder {folder} holds no config.json", folder=path.parent)
        else:
            absent = i18n.msg("config: no config.json at {path} (no such file)", path=path)
        if not path.exists():
            problem = absent
        elif not path.is_file():
            problem = i18n.msg("config: {path} is not a regular file; give the path of a config.json", path=path)
        elif path.stat().st_size > MAX_CONFIG_BYTES:
            problem = i18n.msg("config: {path} is larger than {mib} MiB, too large for a config.json", path=path,
                               mib=MAX_CONFIG_BYTES // 2**20)  # fmt: skip
        else:
            raw = path.read_bytes()
    except (OSError, ValueError) as err:  # permissions, a name too long, a NUL byte in the path
        reason = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
        raise ValueError(i18n.msg("config: cannot read {path} ({reason})", path=_show(given), reason=reason)) from None
    if problem:
        raise ValueError(problem)
    label = str(path)
    try:
        source = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ValueError(i18n.msg("{label}: not UTF-8 text (byte {byte} cannot be decoded); save it as UTF-8",
                                  label=label, byte=err.start)) from None  # fmt: skip

    try:
        # NaN and Infinity are read as Python writes them (Nemotron-H's time_step_limit is [0.0, Infinity]); a
        # size the kit reads must still be a whole number, so a non-finite one is refused there, key named.
        data = json.loads(source)
    except json.JSONDecodeError as err:
        raise ValueError(i18n.msg("{label}: not valid JSON ({reason} at line {line}, column {column})", label=label,
                                  reason=err.msg, line=err.lineno, column=err.colno)) from None  # fmt: skip
    except RecursionError:
        raise ValueError(i18n.msg("{label}: not a config.json (its JSON is nested too deeply to read)",
                                  label=label)) from None  # fmt: skip
    except ValueError as err:  # an integer of more than 4,300 digits (Python's limit)
        reason = i18n.msg("a number has more than 4,300 digits") if "digits" in str(err) else str(err)
        raise ValueError(i18n.msg("{label}: not valid JSON ({reason})", label=label, reason=reason)) from None
    if not isinstance(data, dict):
        kind = {list: N_("an array"), str: N_("a string"), bool: N_("true/false"), type(None): N_("null")}.get(
            type(data), N_("a number"))  # fmt: skip
        raise ValueError(i18n.msg("{label}: config.json must hold a JSON object ({{...}}), not {kind}", label=label,
                                  kind=i18n.msg(kind)))  # fmt: skip
    default_name = path.parent.name if path.name == "config.json" else path.stem
    return data, label, default_name or "custom model"


def _published(value: Any, argument: str) -> float | None:
    """A published parameter count in billions: a finite positive number (at most a quadrillion parameters)."""
    if value is None:
        return None
    try:
        return checks.number(value, argument, low=0.0, high=PARAMS_B_LIMIT, open_low=True, unit="billion")
    except OverflowError:  # an integer too large for a float
        raise ValueError(i18n.msg("{argument} must be a finite number of billions, not {value}", argument=argument,
                                  value=_show(value))) from None  # fmt: skip


def from_hf_config(
    config: str | os.PathLike[str] | Mapping[str, Any],
    *,
    name: str | None = None,
    params_total_b: float | None = None,
    params_active_b: float | None = None,
    source: str | None = None,
) -> Model:
    """Build a :class:`Model` from a Hugging Face ``config.json`` (a path, its folder, or the parsed dict).

    ``name`` defaults to the config's ``_name_or_path`` or the file's folder name. Published
    parameter counts (billions) can be attached; they are not read from the config. Every size is
    checked against :data:`CONFIG_LIMITS`; a missing, malformed or implausible value raises
    ValueError naming the file (``config.json`` for a dict), the key, the value and the limit.
    """
    if isinstance(config, (str, os.PathLike)):
        data, label, default_name = _read_config(config)
    elif isinstance(config, Mapping):
        data, label, default_name = dict(config), "config.json", "custom model"
    else:
        raise ValueError(i18n.msg("config must be the path of a config.json (or its folder) or a dict, not {kind}",
                                  kind=type(config).__name__))  # fmt: skip
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValueError(i18n.msg("name must be a non-empty string or None, not {value}", value=_show(name)))
    if source is not None and not isinstance(source, str):
        raise ValueError(i18n.msg("source must be a string or None, not {value}", value=_show(source)))
    total_b = _published(params_total_b, "params_total_b")
    active_b = _published(params_active_b, "params_active_b")
    if total_b is not None and active_b is not None and active_b > total_b:
        raise ValueError(i18n.msg("params_active_b={active:g} exceeds params_total_b={total:g}", active=active_b,
                                  total=total_b))  # fmt: skip
    text_config = data.get("text_config")
    if isinstance(text_config, Mapping):  # multimodal wrappers keep the LM here
        # Gemma 3's text_config lists only what differs from its class defaults: fill those in
        defaults = TEXT_CONFIG_DEFAULTS.get(str(text_config.get("model_type", "")).lower(), {})
        data = {**data, **defaults, **text_config}
    elif text_config is not None:
        raise ValueError(i18n.msg("{label}: text_config must be a JSON object, not {value}", label=label,
                                  value=_show(text_config)))  # fmt: skip

    model_type = (_text(data, "model_type", label) or "").lower()
    blocks = block_types(data, label)  # NVIDIA Nemotron-H: one mixer per block (Mamba-2, attention, MLP or MoE)
    if model_type == "nemotron_h" and not blocks:
        raise ValueError(i18n.msg("{label}: a nemotron_h config must list its blocks in hybrid_override_pattern or "
                                  "layers_block_type", label=label))  # fmt: skip
    layer_keys = ("num_hidden_layers", "num_layers", "n_layer")
    if blocks and _pick(data, layer_keys)[1] is None:
        layers = _whole(len(blocks), "layers_block_type", label, "layers")
    else:
        layer_key, layers = _required(data, layer_keys, N_("layer count"), label, "layers")
        if blocks and len(blocks) != layers:
            raise ValueError(i18n.msg("{label}: the block list has {blocks} blocks but {key}={layers}", label=label,
                                      blocks=len(blocks), key=layer_key, layers=layers))  # fmt: skip
    _, hidden = _required(data, ("hidden_size", "n_embd", "d_model"), N_("hidden size"), label, "hidden_size")
    heads_key, heads = _required(
        data, ("num_attention_heads", "n_head", "num_heads"), N_("attention head count"), label, "heads"
    )
    if _flag(data, "multi_query_attention", label) and data.get("multi_query_group_num") is not None:  # ChatGLM
        kv_key = "multi_query_group_num"
    else:
        kv_key = "num_key_value_heads"
    kv_heads = _optional(data, kv_key, label, "kv_heads", high=heads) or heads
    if heads % kv_heads:
        raise ValueError(
            i18n.msg(
                "{label}: {heads_key}={heads} attention heads do not divide into {kv_key}={kv_heads} KV heads",
                label=label,
                heads_key=heads_key,
                heads=heads,
                kv_key=kv_key,
                kv_heads=kv_heads,
            )
        )
    nope = _optional(data, "qk_nope_head_dim", label, "qk_nope_head_dim")
    rope = _optional(data, "qk_rope_head_dim", label, "qk_rope_head_dim")
    v_head = _optional(data, "v_head_dim", label, "v_head_dim")
    kv_lora = _optional(data, "kv_lora_rank", label, "kv_lora_rank")
    q_lora = _optional(data, "q_lora_rank", label, "q_lora_rank")
    head_key, head_value = _pick(data, ("head_dim", "kv_channels", "attention_head_dim"))
    if head_value is None and (nope or rope):  # MLA: the query/key width
        head_key, head_value = "qk_nope_head_dim + qk_rope_head_dim", (nope or 0) + (rope or 0)
    elif head_value is None:
        if hidden < heads:
            raise ValueError(i18n.msg("{label}: hidden_size={hidden} is smaller than {heads_key}={heads}; set head_dim",
                                      label=label, hidden=hidden, heads_key=heads_key, heads=heads))  # fmt: skip
        head_key, head_value = f"hidden_size / {heads_key}", hidden // heads
    head_dim = _whole(head_value, head_key, label, "head_dim")
    # Llama 4: intermediate_size_mlp is the dense layers' width, intermediate_size one expert's
    ffn_key, ffn = _pick(data, ("intermediate_size_mlp", "intermediate_size", "ffn_hidden_size", "n_inner"))
    if ffn is None:
        ffn_key, ffn = "4 × hidden_size", 4 * hidden
    ffn = _whole(ffn, ffn_key, label, "ffn_size")
    _, vocab = _required(data, ("vocab_size", "padded_vocab_size"), N_("vocabulary size"), label, "vocab_size")
    _, context = _required(
        data,
        ("max_position_embeddings", "seq_length", "n_positions", "n_ctx", "max_sequence_length"),
        N_("maximum context"),
        label,
        "max_context",
    )
    tied = _flag(data, "tie_word_embeddings", label)
    if tied is None:
        tied = model_type not in UNTIED_BY_DEFAULT

    if kv_lora:
        attention = "MLA"
    elif kv_heads == heads:
        attention = "MHA"
    elif kv_heads == 1:
        attention = "MQA"
    else:
        attention = "GQA"

    expert_counts = [
        _whole(data[key], key, label, "experts")
        for key in ("num_local_experts", "n_routed_experts", "num_experts")
        if data.get(key) is not None
    ]
    experts = next((n for n in expert_counts if n), 0)
    if blocks and "moe" not in blocks:
        experts = 0  # a Nemotron-H without MoE blocks builds no experts, whatever n_routed_experts says
    per_token_keys = ("num_experts_per_tok", "num_experts_per_token", "experts_per_token")
    per_key, per_value = _pick(data, per_token_keys)
    shared = _optional(data, "n_shared_experts", label, "shared_experts", high=experts or None) or 0
    if not shared and experts:
        shared = IMPLIED_SHARED_EXPERTS.get(model_type, 0)
    moe_ffn = _optional(data, "moe_intermediate_size", label, "moe_ffn_size")
    if moe_ffn is None and ffn_key == "intermediate_size_mlp":
        moe_ffn = _optional(data, "intermediate_size", label, "moe_ffn_size")
    _optional(data, "type_vocab_size", label, "type_vocab_size")  # BERT; tensors() reads it
    if experts:
        if per_value is None:
            raise ValueError(
                i18n.msg(
                    "{label} has {experts} experts but no experts per token: looked for {keys}",
                    label=label,
                    experts=experts,
                    keys=", ".join(repr(k) for k in per_token_keys),
                )
            )
        per_token = _whole(per_value, per_key, label, "experts_per_token", high=experts)
        moe_layers = blocks.count("moe") if blocks else len(_moe_layers(data, model_type, layers, label))
        moe_ffn = moe_ffn or ffn
    else:
        if per_value is not None:  # a leftover in a dense config: harmless, but it must make sense
            _whole(per_value, per_key, label, "experts")
        per_token, moe_layers = 0, 0

    window, window_layers = _sliding(data, model_type, layers, label)
    linear = linear_layer_indices(data, layers, label)
    if blocks and "attention" not in blocks:
        raise ValueError(i18n.msg("{label}: no block is an attention block; the kit needs at least one",
                                  label=label))  # fmt: skip
    if blocks and "moe" in blocks and not experts:
        raise ValueError(i18n.msg("{label}: the block list has MoE blocks but no routed experts: looked for "
                                  "'n_routed_experts'", label=label))  # fmt: skip
    if len(linear) >= layers:
        raise ValueError(i18n.msg("{label}: every layer is linear attention; the kit needs at least one attention "
                                  "layer", label=label))  # fmt: skip
    if linear and blocks:  # Mamba-2 in SSD names (see Model); transformers NemotronHConfig defaults
        linear_shape = {
            "linear_num_key_heads": _optional(data, "n_groups", label, "linear_heads")
            or _optional(data, "mamba_n_groups", label, "linear_heads")
            or 8,
            "linear_num_value_heads": _optional(data, "mamba_num_heads", label, "linear_heads") or 128,
            "linear_key_head_dim": _optional(data, "ssm_state_size", label, "linear_head_dim") or 128,
            "linear_value_head_dim": _optional(data, "mamba_head_dim", label, "linear_head_dim") or 64,
            "linear_conv_kernel_dim": _optional(data, "conv_kernel", label, "conv_kernel")
            or _optional(data, "mamba_d_conv", label, "conv_kernel")
            or 4,
        }
    elif linear:  # transformers' Qwen3NextConfig defaults where the config leaves a width out
        linear_shape = {key: _optional(data, key, label, limit) or default for key, limit, default in (
            ("linear_num_key_heads", "linear_heads", 16), ("linear_num_value_heads", "linear_heads", 32),
            ("linear_key_head_dim", "linear_head_dim", 128), ("linear_value_head_dim", "linear_head_dim", 128),
            ("linear_conv_kernel_dim", "conv_kernel", 4))}  # fmt: skip
    else:
        linear_shape = dict.fromkeys(("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                                      "linear_value_head_dim", "linear_conv_kernel_dim"))  # fmt: skip
    plain_mlp = model_type in PLAIN_MLP_TYPES
    biased = model_type in BIASED_TYPES or bool(_flag(data, "add_bias_linear", label))
    qkv_bias = (
        biased
        or model_type in QKV_BIAS_TYPES
        or bool(_flag(data, "attention_bias", label))
        or bool(_flag(data, "add_qkv_bias", label))
    )
    dtype = _text(data, "torch_dtype", label) or _text(data, "dtype", label)
    return Model(
        name=name or _text(data, "_name_or_path", label) or default_name,
        model_type=model_type or "unknown",
        layers=layers,
        hidden_size=hidden,
        ffn_size=ffn,
        gated_ffn=not plain_mlp,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab_size=vocab,
        tied_embeddings=tied,
        max_context=context,
        attention=attention,
        norm="layernorm" if model_type in LAYERNORM_TYPES else "rmsnorm",
        position_embedding="learned" if model_type in LEARNED_POSITION_TYPES else "rope",
        qkv_bias=qkv_bias,
        linear_bias=biased,
        sliding_window=window,
        sliding_window_layers=window_layers,
        experts=experts,
        experts_per_token=per_token,
        shared_experts=shared,
        moe_ffn_size=moe_ffn,
        moe_layers=moe_layers,
        kv_lora_rank=kv_lora,
        q_lora_rank=q_lora,
        qk_rope_head_dim=rope,
        qk_nope_head_dim=nope,
        v_head_dim=v_head,
        linear_layers=len(linear),
        linear_key_heads=linear_shape["linear_num_key_heads"],
        linear_value_heads=linear_shape["linear_num_value_heads"],
        linear_key_head_dim=linear_shape["linear_key_head_dim"],
        linear_value_head_dim=linear_shape["linear_value_head_dim"],
        conv_kernel=linear_shape["linear_conv_kernel_dim"],
        mlp_layers=sum(1 for kind in blocks if kind in ("mlp", "moe")),
        index_heads=_optional(data, "index_n_heads", label, "index_heads"),
        index_head_dim=_optional(data, "index_head_dim", label, "index_head_dim"),
        index_topk=_optional(data, "index_topk", label, "index_topk"),
        params_total_b=total_b,
        params_active_b=active_b,
        dtype=dtype,
        source=source,
        config=types.MappingProxyType(data),
    )


# ---------------------------------------------------------------------------------------------
# The model's weight tensors, and parameter counts derived from them
# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Tensor:
    """One weight tensor of a model (or ``count`` identical ones, e.g. the experts of a layer).

    ``kind`` names its role: embedding, position, lm_head, norm, bias, attn_q, attn_k, attn_v,
    attn_o, attn_q_a, attn_q_b, attn_kv_a, attn_kv_b (MLA), ffn_gate, ffn_up, ffn_down, router,
    expert_gate, expert_up, expert_down, shared_gate, shared_up, shared_down, pooler, vision (a
    multimodal model's vision tower or projector, one flat count each, ``active`` 0).
    ``layer`` is the block index (None outside the blocks). ``active`` is how many of the
    ``count`` copies one token uses (MoE routing); ``shape`` is (rows, cols) or (n,).
    """

    name: str
    kind: str
    shape: tuple[int, ...]
    layer: int | None = None
    count: int = 1
    active: int = 1

    @property
    def size(self) -> int:
        """Parameters in one copy."""
        return math.prod(self.shape)


LINEAR_KINDS = {
    "attn_q", "attn_k", "attn_v", "attn_o", "attn_q_a", "attn_q_b", "attn_kv_a", "attn_kv_b",
    "ffn_gate", "ffn_up", "ffn_down", "expert_gate", "expert_up", "expert_down",
    "shared_gate", "shared_up", "shared_down",
}  # fmt: skip


def _linear_attention(m: Model, i: int) -> list[Tensor]:
    """A Gated DeltaNet layer (transformers Qwen3NextGatedDeltaNet): in_proj_qkvz, in_proj_ba, a depthwise
    conv1d over q, k and v, dt_bias and A_log per value head, a gated RMSNorm of one value head, out_proj."""
    h = m.hidden_size
    nk, nv = m.linear_key_heads or 0, m.linear_value_heads or 0
    key, value = nk * (m.linear_key_head_dim or 0), nv * (m.linear_value_head_dim or 0)
    conv = 2 * key + value
    return [
        Tensor(f"blk.{i}.ssm_in", "attn_q", (2 * key + 2 * value, h), i),
        Tensor(f"blk.{i}.ssm_ba", "attn_k", (2 * nv, h), i),
        Tensor(f"blk.{i}.ssm_conv1d", "attn_v", (conv, m.conv_kernel or 1), i),
        Tensor(f"blk.{i}.ssm_dt_a", "bias", (2 * nv,), i),
        Tensor(f"blk.{i}.ssm_norm", "norm", (m.linear_value_head_dim or 0,), i),
        Tensor(f"blk.{i}.ssm_out", "attn_o", (h, value), i),
    ]


def _mamba2(m: Model, i: int) -> list[Tensor]:
    """A Mamba-2 mixer (transformers NemotronHMamba2Mixer): in_proj to z, x, B, C and dt (2 × inner + 2 ×
    groups × state + heads outputs), a depthwise conv1d over x, B and C (with a bias when use_conv_bias), dt_bias,
    A_log and D per head, a gated RMSNorm over the inner width, out_proj; in and out projections biased when
    use_bias."""
    h, heads = m.hidden_size, m.linear_value_heads or 0
    inner = heads * (m.linear_value_head_dim or 0)
    groups = 2 * (m.linear_key_heads or 0) * (m.linear_key_head_dim or 0)  # B and C
    conv = inner + groups
    out = [
        Tensor(f"blk.{i}.ssm_in", "attn_q", (2 * inner + groups + heads, h), i),
        Tensor(f"blk.{i}.ssm_conv1d", "attn_v", (conv, m.conv_kernel or 1), i),
        Tensor(f"blk.{i}.ssm_dt_a_d", "bias", (3 * heads,), i),
        Tensor(f"blk.{i}.ssm_norm", "norm", (inner,), i),
        Tensor(f"blk.{i}.ssm_out", "attn_o", (h, inner), i),
    ]
    if m.config.get("use_conv_bias", True):
        out.append(Tensor(f"blk.{i}.ssm_conv1d_bias", "bias", (conv,), i))
    if m.config.get("use_bias"):
        out.append(Tensor(f"blk.{i}.ssm_bias", "bias", (2 * inner + groups + heads + h,), i))
    return out


def _indexer(m: Model, i: int) -> list[Tensor]:
    """DeepSeek-V3.2's lightning indexer (deepseek-ai/DeepSeek-V3.2-Exp inference/model.py, class Indexer):
    wq_b from the query latent, wk from the hidden state, a LayerNorm on the key, weights_proj (one weight a head)."""
    h, nh, d = m.hidden_size, m.index_heads or 0, m.index_head_dim or 0
    return [
        Tensor(f"blk.{i}.indexer_q_b", "attn_q_b", (nh * d, m.q_lora_rank or h), i),
        Tensor(f"blk.{i}.indexer_k", "attn_k", (d, h), i),
        Tensor(f"blk.{i}.indexer_k_norm", "norm", (2 * d,), i),
        Tensor(f"blk.{i}.indexer_weights", "attn_q", (nh, h), i),
    ]


def _attention(m: Model, i: int) -> list[Tensor]:
    h, q, kv = m.hidden_size, m.heads * m.head_dim, m.kv_heads * m.head_dim
    out: list[Tensor] = []
    if m.attention == "MLA":
        # DeepSeek-V2/V3 multi-head latent attention (transformers models/deepseek_v3 modeling):
        # q_a_proj, q_a_layernorm, q_b_proj; kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj; o_proj.
        rope, nope, v = m.qk_rope_head_dim or 0, m.qk_nope_head_dim or 0, m.v_head_dim or m.head_dim
        lora_kv = m.kv_lora_rank or 0
        if m.q_lora_rank:
            out += [
                Tensor(f"blk.{i}.attn_q_a", "attn_q_a", (m.q_lora_rank, h), i),
                Tensor(f"blk.{i}.attn_q_a_norm", "norm", (m.q_lora_rank,), i),
                Tensor(f"blk.{i}.attn_q_b", "attn_q_b", (m.heads * (nope + rope), m.q_lora_rank), i),
            ]
        else:
            out.append(Tensor(f"blk.{i}.attn_q", "attn_q", (m.heads * (nope + rope), h), i))
        out += [
            Tensor(f"blk.{i}.attn_kv_a", "attn_kv_a", (lora_kv + rope, h), i),
            Tensor(f"blk.{i}.attn_kv_a_norm", "norm", (lora_kv,), i),
            Tensor(f"blk.{i}.attn_kv_b", "attn_kv_b", (m.heads * (nope + v), lora_kv), i),
            Tensor(f"blk.{i}.attn_output", "attn_o", (h, m.heads * v), i),
        ]
        return out + (_indexer(m, i) if m.index_heads else [])
    gate = 2 if m.model_type in GATED_ATTENTION_TYPES else 1  # the output gate doubles q_proj
    out += [
        Tensor(f"blk.{i}.attn_q", "attn_q", (gate * q, h), i),
        Tensor(f"blk.{i}.attn_k", "attn_k", (kv, h), i),
        Tensor(f"blk.{i}.attn_v", "attn_v", (kv, h), i),
        Tensor(f"blk.{i}.attn_output", "attn_o", (h, q), i),
    ]
    if m.qkv_bias:
        out.append(Tensor(f"blk.{i}.attn_qkv_bias", "bias", (q + 2 * kv,), i))
    if m.linear_bias:
        out.append(Tensor(f"blk.{i}.attn_output_bias", "bias", (h,), i))
    return out


def _feed_forward(m: Model, i: int, moe: bool) -> list[Tensor]:
    h = m.hidden_size
    if moe:
        f, e = m.moe_ffn_size or m.ffn_size, m.experts
        out = [Tensor(f"blk.{i}.ffn_gate_inp", "router", (e, h), i)]
        # Nemotron-H: experts may work in a smaller latent width, with a projection in and out (moe_latent_size)
        latent = _optional(m.config, "moe_latent_size", m.name, "hidden_size") or h
        parts = (("gate", (f, latent)), ("up", (f, latent)), ("down", (latent, f)))
        out += [
            Tensor(f"blk.{i}.ffn_{part}_exps", f"expert_{part}", shape, i, e, m.experts_per_token)
            for part, shape in (parts if m.gated_ffn else parts[1:])
        ]
        if latent != h:
            out += [Tensor(f"blk.{i}.ffn_latent_in", "ffn_up", (latent, h), i),
                    Tensor(f"blk.{i}.ffn_latent_out", "ffn_down", (h, latent), i)]  # fmt: skip
        shared_width = m.config.get("shared_expert_intermediate_size")
        if shared_width and not m.shared_experts:
            # Qwen2-MoE / Qwen3-Next: one shared expert of its own width, and a one-output gate on it
            # (transformers Qwen2MoeSparseMoeBlock: shared_expert, shared_expert_gate = Linear(hidden, 1))
            fs = _whole(shared_width, "shared_expert_intermediate_size", m.name, "ffn_size")
            out += [
                Tensor(f"blk.{i}.ffn_{part}_shexp", f"shared_{part}", shape, i)
                for part, shape in (("gate", (fs, h)), ("up", (fs, h)), ("down", (h, fs)))
            ]
            out.append(Tensor(f"blk.{i}.ffn_gate_inp_shexp", "router", (1, h), i))
        if m.shared_experts:
            # DeepSeek: one shared MLP of width n_shared × moe_ffn; Nemotron-H states the shared expert's width
            width = m.config.get("moe_shared_expert_intermediate_size")
            fs = _whole(width, "moe_shared_expert_intermediate_size", m.name, "ffn_size") if width else (
                f * m.shared_experts)  # fmt: skip
            shared = (("gate", (fs, h)), ("up", (fs, h)), ("down", (h, fs)))
            out += [
                Tensor(f"blk.{i}.ffn_{part}_shexp", f"shared_{part}", shape, i)
                for part, shape in (shared if m.gated_ffn else shared[1:])
            ]
        if m.config.get("topk_method") == "noaux_tc" or m.model_type in ROUTER_BIAS_TYPES:
            # DeepSeek-V3's routing bias (e_score_correction_bias)
            out.append(Tensor(f"blk.{i}.exp_probs_b", "bias", (e,), i))
        return out
    f = m.ffn_size
    out = [Tensor(f"blk.{i}.ffn_up", "ffn_up", (f, h), i), Tensor(f"blk.{i}.ffn_down", "ffn_down", (h, f), i)]
    if m.gated_ffn:
        out.insert(0, Tensor(f"blk.{i}.ffn_gate", "ffn_gate", (f, h), i))
    if m.linear_bias:
        out.append(Tensor(f"blk.{i}.ffn_bias", "bias", (f + h,), i))
    return out


def vision_tensors(config: Mapping[str, Any], text_hidden: int, label: str = "config.json") -> list[Tensor]:
    """The vision tower and projector of a multimodal config (its ``vision_config``), as two "vision" tensors.

    Each is one flat count (``active`` 0: a text token does not read them). Known towers: SigLIP
    (``siglip_vision_model``, Gemma 3; transformers SiglipVisionModel, with Gemma 3's projector
    ``mm_input_projection_weight`` and ``mm_soft_emb_norm``) and the Qwen3-VL vision model (``qwen3_vl``;
    transformers Qwen3VLVisionModel: Conv3d patch embedding, learned positions, ViT blocks with fused qkv, a
    patch merger and one DeepStack merger per ``deepstack_visual_indexes`` entry; Qwen3.5 keeps it) and
    Llama 4's (``llama4_vision_model``; NVIDIA NeMo's Llama4ViTModel with its pixel-shuffle adapter and
    the multi-modal projector). Another tower raises ValueError rather than being left out silently. []
    for a text-only config.
    """
    vision = config.get("vision_config")
    if vision is None:
        return []
    if not isinstance(vision, Mapping):
        raise ValueError(i18n.msg("{label}: vision_config must be a JSON object, not {value}", label=label,
                                  value=_show(vision)))  # fmt: skip
    kind = str(vision.get("model_type", "")).lower()

    def size(key: str, default: int | None = None) -> int:
        value = vision.get(key, default)
        if value is None:
            raise ValueError(i18n.msg("{label}: vision_config has no {key}", label=label, key=key))
        return _whole(value, f"vision_config.{key}", label, "vision_size")

    if kind == "siglip_vision_model":
        h, f, depth = size("hidden_size"), size("intermediate_size"), size("num_hidden_layers")
        patch, channels = size("patch_size"), size("num_channels", 3)
        positions = (size("image_size") // patch) ** 2
        tower = channels * patch * patch * h + h + positions * h  # patch embedding (with bias), positions
        tower += depth * (4 * (h * h + h) + 4 * h + 2 * h * f + f + h) + 2 * h  # blocks, post_layernorm
        if vision.get("vision_use_head", True):  # SiglipMultiheadAttentionPoolingHead
            tower += h + 3 * h * h + 3 * h + h * h + h + 2 * h + 2 * h * f + f + h
        projector = h * text_hidden + h  # Gemma 3: mm_input_projection_weight and mm_soft_emb_norm
    elif kind in ("qwen3_vl", "qwen3_5", "qwen3_5_moe"):  # Qwen3.5 keeps Qwen3-VL's tower, without DeepStack
        h, f, depth = size("hidden_size"), size("intermediate_size"), size("depth")
        patch, frames, channels = size("patch_size"), size("temporal_patch_size", 2), size("in_channels", 3)
        merged, out = h * size("spatial_merge_size", 2) ** 2, size("out_hidden_size")
        tower = channels * frames * patch * patch * h + h + size("num_position_embeddings") * h
        tower += depth * (4 * h + 3 * h * h + 3 * h + h * h + h + 2 * h * f + f + h)  # norms, qkv, proj, MLP
        merger = merged * merged + merged + merged * out + out  # linear_fc1, linear_fc2
        deepstack = len(_layer_list(vision, "deepstack_visual_indexes", label))
        projector = merger + 2 * h + deepstack * (merger + 2 * merged)  # LayerNorm before / after the shuffle
    elif kind == "llama4_vision_model":
        # Llama 4 (NVIDIA NeMo nemo/collections/vlm/llama4/model/vision.py, Llama4ViTModel): a bias-free patch
        # projection, a class token and its position, pre/post LayerNorms, ViT blocks with biased attention and
        # MLP, then a pixel-shuffle MLP (hidden / ratio² -> projector_input_dim -> projector_output_dim, no biases)
        h, f, depth = size("hidden_size"), size("intermediate_size"), size("num_hidden_layers")
        patch, channels = size("patch_size"), size("num_channels", 3)
        ratio = vision.get("pixel_shuffle_ratio", 0.5)
        if not isinstance(ratio, (int, float)) or isinstance(ratio, bool) or not 0 < ratio <= 1:
            raise ValueError(i18n.msg("{label}: vision_config.pixel_shuffle_ratio must be a number in (0, 1], not "
                                      "{value}", label=label, value=_show(ratio)))  # fmt: skip
        positions = (size("image_size") // patch) ** 2 + 1
        tower = channels * patch * patch * h + h + positions * h + 2 * 2 * h
        tower += depth * (4 * (h * h + h) + 2 * h * f + f + h + 2 * 2 * h)
        middle, out = size("projector_input_dim"), size("projector_output_dim")
        tower += round(h / ratio**2) * middle + out * out
        projector = size("vision_output_dim") * text_hidden  # multi_modal_projector.linear_1, no bias
    else:
        raise ValueError(i18n.msg("{label}: the kit does not know the vision tower {kind!r}; known: "
                                  "siglip_vision_model, qwen3_vl, llama4_vision_model", label=label,
                                  kind=kind))  # fmt: skip
    return [Tensor("vision_tower", "vision", (tower,), None, 1, 0),
            Tensor("vision_projector", "vision", (projector,), None, 1, 0)]  # fmt: skip


def _model_of(model: Model | str, argument: str = "model") -> Model:
    """``model`` itself, or the catalog model it names (LookupError naming ``argument`` otherwise)."""
    if isinstance(model, Model):
        return model
    from .catalog import lookup_model  # the catalog imports this module

    return lookup_model(model, argument)


def tensors(model: Model | str) -> tuple[Tensor, ...]:
    """Every weight tensor of ``model`` (a :class:`Model` or a catalog name), in GGUF-like naming.

    Covers embeddings (and learned positions), each block's attention (MHA/GQA/MQA/MLA, with
    DeepSeek-V3.2's indexer), linear attention (Gated DeltaNet) or Mamba-2 mixer and feed-forward
    (plain, gated or mixture-of-experts; Nemotron-H blocks hold one of these each), norms, biases,
    the output head (absent when tied to the embedding) and a multimodal model's vision tower and
    projector (kind "vision"). Multi-token-prediction modules (DeepSeek-V3, Qwen3.5) are not counted,
    as in the published 671B.
    """
    return _tensors(_model_of(model))


@functools.lru_cache(maxsize=512)  # pure function of a frozen Model: computed once per model
def _tensors(model: Model) -> tuple[Tensor, ...]:
    m, h = model, model.hidden_size
    norm = (2 * h,) if m.norm == "layernorm" else (h,)  # LayerNorm has a weight and a bias
    out = [Tensor("token_embd", "embedding", (m.vocab_size, h))]
    if m.position_embedding == "learned":
        out.append(Tensor("position_embd", "position", (m.max_context, h)))
    if m.model_type in ("bert", "roberta"):
        token_types = _optional(m.config, "type_vocab_size", m.name, "type_vocab_size") or 0
        out += [Tensor("token_types", "position", (token_types, h)), Tensor("embd_norm", "norm", norm)]
    norms_per_block = 4 if m.model_type in FOUR_NORM_TYPES else 2  # Gemma 2/3 add post-norms
    flagged = m.model_type in QK_NORM_FLAG_TYPES and bool(_flag(m.config, "use_qk_norm", m.name))
    qk_norm = 2 * m.head_dim if m.model_type in QK_NORM_TYPES or flagged else 0
    blocks = block_types(m.config, m.name)
    moe = _moe_layers(m.config, m.model_type, m.layers, m.name) if m.experts and not blocks else frozenset()
    linear = linear_layer_indices(m.config, m.layers, m.name) if m.linear_layers else frozenset()
    for i, kind in enumerate(blocks):  # Nemotron-H: one RMSNorm and one mixer per block (NemotronHBlock)
        mixer = {"mamba": _mamba2, "attention": _attention}.get(kind)
        out += mixer(m, i) if mixer else _feed_forward(m, i, kind == "moe")
        out.append(Tensor(f"blk.{i}.norms", "norm", norm, i))
    for i in range(0 if blocks else m.layers):
        out += _linear_attention(m, i) if i in linear else _attention(m, i)
        out += _feed_forward(m, i, i in moe)
        own = 0 if i in linear else qk_norm  # q/k norms belong to the attention layers
        out.append(Tensor(f"blk.{i}.norms", "norm", (norms_per_block * norm[0] + own,), i))
    if m.model_type in ("bert", "roberta"):
        out.append(Tensor("pooler", "pooler", (h * h + h,)))  # BertModel's pooler (dense + bias)
    else:
        out.append(Tensor("output_norm", "norm", norm))
        if not m.tied_embeddings:
            out.append(Tensor("output", "lm_head", (m.vocab_size, h)))
    return tuple(out + vision_tensors(m.config, h, m.name))


def param_count(model: Model | str, *, active: bool = False) -> int:
    """Parameters of ``model`` (a :class:`Model` or a catalog name) counted from its architecture.

    This is the count of :func:`tensors`, not the published figure. ``active=True`` counts what
    one token uses: for a mixture-of-experts model only the routed experts it is sent to
    (``experts_per_token``) plus shared ones; equal to the total otherwise.
    """
    return _param_count(_model_of(model), checks.flag(active, "active"))


@functools.lru_cache(maxsize=1024)
def _param_count(model: Model, active: bool) -> int:
    return sum(t.size * (t.active if active else t.count) for t in _tensors(model))
