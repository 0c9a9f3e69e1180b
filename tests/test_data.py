"""The data files: every row sourced, dense figures below their sparse twins, no empty essentials."""

import re

import pandas as pd
import pytest

import hwguide as hg
from hwguide.catalog import SCHEMAS

REQUIRED_GPUS = [
    "RTX 2080",
    "RTX 2080 Ti",
    "RTX 2080 Ti 22GB",
    "RTX 3060 12GB",
    "RTX 3080",
    "RTX 3090",
    "RTX 3090 Ti",
    "RTX 4060 Ti 16GB",
    "RTX 4070 Ti",
    "RTX 4080",
    "RTX 4080 SUPER",
    "RTX 4090",
    "RTX 5080",
    "RTX 5090",
    "RTX A6000",
    "RTX 6000 Ada",
    "RTX PRO 6000 Blackwell",
    "T4",
    "V100 PCIe 16GB",
    "V100 PCIe 32GB",
    "V100 SXM2 16GB",
    "V100 SXM2 32GB",
    "A2",
    "A10",
    "A10G",
    "A16",
    "A30",
    "A40",
    "A100 PCIe 40GB",
    "A100 PCIe 80GB",
    "A100 SXM4 40GB",
    "A100 SXM4 80GB",
    "A800 PCIe 80GB",
    "A800 SXM4 80GB",
    "L4",
    "L20",
    "L40",
    "L40S",
    "H100 PCIe",
    "H100 SXM",
    "H100 NVL",
    "H800 SXM",
    "H20",
    "H200 SXM",
    "H200 NVL",
    "GH200 144GB",
    "B200",
    "GB200",
]
# Columns every catalog card must fill: what the memory, speed and value math reads.
ESSENTIAL = [
    "architecture",
    "year",
    "segment",
    "market",
    "memory_gib",
    "memory_type",
    "bandwidth_gbs",
    "fp32_tflops",
    "fp16_tflops",
    "tdp_w",
    "nvlink_gbs",
    "pcie_gen",
    "form_factor",
    "sources",
    "checked",
]
# Values no source we could read confirms, left empty on purpose (data/README.md, "Known gaps").
# A new gap must be added here with its reason; a gap that gets filled must be removed.
KNOWN_GAPS = {
    "A10G": {"year", "fp32_tflops", "fp16_tflops", "bf16_tflops", "pcie_gen"},  # AWS-only; sources conflict
    "H800 SXM": {"fp32_tflops", "pcie_gen"},  # NVIDIA's H800 datasheet was not readable
    "H20": {"pcie_gen"},  # no public NVIDIA datasheet
    # added 2026-12-01: what the sources read do not give (each row's notes say so)
    "MI250X": {"year"},
    "Gaudi 3": {"fp32_tflops"},
    "DGX Spark": {"fp16_tflops", "bf16_tflops", "pcie_gen"},  # NVIDIA publishes only the FP4 petaflop
    "Tesla P40": {"fp16_tflops"},  # Pascal: no Tensor Cores
    "P100 PCIe 16GB": {"fp16_tflops"},
    "P100 SXM2 16GB": {"fp16_tflops"},
    "Radeon RX 7900 XTX": {"bf16_tflops"},
    "RTX 3080 Ti": {"nvlink_gbs"},
    "RTX 3080 12GB": {"nvlink_gbs"},
    "H800 PCIe": {"nvlink_gbs"},
    "RTX A5000": {"nvlink_gbs"},  # NVLink supported, bandwidth not found
    "RTX PRO 4000 Blackwell": {"nvlink_gbs"},
    "RTX PRO 4500 Blackwell": {"nvlink_gbs"},
    "RTX PRO 5000 Blackwell": {"nvlink_gbs"},
    "RTX PRO 5000 Blackwell 72GB": {"nvlink_gbs"},
    "B100": {"pcie_gen"},
    "GB300": {"pcie_gen"},
    "Radeon AI PRO R9700": {"pcie_gen"},
    # unified-memory machines and Huawei's NPUs: the vendors publish less (each row's notes say what)
    "Apple M3 Ultra 512GB": {"fp32_tflops", "fp16_tflops", "bf16_tflops", "pcie_gen", "memory_type"},
    "Apple M3 Ultra 96GB": {"fp32_tflops", "fp16_tflops", "bf16_tflops", "pcie_gen", "memory_type", "tdp_w"},
    "Apple M4 Max 128GB": {"fp32_tflops", "fp16_tflops", "bf16_tflops", "pcie_gen", "tdp_w"},
    "Ryzen AI Max+ 395 128GB": {"pcie_gen"},  # a laptop / mini-PC SoC: no host link
    "Ascend 910B": {"year", "fp32_tflops", "pcie_gen"},
    "Ascend 910C": {"fp32_tflops", "tdp_w", "pcie_gen"},
    # added 2026-12-02 (issue 27), the Chinese accelerators: Huawei's modelling profiles give cube (matrix)
    # peaks only, so no non-tensor FP32; the other vendors' figures are press copies or withheld (row notes)
    "Ascend 910B 313T": {"year", "memory_type", "fp32_tflops", "pcie_gen"},
    "Ascend 910B 280T": {"year", "memory_type", "fp32_tflops", "tdp_w", "pcie_gen"},
    "Ascend 910C 560T": {"year", "memory_type", "fp32_tflops", "tdp_w", "pcie_gen"},
    "Atlas 350 112GB": {"year", "memory_type", "fp32_tflops", "tdp_w", "nvlink_gbs", "pcie_gen"},
    "Atlas 350 84GB": {"year", "memory_type", "fp32_tflops", "tdp_w", "nvlink_gbs", "pcie_gen"},
    # press figures only: FP8/FP4, memory, bandwidth
    "Ascend 950PR": {
        "memory_type",
        "fp32_tflops",
        "fp16_tflops",
        "bf16_tflops",
        "tdp_w",
        "nvlink_gbs",
        "pcie_gen",
        "form_factor",
    },
    "Hygon K100 AI": {"year", "memory_type", "tdp_w", "nvlink_gbs", "pcie_gen", "form_factor"},
    "Hygon BW200": {"year", "memory_type", "tdp_w", "nvlink_gbs", "pcie_gen", "form_factor"},
    "MTT S4000": {"nvlink_gbs"},  # MTLink, not NVLink; direction not stated
    "MetaX C550": {"year", "memory_type", "fp32_tflops", "fp16_tflops", "bf16_tflops", "nvlink_gbs", "pcie_gen"},
    "MLU370-X8": {"nvlink_gbs"},  # MLU-Link, not NVLink; direction not stated
}
UNIT = re.compile(r"_(gib|gb|gbs|tflops|tops|w|usd|bits|b|cny)$")


