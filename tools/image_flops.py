"""Count the FLOPs of the image models' components from their configs, without weights.

Each component (text encoders, denoiser, VAE decoder) is built on PyTorch's ``meta`` device from
its config in data/image_models/ (diffusers / transformers classes, no download, no memory) and
run once under ``torch.utils.flop_counter.FlopCounterMode``, which counts the matrix multiplies,
convolutions and attention (2 FLOPs per multiply-add). The denoiser is counted for one pass of one
image at four resolutions; its FLOPs are exactly ``a + b·MP + c·MP²`` in megapixels (convolutions,
projections and cross-attention grow with the pixels, self-attention with their square), so three
resolutions give the coefficients and the fourth checks them. The VAE decoder likewise.

Run with an environment that has torch, diffusers and transformers (not the kit's requirements):

    python tools/image_flops.py            # prints the table
    python tools/image_flops.py --write    # writes the flops columns of data/image_components.csv

Results were computed with torch 2.13.0+cpu, diffusers 0.42.1, transformers 5.24.0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch
from torch.utils.flop_counter import FlopCounterMode

DATA = Path(__file__).resolve().parent.parent / "data"
RESOLUTIONS = [(512, 512), (768, 768), (1024, 1024), (1216, 832)]


def _config(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def _count(fn) -> float:
    with FlopCounterMode(display=False) as counter, torch.no_grad():
        fn()
    return float(counter.get_total_flops())


def _meta(cls, cfg: dict):
    with torch.device("meta"):
        return cls.from_config(cfg) if hasattr(cls, "from_config") else cls(cfg)


def text_encoder(name: str, tokens: int) -> tuple[float, int]:
    """FLOPs of one prompt through a CLIP or T5 text encoder, and its parameter count."""
    import transformers

    cfg = _config(name)
    if cfg["model_type"] == "t5":
        model_cls, conf = transformers.T5EncoderModel, transformers.T5Config(**cfg)
    else:
        proj = "CLIPTextModelWithProjection" in cfg.get("architectures", [])
        model_cls = transformers.CLIPTextModelWithProjection if proj else transformers.CLIPTextModel
        conf = transformers.CLIPTextConfig(**cfg)
    with torch.device("meta"):
        model = model_cls(conf)
    ids = torch.zeros((1, tokens), dtype=torch.long, device="meta")
    return _count(lambda: model(input_ids=ids)), sum(p.numel() for p in model.parameters())


def denoiser(name: str, family: str, text_tokens: int, width: int, height: int, extra: dict) -> float:
    """FLOPs of one denoiser pass on one image of ``width`` × ``height`` pixels (batch 1, no CFG)."""
    import diffusers

    cfg = {**_config(name), **extra}
    lat_h, lat_w = height // 8, width // 8
    if family == "unet":
        model = _meta(diffusers.UNet2DConditionModel, cfg)
        x = torch.zeros((1, cfg["in_channels"], lat_h, lat_w), device="meta")
        ctx = torch.zeros((1, text_tokens, cfg["cross_attention_dim"]), device="meta")
        kw = {}
        if cfg.get("addition_embed_type") == "text_time":  # SDXL: pooled text + size conditioning
            kw["added_cond_kwargs"] = {
                "text_embeds": torch.zeros((1, cfg["projection_class_embeddings_input_dim"] - 6 * 256), device="meta"),
                "time_ids": torch.zeros((1, 6), device="meta"),
            }
        t = torch.zeros((1,), device="meta")
        return _count(lambda: model(x, t, encoder_hidden_states=ctx, **kw))
    if family == "flux":
        model = _meta(diffusers.FluxTransformer2DModel, cfg)
        n_img = (lat_h // 2) * (lat_w // 2)
        x = torch.zeros((1, n_img, cfg["in_channels"]), device="meta")
        ctx = torch.zeros((1, text_tokens, cfg["joint_attention_dim"]), device="meta")
        pooled = torch.zeros((1, cfg["pooled_projection_dim"]), device="meta")
        img_ids = torch.zeros((n_img, 3), device="meta")
        txt_ids = torch.zeros((text_tokens, 3), device="meta")
        t = torch.zeros((1,), device="meta")
        g = torch.zeros((1,), device="meta") if cfg.get("guidance_embeds") else None
        return _count(
            lambda: model(
                hidden_states=x,
                encoder_hidden_states=ctx,
                pooled_projections=pooled,
                timestep=t,
                img_ids=img_ids,
                txt_ids=txt_ids,
                guidance=g,
            )
        )
    if family == "sd3":
        model = _meta(diffusers.SD3Transformer2DModel, cfg)
        x = torch.zeros((1, cfg["in_channels"], lat_h, lat_w), device="meta")
        ctx = torch.zeros((1, text_tokens, cfg["joint_attention_dim"]), device="meta")
        pooled = torch.zeros((1, cfg["pooled_projection_dim"]), device="meta")
        t = torch.zeros((1,), device="meta")
        return _count(lambda: model(hidden_states=x, encoder_hidden_states=ctx, pooled_projections=pooled, timestep=t))
    raise ValueError(family)


def denoiser_params(name: str, family: str, extra: dict) -> int:
    import diffusers

    cls = {
        "unet": diffusers.UNet2DConditionModel,
        "flux": diffusers.FluxTransformer2DModel,
        "sd3": diffusers.SD3Transformer2DModel,
    }[family]
    return sum(p.numel() for p in _meta(cls, {**_config(name), **extra}).parameters())


def vae_decode(name: str, width: int, height: int) -> tuple[float, int]:
    """FLOPs of decoding one image's latents to ``width`` × ``height`` pixels, and the VAE's parameters."""
    import diffusers

    cfg = _config(name)
    model = _meta(diffusers.AutoencoderKL, cfg)
    z = torch.zeros((1, cfg["latent_channels"], height // 8, width // 8), device="meta")
    return _count(lambda: model.decode(z)), sum(p.numel() for p in model.parameters())


def quadratic(points: list[tuple[float, float]]) -> tuple[float, float, float, float]:
    """Coefficients a, b, c of a + b·MP + c·MP² through the first three points, and the fourth's relative error."""
    mp = np.array([p for p, _ in points[:3]])
    f = np.array([v for _, v in points[:3]])
    a, b, c = np.linalg.solve(np.vander(mp, 3, increasing=True), f)
    p4, f4 = points[3]
    return float(a), float(b), float(c), float((a + b * p4 + c * p4**2) / f4 - 1)


