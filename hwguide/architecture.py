"""A model's architecture, read from its Hugging Face ``config.json``.

:func:`from_hf_config` turns any config.json (a path or a dict) into a frozen :class:`Model`
holding exactly what the memory and speed math needs. It knows the key names of the common
families (Llama-style, Mistral/Mixtral, Qwen2/Qwen3 and their MoE, Gemma 2, Phi-3, DeepSeek-V3
with MLA, ChatGLM, BERT and GPT-2 style configs) and says which key it missed otherwise.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["Model", "from_hf_config"]

# Families whose feed-forward block is a plain two-matrix MLP (up, activation, down); all others
# here use a gated MLP (gate, up, down: SwiGLU / GeGLU), as their modeling_*.py files show.
PLAIN_MLP_TYPES = {"bert", "roberta", "gpt2", "gpt3", "gptj", "gpt_neox", "opt", "bloom", "falcon"}
# Families normalised with LayerNorm (weight and bias); the others use RMSNorm (weight only).
LAYERNORM_TYPES = PLAIN_MLP_TYPES | {"phi"}
# Families with learned absolute position embeddings; the others use rotary embeddings (RoPE).
LEARNED_POSITION_TYPES = {"bert", "roberta", "gpt2", "gpt3", "opt"}
# Families whose linear layers all carry biases.
BIASED_TYPES = {"bert", "roberta", "gpt2", "gpt3", "gptj", "gpt_neox", "opt", "bloom"}
# Families whose q/k/v projections carry biases while the other linear layers do not
# (Qwen2 and Qwen2-MoE: transformers models/qwen2/modeling_qwen2.py, q_proj(bias=True)).
QKV_BIAS_TYPES = {"qwen2", "qwen2_moe"}
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
    "chatglm",
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
    params_total_b: float | None = None
    params_active_b: float | None = None
    dtype: str | None = None  # the checkpoint's torch_dtype
    source: str | None = None
    config: Mapping[str, Any] = dataclasses.field(default_factory=dict, compare=False, repr=False, hash=False)

    @classmethod
    def from_hf_config(cls, config: str | os.PathLike[str] | Mapping[str, Any], **kwargs: Any) -> Model:
        """Build a Model from a Hugging Face config.json path or dict (see :func:`from_hf_config`)."""
        return from_hf_config(config, **kwargs)

    @property
    def is_moe(self) -> bool:
        """True for a mixture-of-experts model."""
        return self.experts > 0

    @property
    def attention_kind(self) -> str:
        """The attention in words, e.g. ``"GQA (8 KV heads) + sliding window 4096 on 21 of 42 layers"``."""
        if self.attention == "MLA":
            text = f"MLA (latent {self.kv_lora_rank} + rope {self.qk_rope_head_dim})"
        elif self.attention == "GQA":
            text = f"GQA ({self.kv_heads} KV heads)"
        else:
            text = self.attention
        if self.sliding_window:
            if self.sliding_window_layers == self.layers:
                text += f" + sliding window {self.sliding_window}"
            else:
                text += (
                    f" + sliding window {self.sliding_window} on {self.sliding_window_layers} of {self.layers} layers"
                )
        return text


def _first(config: Mapping[str, Any], keys: tuple[str, ...], what: str) -> Any:
    for key in keys:
        if config.get(key) is not None:
            return config[key]
    raise ValueError(f"config.json has no {what}: looked for {', '.join(repr(k) for k in keys)}")


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not float(value).is_integer():
        raise ValueError(f"config.json: {what} must be a whole number, not {value!r}")
    if value <= 0:
        raise ValueError(f"config.json: {what} must be greater than 0, not {value!r}")
    return int(value)


def _sliding(config: Mapping[str, Any], model_type: str, layers: int) -> tuple[int | None, int]:
    """(window in tokens, number of layers that use it), following transformers' rules."""
    window = config.get("sliding_window")
    if not window or config.get("use_sliding_window") is False:
        return None, 0
    window = _count(window, "sliding_window")
    layer_types = config.get("layer_types")
    if layer_types:
        return window, sum(1 for t in layer_types if t == "sliding_attention")
    if model_type == "gemma2":
        # Gemma 2 alternates local (even layers) and global attention:
        # transformers models/gemma2/modeling_gemma2.py, `is_sliding = not bool(layer_idx % 2)`.
        return window, math.ceil(layers / 2)
    if "max_window_layers" in config and config.get("use_sliding_window"):
        return window, max(0, layers - int(config["max_window_layers"]))
    return window, layers


