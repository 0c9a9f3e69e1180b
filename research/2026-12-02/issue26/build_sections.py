"""Insert the issue-26 sections into notebooks 04 and 06 (English and Chinese), just before their
Summary / 小结 cell. Idempotent: cells with these ids are replaced, not duplicated.

    python research/2026-12-02/issue26/build_sections.py
    python tools/run_notebooks.py notebooks/04_training_memory.ipynb ...   # then re-run the four notebooks
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

TE = "https://github.com/NVIDIA/TransformerEngine/blob/d0067d0da6cb01811b8072a7d304f0e00344ce2b/docs/features/low_precision_training"
TE_INTRO = f"{TE}/introduction/introduction.rst"
TE_MEMORY = f"{TE}/performance_considerations/performance_considerations.rst"
TE_SPEED = f"{TE}/speedups.rst"
TE_README = "https://github.com/NVIDIA/TransformerEngine/blob/d0067d0da6cb01811b8072a7d304f0e00344ce2b/README.rst"
TORCHAO = "https://github.com/pytorch/ao/blob/36027d82d1ad9949597ea16002ff4940374b1b94/docs/source/workflows/training.md"
TORCHAO_BLOG = "https://pytorch.org/blog/training-using-float8-fsdp2/"
ADA = "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf"
DSV3 = "https://arxiv.org/html/2412.19437v2"
DSV3_README = "https://github.com/deepseek-ai/DeepSeek-V3/blob/9b4e9788e4a3a731f7567338ed15d3ec549ce03b/README.md"
NVFP4 = "https://arxiv.org/html/2509.25149v1"
MIG_GPUS = "https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-gpus.html"
MIG_PARTED = "https://github.com/NVIDIA/mig-parted/blob/bd7160f43f16462eeb21e1eda5e67b5b6b03fd7d/deployments/systemd/config-default.yaml"
K8S = "https://github.com/NVIDIA/k8s-device-plugin/blob/1b826acc6af3079d8923bac395c3124b8861a9a6/README.md"
VGPU = "https://docs.nvidia.com/ai-enterprise/release-8/latest/infra-software/vgpu/reference/blackwell.html"
GBT1002 = "https://www.guifanku.com/qitaguifan/735387.html"
NEC = ("https://www.productinfo.schneider-electric.com/na-std-ref/5c0fee4b347bdf0001de4d55/Conductor%20Ampacity%20Tables/"
       "English/Data%20Bulletin%20-%20Conductor%20Ampacity%20Tables%20(bookmap)_0000264293.ditamap/$/"
       "NECInformationOfNote-F20BDBCC")
GB50054 = "http://www.jianbiaoku.com/webarbs/book/169.shtml"
DGX = "https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html"
SPIKE = "https://www.tweaktown.com/news/85717/pcie-5-0-gpus-can-have-power-excursions-use-up-to-1800w-of/index.html"

# ---------------------------------------------------------------------------------------------------
# 04 · FP8 and FP4 training
# ---------------------------------------------------------------------------------------------------

FP8_CODE = '''# NBVAL_CHECK_OUTPUT
# Bytes per parameter of the model states (everything but the activations), by hand
recipes = {
    "{r1}": 2 + 2 + 4 + 4 + 4,  # {c1}
    "{r2}": 2 + 1 + 2 + 4 + 4 + 4,  # {c2}
    "{r3}": 4 + 4 + 2 + 2,  # {c3}
}
# {c4}
n = hg.param_count("Llama-3.1-8B")
train = hg.training_memory("Llama-3.1-8B", precision="bf16-mixed")
states = sum(train.per_gpu[part] for part in ("weights", "gradients", "master_weights", "optimizer_states"))
print(f"{p1}")
for recipe, per_parameter in recipes.items():
    print(f"{p2}")
# {c5}
peak = {{"bf16": 47.65, "float8 tensorwise": 47.77}}
change = peak["float8 tensorwise"] / peak["bf16"] - 1
print(f"{p3}")'''

FP8_EN = dict(
    r1="BF16 mixed precision", c1="bf16 weight and gradient, fp32 master weight, two fp32 AdamW moments",
    r2="FP8, Transformer Engine default", c2="the same plus an FP8 copy of each weight for the GEMMs",
    r3="DeepSeek-V3, the parts it names", c3="fp32 master weight and gradient, two bf16 AdamW moments (report §3.3)",
    c4="The kit: BF16 mixed-precision training of Llama-3.1-8B",
    p1="kit, BF16 mixed precision: {states / n:.1f} bytes per parameter, {states / 2**30:.1f} GiB for "
       "{n / 1e9:.2f}B parameters",
    p2="{recipe}: {per_parameter} bytes per parameter, {per_parameter * n / 2**30:.1f} GiB",
    c5="Measured: torchao's float8 table, Llama3-8B on 8 × H100, peak memory per GPU (GB, as printed there)",
    p3="torchao, peak memory: {peak['bf16']} GB in bf16, {peak['float8 tensorwise']} GB in float8 ({change:+.1%})",
)
FP8_ZH = dict(
    r1="BF16 混合精度", c1="bf16 权重和梯度、fp32 主权重、AdamW 的两个 fp32 矩",
    r2="FP8，NVIDIA Transformer 引擎默认方案", c2="同上，再加每个权重一份给 GEMM 用的 FP8 副本",
    r3="DeepSeek-V3（报告列出的部分）", c3="fp32 主权重和梯度、AdamW 的两个 bf16 矩（报告 §3.3）",
    c4="工具包：Llama-3.1-8B 的 BF16 混合精度训练",
    p1="工具包，BF16 混合精度：每参数 {states / n:.1f} 字节，{n / 1e9:.2f}B 个参数共 {states / 2**30:.1f} GiB",
    p2="{recipe}：每参数 {per_parameter} 字节，{per_parameter * n / 2**30:.1f} GiB",
    c5="实测：torchao（PyTorch 官方 FP8 训练库）的 float8 表，8 × H100 训练 Llama3-8B，每卡峰值显存（GB，照原表）",
    p3="PyTorch 官方 FP8 训练库实测峰值显存：bf16 为 {peak['bf16']} GB，fp8 为 {peak['float8 tensorwise']} GB（{change:+.1%}）",
)

FP8_MD1_EN = f"""## 6 · FP8 and FP4 training

