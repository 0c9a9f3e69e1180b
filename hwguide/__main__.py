"""Command line: ``python -m hwguide validate`` and ``python -m hwguide export``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hwguide", description="hwguide command line")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("validate", help="compare the kit's estimates with published measurements")
    export = sub.add_parser("export", help="write the guide's six tables as HTML/PDF/MD/CSV/XLSX handouts")
    export.add_argument("--out", default="guide", help="output folder (created if needed; default: guide)")
    export.add_argument("--lang", default="en", choices=["en", "zh"])
    export.add_argument("--format", default="html,pdf,md,csv,xlsx", help="comma-separated: html,pdf,md,csv,xlsx")
    export.add_argument("--currency", default="CNY", choices=["CNY", "USD"])
    export.add_argument("--as-of", default=None, help="price the value table as of this date (YYYY-MM-DD)")
    args = parser.parse_args(argv)
    if args.command == "validate":
        from .validate import validate

        validate(show=True)
    elif args.command == "export":
        from .export import export_guide

        try:
            paths = export_guide(args.out, args.lang, args.format.split(","), args.currency, args.as_of)
        except (ValueError, RuntimeError, LookupError) as err:
            print(f"export failed: {err}", file=sys.stderr)
            return 2
        for path in paths:
            print(f"wrote {path} ({path.stat().st_size / 1024:,.0f} kB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
