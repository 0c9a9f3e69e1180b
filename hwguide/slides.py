"""A lesson as a slide deck that opens offline: ``python -m hwguide slides NOTEBOOK``.

The deck is one HTML file: reveal.js (shipped in ``hwguide/jupyter/reveal``) inlined, formulas as MathML,
charts and the calculators' saved results embedded, code hidden. Which cells start a slide is the
notebook's own slide metadata (``cell.metadata.slideshow.slide_type``: ``slide``, ``subslide``,
``fragment``, ``skip``, ``notes``; JupyterLab's property inspector edits it); a notebook without any
gets one slide per ``#``/``##`` heading and a sub-slide (down arrow) per ``###`` heading. A code cell is
shown only when tagged ``slide-code``; a code cell with no output is left out.
"""

from __future__ import annotations

import copy
import os
import re
from pathlib import Path
from typing import Any

from . import checks, i18n

__all__ = ["mark_slides", "notebook_slides", "slide_type"]

REVEAL = Path(__file__).resolve().parent / "jupyter" / "reveal"
TEMPLATES = Path(__file__).resolve().parent / "jupyter" / "nbconvert" / "templates"
SHOW_CODE = "slide-code"


def slide_type(cell: Any) -> str:
    """The slide type a cell gets from its heading when the notebook has no slide metadata:
    ``slide`` for a ``#`` or ``##`` heading, ``subslide`` for ``###``, ``-`` (same slide) otherwise."""
    if cell.get("cell_type") != "markdown":
        return "-"
    first = "".join(cell.get("source", "")).lstrip().split("\n", 1)[0]
    level = len(first) - len(first.lstrip("#")) if first.startswith("#") else 0
    return "slide" if level in (1, 2) else "subslide" if level == 3 else "-"


def mark_slides(nb: Any, *, force: bool = False) -> int:
    """Give each cell of ``nb`` (an nbformat notebook, changed in place) its slide type from its heading,
    unless the notebook already has slide metadata (``force`` replaces it). Returns the slides marked."""
    has = any("slide_type" in c.get("metadata", {}).get("slideshow", {}) for c in nb.cells)
    if has and not force:
        return sum(c.metadata.get("slideshow", {}).get("slide_type") == "slide" for c in nb.cells)
    count = 0
    for cell in nb.cells:
        kind = slide_type(cell)
        cell.metadata["slideshow"] = {"slide_type": kind}
        count += kind == "slide"
    return count


def notebook_slides(notebook: str | os.PathLike[str], out: str | os.PathLike[str] | None = None) -> Path:
    """Write a lesson notebook as an offline reveal.js deck (one HTML file) and return its path.

    ``out`` is the file, or a folder to write ``<notebook>.slides.html`` into; by default the deck
    goes next to the current folder's ``slides/``. Written all or nothing.
    """
    import nbformat
    from nbconvert import SlidesExporter

    from .export import _mathml

    src = Path(notebook)
    if src.suffix != ".ipynb" or not src.is_file():
        raise ValueError(
            i18n.msg("notebook={notebook!r} is not a notebook file (.ipynb) that exists", notebook=str(notebook))
        )
    target = _target(src, out)
    nb = nbformat.read(src, as_version=4)
    mark_slides(nb)
    cells = []
    for cell in nb.cells:
        cell = copy.deepcopy(cell)
        if cell.cell_type == "markdown":
            cell.source = _mathml(cell.source)
        elif cell.cell_type == "code" and SHOW_CODE not in cell.metadata.get("tags", []):
            if not cell.get("outputs"):
                continue
            cell.metadata.setdefault("transient", {})["remove_source"] = True
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    zh = "zh" in src.resolve().parts
    title = next((re.sub(r"^#+\s*", "", c.source.lstrip().split("\n", 1)[0]) for c in nb.cells
                  if c.cell_type == "markdown" and c.source.lstrip().startswith("#")), src.stem)  # fmt: skip
    resources = {
        "hwguide_title": title,
        "hwguide_reveal": {
            "js": (REVEAL / "reveal.js").read_text(encoding="utf-8"),
            "css": (REVEAL / "reveal.css").read_text(encoding="utf-8"),
            "theme": (REVEAL / "white.css").read_text(encoding="utf-8"),
        },
    }
    exporter = SlidesExporter(
        template_name="hwguide-slides",
        extra_template_basedirs=[str(TEMPLATES)],
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        language_code="zh" if zh else "en",
    )  # fmt: skip (ISO 639-1)
    body, _ = exporter.from_notebook_node(nb, resources=resources)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.part")
    try:
        partial.write_text(body, encoding="utf-8")
        partial.replace(target)  # all or nothing
    finally:
        partial.unlink(missing_ok=True)
    return target


def _target(src: Path, out: str | os.PathLike[str] | None) -> Path:
    name = f"{src.stem}.slides.html"
    if out is None:
        return Path("slides") / name
    path = Path(out)
    if path.is_dir() or str(out).endswith(("/", os.sep)) or not path.suffix:
        return path / name
    checks.output_folder(path.parent if str(path.parent) else ".", "out")
    return path