FP8 training runs the big matrix multiplications (the GEMMs of the linear layers) in 8-bit floating point; it
does not store the model in 8 bits. There are two FP8 formats: E4M3 (values up to ±448) and E5M2 (up to
±57344). NVIDIA's Transformer Engine (TE) uses E4M3 in the forward pass and E5M2 for the gradients by
default, and keeps attention, normalisation and softmax in higher precision ([TE docs]({TE_INTRO})). Each
tensor or block of values carries a scale: one FP32 scale per tensor; one per 128 values in the block recipe
modelled on DeepSeek-V3; one power of two per 32 values in MXFP8; and in NVFP4, 4-bit values (E2M1, up to ±6)
with an FP8 scale per 16 values and an FP32 scale per tensor.

Which GPUs can train in which format ([TE README]({TE_README}) and docs):

- **FP8 with one scale per tensor:** Ada (RTX 4090, L40S), Hopper and Blackwell. Ampere (A100, RTX 3090) has no FP8.
- **FP8 with block scales:** Hopper only, and there the block-scaled GEMMs are emulated in software.
- **MXFP8 and NVFP4 training:** data-centre Blackwell only (B200, GB200, B300, GB300); the RTX 5090 and RTX PRO 6000 are not on the list.
- **GeForce Ada** runs FP8 at half speed when it accumulates in FP32, as training does: 330 TFLOPS dense on an RTX 4090, not the 660 of FP16 accumulation ([Ada whitepaper]({ADA}), read through quotations: a secondary source).

**What it saves, and what it does not.** TE's docs warn: "Contrary to intuition, FP8 training does not always
reduce memory compared to BF16/FP16" ([TE, memory usage]({TE_MEMORY})). In the standard recipes the master
weights and the AdamW moments stay FP32, and TE keeps each weight in BF16 and *adds* an FP8 copy for the
GEMMs. In TE's worked example of one layer, the forward pass holds 6 MB in BF16 and 6 MB in FP8: only the input
saved for the backward pass shrinks. Count the model states per parameter by hand, and check the BF16 figure
with the kit:"""

FP8_MD1_ZH = f"""## 6 · FP8 与 FP4 训练

