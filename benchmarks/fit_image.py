"""Fit the image engines' factors to data/image_measurements.csv and write them into data/image_engines.csv.

    python benchmarks/fit_image.py            # fit on every usable row, write data/image_engines.csv, print the report
    python benchmarks/fit_image.py --dry-run  # print only

The report gives, for timings and for peak memory, the median error in sample (factors fitted on
all rows) and out of sample (each author's rows predicted by factors fitted without any of them):
only the second is evidence. The physics is in hwguide/image.py, the fitting in benchmarks/image_fitting.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import image_fitting  # noqa: E402

import hwguide as hg  # noqa: E402
from hwguide import imagefit  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the fit and the report; write nothing")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = imagefit.image_rows()
    factors = image_fitting.fit_image_factors(rows)
    table = hg.load_table("image_engines")
    today = dt.date.today().isoformat()
    for i, engine in table["engine"].items():
        n = int((rows["engine"] == engine).sum())
        groups = rows.loc[rows["engine"] == engine, "group"].nunique()
        for name, value in factors[engine].items():
            table.loc[i, name] = round(value, 4)
        table.loc[i, "fitted"] = f"benchmarks/fit_image.py {today}: {n} rows from {groups} sources" + (
            " (pulled towards the factors pooled over all engines)" if n else " (none: the pooled factors)"
        )
        table.loc[i, "checked"] = today
    print(table[["engine", *imagefit.IMAGE_FACTORS]].to_string(index=False))
    report = image_fitting.cross_validate(rows)
    print()
    print(imagefit.image_summary(report).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    by_source = (
        report[report["kind"] == "speed"]
        .groupby("group")["error"]
        .agg(rows="size", median_abs_error=lambda e: e.abs().median(), median_error="median")
    )
    print()
    print(by_source.to_string(float_format=lambda x: f"{x:+.3f}"))
    rules = imagefit.simple_rules(rows).merge(report[["id", "kind", "error"]], on=["id", "kind"], suffixes=("", "_kit"))
    print("\nrules of thumb on the same rows, out of sample (median |error|; the kit's beside it):")
    for (kind, rule), part in rules.groupby(["kind", "rule"]):
        print(
            f"  {kind:12} {rule:14} rows {len(part):4}  rule {part['error'].abs().median():6.1%}  "
            f"kit {part['error_kit'].abs().median():6.1%}"
        )
    skipped = hg.load_table("image_measurements")
    skipped = skipped[skipped["excluded_because"].notna() & (skipped["excluded_because"] != "")]
    print(f"\n{len(rows)} rows from {rows['group'].nunique()} sources; {len(skipped)} rows excluded "
          f"(data/image_measurements.csv says why); {time.perf_counter() - start:.1f} s")  # fmt: skip
    if not args.dry_run:
        path = hg.data_dir() / "image_engines.csv"
        table.to_csv(path, index=False, lineterminator="\n")
        hg.catalog._table.cache_clear()
        hg.load_table("image_engines")  # what was written must load
        print(f"wrote {path}")
        report_path = hg.data_dir() / imagefit.IMAGE_CROSS_VALIDATION_FILE  # read by the notebooks, not recomputed
        image_fitting.cross_validate(imagefit.image_rows()).to_csv(report_path, index=False, lineterminator="\n",
                                                                     float_format="%.6g")  # fmt: skip
        print(f"wrote {report_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
