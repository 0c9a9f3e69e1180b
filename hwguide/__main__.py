"""Command line: ``python -m hwguide validate``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hwguide", description="hwguide command line")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("validate", help="compare the kit's estimates with published measurements")
    args = parser.parse_args(argv)
    if args.command == "validate":
        from .validate import validate

        validate(show=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