FP8 训练是把线性层里的大矩阵乘法（GEMM）放到 8 位浮点数上算，并不是把整个模型存成 8 位。FP8 有两种格式：E4M3（最大 ±448）和 E5M2（最大 ±57344）。NVIDIA 的 Transformer Engine（TE）默认前向用 E4M3、梯度用 E5M2，注意力、归一化和 softmax 仍用较高精度（[TE 文档]({TE_INTRO})）。每个张量或数值块都带缩放因子：按张量缩放是每个张量一个 FP32 因子；仿照 DeepSeek-V3 的分块方案是每 128 个值一个；MXFP8 是每 32 个值一个 2 的幂；NVFP4 的数值只有 4 位（E2M1，最大 ±6），每 16 个值配一个 FP8 因子，每个张量再配一个 FP32 因子。

哪些卡能用哪种格式训练（[TE 说明]({TE_README})及文档）：

- **按张量缩放的 FP8**：Ada（RTX 4090、L40S）、Hopper 和 Blackwell。Ampere（A100、RTX 3090）没有 FP8。
- **分块缩放的 FP8**：只有 Hopper，而且分块的 GEMM 是软件模拟的。
- **MXFP8 和 NVFP4 训练**：只有数据中心的 Blackwell（B200、GB200、B300、GB300），RTX 5090 和 RTX PRO 6000 不在列。
- **GeForce 的 Ada 卡**用 FP32 累加（训练正是如此）时 FP8 算力减半：RTX 4090 稠密 330 TFLOPS，而不是 FP16 累加时的 660（[Ada 白皮书]({ADA})，经引文转读，属二手来源）。

**省了什么，没省什么。** TE 文档自己就提醒：“与直觉相反，FP8 训练并不总比 BF16/FP16 省显存。”（[TE 文档：显存占用]({TE_MEMORY})）标准做法里，主权重和 AdamW 的两个矩仍是 FP32；TE 还保留每个权重的 BF16 版本，再**另做**一份 FP8 副本给 GEMM 用。TE 算过单层的例子：前向在 BF16 下占 6 MB，在 FP8 下也是 6 MB，变小的只有留给反向传播的输入。下面手算每参数的模型状态字节数，再用工具包核对 BF16 的数字："""

FP8_MD2_EN = f"""The kit's 16 bytes per parameter is the BF16 recipe. TE's FP8 recipe adds a byte. DeepSeek-V3 saved on the
optimizer by keeping its AdamW moments in BF16, not by FP8, and it kept its gradients in FP32. The activations
shrink only in part, and torchao's measurement shows the net effect: a peak of 47.65 GB in BF16 and 47.77 GB in
float8 ([torchao docs]({TORCHAO})). What FP8 buys is speed, and less of it than "2×":

- **Whole training steps.** torchao, Llama3-8B on 8 GPUs: 25% more tokens per second with float8 tensorwise on H100 and 10% with rowwise; on B200, 25% with tensorwise and 20% with MXFP8. At 405B parameters on 512 GPUs torchao reports up to 50% more ([PyTorch blog]({TORCHAO_BLOG}), as the torchao docs quote it).
- **One layer's GEMMs only.** TE measures FP8 41–69% faster than BF16 on an H200 NVL, and NVFP4 about 2× on a B300 ([TE speed-ups]({TE_SPEED})). TE itself calls the theoretical 2× "an upper bound".

**DeepSeek-V3** is the best-known FP8 run at scale ([technical report, §3.3]({DSV3}), read through a verbatim
copy). All GEMMs ran in FP8 (E4M3 everywhere), with a scale per 1×128 tile of activations and per 128×128 block
of weights; the embedding, output head, MoE gating, normalisation and attention stayed in BF16 or FP32; and the
relative loss error against a BF16 baseline stayed below a quarter of a percent. The whole training took under
3 million H800 GPU-hours ([DeepSeek-V3 README]({DSV3_README})).