def from_hf_config(
    config: str | os.PathLike[str] | Mapping[str, Any],
    *,
    name: str | None = None,
    params_total_b: float | None = None,
    params_active_b: float | None = None,
    source: str | None = None,
) -> Model:
    """Build a :class:`Model` from a Hugging Face ``config.json`` (a path or the parsed dict).

    ``name`` defaults to the config's ``_name_or_path`` or the file's folder name. Published
    parameter counts (billions) can be attached; they are not read from the config. Raises
    ValueError naming the missing or invalid key.
    """
    if isinstance(config, (str, os.PathLike)):
        path = Path(config)
        if path.is_dir():
            path = path / "config.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"config: no config.json at {path}") from None
        except json.JSONDecodeError as err:
            raise ValueError(f"config: {path} is not valid JSON ({err})") from None
        default_name = path.parent.name if path.name == "config.json" else path.stem
    elif isinstance(config, Mapping):
        data = dict(config)
        default_name = "custom model"
    else:
        raise ValueError(f"config must be a path to config.json or a dict, not {type(config).__name__}")
    if isinstance(data.get("text_config"), Mapping):  # multimodal wrappers keep the LM here
        data = {**data, **data["text_config"]}

    model_type = str(data.get("model_type", "")).lower()
    layers = _count(_first(data, ("num_hidden_layers", "num_layers", "n_layer"), "layer count"), "layers")
    hidden = _count(_first(data, ("hidden_size", "n_embd", "d_model"), "hidden size"), "hidden_size")
    heads = _count(_first(data, ("num_attention_heads", "n_head", "num_heads"), "attention head count"), "heads")
    if data.get("multi_query_attention") and data.get("multi_query_group_num"):  # ChatGLM
        kv_heads = _count(data["multi_query_group_num"], "multi_query_group_num")
    else:
        kv_heads = _count(data.get("num_key_value_heads") or heads, "num_key_value_heads")
    if heads % kv_heads:
        raise ValueError(f"config.json: {heads} attention heads do not divide into {kv_heads} KV heads")
    mla_head = (data.get("qk_nope_head_dim") or 0) + (data.get("qk_rope_head_dim") or 0)  # MLA query/key width
    head_dim = _count(data.get("head_dim") or data.get("kv_channels") or mla_head or hidden // heads, "head_dim")
    ffn_key = ("intermediate_size", "ffn_hidden_size", "n_inner")
    ffn = data.get(ffn_key[0]) or data.get(ffn_key[1]) or data.get(ffn_key[2]) or 4 * hidden
    vocab = _count(_first(data, ("vocab_size", "padded_vocab_size"), "vocabulary size"), "vocab_size")
    context = _count(
        _first(
            data,
            ("max_position_embeddings", "seq_length", "n_positions", "n_ctx", "max_sequence_length"),
            "maximum context",
        ),
        "max_context",
    )
    tied = data.get("tie_word_embeddings")
    if tied is None:
        tied = model_type not in UNTIED_BY_DEFAULT

    kv_lora = data.get("kv_lora_rank")
    if kv_lora:
        attention = "MLA"
    elif kv_heads == heads:
        attention = "MHA"
    elif kv_heads == 1:
        attention = "MQA"
    else:
        attention = "GQA"

    experts = int(data.get("num_local_experts") or data.get("n_routed_experts") or data.get("num_experts") or 0)
    per_token = int(data.get("num_experts_per_tok") or 0) if experts else 0
    moe_layers = 0
    if experts:
        if model_type.startswith("deepseek"):
            first_dense = int(data.get("first_k_dense_replace") or 0)
            freq = int(data.get("moe_layer_freq") or 1)
            moe_layers = sum(1 for i in range(layers) if i >= first_dense and i % freq == 0)
        else:
            step = int(data.get("decoder_sparse_step") or 1)
            dense_only = set(data.get("mlp_only_layers") or [])
            moe_layers = sum(1 for i in range(layers) if i not in dense_only and (i + 1) % step == 0)
    moe_ffn = data.get("moe_intermediate_size") or (ffn if experts else None)

    window, window_layers = _sliding(data, model_type, layers)
    plain_mlp = model_type in PLAIN_MLP_TYPES
    biased = model_type in BIASED_TYPES or bool(data.get("add_bias_linear"))
    qkv_bias = biased or model_type in QKV_BIAS_TYPES or bool(data.get("attention_bias") or data.get("add_qkv_bias"))
    return Model(
        name=name or data.get("_name_or_path") or default_name,
        model_type=model_type or "unknown",
        layers=layers,
        hidden_size=hidden,
        ffn_size=_count(ffn, "intermediate_size"),
        gated_ffn=not plain_mlp,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab_size=vocab,
        tied_embeddings=bool(tied),
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
        shared_experts=int(data.get("n_shared_experts") or 0),
        moe_ffn_size=_count(moe_ffn, "moe_intermediate_size") if moe_ffn else None,
        moe_layers=moe_layers,
        kv_lora_rank=int(kv_lora) if kv_lora else None,
        q_lora_rank=int(data["q_lora_rank"]) if data.get("q_lora_rank") else None,
        qk_rope_head_dim=data.get("qk_rope_head_dim"),
        qk_nope_head_dim=data.get("qk_nope_head_dim"),
        v_head_dim=data.get("v_head_dim"),
        params_total_b=params_total_b,
        params_active_b=params_active_b,
        dtype=data.get("torch_dtype") or data.get("dtype"),
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
    expert_gate, expert_up, expert_down, shared_gate, shared_up, shared_down, pooler.
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
        return out
    out += [
        Tensor(f"blk.{i}.attn_q", "attn_q", (q, h), i),
        Tensor(f"blk.{i}.attn_k", "attn_k", (kv, h), i),
        Tensor(f"blk.{i}.attn_v", "attn_v", (kv, h), i),
        Tensor(f"blk.{i}.attn_output", "attn_o", (h, q), i),
    ]
    if m.qkv_bias:
        out.append(Tensor(f"blk.{i}.attn_qkv_bias", "bias", (q + 2 * kv,), i))
    if m.linear_bias:
        out.append(Tensor(f"blk.{i}.attn_output_bias", "bias", (h,), i))
    return out


def _feed_forward(m: Model, i: int) -> list[Tensor]:
    h = m.hidden_size
    if m.experts and _is_moe_layer(m, i):
        f, e = m.moe_ffn_size or m.ffn_size, m.experts
        out = [Tensor(f"blk.{i}.ffn_gate_inp", "router", (e, h), i)]
        out += [
            Tensor(f"blk.{i}.ffn_{part}_exps", f"expert_{part}", shape, i, e, m.experts_per_token)
            for part, shape in (("gate", (f, h)), ("up", (f, h)), ("down", (h, f)))
        ]
        if m.shared_experts:
            fs = f * m.shared_experts  # DeepSeek: one shared MLP of width n_shared × moe_ffn
            out += [
                Tensor(f"blk.{i}.ffn_{part}_shexp", f"shared_{part}", shape, i)
                for part, shape in (("gate", (fs, h)), ("up", (fs, h)), ("down", (h, fs)))
            ]
        if m.model_type.startswith("deepseek"):
            out.append(Tensor(f"blk.{i}.exp_probs_b", "bias", (e,), i))  # routing bias (V3)
        return out
    f = m.ffn_size
    out = [Tensor(f"blk.{i}.ffn_up", "ffn_up", (f, h), i), Tensor(f"blk.{i}.ffn_down", "ffn_down", (h, f), i)]
    if m.gated_ffn:
        out.insert(0, Tensor(f"blk.{i}.ffn_gate", "ffn_gate", (f, h), i))
    if m.linear_bias:
        out.append(Tensor(f"blk.{i}.ffn_bias", "bias", (f + h,), i))
    return out


def _is_moe_layer(m: Model, i: int) -> bool:
    data = m.config
    if m.model_type.startswith("deepseek"):
        first_dense = int(data.get("first_k_dense_replace") or 0)
        return i >= first_dense and i % int(data.get("moe_layer_freq") or 1) == 0
    step = int(data.get("decoder_sparse_step") or 1)
    return i not in set(data.get("mlp_only_layers") or []) and (i + 1) % step == 0


@functools.lru_cache(maxsize=512)  # pure function of a frozen Model: computed once per model
def tensors(model: Model) -> tuple[Tensor, ...]:
    """Every weight tensor of ``model``, in GGUF-like naming, derived from its architecture.

    Covers embeddings (and learned positions), each block's attention (MHA/GQA/MQA/MLA) and
    feed-forward (plain, gated or mixture-of-experts), norms, biases and the output head (absent
    when tied to the embedding). Multi-token-prediction modules (DeepSeek-V3) are not counted,
    as in the published 671B.
    """
    m, h = model, model.hidden_size
    norm = (2 * h,) if m.norm == "layernorm" else (h,)  # LayerNorm has a weight and a bias
    out = [Tensor("token_embd", "embedding", (m.vocab_size, h))]
    if m.position_embedding == "learned":
        out.append(Tensor("position_embd", "position", (m.max_context, h)))
    if m.model_type in ("bert", "roberta"):
        types = int(m.config.get("type_vocab_size") or 0)
        out += [Tensor("token_types", "position", (types, h)), Tensor("embd_norm", "norm", norm)]
    norms_per_block = 4 if m.model_type.startswith("gemma2") else 2  # Gemma 2 adds post-norms
    for i in range(m.layers):
        out += _attention(m, i)
        out += _feed_forward(m, i)
        out.append(Tensor(f"blk.{i}.norms", "norm", (norms_per_block * norm[0],), i))
    if m.model_type in ("bert", "roberta"):
        out.append(Tensor("pooler", "pooler", (h * h + h,)))  # BertModel's pooler (dense + bias)
    else:
        out.append(Tensor("output_norm", "norm", norm))
        if not m.tied_embeddings:
            out.append(Tensor("output", "lm_head", (m.vocab_size, h)))
    return tuple(out)


@functools.lru_cache(maxsize=1024)
def param_count(model: Model, active: bool = False) -> int:
    """Parameters of ``model`` counted from its architecture (not the published figure).

    ``active=True`` counts what one token uses: for a mixture-of-experts model only the routed
    experts it is sent to (``experts_per_token``) plus shared ones; equal to the total otherwise.
    """
    return sum(t.size * (t.active if active else t.count) for t in tensors(model))
