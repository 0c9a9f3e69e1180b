"""Committed notebooks: saved outputs, no errors, nothing machine-specific in them."""

import json
import re
from pathlib import Path

import pytest

NOTEBOOKS = sorted(
    p
    for p in (Path(__file__).resolve().parent.parent / "notebooks").rglob("*.ipynb")
    if ".ipynb_checkpoints" not in p.parts
)
MACHINE_SPECIFIC = re.compile(r"(/home/|/root/|/tmp/|/work/|[A-Z]:\\\\Users| at 0x[0-9a-f]{6,})")


def test_there_are_notebooks():
    assert any(p.name.startswith("00_") for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_outputs_are_committed_and_clean(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    if "solutions" not in path.parts:
        assert any(c.get("outputs") for c in code), "no saved outputs"
        assert all(c.get("execution_count") for c in code), "a code cell was never run"
    for cell in code:
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", "a saved error output"
            assert out.get("name") != "stderr", f"a saved stderr output: {out.get('text')}"
            text = json.dumps({k: v for k, v in out.get("data", {}).items() if not k.startswith("image/")})
            assert not MACHINE_SPECIFIC.search(text + json.dumps(out.get("text", ""))), "machine-specific output"
    counts = [c["execution_count"] for c in code]
    assert counts == list(range(1, len(code) + 1)), "cells were not run top to bottom in one go"
