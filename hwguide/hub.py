"""A student's server on JupyterHub: their copy of the course, then JupyterHub's single-user server.

``deploy/jupyterhub/jupyterhub_config.py`` starts each student's server as ``python -m hwguide.hub`` (with
JupyterHub's arguments). It runs as the student, in their environment, on every kind of hub (The Littlest
JupyterHub, a local spawner, Kubernetes): it copies the course's notebooks into ``~/hwguide-course``
file by file, never over a file that is there (a student's saved work stays), then becomes
``jupyterhub-singleuser`` with the same arguments.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

FOLDER = "hwguide-course"  # in each student's home


def copy_course(home: Path, source: Path | None = None) -> list[Path]:
    """Copy ``source`` (the course's ``notebooks`` folder; default: the one next to the package) to
    ``home/hwguide-course/notebooks``, skipping every file that exists there; returns the files copied."""
    from .course import ROOT

    source = Path(source) if source is not None else ROOT / "notebooks"
    target = Path(home) / FOLDER / "notebooks"
    copied = []
    for path in sorted(source.rglob("*")):
        if ".ipynb_checkpoints" in path.parts or not path.is_file():
            continue
        destination = target / path.relative_to(source)
        if not destination.exists():
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, destination)
            copied.append(destination)
    return copied


def main(argv: list[str] | None = None) -> None:
    """Copy the course into the student's home, then run ``jupyterhub-singleuser`` with ``argv``."""
    args = sys.argv[1:] if argv is None else argv
    copy_course(Path(os.environ.get("HOME") or Path.home()))
    single = shutil.which("jupyterhub-singleuser") or "jupyterhub-singleuser"
    os.execvp(single, [single, *args])


if __name__ == "__main__":
    main()
