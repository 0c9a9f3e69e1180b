"""Look-ups, records and published values of the GPU catalog."""

import dataclasses
import re
import shutil

import pytest

import hwguide as hg

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize(
    "query",
    ["RTX 4090", "4090", "rtx4090", "GeForce RTX 4090", "NVIDIA GeForce RTX 4090", " rtx-4090 "],
)
def test_gpu_lookup_ignores_case_spaces_and_vendor_prefixes(query):
    assert hg.gpu(query).name == "RTX 4090"


@pytest.mark.parametrize(
    ("query", "name"),
    [
        ("2080ti 22G", "RTX 2080 Ti 22GB"),  # as the source material writes it
        ("2080 Ti", "RTX 2080 Ti"),
        ("Tesla V100-SXM2-32GB", "V100 SXM2 32GB"),  # as nvidia-smi reports it
        ("NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB"),
        ("NVIDIA H100 80GB HBM3", "H100 SXM"),
        ("rtx 6000 ada", "RTX 6000 Ada"),
        ("RTX 5090 32GB", "RTX 5090"),  # only the global RTX 5090 has 32 GB under that name (the 5090 D is "D")
        ("5090 32GB", "RTX 5090"),
        ("5090D V2", "RTX 5090 D v2"),
        ("L40S", "L40S"),
    ],
)
def test_gpu_lookup_by_alias(query, name):
    assert hg.gpu(query).name == name


def test_unknown_gpu_names_closest_matches():
    with pytest.raises(LookupError) as err:
        hg.gpu("RTX 4095")
    message = str(err.value)
    assert "RTX 4095" in message and "RTX 4090" in message


def test_ambiguous_gpu_lists_the_variants():
    with pytest.raises(LookupError) as err:
        hg.gpu("A100")
    message = str(err.value)
    for variant in ("A100 PCIe 40GB", "A100 PCIe 80GB", "A100 SXM4 40GB", "A100 SXM4 80GB"):
        assert variant in message


# Names buyers type that cover several cards stay ambiguous: the error names the choices (issue 27).
# NVIDIA sold the H800 and the A800 as PCIe cards and SXM modules, the GH200 with 96 GB HBM3 and
# 144 GB HBM3e, and Apple the Mac Studio M3 Ultra with 96 GB or 512 GB; "H800 80GB" fits both H800s.
@pytest.mark.parametrize(
    ("query", "choices"),
    [
        ("H800", ("H800 PCIe", "H800 SXM")),
        ("H800 80GB", ("H800 PCIe", "H800 SXM")),
        ("A800", ("A800 PCIe 80GB", "A800 SXM4 80GB")),
        ("GH200", ("GH200 144GB", "GH200 96GB")),
        ("Mac Studio M3 Ultra", ("Apple M3 Ultra 512GB", "Apple M3 Ultra 96GB")),
    ],
)
def test_buyer_names_of_several_cards_ask_to_pick_one(query, choices):
    with pytest.raises(LookupError, match="Pick one") as err:
        hg.gpu(query)
    assert all(name in str(err.value) for name in choices)


@pytest.mark.parametrize("bad", ["", "   ", None, 4090])
def test_empty_or_non_string_name_is_a_lookup_error(bad):
    with pytest.raises(LookupError, match="name"):
        hg.gpu(bad)


def test_gpu_record_is_frozen_and_typed():
    card = hg.gpu("RTX 4090")
    with pytest.raises(dataclasses.FrozenInstanceError):
        card.memory_gib = 48
    assert isinstance(card.sources, tuple) and card.sources
    assert all(s.startswith("http") for s in card.sources)
    assert card.memory_bytes == 24 * 2**30


