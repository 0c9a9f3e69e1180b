"""Image generation: components, weights against published file sizes, FLOPs, memory and time."""

from __future__ import annotations

import re

import pytest

import hwguide as hg
from hwguide import image, imagefit

CJK = re.compile(r"[\u4e00-\u9fff]")
MODELS = ["Stable Diffusion 1.5", "SDXL 1.0 base", "Stable Diffusion 3.5 Large", "Stable Diffusion 3.5 Medium",
          "FLUX.1-dev", "FLUX.1-schnell"]  # fmt: skip


def test_models_load_by_name_and_alias():
    assert list(hg.image_models()["name"]) == MODELS
    assert hg.image_model("flux dev")["name"] == "FLUX.1-dev"
    assert hg.image_model("sdxl")["guidance"] == "cfg"
    assert set(hg.image_model("sd3.5 large")["components"]) == {
        "text_encoder", "text_encoder_2", "text_encoder_3", "denoiser", "vae"}  # fmt: skip


def test_unknown_model_suggests_close_names():
    with pytest.raises(LookupError, match="SDXL 1.0 base"):
        hg.image_model("sdx1")


@pytest.mark.parametrize("model", MODELS)
def test_parameter_counts_built_from_the_configs_match_the_published_ones(model):
    # params: the checkpoint's own count (index total_size / 2, or diffusers' "860M UNet");
    # params_config: what tools/image_flops.py built from the stored config on the meta device.
    for comp, row in hg.image_model(model)["components"].items():
        if comp == "text_encoder" and model.startswith("Stable Diffusion 3.5"):
            # SD 3.5's CLIP-L carries a 768 × 768 projection the stored CLIP-L config lacks
            assert row["params"] - row["params_config"] == 768 * 768
        else:
            assert row["params_config"] == row["params"], (model, comp)


def test_published_counts():
    comps = {m: hg.image_model(m)["components"] for m in MODELS}
    assert comps["Stable Diffusion 1.5"]["denoiser"]["params"] == pytest.approx(860e6, rel=0.001)  # "860M UNet"
    assert comps["SDXL 1.0 base"]["denoiser"]["params"] == pytest.approx(2.6e9, rel=0.02)  # SDXL paper "2.6B"
    assert comps["FLUX.1-dev"]["denoiser"]["params"] == pytest.approx(12e9, rel=0.01)  # "12 billion parameter"
    # FLUX.1-dev = schnell + a guidance embedder of 10.2 M parameters
    dev, schnell = comps["FLUX.1-dev"]["denoiser"]["params"], comps["FLUX.1-schnell"]["denoiser"]["params"]
    assert dev - schnell == 10_229_760


# Published file sizes: the diffusers index total of FLUX.1-dev (exo-explore/exo @b5375f8c,
# resources/image_model_cards/exolabs--FLUX.1-dev.toml, components.storage_size), city96's GGUF files
# (utensils/mold @a34ff7a0, crates/mold-core/src/manifest.rs) and the SDXL fp16 UNet (the Git-LFS pointer of
# unet/diffusion_pytorch_model.fp16.safetensors in stabilityai/stable-diffusion-xl-base-1.0, as cloned in
# andrewcchoi/stabilityai-stable-diffusion-xl-base-1.0 @bf714989).
FILES = [
    ("FLUX.1-dev", "bf16", 23_802_816_640),
    ("FLUX.1-dev", "Q8_0", 12_708_281_504),
    ("FLUX.1-dev", "Q4_1", 7_530_806_432),
    ("FLUX.1-dev", "Q6_K", 9_857_000_736),
    ("FLUX.1-schnell", "Q8_0", 12_687_821_728),
    ("FLUX.1-schnell", "Q4_1", 7_510_346_656),
    ("FLUX.1-schnell", "Q6_K", 9_834_955_808),
    ("Stable Diffusion 3.5 Large", "Q8_0", 8_779_212_512),
    ("Stable Diffusion 3.5 Large", "Q4_0", 4_772_054_752),
    ("Stable Diffusion 3.5 Medium", "Q8_0", 2_855_825_856),
    ("SDXL 1.0 base", "fp16", 5_135_149_760),
]


@pytest.mark.parametrize(("model", "weights", "published"), FILES)
def test_denoiser_bytes_match_published_files(model, weights, published):
    estimate = hg.image_weights_bytes(model, weights=weights)["denoiser"]
    assert estimate == pytest.approx(published, rel=0.015)