**FP4.** NVIDIA pretrained a 12B model on 10 trillion tokens in NVFP4 and nearly matched FP8's accuracy
([NVIDIA's NVFP4 paper]({NVFP4}), abstract only), with Hadamard transforms, stochastic rounding and some layers
kept in BF16. It needs B200/B300-class GPUs: for a student buying one card, FP4 is an inference feature, not a
training one."""

FP8_MD2_ZH = f"""工具包给出的每参数 16 字节就是 BF16 方案。TE 的 FP8 方案反而多 1 字节。DeepSeek-V3 省的是优化器状态（AdamW 的两个矩改存 BF16），不是靠 FP8，梯度仍是 FP32。激活值只缩小一部分，torchao 的实测结果是：峰值显存 BF16 为 47.65 GB，float8 为 47.77 GB（[torchao 文档]({TORCHAO})）。FP8 换来的是速度，而且远不到“快 2 倍”：

- **整步训练**：torchao 在 8 张 GPU 上训练 Llama3-8B，H100 上 float8 按张量缩放每秒 token 数多 25%，按行缩放多 10%；B200 上按张量缩放多 25%，MXFP8 多 20%。torchao 报告在 512 张 GPU 上训练 405B 模型时最多快 50%（[PyTorch 博客]({TORCHAO_BLOG})，据 torchao 文档转引）。
- **只算单层的 GEMM**：TE 测得 H200 NVL 上 FP8 比 BF16 快 41%～69%，B300 上 NVFP4 约快 2 倍（[TE 加速实测]({TE_SPEED})）。TE 自己也说，理论上的 2 倍只是“上限”。

**DeepSeek-V3** 是最有名的大规模 FP8 训练（[技术报告 §3.3]({DSV3})，经逐字转载的副本阅读）。所有 GEMM 都用 FP8（一律 E4M3），激活值每 1×128 一个缩放因子，权重每 128×128 一块一个；词嵌入、输出头、MoE 门控、归一化和注意力保留 BF16 或 FP32；与 BF16 基线相比，损失的相对误差始终低于千分之二点五。整个训练用了不到 300 万 H800 卡时（[DeepSeek-V3 说明]({DSV3_README})）。

**FP4**：NVIDIA 用 NVFP4 在 10 万亿 token 上预训练了一个 12B 模型，准确率几乎追平 FP8（[NVIDIA 的 NVFP4 论文]({NVFP4})，只读了摘要），靠的是 Hadamard 变换、随机舍入，并让部分层保留 BF16。它要 B200/B300 一级的卡。对只买一张卡的学生来说，FP4 是推理功能，不是训练功能。"""

# ---------------------------------------------------------------------------------------------------
# 06 · Sharing GPUs in a teaching lab
# ---------------------------------------------------------------------------------------------------

MIG_CARDS = '["A30", "A100 PCIe 40GB", "A100 SXM4 80GB", "H100 SXM", "H20", "H200 SXM", "B200", "RTX PRO 6000 Blackwell"]'
MIG_CODE1 = f'''# NBVAL_CHECK_OUTPUT
listing = []
for card in {MIG_CARDS}:
    profiles = hg.mig_profiles(card)
    shown = "{{sep}}".join(f"{{p}} ×{{n}}" for p, n in zip(profiles["profile"], profiles["max_instances"]))
    listing.append({{"gpu": card, "mig_profiles": shown}})
try:
    hg.mig_profiles("RTX 4090")
except ValueError as error:
    print(error)
pd.DataFrame(listing)'''

MIG_CODE2 = '''# NBVAL_CHECK_OUTPUT
import math

need = hg.inference_memory("Llama-3.1-8B", weights="Q4_K_M", context=4096, engine="llama.cpp")
students = 30
print(f"{p1}")
rows = []
for card in ["A30", "A100 PCIe 40GB", "A100 SXM4 80GB", "H100 SXM", "H200 SXM", "B200", "RTX PRO 6000 Blackwell"]:
    profiles = hg.mig_profiles(card)
    profiles["slice_gib"] = profiles["memory_gb"] * 1e9 / 2**30  # {c1}
    holds = profiles[profiles["slice_gib"] * (1 - 0.1) >= need.per_gpu_gib]  # {c2}
    best = holds.sort_values(["memory_gb", "max_instances"], ascending=[True, False]).iloc[0]
    rows.append({{"gpu": card, "profile": best["profile"], "slice_gib": best["slice_gib"],
                 "students_per_gpu": best["max_instances"],
                 "gpus_for_class": math.ceil(students / best["max_instances"])}})
pd.DataFrame(rows).round(2)'''

MIG2_EN = dict(
    p1="Llama-3.1-8B, Q4_K_M, 4,096 tokens: {need.per_gpu_gib:.2f} GiB per student; {students} copies on one GPU "
       "without MIG: {students * need.per_gpu_gib:.0f} GiB",
    c1="the GB of the profile's name, in GiB",
    c2="the smallest slices that hold the demo with 10% headroom",
)
MIG2_ZH = dict(
    p1="Llama-3.1-8B，Q4_K_M，4,096 个 token：每个学生 {need.per_gpu_gib:.2f} GiB；不用 MIG、一张卡跑 {students} 份："
       "{students * need.per_gpu_gib:.0f} GiB",
    c1="规格名里的 GB 换算成 GiB",
    c2="留 10% 余量后装得下演示的切片",
)

MIG_MD1_EN = f"""## 3 · Sharing GPUs in a teaching lab

A class of 30 does not need 30 GPUs. The kit's own exercises run on a CPU; a GPU matters only when every
student should run a model live, and then one data-centre GPU can be shared. There are three ways to do it.

**MIG (Multi-Instance GPU)** cuts one GPU into up to seven slices, each with its own memory, cache and compute,
isolated in hardware: one student's crash or out-of-memory error stays inside that slice. A profile's name
gives its size: `1g.10gb` is one compute slice and about 10 GB of memory. MIG runs only on the cards in
NVIDIA's list ([MIG supported GPUs]({MIG_GPUS})): A30, A100, H100, H20, H200, B200 and the RTX PRO 6000 and
5000 Blackwell, but no GeForce card and no L20 or L40S. `hg.mig_profiles(card)` lists a card's profiles and
how many of each fit on one GPU (`data/mig_profiles.csv`, from NVIDIA's MIG user guide and its
[mig-parted]({MIG_PARTED}) tool; the H20's counts are inferred from the group mig-parted puts it in):"""

MIG_MD1_ZH = f"""## 3 · 教学机房里共享 GPU

一个 30 人的班级用不着 30 张 GPU。本课程的练习都能在 CPU 上跑；只有当每个学生都要现场跑模型时才需要 GPU，而这时一张数据中心 GPU 可以分给多人用。共享有三种办法。

**MIG（多实例 GPU）** 把一张卡切成最多七个切片，每片有独立的显存、缓存和算力，由硬件隔离：某个学生的程序崩溃或显存溢出，只影响他自己那一片。规格名就写明了大小：`1g.10gb` 表示一份算力切片、约 10 GB 显存。只有 NVIDIA 列表里的卡支持 MIG（[MIG 支持的 GPU]({MIG_GPUS})）：A30、A100、H100、H20、H200、B200，以及 RTX PRO 6000 和 5000 Blackwell；GeForce 消费卡一张都没有，L20、L40S 也没有。`hg.mig_profiles(card)` 列出一张卡的各种规格，以及每种规格一张卡上最多切几份（`data/mig_profiles.csv`，出自 NVIDIA 的 MIG 用户指南和它的 [mig-parted]({MIG_PARTED}) 工具；H20 的份数是按 mig-parted 把它归入的那一组推断的）："""

MIG_MD2_EN = """How big a slice does a live demo need? Take Llama-3.1-8B in 4-bit (Q4_K_M, run with llama.cpp) and 4,096
tokens of context for each student. A profile's "GB" is 10^9 bytes while the kit counts GiB (2^30 bytes), so
convert before comparing, and keep the kit's usual 10% headroom, since CUDA sees a little less memory than the
name says:"""

MIG_MD2_ZH = """现场演示需要多大的切片？以每个学生跑一份 4 位量化的 Llama-3.1-8B（Q4_K_M，用 llama.cpp）、上下文 4,096 个 token 为例。规格名里的“GB”是 10^9 字节，工具包用的是 GiB（2^30 字节），比较之前要先换算；再照工具包的惯例留 10% 余量，因为 CUDA 实际能用的显存比规格名上的略少："""

MIG_MD3_EN = f"""The smallest slice that holds the demo decides. On an 80 GB A100 or H100, and on an H200 or B200, seven
students share one GPU, so five GPUs serve the class of 30. The A30's and the 40 GB A100's smallest slices are
too small once headroom is kept, so they serve only two or four students each, and the RTX PRO 6000 cuts into four
slices at most. Try the actual model and context on one slice before buying.

The two other ways share a whole GPU without isolating its memory:

- **Time-slicing** (NVIDIA's Kubernetes device plugin, or simply several processes on one card) takes turns. The plugin's README is plain: "nothing special is done to isolate workloads", each one "has access to the GPU memory" and runs in the same fault domain, "meaning if one workload crashes, they all do" ([k8s-device-plugin]({K8S})). Thirty copies of the demo would need the memory printed above, more than any one card holds.
- **MPS** lets processes share a GPU with a limit on each one's memory and compute. The same plugin gives each client an equal share of the memory, still calls its MPS support experimental, and cannot combine it with MIG.

MIG and time-slicing on a Linux server cost nothing extra. Splitting a GPU between *virtual machines* (vGPU)
needs a paid NVIDIA AI Enterprise licence ([vGPU types]({VGPU})). Buy for the demo you actually plan to run:
the course's exercises need no GPU at all."""

MIG_MD3_ZH = f"""起决定作用的是装得下演示的最小切片。80 GB 的 A100 或 H100，以及 H200、B200，一张卡可供七个学生同时使用，五张卡就够 30 人的班级。A30 和 40 GB A100 的最小切片在留出余量后装不下，每张卡只能分给两个或四个学生；RTX PRO 6000 最多只能切四份。买卡之前，先在一个切片上实际跑一遍要演示的模型和上下文长度。

另外两种办法共享整张卡，但显存不隔离：

- **时间片轮转**（NVIDIA 的 Kubernetes 设备插件，或者干脆在一张卡上开多个进程）让各人轮流使用。插件的说明写得很直白：共享同一张卡的任务之间不做任何隔离，每个任务都能访问整块显存，而且处在同一个故障域里，一个任务崩溃，所有任务都跟着崩溃（[k8s-device-plugin 说明]({K8S})）。30 份演示需要的显存见上面的输出，没有哪张单卡装得下。
- **MPS** 让多个进程共享一张卡，并限制每个进程的显存和算力。该插件给每个客户端平分显存，但仍把 MPS 支持标为实验性功能，而且不能与 MIG 同时使用。

在 Linux 服务器上用 MIG 或时间片都不另收费。要把一张卡分给多台**虚拟机**（vGPU），就需要购买 NVIDIA AI Enterprise 许可（[vGPU 类型]({VGPU})）。按真正打算做的演示来买卡即可：本课程的练习根本不需要 GPU。"""

# ---------------------------------------------------------------------------------------------------
# 06 · Power, cooling and circuits
# ---------------------------------------------------------------------------------------------------

POWER_CODE = '''# NBVAL_CHECK_OUTPUT
volts = 220  # {c1}
derate = 0.8  # NEC 210.20(A): {c2}
btu_per_w = 3.412142  # {c3}
for amps in (10, 16):
    print(f"{p1}")
circuit = derate * volts * 16
for card, count in (("RTX 4090", 4), ("RTX PRO 6000 Blackwell", 4), ("H100 SXM", 8)):
    build = hg.build_system(card, count)
    watts = build["power_w"]
    print(f"{p2}")
dgx_btu = 38557  # {c4}
print(f"{p3}")'''

POWER_EN = dict(
    c1="nominal mains voltage assumed here",
    c2="breaker >= 125% of a continuous load, so the load <= 80% of the breaker",
    c3="1 BTU/h = 0.2930711 W: NIST SP 811's 1 Btu_IT = 1,055.056 J, per 3,600 s",
    p1="{amps} A circuit: {volts * amps:,} W; {derate * volts * amps:,.0f} W for a load that runs for hours",
    p2="{count} × {card}: {watts:,.0f} W ({build['psu_w']:,.0f} W power supply), {watts / volts:.1f} A, "
       "{watts / circuit:.1f} derated 16 A circuits, {watts * btu_per_w:,.0f} BTU/h",
    c4='NVIDIA DGX H100/H200 user guide: "Heat Output 38,557 BTU/hr"',
    p3="NVIDIA's heat figure for a DGX H100/H200: {dgx_btu:,} BTU/h = {dgx_btu / btu_per_w:,.0f} W",
)
POWER_ZH = dict(
    c1="这里假定的市电标称电压",
    c2="断路器额定值不小于持续负载的 125%，即负载不超过断路器额定值的 80%",
    c3="1 BTU/h = 0.2930711 W：NIST SP 811 的 1 Btu_IT = 1,055.056 J，除以 3,600 s",
    p1="{amps} A 回路：{volts * amps:,} W；长时间运行的负载按 {derate * volts * amps:,.0f} W 计",
    p2="{count} × {card}：{watts:,.0f} W（电源 {build['psu_w']:,.0f} W），{watts / volts:.1f} A，"
       "相当于 {watts / circuit:.1f} 个降额后的 16 A 回路，散热 {watts * btu_per_w:,.0f} BTU/h",
    c4="NVIDIA DGX H100/H200 用户指南：“Heat Output 38,557 BTU/hr”",
    p3="NVIDIA 给出的 DGX H100/H200 散热量：{dgx_btu:,} BTU/h = {dgx_btu / btu_per_w:,.0f} W",
)

POWER_MD1_EN = f"""## 4 · Power, cooling and circuits of a lab room

A Chinese wall socket is rated 250 V and at most 16 A (GB/T 1002-2021, [scope]({GBT1002})); the common ones
are 10 A and 16 A. We compute at 220 V. We did not read the national voltage standard (GB/T 156) itself, and
one source gives 230 V, which would add about 5%.

A GPU that trains all night is a continuous load. The US electrical code, NEC 210.20(A), sizes the breaker at
no less than 125% of a continuous load, that is, the load at no more than 80% of the breaker ([quoted by
Schneider Electric]({NEC}), a secondary source; the NEC calls a load continuous when it lasts 3 hours or more).
China's GB 50054-2011 §6.3.3 has no such percentage: the design current must not exceed the breaker's rating,
nor the rating the cable's continuous current capacity ([GB 50054]({GB50054})). So the 80% rule is a cautious
plan for a room, not a Chinese legal requirement; either way, do not run a breaker at 100% all night.
`hg.build_system` adds the cards' board power and the platform's own draw; the heat follows from the watts:"""

POWER_MD1_ZH = f"""## 4 · 机房的供电、散热与回路

国内墙上插座的额定值是 250 V、不超过 16 A（GB/T 1002-2021，[适用范围]({GBT1002})），常见的是 10 A 和 16 A 两种。下面按 220 V 计算。我们没有读到国家电压标准 GB/T 156 原文，也有资料写 230 V，按 230 V 算会多出约 5%。

训练一跑就是一整夜，这属于持续负载。美国电气规范 NEC 210.20(A) 要求断路器额定值不小于持续负载的 125%，也就是负载不超过断路器额定值的 80%（[施耐德电气的资料转引]({NEC})，属二手来源；NEC 把持续 3 小时以上的负载称为持续负载）。我国的 GB 50054-2011 第 6.3.3 条没有这样的百分比，只要求回路计算电流不大于断路器额定电流、后者又不大于导体允许持续载流量（[GB 50054]({GB50054})）。所以 80% 是机房规划里偏保守的做法，不是国内的法定要求；但无论按哪条，都不要让断路器整夜满载运行。`hg.build_system` 把显卡的板卡功耗和平台自身的功耗加在一起，发热量由瓦数直接换算："""

POWER_MD2_EN = f"""Read it against the circuits. Four RTX 4090s draw 1,900 W by the kit's count (the cards' 450 W each plus 100 W
for the rest of a workstation): more than a derated 10 A circuit (1,760 W) carries, within a derated 16 A one
(2,816 W). Four 600 W RTX PRO 6000 cards come to 2,500 W, close to the 16 A limit: give such a machine its own
16 A line, and do not share it with anything else. An 8-GPU H100 server draws 10,200 W, about 46 A at 220 V: that is a
machine room with its own feed, usually three-phase, not classroom sockets; NVIDIA's DGX H100/H200 takes six
power supplies at 200–240 V ([DGX H100/H200 user guide]({DGX}), read through a verbatim copy). Cards also
spike far above their rated power for fractions of a millisecond (PCIe CEM 5.0 allows three times the rated
power for about 100 µs, [according to Intel as quoted by the press]({SPIKE}): secondary); the power supply
absorbs that, so size the wiring by the sustained draw.

**Heat.** Every watt drawn ends up as heat in the room (1 W = 3.412142 BTU/h). NVIDIA gives 38,557 BTU/h for a
DGX H100/H200, which is 11,300 W, more than the 10,200 W maximum input the same guide lists: plan with the
larger figure. Air conditioners in China are sold by the 匹, but that is a rule of thumb, not a unit: the
conversions we found are on pages we cannot vouch for and do not agree. Give the installer the heat in watts,
add the people and the lighting, and compare with the cooling capacity (制冷量) in watts on the unit's
nameplate."""

POWER_MD2_ZH = f"""拿结果和回路对照。按工具包的算法，四张 RTX 4090 的功耗是 1,900 W（每张卡 450 W，再加工作站其余部分 100 W）：超过了降额后 10 A 回路能带的 1,760 W，但在降额后 16 A 回路的 2,816 W 之内。四张 600 W 的 RTX PRO 6000 合计 2,500 W，已接近 16 A 回路的上限，这样的机器要单独拉一路 16 A 线，不要和别的设备共用。八卡 H100 服务器功耗 10,200 W，在 220 V 下约 46 A，这要放进有专用供电（通常是三相电）的机房，不能插教室的墙插；NVIDIA 的 DGX H100/H200 用六个 200–240 V 的电源（[DGX H100/H200 用户指南]({DGX})，经逐字转载的副本阅读）。显卡还会在不到一毫秒的时间里冲到远高于额定功率的水平（据媒体转引英特尔的说法，PCIe CEM 5.0 允许约 100 µs 内达到额定功率的三倍，[二手来源]({SPIKE})），这由电源吸收，所以布线按持续功耗计算即可。

**散热。** 用掉的每一瓦电最后都变成房间里的热（1 W = 3.412142 BTU/h）。NVIDIA 给出 DGX H100/H200 的散热量是 38,557 BTU/h，折合 11,300 W，比同一份指南列出的最大输入功率 10,200 W 还高，规划时按大的那个数算。国内空调按“匹”卖，但匹只是行业习惯说法，不是计量单位：我们找到的换算都来自无法核实的网页，而且说法不一。请把算出的发热瓦数交给安装方，加上人员和照明的发热，再对照空调铭牌上以瓦为单位的“制冷量”选型。"""


def md(cell_id: str, text: str) -> dict:
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text.splitlines(keepends=True)}


def code(cell_id: str, text: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {}, "outputs": [],
            "source": text.splitlines(keepends=True)}


def fill(template: str, words: dict) -> str:
    out = template
    for key, value in words.items():
        out = out.replace("{" + key + "}", value)
    return out.replace("{{", "{").replace("}}", "}")


def cells(lesson: str, lang: str) -> list[dict]:
    en = lang == "en"
    if lesson == "04":
        return [
            md("fp8train1", FP8_MD1_EN if en else FP8_MD1_ZH),
            code("fp8train2", fill(FP8_CODE, FP8_EN if en else FP8_ZH)),
            md("fp8train3", FP8_MD2_EN if en else FP8_MD2_ZH),
        ]
    code1 = MIG_CODE1.replace("{sep}", ", " if en else "，").replace("{{", "{").replace("}}", "}")
    return [
        md("miglab1", MIG_MD1_EN if en else MIG_MD1_ZH),
        code("miglab2", code1),
        md("miglab3", MIG_MD2_EN if en else MIG_MD2_ZH),
        code("miglab4", fill(MIG_CODE2, MIG2_EN if en else MIG2_ZH)),
        md("miglab5", MIG_MD3_EN if en else MIG_MD3_ZH),
        md("labpower1", POWER_MD1_EN if en else POWER_MD1_ZH),
        code("labpower2", fill(POWER_CODE, POWER_EN if en else POWER_ZH)),
        md("labpower3", POWER_MD2_EN if en else POWER_MD2_ZH),
    ]


def insert(path: Path, new: list[dict]) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    ids = {c["id"] for c in new}
    kept = [c for c in nb["cells"] if c.get("id") not in ids]
    at = next(i for i, c in enumerate(kept) if c["cell_type"] == "markdown"
              and "".join(c["source"]).startswith(("## Summary", "## 小结")))
    nb["cells"] = kept[:at] + new + kept[at:]
    path.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    for lesson, stem in (("04", "04_training_memory"), ("06", "06_scenario_builds")):
        insert(ROOT / "notebooks" / f"{stem}.ipynb", cells(lesson, "en"))
        insert(ROOT / "notebooks" / "zh" / f"{stem}.ipynb", cells(lesson, "zh"))


if __name__ == "__main__":
    main()
