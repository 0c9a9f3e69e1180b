"""Servers the tests start on 127.0.0.1 (Voila, JupyterLab, JupyterHub): a free port, and a server run for the
length of a block. A test waits for the server's state (it answers, or its process ended), never for a number of
seconds; RUNAWAY_S only stops a run that hangs for good."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNAWAY_S = 900.0  # a guard against a hang, not a speed limit: speed is measured in benchmarks/


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(command: list[str], port: int, ready_path: str = "/", *, env: dict[str, str] | None = None,
          cwd: Path = ROOT, log: Path | None = None) -> Iterator[str]:  # fmt: skip
    """Run a server until the block ends, whatever happens; yield its base URL once ``ready_path`` answers.

    Waits until the server answers or its process ends (a RuntimeError then, with the end of ``log`` when given).
    """
    out = open(log or os.devnull, "w")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        runaway = time.monotonic() + RUNAWAY_S
        while True:
            if proc.poll() is not None or time.monotonic() > runaway:
                said = Path(log).read_text(errors="replace")[-2000:] if log else ""
                raise RuntimeError(f"server stopped before it answered ({proc.returncode}): {' '.join(command)}\n"
                                   f"{said}")  # fmt: skip
            try:
                urllib.request.urlopen(url + ready_path, timeout=5)  # noqa: S310 - loopback only
                break
            except OSError:
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        out.close()