def test_gguf_bits_come_from_the_block_definitions():
    assert image.format_bits("Q8_0") == 8.5  # 34 bytes per 32 weights
    assert image.format_bits("Q4_K_S") == 4.5  # a Q4_K block: 144 bytes per 256
    assert image.format_bits("q6k") == 6.5625
    assert image.format_bits("nf4") == 4.5


def test_flux_attention_flops_by_hand():
    # 57 blocks (19 double + 38 single) attend over all tokens: 4 · N² · 3072 FLOPs each (QKᵀ and AV),
    # N = pixels / 256 image tokens (+ 512 text tokens). The MP² coefficient holds the N² part.
    row = hg.image_model("FLUX.1-dev")["components"]["denoiser"]
    tokens_per_mp = 1e6 / 256
    assert row["gflops_per_mp2"] == pytest.approx(4 * 57 * tokens_per_mp**2 * 3072 / 1e9, rel=1e-4)


def test_flops_grow_with_pixels_and_cfg_doubles_the_denoiser():
    small = hg.image_flops("sdxl", width=512, height=512)["denoiser_pass"]
    large = hg.image_flops("sdxl", width=1024, height=1024)["denoiser_pass"]
    assert 4 < large / small < 5  # linear part ×4, attention part ×16
    base = dict(weights="fp16", steps=30, engine="diffusers")
    sdxl = hg.image_seconds("sdxl", "A100 SXM4 80GB", **base)
    assert sdxl["step_s"] > 0 and sdxl["it_per_s"] == pytest.approx(1 / sdxl["step_s"])
    assert "2 × 1 ×" in str(sdxl["assumptions"][0])  # two passes per step with CFG
    assert sdxl["assumptions"][0].fields["passes"] == 2
    flux = hg.image_seconds("flux schnell", "A100 SXM4 80GB", weights="bf16")
    assert "1 × 1 ×" in str(flux["assumptions"][0])  # guidance-distilled: one pass


def test_memory_offload_modes_order():
    none = hg.image_memory("flux dev", offload="none").per_gpu_bytes
    model = hg.image_memory("flux dev", offload="model").per_gpu_bytes
    seq = hg.image_memory("flux dev", offload="sequential").per_gpu_bytes
    assert seq < model < none
    assert hg.image_memory("flux dev", offload="model").offloaded_gib > 30
    # auto keeps everything on a card that holds it, and streams the rest on one that does not
    assert (
        hg.image_memory("sd1.5", offload="auto", card="RTX 4090").per_gpu_bytes
        == hg.image_memory("sd1.5").per_gpu_bytes
    )
    on_4090 = hg.image_seconds("flux dev", "RTX 4090", weights="bf16", offload="auto", engine="webui")
    assert on_4090["peak_gib"] == pytest.approx(24) and on_4090["transfer_s"] > 0
    assert "GB per step" in str(on_4090["assumptions"][2])
    on_4070 = hg.image_seconds("flux dev", "RTX 4070 Ti SUPER", weights="bf16", offload="auto", engine="webui")
    assert on_4070["peak_gib"] <= 16 and on_4070["step_s"] > on_4090["step_s"]
    assert on_4070["assumptions"][2].fields["streamed"] > 5  # GB streamed each step


def test_fp8_matmul_runs_at_the_fp8_rate_only_where_the_card_has_it():
    ada = hg.image_seconds("flux dev", "RTX 4090", weights="fp8-matmul")
    ampere = hg.image_seconds("flux dev", "RTX 3090", weights="fp8-matmul")
    assert ada["precision"] == "fp8" and ampere["precision"] == "bf16"


def test_bad_input_gets_a_clear_answer():
    with pytest.raises(ValueError, match="multiples of 16"):
        hg.image_seconds("sdxl", "A10", width=1000)
    with pytest.raises(ValueError, match="offload="):
        hg.image_memory("sdxl", offload="cpu")
    with pytest.raises(ValueError, match="give card="):
        hg.image_memory("sdxl", offload="auto")
    with pytest.raises(ValueError, match="steps"):
        hg.image_seconds("sdxl", "A10", steps=0)
    assert hg.image_weights_bytes("sdxl", weights="q4km") == hg.image_weights_bytes("sdxl", weights="Q4_K_M")
    with pytest.raises(ValueError, match="weights="):
        hg.image_seconds("sdxl", "A10", weights="q9")


def test_measurement_rows_map_to_the_kit_or_say_why_not():
    t = hg.load_table("image_measurements")
    used = imagefit.image_rows()
    assert len(used) >= 150 and used["group"].nunique() >= 8
    for row in used.to_dict("records"):
        hg.image_model(row["model"])
        hg.gpu(row["gpu"])
    assert (t["excluded_because"].fillna("") != "").sum() == len(t) - len(used)


