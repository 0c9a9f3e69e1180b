"""The measurements file and the accuracy report: every usable row estimates, GGUF sizes are exact."""

import pytest

import hwguide as hg
from hwguide.gguf import gguf_tensor_types
from hwguide.validate import summary, validate


@pytest.fixture(scope="module")
def report():
    return validate(show=False)


def test_every_usable_row_is_estimated(report):
    used = report[report["excluded_because"].isna()] if "excluded_because" in report else report
    assert used["hwguide_err"].notna().all()
    assert len(used) >= 1000


def test_gguf_and_gptq_file_sizes_within_half_a_percent(report):
    files = report[(report["kind"] == "file_size") & report["hwguide_err"].notna()]
    # DeepSeek-R1's FP8 and NVFP4 checkpoints also ship the multi-token-prediction layer, which the
    # kit's 61 layers leave out, and NVIDIA's NVFP4 recipe for it was not read (rows file-60/61)
    deepseek = files["id"].isin(["file-60", "file-61"])
    assert files.loc[deepseek, "hwguide_err"].between(-0.11, 0).all()  # low, by about that layer or more
    files = files[~deepseek]
    assert len(files) >= 50
    assert files["hwguide_err"].abs().max() < 0.005  # the issue asks for 3%


def test_rows_beyond_25_percent_are_explained(report):
    # the memory rows of issue 3 (ids like inf-07) explain their outliers in their notes; the rows
    # collected for issue 14 (three-digit ids) are judged by the accuracy report instead
    notes = hg.load_table("measurements").set_index("id")["notes"]
    memory = report["kind"].str.endswith(("memory", "size")) & report["id"].str.fullmatch(r"[a-z]+-\d\d")
    far = report[memory & (report["hwguide_err"].abs() > 0.25)]
    for row_id in far["id"]:
        assert str(notes[row_id]).startswith("Beyond 25%"), row_id


def test_summary_has_a_line_per_kind(report):
    table = summary(report)
    assert {"file_size", "inference_memory", "finetune_memory", "decode_tps", "throughput_tps"} <= set(table["kind"])
    speed = table[table["kind"] == "decode_tps"].set_index("method")
    assert {"hwguide_oos", "hwguide", "bandwidth/size"} <= set(speed.index)  # out of sample beside in sample


def test_gguf_llama2_7b_q4_k_m_is_byte_exact():
    # TheBloke/Llama-2-7B-GGUF llama-2-7b.Q4_K_M.gguf: 4,081,004,224 bytes (LFS pointer);
    # tensors computed with the 2023 rules + 741,056 bytes of metadata.
    tensors = sum(s for _, s, _ in hg.gguf.gguf_tensor_bytes(hg.model("Llama-2-7B"), "Q4_K_M", rules="2023"))
    assert tensors + 741_056 == 4_081_004_224
    assert hg.gguf_file_bytes(hg.model("Llama-2-7B"), "Q4_K_M", rules="2023") == pytest.approx(4_081_004_224, rel=1e-5)


def test_gguf_q4_k_m_rules():
    types = dict((t.name, kind) for t, kind in gguf_tensor_types(hg.model("Llama-2-7B"), "Q4_K_M"))
    assert types["output"] == "Q6_K" and types["token_embd"] == "Q4_K"
    assert types["blk.0.attn_v"] == "Q6_K" and types["blk.4.attn_v"] == "Q4_K"  # use_more_bits
    assert types["blk.6.ffn_down"] == "Q6_K" and types["blk.0.norms"] == "F32"
    # Q2_K's ffn_gate/ffn_up were Q3_K in 2023 and are Q2_K now
    old = dict((t.name, k) for t, k in gguf_tensor_types(hg.model("Llama-2-7B"), "Q2_K", rules="2023"))
    new = dict((t.name, k) for t, k in gguf_tensor_types(hg.model("Llama-2-7B"), "Q2_K", rules="current"))
    assert old["blk.3.ffn_up"] == "Q3_K" and new["blk.3.ffn_up"] == "Q2_K"


def test_gguf_falls_back_when_rows_do_not_divide_into_blocks():
    # Qwen2.5-0.5B's hidden size 896 is not a multiple of 256: K-quants fall back (llama-quant.cpp)
    types = dict((t.name, k) for t, k in gguf_tensor_types(hg.model("Qwen2.5-0.5B"), "Q4_K_M"))
    assert types["blk.1.attn_q"] == "Q5_0" and types["token_embd"] == "Q8_0"  # tied: quantised as output


def test_the_printed_report_reads_in_the_readers_language(report):
    from hwguide.validate import report as printed

    english = printed(report)
    assert english.startswith("hwguide accuracy against published measurements") and " median " in english
    hg.setup(lang="zh")
    chinese = printed(report)
    assert chinese.startswith("hwguide 对照公开实测数据") and "中位数" in chinese and " median " not in chinese
    assert len(chinese.splitlines()) == len(english.splitlines())