# Figures looked up in NVIDIA's documents (URLs in data/gpus.csv, column `sources`).
@pytest.mark.parametrize(
    ("name", "column", "value"),
    [
        ("RTX 4090", "memory_gib", 24),
        ("RTX 4090", "bandwidth_gbs", 1008),  # Ada whitepaper, product page
        ("RTX 3090", "bandwidth_gbs", 936),  # GA102 whitepaper
        ("A100 SXM4 80GB", "bandwidth_gbs", 2039),  # A100 datasheet
        ("A100 SXM4 80GB", "fp16_tflops", 312),  # A100 datasheet, dense
        ("A100 PCIe 80GB", "bandwidth_gbs", 1935),
        ("A100 SXM4 40GB", "bandwidth_gbs", 1555),
        ("H100 SXM", "bandwidth_gbs", 3350),  # H100 datasheet: 3.35 TB/s
        ("H100 SXM", "bf16_tflops", 989.5),  # datasheet 1,979 with sparsity / 2
        ("H100 SXM", "memory_gib", 80),
        ("V100 SXM2 32GB", "fp16_tflops", 125),  # V100 datasheet "Tensor Performance"
        ("T4", "memory_gib", 16),
        ("L40S", "memory_gib", 48),
        ("RTX 5090 D v2", "bandwidth_gbs", 1344),  # nvidia.cn compare page: 1344 GB/s, 384-bit
        ("RTX 4090 D", "tdp_w", 425),  # nvidia.cn: graphics power 425 W
    ],
)
def test_published_values(name, column, value):
    assert getattr(hg.gpu(name), column) == pytest.approx(value, rel=0.002)


def test_a_platform_says_what_it_draws_besides_its_gpus():
    # data/platforms.csv host_w: 100 W of CPU and board on a desk (Dettmers' worked example); on a server
    # the NVIDIA DGX H100's 10.2 kW maximum system power less its 8 × 700 W H100 SXM GPUs
    assert hg.catalog.platform("desktop")["host_w"] == hg.catalog.platform("workstation")["host_w"] == 100
    server = hg.catalog.platform("server")
    assert server["host_w"] == 10_200 - 8 * hg.gpu("H100 SXM").tdp_w == 4600
    assert "dgxh100-user-guide" in server["host_source"]


def test_rtx_3090_has_nvlink_and_rtx_40_series_does_not():
    # The source material says the RTX 30 series dropped NVLink; the 3090 kept a bridge.
    assert hg.gpu("RTX 3090").nvlink_gbs > 0
    for name in ("RTX 4060 Ti 16GB", "RTX 4070 Ti", "RTX 4080", "RTX 4080 SUPER", "RTX 4090"):
        assert hg.gpu(name).nvlink_gbs == 0


def test_china_blackwell_tensor_rates_are_derived_from_nvidias_ai_tops():
    # NVIDIA prints only 2,375 AI TOPS (sparse FP4) for the RTX 5090 D and D v2, against 3,352 for the
    # RTX 5090; the catalog scales the RTX 5090's whitepaper rates by that ratio and says so in notes.
    ratio = 2375 / 3352
    full = hg.gpu("RTX 5090")
    for name in ("RTX 5090 D", "RTX 5090 D v2"):
        card = hg.gpu(name)
        assert card.fp16_tflops == pytest.approx(148.4, abs=0.05) == pytest.approx(full.fp16_tflops * ratio, abs=0.05)
        assert card.fp8_tflops == pytest.approx(full.fp8_tflops * ratio, abs=0.05)
        assert card.fp4_tflops == 2375 / 2
        assert card.fp16_acc16_tflops * 16 < 4800  # total processing performance under the export line
        assert "DERIVED" in card.notes and "ASSUMING" in card.notes


def test_geforce_fp16_accumulate_is_twice_fp32_accumulate():
    for name in ("RTX 3090", "RTX 4090"):
        card = hg.gpu(name)
        assert card.fp16_acc16_tflops == pytest.approx(2 * card.fp16_tflops, rel=0.01)


def test_load_table_names_file_row_and_column(tmp_path):
    bad = tmp_path / "gpus.csv"
    shutil.copy(hg.data_dir() / "gpus.csv", bad)
    lines = bad.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    cells = lines[1].split(",")
    cells[header.index("bandwidth_gbs")] = "fast"
    lines[1] = ",".join(cells)
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(hg.DataError) as err:
        hg.load_table("gpus", bad)
    message = str(err.value)
    assert "row 2" in message and "'bandwidth_gbs'" in message and "'fast'" in message


