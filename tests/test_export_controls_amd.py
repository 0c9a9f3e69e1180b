"""Export controls for China on the AMD Instinct cards and Intel Gaudi 3 (data/export_controls.csv).

Dates as the sources give them: AMD's statement of 2022-08-31 that the US government's new licence
requirement stops MI250 exports to China (applied to the catalog's MI250X by our reading); the BIS
rule FR Doc 2023-23055, effective 2023-11-17 (ECCN 3A090.a, TPP 4,800; each card's TPP derived from
its dense rates in data/gpus.csv); the BIS rule FR Doc 2026-00789, effective 2026-01-15, whose
case-by-case review law-firm summaries say covers the MI325X. A licence stays required throughout.
"""

import pytest

import hwguide as hg

TODAY = "2026-12-02"  # the rows' `checked` date


# card, latest US event's date, its status, the date that status took effect
@pytest.mark.parametrize(
    ("card", "date", "status", "since"),
    [
        ("MI250X", "2023-11-17", "licence required", "2022-08-31"),
        ("MI300X", "2026-01-15", "licence required", "2023-11-17"),
        ("MI325X", "2026-01-15", "case-by-case", "2026-01-15"),
        ("MI355X", "2026-01-15", "licence required", "2023-11-17"),
        ("Gaudi 3", "2023-11-17", "licence required", "2023-11-17"),
    ],
)
def test_us_export_status_of_amd_and_intel_datacenter_cards(card, date, status, since):
    result = hg.export_status(card, as_of=TODAY)
    us = result["us"]
    assert us is not None, f"{card}: no US event on record"
    assert us["status"] == status
    assert us["date"].isoformat() == date
    assert us["since"].isoformat() == since
    assert str(result["label"]) != ""
    assert hg.export_status(card, as_of=TODAY, lang="en")["label"] == f"US {status} since {since}"
    assert result["china"] is None  # no Chinese-side event sourced for these cards


def test_mi250x_licence_dates_from_amds_2022_statement():
    assert hg.export_status("MI250X", as_of="2022-08-30")["us"] is None
    event = hg.export_status("MI250X", as_of="2022-09-01")["us"]
    assert event["status"] == "licence required" and event["date"].isoformat() == "2022-08-31"
    assert "our reading" in event["summary"]  # AMD named the MI250; the catalog holds the MI250X


@pytest.mark.parametrize("card", ["MI300X", "MI325X", "MI355X", "Gaudi 3"])
def test_the_2023_rule_covers_the_newer_cards(card):
    assert hg.export_status(card, as_of="2023-11-16")["us"] is None
    event = hg.export_status(card, as_of="2023-11-17")["us"]
    assert event["status"] == "licence required"
    assert "2023-23055" in event["rule"] and "3A090.a" in event["rule"]


@pytest.mark.parametrize("card", ["MI250X", "MI300X", "MI325X", "MI355X", "Gaudi 3"])
def test_tpp_derivation_is_above_the_line_and_said_in_notes(card):
    # TPP = dense rate x bit length; the 3A090.a line is 4,800
    g = hg.gpu(card)
    rates = [(g.fp16_tflops, 16), (g.bf16_tflops, 16), (g.fp8_tflops, 8), (g.int8_tops, 8), (g.fp4_tflops, 4)]
    tpp = max(rate * bits for rate, bits in rates if rate == rate and rate is not None)
    assert tpp >= 4800
    rows = hg.export_controls()
    rows = rows[
        rows["gpus"].str.split(";").apply(lambda cards: card in cards) & (rows["date"].astype(str) == "2023-11-17")
    ]
    assert len(rows) == 1
    assert "DERIVED" in rows.iloc[0]["notes"] and "data/gpus.csv" in rows.iloc[0]["notes"]


def test_the_2026_policy_is_case_by_case_only_for_the_card_it_names():
    mi325x = hg.export_status("MI325X", as_of=TODAY)["us"]
    assert "2026-00789" in mi325x["rule"] and "govinfo.gov" in mi325x["sources"]
    assert "still required" in mi325x["summary"]  # case-by-case review is not a licence granted
    mi300x = hg.export_status("MI300X", as_of=TODAY)["us"]
    assert mi300x["status"] == "licence required" and "our reading" in mi300x["summary"]