def main(argv: list[str]) -> int:
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the flops columns of data/image_components.csv")
    args = ap.parse_args(argv)
    table = pd.read_csv(DATA / "image_components.csv")
    for i, row in table.iterrows():
        extra = json.loads(row["config_overrides"]) if isinstance(row["config_overrides"], str) else {}
        if row["component"] == "denoiser":
            pts = [
                (w * h / 1e6, denoiser(row["config_file"], row["family"], int(row["text_tokens"]), w, h, extra))
                for w, h in RESOLUTIONS
            ]
            a, b, c, err = quadratic(pts)
            params = denoiser_params(row["config_file"], row["family"], extra)
        elif row["component"] == "vae":
            pts, params = [], 0
            for w, h in RESOLUTIONS:
                f, params = vae_decode(row["config_file"], w, h)
                pts.append((w * h / 1e6, f))
            a, b, c, err = quadratic(pts)
        else:
            f, params = text_encoder(row["config_file"], int(row["text_tokens"]))
            a, b, c, err = f, 0.0, 0.0, 0.0
        coefficients = [round(a / 1e9, 2), round(b / 1e9, 2), round(c / 1e9, 2)]
        table.loc[i, ["gflops_const", "gflops_per_mp", "gflops_per_mp2"]] = coefficients
        table.loc[i, "params_config"] = params
        print(
            f"{row['model']:<28} {row['component']:<15} params {params:>14,}  "
            f"GFLOPs = {a / 1e9:10.1f} + {b / 1e9:10.1f}·MP + {c / 1e9:9.1f}·MP²   (4th point {err:+.1e})"
        )
    if args.write:
        table["params_config"] = table["params_config"].astype("int64")
        table.to_csv(DATA / "image_components.csv", index=False, lineterminator="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
