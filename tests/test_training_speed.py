"""The training speed model's terms, computed by hand: causal attention, recomputation, the pipeline
bubble, tensor- and data-parallel traffic, LoRA/QLoRA and the scaling curve of GPU-hours."""

import pytest

import hwguide as hg
from hwguide.speed import ADAM_STEP_BYTES, NF4_DEQUANT_BYTES, training_cost, training_token_seconds

# Llama 2 7B: 32 layers, 32 heads of 128, hidden 4096, vocabulary 32,000 (its config.json)
L, H, D, HIDDEN, VOCAB = 32, 32, 128, 4096, 32000


def _cost(model="Llama-2-7B", card="H100 SXM", precision="bf16", context=4096, recompute="none", **kw):
    return training_cost(hg.model(model), hg.gpu(card), precision, context, recompute, **kw)


def test_model_flops_keep_palm_full_attention_while_the_work_is_causal():
    m = hg.model("Llama-2-7B")
    n = hg.param_count(m) - VOCAB * HIDDEN  # non-embedding parameters
    cost = _cost()
    # MFU's convention (PaLM Appendix B): 6N + 12 L h d T
    assert cost["flops"] == pytest.approx(6 * n + 12 * L * H * D * 4096)
    # the work: each token attends to T/2 earlier ones, 2 L h d T forward; backward 2.5 × forward (FlashAttention-2)
    assert cost["attention_flops"] == pytest.approx(3.5 * 2 * L * H * D * 4096)
    assert cost["hardware_flops"] == pytest.approx(6 * n)
    # at 128k tokens full attention is 84% of the model FLOPs; the causal work is less than half of that
    long = _cost(context=131072)
    full = 12 * L * H * D * 131072
    assert full / long["flops"] == pytest.approx(0.84, abs=0.01)
    assert long["attention_flops"] / full == pytest.approx(3.5 / 6)


def test_recomputation_reruns_the_forward_or_only_the_attention_core():
    n = hg.param_count(hg.model("Llama-2-7B")) - VOCAB * HIDDEN
    forward_attention = 2 * L * H * D * 4096
    full, selective = _cost(recompute="full"), _cost(recompute="selective")
    assert full["hardware_flops"] == pytest.approx(8 * n)  # 6N + 2N again
    assert full["attention_flops"] == pytest.approx(4.5 * forward_attention)
    assert selective["hardware_flops"] == pytest.approx(6 * n)  # the matrix multiplies are kept
    assert selective["attention_flops"] == pytest.approx(4.5 * forward_attention)
    assert full["flops"] == _cost()["flops"]  # model FLOPs do not count recomputation


def test_pipeline_bubble_of_a_layout():
    # GPipe/1F1B: the step takes (m + p − 1) micro-batch times instead of m; the bubble is (p − 1)/(m + p − 1)
    cost = _cost("Llama-2-70B", tp=8, pp=4, gpus=32, micro_batches=8)
    assert cost["bubble"] == pytest.approx(11 / 8)
    assert 1 - 1 / cost["bubble"] == pytest.approx(3 / 11)
    assert _cost("Llama-2-70B", tp=8, pp=4, gpus=32, micro_batches=8, interleave=2)["bubble"] == pytest.approx(
        1 + 3 / 16
    )
    assert _cost("Llama-2-70B", tp=4, pp=8, gpus=32, micro_batches=8)["bubble"] == pytest.approx(15 / 8)