def test_a10_against_a100_from_lambda_measured_rows():
    # Lambda's SD 1.4 benchmark (same UNet as 1.5), 30 steps, batch 1 and 16 with xFormers:
    # A10 2.01 and 1.54 s per image, A100 PCIe 80GB 1.17 and 0.62 s: the A100 is 1.7 to 2.5 × faster.
    args = dict(steps=30, engine="diffusers")
    for batch, ratio in ((1, 2.01 / 1.17), (16, 1.5406 / 0.6206)):
        a10 = hg.image_seconds("sd1.5", "A10", batch=batch, **args)["per_image_s"]
        a100 = hg.image_seconds("sd1.5", "A100 PCIe 80GB", batch=batch, **args)["per_image_s"]
        assert a10 / a100 == pytest.approx(ratio, rel=0.35)


def test_image_results_speak_chinese_and_keep_their_codes():
    mem = hg.image_memory("flux dev", offload="auto", card="RTX 4070")
    run = hg.image_seconds("flux dev", "RTX 4070 Ti SUPER", weights="bf16", offload="auto", engine="webui")
    assert mem.kind == "image generation" and "denoiser" in mem.per_gpu
    assert run["step_bound"] in ("compute", "memory", "pcie")
    for line in (*mem.assumptions[:2], mem.assumptions[3], *run["assumptions"]):  # [2] quotes the fit's own note
        zh = line.render("zh")
        assert CJK.search(zh) and not re.search(r"\b(Offload|Weights|Activations|Denoiser|per step|per call)\b", zh), zh
    with hg.i18n.using("zh"):
        shown = str(mem)
    assert shown.startswith("图像生成") and "denoiser" not in shown and "GiB per GPU" not in shown
    with hg.i18n.using("en"):
        assert str(mem).startswith("image generation memory: ")
        assert str(run["assumptions"][2]).startswith("Offload 'model': ")


def test_fp16_accumulation_follows_the_engine_and_the_card():
    # data/gpus.csv: RTX 4090 fp16_tflops 165.2 (FP32 accumulate), fp16_acc16_tflops 330.3 (GeForce: twice);
    # data/board_clocks.csv: the board sustains 166.87 in torch.mm, 166.87 / 165.2 of its datasheet rate.
    share = 166.87 / 165.2
    terms = image.time_terms("sdxl", "RTX 4090", weights="fp16")
    assert terms["peak"] == pytest.approx(165.2e12 * share, rel=1e-9)
    assert terms["peak_acc16"] == pytest.approx(330.3e12 * share, rel=1e-9)
    onediff = hg.image_seconds("sdxl", "RTX 4090", weights="fp16", engine="onediff")
    compiled = hg.image_seconds("sdxl", "RTX 4090", weights="fp16", engine="compiled")
    assert onediff["precision"] == "fp16-acc16" and compiled["precision"] == "fp16"
    assert onediff["assumptions"][0].fields["tflops"] == pytest.approx(330.3 * share, rel=1e-9)
    # an A100 (312 both ways) and BF16 weights (no FP16-accumulate path) get no faster rate
    assert hg.image_seconds("sdxl", "A100 SXM4 80GB", weights="fp16", engine="onediff")["precision"] == "fp16"
    assert hg.image_seconds("flux dev", "RTX 4090", weights="bf16", engine="onediff")["precision"] == "bf16"
    engines = image.image_engines().set_index("engine")["fp16_accumulate"]
    assert engines["onediff"] and engines["stable-fast"] and not engines["compiled"] and not engines["diffusers"]


def test_board_fraction_is_the_measured_matmul_rate_over_the_datasheet():
    # data/board_clocks.csv: T4 41.93 of 65 TFLOPS (a 70 W board), L40S 264.02 of 362.05
    assert image.board_fraction("T4") == (pytest.approx(41.93 / 65), True)
    assert image.board_fraction("L40S") == (pytest.approx(264.02 / 362.05), True)
    # a board without a figure: the median of the 18 measured ones, between the A100 SXM4 80GB (258.74 / 312)
    # and the A800 (266.04 / 312), the 9th and 10th of the sorted shares
    share, measured = image.board_fraction("RTX 6000 Ada")
    assert not measured and share == pytest.approx((258.74 + 266.04) / 2 / 312, rel=1e-9)
    t4 = hg.image_seconds("sd1.5", "T4", engine="diffusers")
    assert t4["assumptions"][-1].fields["share"] == pytest.approx(41.93 / 65)


