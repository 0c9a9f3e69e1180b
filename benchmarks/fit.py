"""Fit the engines' speed factors to data/measurements.csv and write them into data/engines.csv.

    python benchmarks/fit.py            # fit on every usable row, write data/engines.csv, print the report
    python benchmarks/fit.py --dry-run  # print only

The report gives, per kind of measurement, the median error in sample (factors fitted on all rows)
and out of sample (each author's rows predicted by factors fitted without any of them): only the
second is evidence. The physics is in hwguide/speed.py, the rows and the prediction in
hwguide/fit.py, the fitting (scipy) in benchmarks/fitting.py.
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

import fitting  # noqa: E402

import hwguide as hg  # noqa: E402
from hwguide import fit  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the fit and the report; write nothing")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows, skipped = fit.speed_rows()
    train = fit.fit_rows(rows)  # the held-out authors (data/holdout.csv) never reach a fit
    factors = fitting.fit_factors(train)
    table = fitting.engines_frame(factors, train, dt.date.today().isoformat())
    cols = ["engine", *fit.FACTORS]
    print(table[cols].to_string(index=False))
    report = fitting.cross_validate(rows)
    print()
    print(fit.summary(report).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"\n{len(train)} rows from {len({r.source for r in train})} authors fitted, "
          f"{len(rows) - len(train)} rows of {len(fit.holdout())} authors held out; {len(skipped)} speed rows skipped "
          f"(reasons: python -c 'from hwguide import fit; print(fit.speed_rows()[1])'); "
          f"{time.perf_counter() - start:.1f} s")  # fmt: skip
    if not args.dry_run:
        path = hg.data_dir() / "engines.csv"
        table.to_csv(path, index=False, lineterminator="\n", float_format="%.6g")
        hg.catalog._table.cache_clear()
        hg.load_table("engines")  # what was written must load
        print(f"wrote {path}")
        # the out-of-sample report of these factors, read by hg.validate() and the notebooks (not computed there)
        report_path = hg.data_dir() / fit.CROSS_VALIDATION_FILE
        report.to_csv(report_path, index=False, lineterminator="\n", float_format="%.6g")
        fit._committed.cache_clear()
        print(f"wrote {report_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