def test_tensor_and_data_parallel_traffic_over_the_links():
    # Llama 2 70B (80 layers, hidden 8192), TP 8 over NVLink 4 (450 GB/s per direction): four ring
    # all-reduces of the hidden state per layer and token, 2(t − 1)/t of 2 bytes each
    cost = _cost("Llama-2-70B", tp=8, gpus=8)
    assert cost["tp_comm_s"] == pytest.approx(80 * 4 * 8192 * 2 * 2 * 7 / 8 / 450e9)
    # 16 GPUs = two servers: the gradients' all-reduce crosses InfiniBand NDR (50 GB/s per GPU)
    total = hg.param_count(hg.model("Llama-2-7B"))
    dp = _cost(gpus=16, micro_batches=4)
    assert dp["dp_comm_s"] == pytest.approx(2 * 15 / 16 * 2 * total / 50e9)
    assert dp["overlap_share"] == pytest.approx(2 / (3 * 4))  # the last micro-batch's backward
    # ZeRO-3 gathers the weights twice and reduce-scatters the gradients in every micro-batch
    fsdp = _cost(gpus=16, micro_batches=4, zero=3)
    assert fsdp["dp_comm_s"] == pytest.approx(3 * 4 * 15 / 16 * 2 * total / 50e9)
    assert fsdp["optimizer_bytes"] == pytest.approx(ADAM_STEP_BYTES * total / 16)


def test_lora_and_qlora_train_a_frozen_base():
    m = hg.model("Llama-3.1-8B")
    n = hg.param_count(m) - m.vocab_size * m.hidden_size
    adapter = hg.lora_params(m, rank=16, targets="all-linear")
    lora = _cost("Llama-3.1-8B", method="lora", micro_batches=2)
    assert lora["hardware_flops"] == pytest.approx(4 * n + 6 * adapter)  # no weight gradients for the base
    assert lora["optimizer_bytes"] == pytest.approx(ADAM_STEP_BYTES * adapter)  # only the adapter steps
    qlora = _cost("Llama-3.1-8B", method="qlora", micro_batches=2, recompute="full")
    # 4-bit weights read and bf16 written in the forward, the backward and the recomputed forward
    assert qlora["dequant_bytes"] == pytest.approx(NF4_DEQUANT_BYTES * n * 3 * 2)
    full = hg.training_tokens_per_s("Llama-3.1-8B", "A100 SXM4 80GB", method="full")
    assert hg.training_tokens_per_s("Llama-3.1-8B", "A100 SXM4 80GB", method="lora") > full
    assert hg.training_tokens_per_s("Llama-3.1-8B", "RTX 4090", method="qlora", batch=2, micro_batches=1) < (
        hg.training_tokens_per_s("Llama-3.1-8B", "RTX 4090", method="lora", batch=2, micro_batches=1)
    )


def test_a_step_by_hand():
    factors = {"train_util": 0.5, "train_attn_util": 0.25, "train_moe_eff": 1.0, "train_act_bytes": 0.0,
               "train_comm_exposed": 0.1, "train_layer_us": 100.0}  # fmt: skip
    cost = {"hardware_flops": 1e9, "expert_flops": 0.0, "attention_flops": 1e9, "peak": 1e12, "peak16": 1e12,
            "bandwidth": 1e12, "traffic": 0.0, "shards": 2.0, "pp_cp": 2.0, "bubble": 1.5, "step_tokens": 1000.0,
            "tp_comm_s": 0.0, "ep_comm_s": 0.0, "dp_comm_s": 3.0, "overlap_share": 0.5, "optimizer_bytes": 1e11,
            "dequant_bytes": 0.0, "step_layers": 1000.0}  # fmt: skip
    # compute per token 1e9/(1e12 × 0.5) + 1e9/(1e12 × 0.25) = 6 ms; a replica's step 1000 × 6 ms / 2 × 1.5 = 4.5 s
    # data-parallel traffic 3 s against a 2.25 s window: 0.75 s shows, plus 10% of 2.25 s;
    # optimizer 1e11 B / 1e12 B/s = 0.1 s; launches 1000 × 100 µs = 0.1 s
    step = 4.5 + 0.75 + 0.225 + 0.1 + 0.1
    assert float(training_token_seconds(cost, factors)) == pytest.approx(step * 2 / 1000)