def test_memory_reading_adds_the_reserve_and_the_context():
    allocated = hg.image_memory("sdxl", reading="allocated")
    reserved = hg.image_memory("sdxl", reading="reserved")
    smi = hg.image_memory("sdxl")  # the default: what nvidia-smi shows
    # the CUDA context of a PyTorch process: 426 MiB (data/engines.csv, transformers row)
    assert smi.per_gpu_bytes - reserved.per_gpu_bytes == 426 * 2**20
    frac = image.image_engines().set_index("engine").loc["diffusers", "reserve_frac"]
    act = allocated.per_gpu["activations"]
    assert reserved.per_gpu_bytes - allocated.per_gpu_bytes == pytest.approx(frac * act, abs=1)
    assert set(allocated.per_gpu) == {"text encoders", "denoiser", "VAE", "activations"}
    with pytest.raises(ValueError, match="reading"):
        hg.image_memory("sdxl", reading="torch")


def test_every_measured_peak_says_what_it_read():
    rows = imagefit.image_rows()
    peaks = rows[rows["peak_vram_gb"].notna()]
    assert set(peaks["reading"]) <= {"allocated", "reserved", "nvidia-smi"} and peaks["reading"].notna().all()
    # Lambda's benchmark reads torch.cuda.memory_reserved(); Visionatrix and OneDiff max_memory_allocated()
    assert set(peaks.loc[peaks["id"].str.startswith("lambda-"), "reading"]) == {"reserved"}
    assert set(peaks.loc[peaks["id"].str.startswith(("vix-", "onediff-")), "reading"]) == {"allocated"}


def test_weights_rule_of_thumb_by_hand():
    rules = imagefit.simple_rules(imagefit.image_rows()).set_index(["id", "kind"])
    # OneDiff's SDXL baseline on an RTX 3090: 10.47 GiB measured; SDXL's fp16 weights are the UNet's
    # 2,567,463,684 parameters, the text encoders' 123,060,480 + 694,659,840 and the VAE's 83,653,863, 2 bytes each
    weights = 2 * (2_567_463_684 + 123_060_480 + 694_659_840 + 83_653_863)
    assert sum(hg.image_weights_bytes("sdxl", weights="fp16").values()) == pytest.approx(weights, abs=8)
    error = rules.loc[("onediff-sdxl-rtx3090-pytorch", "peak memory"), "error"]
    assert error == pytest.approx(1.2 * weights / 2**30 / 10.47 - 1, abs=1e-6)


def test_denoiser_width_from_the_configs_by_hand():
    # UNets: block_out_channels[0] = 320 per latent pixel of 8 × 8 image pixels (VAE: 4 levels, 2 ** 3)
    assert image.channels_per_pixel("sd1.5") == 320 / 64 == image.channels_per_pixel("sdxl")
    # transformers: heads × head_dim per token of (8 × 2)² pixels: SD 3.5 patch_size 2; FLUX packs 2 × 2 latents
    # (in_channels 64 = 4 × 16 latent channels) and has patch_size 1
    assert image.channels_per_pixel("sd3.5 large") == 38 * 64 / 256
    assert image.channels_per_pixel("sd3.5 medium") == 24 * 64 / 256
    assert image.channels_per_pixel("flux dev") == 24 * 128 / 256


def test_vae_slicing_decodes_one_image_at_a_time():
    whole = hg.image_memory("sd1.5", batch=16, reading="allocated")
    sliced = hg.image_memory("sd1.5", batch=16, reading="allocated", vae_slicing=True)
    fac = image.image_engines().set_index("engine").loc["diffusers"]
    vae_whole = fac["vae_bytes_per_px"] * 512 * 512 * 16
    denoiser = fac["act_bytes_per_channel"] * 5 * 512 * 512 * 16 * 2  # 5 channels per pixel, 2 CFG passes
    assert whole.per_gpu["activations"] == int(max(vae_whole, denoiser))
    assert sliced.per_gpu["activations"] == int(max(vae_whole / 16, denoiser))
    with pytest.raises(ValueError, match="vae_slicing"):
        hg.image_memory("sd1.5", vae_slicing="yes")


def test_flux_flops_agree_with_an_outside_count():
    # vipshop/cache-dit bench/README.md: FLUX.1-dev, 50 steps at 1024 x 1024 (bench.py defaults), 3726.87 TFLOPs
    # counted by calflops: 74.54 TFLOP per step; the kit counts 74.38 from the config (guidance-distilled: one pass)
    per_step = hg.image_flops("flux dev", width=1024, height=1024)["denoiser_pass"]
    assert per_step == pytest.approx(3726.87e12 / 50, rel=0.01)
