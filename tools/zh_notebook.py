"""Start or re-sync a Chinese notebook from its English twin.

    python tools/zh_notebook.py notebooks/03_inference_memory.ipynb          # create notebooks/zh/03_...
    python tools/zh_notebook.py --sync notebooks/03_inference_memory.ipynb   # copy the English code again

A new Chinese notebook starts as a copy of the English one with ``hg.setup(lang="zh")``: its
markdown cells are then rewritten in Chinese (they may be merged, split or added freely). With
``--sync`` the code cells of an existing Chinese notebook are replaced, in order, by the English
ones (keeping the Chinese notebook's own comments where a cell's code is unchanged) and the
markdown is left alone. ``tests/test_zh_notebooks.py`` checks that the two stay in step.
"""

from __future__ import annotations

import copy
import re
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from zh_pairs import SETUP_EN, SETUP_ZH, code_key, twin  # noqa: E402


def _zh_code(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    cell = copy.deepcopy(cell)
    cell.source = re.sub(re.escape(SETUP_EN), SETUP_ZH, cell.source)
    return cell


def create(english: Path) -> Path:
    target = twin(english)
    if target.exists():
        raise SystemExit(f"{target.relative_to(ROOT)} exists: use --sync to copy the English code again")
    nb = nbformat.read(english, as_version=4)
    nb.cells = [_zh_code(c) if c.cell_type == "code" else copy.deepcopy(c) for c in nb.cells]
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, target)
    return target


def sync(english: Path) -> Path:
    target = twin(english)
    en = [c for c in nbformat.read(english, as_version=4).cells if c.cell_type == "code"]
    zh_nb = nbformat.read(target, as_version=4)
    zh = [c for c in zh_nb.cells if c.cell_type == "code"]
    if len(en) != len(zh):
        raise SystemExit(f"{target.relative_to(ROOT)} has {len(zh)} code cells, the English {len(en)}: "
                         "add or remove cells by hand first")  # fmt: skip
    for old, new in zip(zh, en):
        if code_key(old.source) != code_key(new.source):
            fresh = _zh_code(new)
            old.source, old.outputs, old.metadata = fresh.source, fresh.outputs, fresh.metadata
    nbformat.write(zh_nb, target)
    return target


if __name__ == "__main__":
    args = sys.argv[1:]
    action = sync if args and args[0] == "--sync" else create
    for name in args[1:] if action is sync else args:
        print("wrote", action(Path(name).resolve()).relative_to(ROOT))
