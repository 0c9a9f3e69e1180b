"""Mark which cells of each lesson start a slide (cell.metadata.slideshow.slide_type), from its headings.

    python tools/mark_slides.py                 # every notebook without slide metadata
    python tools/mark_slides.py --force NOTEBOOK  # replace a notebook's marks

A ``#``/``##`` heading starts a slide, a ``###`` heading a sub-slide (down arrow); other cells continue
the slide. JupyterLab's property inspector edits the marks afterwards, and ``python -m hwguide slides``
follows them. Outputs are untouched.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import nbformat  # noqa: E402

from hwguide.slides import mark_slides  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", help="notebooks (default: every lesson in both languages)")
    parser.add_argument("--force", action="store_true", help="replace marks a notebook already has")
    args = parser.parse_args()
    paths = [Path(p).resolve() for p in args.notebooks] or sorted(
        p for p in (ROOT / "notebooks").rglob("[0-9][0-9]_*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        slides = mark_slides(nb, force=args.force)
        nbformat.write(nb, path)
        print(f"{path.relative_to(ROOT)}: {slides} slides")


if __name__ == "__main__":
    main()