def test_required_gpus_are_present(gpu_table):
    missing = sorted(set(REQUIRED_GPUS) - set(gpu_table["name"]))
    assert not missing


def test_names_are_unique(gpu_table):
    assert gpu_table["name"].is_unique
    assert hg.models()["name"].is_unique


@pytest.mark.parametrize("column", ESSENTIAL)
def test_essential_columns_are_filled(gpu_table, column):
    empty = gpu_table.loc[gpu_table[column].isna(), "name"].tolist()
    unexplained = [name for name in empty if column not in KNOWN_GAPS.get(name, set())]
    assert not unexplained, f"{column} is empty for {unexplained}"


def test_known_gaps_are_still_gaps(gpu_table):
    for name, columns in KNOWN_GAPS.items():
        row = gpu_table.set_index("name").loc[name]
        filled = [c for c in columns if not pd.isna(row[c])]
        assert not filled, f"{name}: {filled} are filled now; remove them from KNOWN_GAPS"


def test_bf16_for_every_card_that_has_it(gpu_table):
    # Ampere and later run BF16 on their Tensor Cores; Pascal, Volta and Turing do not.
    newer = gpu_table[~gpu_table["architecture"].isin(["Pascal", "Volta", "Turing"])]
    newer = newer[~newer["name"].isin([n for n, gaps in KNOWN_GAPS.items() if "bf16_tflops" in gaps])]
    assert newer["bf16_tflops"].notna().all(), newer.loc[newer["bf16_tflops"].isna(), "name"].tolist()
    older = gpu_table[gpu_table["architecture"].isin(["Pascal", "Volta", "Turing"])]
    assert older["bf16_tflops"].isna().all()


