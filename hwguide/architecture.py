"""A model's architecture, read from its Hugging Face ``config.json``.

:func:`from_hf_config` turns any config.json (a path or a dict) into a frozen :class:`Model`
holding exactly what the memory and speed math needs. It knows the key names of the common
families (Llama-style, Mistral/Mixtral, Qwen2/Qwen3 and their MoE, Gemma 2, Phi-3, DeepSeek-V3
with MLA, ChatGLM, BERT and GPT-2 style configs) and says which key it missed otherwise.
"""

from __future__ import annotations

import dataclasses
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
                    f" + sliding window {self.sliding_window} on "
                    f"{self.sliding_window_layers} of {self.layers} layers"
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
    heads = _count(
        _first(data, ("num_attention_heads", "n_head", "num_heads"), "attention head count"), "heads"
    )
    if data.get("multi_query_attention") and data.get("multi_query_group_num"):  # ChatGLM
        kv_heads = _count(data["multi_query_group_num"], "multi_query_group_num")
    else:
        kv_heads = _count(data.get("num_key_value_heads") or heads, "num_key_value_heads")
    if heads % kv_heads:
        raise ValueError(f"config.json: {heads} attention heads do not divide into {kv_heads} KV heads")
    head_dim = _count(data.get("head_dim") or data.get("kv_channels") or hidden // heads, "head_dim")
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

    experts = int(
        data.get("num_local_experts") or data.get("n_routed_experts") or data.get("num_experts") or 0
    )
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
    qkv_bias = (
        biased or model_type in QKV_BIAS_TYPES or bool(data.get("attention_bias") or data.get("add_qkv_bias"))
    )
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
