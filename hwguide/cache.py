"""A disk cache for the slow, pure results the notebooks show: the leave-one-source-out fits.

A result is stored under a key made of the bytes of every data file and every module of the
package, so any change to the data or the code computes it afresh; nothing else is ever stale.
The folder is ``$HWGUIDE_CACHE`` or ``~/.cache/hwguide``; where it cannot be written, results are
simply computed each time.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd

__all__ = ["cached_frame", "folder"]

PACKAGE = Path(__file__).resolve().parent


def folder() -> Path:
    """Where cached results are kept."""
    return Path(os.environ.get("HWGUIDE_CACHE") or Path.home() / ".cache" / "hwguide")


@functools.cache
def _version() -> str:
    """A digest of the data files and the package's code: what every cached result depends on."""
    from .catalog import data_dir

    digest = hashlib.sha256()
    for path in sorted([*data_dir().rglob("*"), *PACKAGE.glob("*.py")]):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def cached_frame(compute: Callable[[], pd.DataFrame]) -> Callable[[], pd.DataFrame]:
    """``compute()``, a DataFrame that depends only on the data and the code, read from disk when it was
    computed before with the same data and code (a copy each time, so callers may change it)."""

    @functools.wraps(compute)
    def wrapper() -> pd.DataFrame:
        path = folder() / f"{compute.__module__}.{compute.__name__}-{_version()}.pkl"
        try:
            return pd.read_pickle(path)
        except Exception:  # missing, unreadable or from another pandas: compute it again
            pass
        frame = compute()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            frame.to_pickle(tmp)
            tmp.replace(path)  # whole or not at all, even with two kernels writing at once
        except OSError:
            pass
        return frame

    return wrapper