def test_gpu_hours_grow_with_the_gpus_as_each_ones_share_of_a_step_shrinks():
    kw = dict(tokens=2e12, context=4096)
    hours = [hg.training_time("Llama-2-7B", "A100 SXM4 80GB", gpus=n, **kw).gpu_hours for n in (8, 64, 512, 2048)]
    assert hours == sorted(hours)
    assert hours[-1] > 1.1 * hours[0]  # 4M-token steps over 2,048 GPUs: 2 sequences each
    one_server = hg.training_time("Llama-2-7B", "A100 SXM4 80GB", gpus=8, **kw)
    alone = hg.training_time("Llama-2-7B", "A100 SXM4 80GB", gpus=1, **kw)
    assert one_server.gpu_hours == pytest.approx(alone.gpu_hours, rel=0.02)  # NVLink hides the all-reduce
    layout = hg.training_time("Llama-2-7B", "A100 SXM4 80GB", gpus=2048, **kw).assumptions[2]
    assert "2048 GPUs = 2048 data-parallel" in str(layout)
    # a pipeline with few micro-batches wastes the bubble
    deep = hg.training_tokens_per_s("Llama-2-70B", "H100 SXM", gpus=32, tp=8, pp=4, global_batch=4, context=4096)
    wide = hg.training_tokens_per_s("Llama-2-70B", "H100 SXM", gpus=32, tp=8, pp=4, global_batch=64, context=4096)
    assert wide / deep == pytest.approx((1 + 3 / 4) / (1 + 3 / 64), rel=0.1)


def test_bad_layouts_name_the_argument():
    with pytest.raises(ValueError, match="tp × pp × cp"):
        hg.training_tokens_per_s("Llama-2-7B", "H100 SXM", gpus=12, tp=8)
    with pytest.raises(ValueError, match="micro_batches or global_batch"):
        hg.training_tokens_per_s("Llama-2-7B", "H100 SXM", micro_batches=4, global_batch=64)
    with pytest.raises(ValueError, match="method"):
        hg.training_tokens_per_s("Llama-2-7B", "H100 SXM", method="dora")


def test_a_gb200_rack_keeps_its_traffic_on_nvlink():
    # 64 GB200 in one NVL72 rack (interconnects.csv domain_gpus 72): the gradients' ring runs at 900 GB/s,
    # not over InfiniBand's 50 GB/s as 64 H100s in eight servers do
    total = hg.param_count(hg.model("Llama-2-7B"))
    rack = _cost(card="GB200", gpus=64, micro_batches=1)
    assert rack["dp_comm_s"] == pytest.approx(2 * 63 / 64 * 2 * total / 900e9)
    servers = _cost(gpus=64, micro_batches=1)
    assert servers["dp_comm_s"] == pytest.approx(2 * 63 / 64 * 2 * total / 50e9)
    # pipeline stages are the outermost split: 64 GPUs at PP 8 keep each stage's 8 replicas in one server
    staged = _cost(gpus=64, pp=8, micro_batches=8)
    assert staged["dp_comm_s"] == pytest.approx(2 * 7 / 8 * 2 * total / 8 / 450e9)


def test_lora_training_time_counts_the_frozen_base_at_four_flops():
    m = hg.model("Llama-3.1-8B")
    n = hg.param_count(m) - m.vocab_size * m.hidden_size
    adapter = hg.lora_params(m, rank=16, targets="all-linear")
    run = hg.training_time("Llama-3.1-8B", "A100 SXM4 80GB", tokens=1e9, method="lora", global_batch=16)
    attention = 12 * 32 * 32 * 128 * 2048  # PaLM's full-attention count at 2,048 tokens
    assert run.flops == pytest.approx((4 * n + 6 * adapter + attention) * 1e9)
    full = hg.training_time("Llama-3.1-8B", "A100 SXM4 80GB", tokens=1e9, global_batch=16)
    assert run.gpu_hours < full.gpu_hours
    assert "lora" in str(run.assumptions[0])