@pytest.mark.parametrize(
    ("dense", "sparse"),
    [
        ("fp16_tflops", "fp16_sparse_tflops"),
        ("fp8_tflops", "fp8_sparse_tflops"),
        ("int8_tops", "int8_sparse_tops"),
    ],
)
def test_dense_never_exceeds_sparse(gpu_table, dense, sparse):
    both = gpu_table.dropna(subset=[dense, sparse])
    assert (both[dense] <= both[sparse]).all()
    # structured sparsity doubles the dense rate: the datasheets' sparse figure is 2x dense
    # (NVIDIA's own L40S datasheet prints 362.05 dense and 733 sparse: a ratio of 2.025)
    ratio = both[sparse] / both[dense]
    assert ratio.between(1.97, 2.03).all(), both.loc[~ratio.between(1.97, 2.03), "name"].tolist()


def test_every_row_of_every_table_has_a_source():
    for kind, column in [
        ("gpus", "sources"),
        ("models", "config_source"),
        ("prices", "source"),
        ("interconnects", "sources"),
        ("scenarios", "source"),
        ("mig_profiles", "source"),
        ("power", "source"),
        ("electricity", "source"),
    ]:
        table = hg.load_table(kind)
        assert table[column].notna().all() and table[column].str.strip().ne("").all(), kind


# Source quality: a row's first source is primary (a vendor, retailer, cloud provider, official
# repository or government: data/primary_domains.csv), or its notes say why not in a sentence that
# starts "Secondary source:". AI-generated pages are never sources.
SOURCED_TABLES = [("gpus", "sources"), ("prices", "source"), ("export_controls", "sources"), ("support", "sources"),
                  ("cpus", "sources"), ("mig_profiles", "source"), ("power", "source"),
                  ("electricity", "source")]  # fmt: skip
AI_GENERATED = ("claude.ai", "chatgpt.com", "chat.openai.com", "grokipedia.com", "aiwiki.ai", "perplexity.ai",
                "gemini.google.com", "poe.com", "awesomeagents.ai", "localaimaster.com")  # fmt: skip


def _host_and_path(url):
    from urllib.parse import urlparse

    parts = urlparse(url.strip())
    host = parts.netloc.lower().removeprefix("www.")
    return host, (host + parts.path).lower()


def _is_primary(url, domains):
    host, path = _host_and_path(url)
    return any(host == d or host.endswith("." + d) or path.startswith(d + "/") for d in domains)


@pytest.mark.parametrize(("kind", "column"), SOURCED_TABLES)
def test_first_source_is_primary_or_notes_say_why(kind, column):
    domains = [d.lower() for d in hg.load_table("primary_domains")["domain"]]
    table = hg.load_table(kind)
    unexplained = [
        row[column].split(" ; ")[0]
        for _, row in table.iterrows()
        if not _is_primary(row[column].split(" ; ")[0], domains) and "Secondary source:" not in str(row["notes"] or "")
    ]
    assert not unexplained, unexplained[:5]


@pytest.mark.parametrize(("kind", "column"), SOURCED_TABLES)
def test_no_ai_generated_page_is_a_source(kind, column):
    for sources in hg.load_table(kind)[column]:
        for url in sources.split(" ; "):
            host, _ = _host_and_path(url)
            assert not host.endswith(AI_GENERATED), url


def test_the_primary_domain_list_names_vendors_and_providers():
    table = hg.load_table("primary_domains")
    assert {"nvidia.com", "amd.com", "apple.com", "intel.com", "huawei.com", "jd.com", "govinfo.gov"} <= set(
        table["domain"]
    )


