"""Re-execute the course notebooks in place so their committed outputs match the package.

    python tools/run_notebooks.py                 # every notebook under notebooks/
    python tools/run_notebooks.py notebooks/00_start_here.ipynb

Runs each notebook top to bottom in this Python environment (kernel ``python3``), with the
working directory set to the notebook's folder, as nbval does. Per-cell timing metadata, the
live widget state and the widgets' random ids are dropped, so that re-running an unchanged
notebook leaves an unchanged file.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def _merge_streams(outputs: list) -> list:
    """Join consecutive prints to the same stream: how the kernel splits them varies from run to run."""
    merged: list = []
    for output in outputs:
        if (merged and output.get("output_type") == "stream" and merged[-1].get("output_type") == "stream"
                and merged[-1].get("name") == output.get("name")):  # fmt: skip
            merged[-1]["text"] = "".join(merged[-1]["text"]) + "".join(output["text"])
        else:
            merged.append(output)
    return merged


def run(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    widget_number = 0
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = _merge_streams(cell.outputs)
        else:
            cell.pop("outputs", None)
            cell.pop("execution_count", None)
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view:  # random model ids would make every run differ
                widget_number += 1
                view["model_id"] = f"hwguide-widget-{widget_number}"
    nb.metadata.pop("widgets", None)  # the live widget state holds random ids; each widget's text repr stays
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nbformat.write(nb, path)
    print(f"ran {path.relative_to(ROOT)}")


if __name__ == "__main__":
    targets = [Path(p).resolve() for p in sys.argv[1:]] or sorted(
        p for p in (ROOT / "notebooks").rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )
    for target in targets:
        run(target)