@pytest.mark.parametrize(
    ("column", "value", "expected"),
    [
        ("memory_gib", "-24", "greater than 0"),
        ("segment", "gaming", "consumer, workstation, datacenter"),
        ("sources", "", "required"),
        ("checked", "yesterday", "date"),
        ("year", "20.5", "int"),
    ],
)
def test_bad_values_fail_loudly(tmp_path, column, value, expected):
    import csv

    src = hg.data_dir() / "gpus.csv"
    with open(src, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    rows[0][column] = value
    bad = tmp_path / "gpus.csv"
    with open(bad, "w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(hg.DataError, match=expected):
        hg.load_table("gpus", bad)


def test_unknown_table_kind():
    with pytest.raises(ValueError, match="gpus, models, prices"):
        hg.load_table("cards")


def test_gpus_returns_a_copy():
    table = hg.gpus()
    table.loc[0, "memory_gib"] = -1
    assert (hg.gpus()["memory_gib"] > 0).all()


def test_the_2026_catalog_holds_the_cards_buyers_weigh():
    table = hg.gpus()
    assert len(table) >= 85
    for name in ["RTX 5060 Ti 16GB", "RTX 5070 Ti", "RTX 4070 Ti SUPER", "RTX 4090 D", "RTX 5090 D", "RTX 4090 48GB",
                 "Tesla P40", "H800 PCIe", "B300", "RTX 5000 Ada", "RTX PRO 5000 Blackwell", "DGX Spark",
                 "MI300X", "MI355X", "Radeon RX 7900 XTX", "Gaudi 3", "Arc Pro B60", "Apple M3 Ultra 512GB",
                 "Apple M4 Max 128GB", "Ryzen AI Max+ 395 128GB", "Ascend 910B", "Ascend 910C"]:  # fmt: skip
        hg.gpu(name)
    assert set(table["vendor"]) == {"NVIDIA", "AMD", "Intel", "Apple", "Huawei", "Hygon", "Moore Threads", "MetaX",
                                    "Cambricon"}  # fmt: skip
    assert hg.gpu("DGX Spark").unified_memory and not hg.gpu("RTX 4090").unified_memory
    assert hg.gpu("T4").bandwidth_gbs == 320  # NVIDIA's T4 page: "320+ GB/s" (256-bit GDDR6 at 10 Gbps)


def test_the_h800_is_not_on_the_900_gbs_nvswitch():
    links = hg.interconnects().set_index("name")
    assert "H800 SXM" not in links.loc["NVSwitch gen3 (HGX H100 / DGX H100 8-GPU)", "used_by"]
    assert hg.speed.default_link("H800 SXM", gpus=8) == "NVLink 4 H800 (reduced)"


def test_unified_memory_machines_fit_against_the_share_the_gpu_may_use():
    # macOS gives the GPU about 84% of a 128 GB Mac by default (Metal's recommendedMaxWorkingSetSize, measured)
    mac = hg.gpu("Apple M4 Max 128GB")
    assert mac.unified_memory and mac.memory_bytes == int(107.52 * 2**30)
    # AMD's Variable Graphics Memory: 96 of the 128 GB on Windows
    assert hg.gpu("Ryzen AI Max+ 395 128GB").memory_bytes == 96 * 2**30
    mem = hg.inference_memory("Llama-3.1-70B", weights="fp16")  # about 132 GiB of weights
    assert not mem.fits("Apple M4 Max 128GB")
    # a complete machine is built once: its price is the whole build
    build = hg.build_system("DGX Spark", 1, gpu_price=30000)
    assert build["platform"] == "complete machine" and build["build_price"] == 30000
    with pytest.raises(ValueError, match="complete machine"):
        hg.build_system("DGX Spark", 2)


# Export controls for China (data/export_controls.csv). Dates as the sources give them: the BIS
# 2023 rule (FR doc 2023-23055) took effect for the A800/H800 on 2023-10-23 and for the RTX 4090
# on 2023-11-17; NVIDIA's 8-K of 2025-04-15 reports the H20 licence requirement of 2025-04-09.
def test_export_status_follows_the_dates():
    assert hg.export_status("A800 SXM4 80GB", as_of="2023-01-01")["us"]["status"] == "no licence needed"
    assert hg.export_status("A800 SXM4 80GB", as_of="2023-01-01")["label"] == ""
    a800 = hg.export_status("A800 SXM4 80GB", as_of="2023-11-01")["label"]
    assert str(a800) == "US licence required since 2023-10-23"
    assert str(hg.export_status("RTX 4090 48GB", as_of="2024-01-01")["label"]) == "US licence required since 2023-11-17"
    assert hg.export_status("RTX 4090 D", as_of="2024-01-01")["label"] == ""
    h20 = hg.export_status("H20", as_of="2025-05-01")
    assert h20["us"]["date"].isoformat() == "2025-04-09" and h20["us"]["status"] == "licence required"
    assert hg.export_status("H20", as_of="2025-09-01")["china"]["status"] == "use discouraged"


# Issue 27: the RTX 5090 and RTX PRO 6000 Blackwell (TPP 6,704 and about 8,000, over ECCN 3A090.a's
# 4,800) and the B200 are covered by the BIS rule effective 2023-11-17. The Jan 2026 rule (FR Doc
# 2026-00789) moves licence review for chips up to the H200 to case by case, but a licence is still
# required; applying it to the RTX 5090 is our reading, so the row says "licence required".
@pytest.mark.parametrize("card", ["RTX 5090", "RTX PRO 6000 Blackwell", "B200"])
def test_export_status_of_blackwell_cards_sold_outside_china(card):
    status = hg.export_status(card, as_of="2026-12-02")
    assert status["us"]["status"] == "licence required"
    assert str(status["label"]) == "US licence required since 2023-11-17"  # later rules left the status as it was
    assert status["us"]["since"].isoformat() == "2023-11-17" and status["us"]["date"].isoformat() == "2026-01-15"
    assert status["china"] is None
    assert hg.export_status(card, as_of="2023-11-16")["us"] is None


def test_the_2026_review_policy_does_not_read_as_a_licence_granted():
    event = hg.export_status("RTX 5090", as_of="2026-02-01")["us"]
    assert event["status"] == "licence required"
    assert "case by case" in event["summary"] and "our reading" in event["summary"]
    assert "2026-00789" in event["rule"] and "govinfo.gov" in event["sources"]
    assert hg.export_status("RTX 5090 32GB")["us"]["status"] == "licence required"  # the buyer's name for it
    assert hg.export_status("RTX 5090 D v2", as_of="2026-12-02")["label"] == ""  # the China SKU needs none


def test_export_status_without_data_says_nothing():
    status = hg.export_status("RTX 3090")
    assert status == {"us": None, "china": None, "label": ""}
    with pytest.raises(LookupError, match="card"):
        hg.export_status("RTX 9999")


def test_build_notes_and_value_ranking_show_export_controls():
    assert "US licence required since 2023-11-17" in str(hg.build_system("RTX 4090", 2)["notes"])
    assert "export control" not in str(hg.build_system("RTX 3090", 2)["notes"])
    ranking = hg.value_ranking(as_of="2026-11-30").set_index("gpu")
    assert str(ranking.loc["RTX 4090", "china_export"]) == "US licence required since 2023-11-17"
    assert ranking.loc["RTX 3090", "china_export"] == ""


def test_export_status_in_chinese():
    assert hg.export_status("RTX 4090", as_of="2024-01-01", lang="zh")["label"] == "2023-11-17 起需美国出口许可"
    assert hg.export_status("H20", as_of="2025-09-01", lang="zh")["label"] == (
        "2025-08-08 起美方已发放许可；2025-08-12 起中方不鼓励采购"
    )
    with pytest.raises(ValueError, match="lang"):
        hg.export_status("H20", lang="fr")


def test_export_status_label_is_a_message_shown_in_the_readers_language():
    label = hg.export_status("H20", as_of="2025-09-01")["label"]  # no lang: a message, rendered when shown
    assert str(label) == "US licences granted since 2025-08-08; China: use discouraged since 2025-08-12"
    hg.setup(lang="zh")
    assert str(label) == "2025-08-08 起美方已发放许可；2025-08-12 起中方不鼓励采购"
    assert hg.export_status("H20", as_of="2025-09-01", lang="en")["label"].startswith("US licences granted")


def test_every_export_status_code_has_chinese():
    for status in hg.catalog.EXPORT_STATUSES:
        assert CJK.search(hg.i18n.label(status, "zh", context="status")), status
    shown = hg.i18n.labelled(hg.export_controls()[["chip", "authority", "status"]], "zh")
    assert all(CJK.search(c) for c in shown.columns)
    assert all(CJK.search(v) for v in shown.iloc[:, 1]) and all(CJK.search(v) for v in shown.iloc[:, 2])


CATALOG_FRAMES = ["gpus", "models", "prices", "interconnects", "scenarios", "cpus", "platforms", "engines", "support",
                  "export_controls", "exchange_rates", "ram_prices", "measured_power",
                  "electricity_tariffs"]  # fmt: skip
# Columns whose cells are names, free text or data as published (kept as they are, in any language).
NAMES_AND_TEXT = {"name", "aliases", "vendor", "architecture", "support", "memory_type", "form_factor", "sources",
                  "checked", "notes", "family", "hf_repo", "gpu", "date", "currency", "source", "used_by", "name_en",
                  "name_zh", "data_scale", "cpu", "cpu_ref", "cpu_class", "socket", "launch", "engine", "version",
                  "fitted", "stack", "compute_capability", "cuda_min_version", "cuda_last_major", "pytorch_wheels",
                  "bf16", "fp8", "fp4", "flash_attention_2", "flash_attention_3", "vllm", "llama_cpp", "why_not",
                  "chip", "gpus", "summary", "rule", "part", "attention", "host_source", "model", "weights",
                  "what", "until"}  # fmt: skip


@pytest.mark.parametrize("frame", CATALOG_FRAMES)
def test_the_catalog_frames_have_chinese_column_labels_and_code_labels(frame):
    table = getattr(hg.catalog, frame)()
    shown = hg.i18n.labelled(table, "zh")
    assert list(table.columns) == list(getattr(hg.catalog, frame)().columns)  # machine names stay
    unlabelled = [c for c, label in zip(table.columns, shown.columns) if label == c]
    assert not unlabelled, f"{frame}: no Chinese label for the columns {unlabelled}"
    for column in table.columns:  # a code of a table (segment, market, kind …) has a label of its own
        if column not in NAMES_AND_TEXT and table[column].dtype == object:
            codes = table[column].dropna().unique()
            missing = [v for v in codes if hg.i18n.label(v, "zh", context=column) == v]
            assert not missing, f"{frame}.{column}: no Chinese for {missing}"


def test_a_card_lookup_error_reads_in_the_readers_language():
    with pytest.raises(LookupError) as err:
        hg.gpu("RTX 4095")
    english = str(err.value)
    assert english.startswith("name='RTX 4095' is not a known GPU. Did you mean: ") and english.endswith(
        "See hg.gpus() for all."
    )
    hg.setup(lang="zh")
    chinese = str(err.value)
    assert CJK.search(chinese) and "hg.gpus()" in chinese and "not a known" not in chinese
    with pytest.raises(LookupError, match="模型"):
        hg.model("no-such-model-at-all")


def test_runs_natively_reads_the_support_table():
    assert hg.runs_natively("RTX 5090", "nvfp4")["native"] is True  # Blackwell: FP4 Tensor Cores
    assert hg.runs_natively("RTX 4090", "nvfp4")["native"] is False
    assert hg.runs_natively("RTX 4090", "fp8")["native"] is True  # Ada: FP8
    assert hg.runs_natively("A100 SXM4 80GB", "fp8")["native"] is False  # Ampere has no FP8
    assert hg.runs_natively("RTX 3090", "Q4_K_M")["native"] is None


def test_argument_errors_keep_their_english_and_read_in_chinese():
    checks = hg.checks
    cases = [(lambda: checks.choice("fr", "lang", ("en", "zh")), "lang='fr' is not one of: en, zh."),
             (lambda: checks.whole(2.5, "batch"), "batch must be a whole number from 1 to 1,000,000, not 2.5"),
             (lambda: checks.number(-1, "power_w", high=1e7, unit="W"),
              "power_w must be a finite number at least 0 and at most 1e+07 W, not -1"),
             (lambda: checks.number(0, "model", open_low=True, unit="parameters"),
              "model must be a finite number more than 0 parameters, not 0"),
             (lambda: checks.fraction(2, "share"), "share must be a fraction in (0, 1], not 2"),
             (lambda: checks.flag("no", "show"), "show must be True or False, not 'no'"),
             (lambda: checks.date("June", "as_of"), "as_of must be a date as YYYY-MM-DD (e.g. 2025-06-30), not 'June'"),
             (lambda: checks.names([], "formats", allowed=["html", "pdf"]),
              "formats must be a non-empty list of names from: html, pdf, not []")]  # fmt: skip
    for call, english in cases:
        with pytest.raises(ValueError) as err:
            call()
        assert str(err.value) == english
        hg.setup(lang="zh")
        chinese = str(err.value)
        hg.setup(lang="en")
        assert CJK.search(chinese) and chinese != english, chinese
    with pytest.raises(ValueError, match="Did you mean en"):
        checks.choice("e", "lang", ("en", "zh"))


def test_mig_profiles_of_a_card_are_the_published_ones():
    # data/mig_profiles.csv, from NVIDIA's mig-parted config-default.yaml (H100 80GB) and MIG user guide (A30)
    h100 = hg.mig_profiles("H100 SXM")
    assert dict(zip(h100["profile"], h100["max_instances"])) == {
        "1g.10gb": 7, "1g.20gb": 4, "2g.20gb": 3, "3g.40gb": 2, "4g.40gb": 1, "7g.80gb": 1}  # fmt: skip
    a30 = hg.mig_profiles("a30")  # any name or alias of the catalog
    assert list(a30["profile"]) == ["1g.6gb", "2g.12gb", "4g.24gb"] and list(a30["memory_gb"]) == [6, 12, 24]
    h200 = hg.mig_profiles("H200 NVL").set_index("profile")
    assert h200.loc["1g.18gb", "max_instances"] == 7 and h200.loc["7g.141gb", "memory_gb"] == 141
    pro = hg.mig_profiles("RTX PRO 6000")
    assert dict(zip(pro["profile"], pro["max_instances"])) == {"1g.24gb": 4, "2g.48gb": 2, "4g.96gb": 1}


def test_mig_profiles_cover_every_row_and_are_sourced_and_dated():
    table = hg.mig_profiles()
    assert len(table) == 47
    assert table["source"].str.startswith("https://").all() and table["checked"].notna().all()
    assert table.loc[table["gpus"] == "B200", "memory_gb"].max() == 180
    # the largest profile is the whole GPU: its name gives the card's memory (smaller names are rounded:
    # the H100 NVL's 4 × 1g.24gb name 96 GB of its 94)
    for gpus, rows in table.groupby("gpus"):
        for name in gpus.split(";"):
            assert rows["memory_gb"].max() == hg.gpu(name).memory_gib, name
    # the H20's counts are inferred, and the rows say so
    assert table.loc[table["gpus"] == "H20", "notes"].str.startswith("INFERRED").all()


def test_a_card_without_mig_names_the_argument_and_the_cards_that_have_it():
    with pytest.raises(ValueError) as err:
        hg.mig_profiles("RTX 4090")
    text = str(err.value)
    assert text.startswith("card='RTX 4090': RTX 4090 has no MIG profiles")
    assert "A100 SXM4 80GB" in text and "H200 SXM" in text and "RTX PRO 6000 Blackwell" in text
    assert "L40S" not in text.split("Cards with MIG:")[1]
    hg.setup(lang="zh")
    try:
        chinese = str(err.value)
    finally:
        hg.setup(lang="en")
    assert CJK.search(chinese) and "card='RTX 4090'" in chinese
    with pytest.raises(LookupError, match="card="):
        hg.mig_profiles("RTX 4095")