def test_gpu_sources_are_urls(gpu_table):
    for name, sources in zip(gpu_table["name"], gpu_table["sources"]):
        for url in hg.gpu(name).sources:
            assert url.startswith(("http://", "https://")), (name, sources)


def test_unit_columns_are_positive():
    for kind in SCHEMAS:
        table = hg.load_table(kind)
        for column in table.columns:
            if UNIT.search(column) and column != "nvlink_gbs":
                values = table[column].dropna()
                assert (values > 0).all(), (kind, column)
    assert (hg.gpus()["nvlink_gbs"].dropna() >= 0).all()  # empty where not sourced (test_essential_columns_are_filled)


def test_tensor_generation_matches_architecture(gpu_table):
    expected = {"Volta": 1, "Turing": 2, "Ampere": 3, "Ada": 4, "Hopper": 4, "Blackwell": 5}
    known = gpu_table.dropna(subset=["tensor_gen"])
    assert (known["tensor_gen"] == known["architecture"].map(expected)).all()


def test_memory_bandwidth_matches_bus_and_memory_type(gpu_table):
    # Sanity check, not data: bandwidth × 8 / bus width is the per-pin data rate (Gbit/s), which
    # stays within a memory type's broad range. Catches a bus width or bandwidth typed wrong.
    per_pin = {
        "HBM2": (1.0, 2.6),
        "HBM2e": (2.4, 3.7),
        "HBM3": (4.0, 6.5),
        "HBM3e": (6.0, 10.0),
        "GDDR6": (9.0, 20.0),
        "GDDR6X": (19.0, 24.0),
        "GDDR7": (28.0, 36.0),
        "GDDR5": (5.0, 9.0),
        "LPDDR5": (5.0, 7.0),
        "LPDDR5X": (7.0, 10.7),
    }
    rows = gpu_table.dropna(subset=["bus_bits"])
    for name, kind, bandwidth, bits in zip(rows["name"], rows["memory_type"], rows["bandwidth_gbs"], rows["bus_bits"]):
        low, high = per_pin[kind]
        assert low <= bandwidth * 8 / bits <= high, (name, kind, bandwidth * 8 / bits)


def test_prices_name_catalog_gpus():
    names = set(hg.gpus()["name"])
    assert set(hg.prices()["gpu"]) <= names


def test_scenarios_name_catalog_gpus():
    table = hg.scenarios()
    assert len(table) == 6
    for name in table["gpu"]:
        hg.gpu(name)


def test_model_config_files_exist():
    for path in hg.load_table("models")["config_file"]:
        assert (hg.data_dir() / path).is_file(), path


def test_data_readme_documents_every_column():
    text = (hg.data_dir() / "README.md").read_text(encoding="utf-8")
    for kind, schema in SCHEMAS.items():
        for column in schema:
            assert f"`{column}`" in text, f"{kind}.{column} is not documented in data/README.md"


def test_china_prices_of_the_rtx_5090_family():
    # Issue 27: NVIDIA's China page prices the RTX 5090 D v2 from 16,499 CNY, as it did the 5090 D; the
    # only CNY purchase price of the global RTX 5090 is a pre-launch estimate, and its row says so.
    prices = hg.prices()
    v2 = prices[(prices["gpu"] == "RTX 5090 D v2") & (prices["kind"] == "msrp")]
    assert list(v2["amount"]) == [16499] and v2["source"].iloc[0].startswith("https://www.nvidia.cn/")
    bought = prices[(prices["gpu"] == "RTX 5090") & (prices["currency"] == "CNY") & (prices["kind"] != "cloud-hourly")]
    assert list(bought["kind"]) == ["estimate-new"] and list(bought["amount"]) == [15499]
    assert "PRE-LAUNCH ESTIMATE" in bought["notes"].iloc[0] and "RTX 5090 D" in bought["notes"].iloc[0]
