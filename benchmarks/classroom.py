"""Classroom load test: many students open the calculators app at once.

    python benchmarks/classroom.py                 # 10 browser sessions against `python -m hwguide app`
    python benchmarks/classroom.py --sessions 30   # a full class
    python benchmarks/classroom.py --plain         # plain `voila` with its defaults, for comparison

Starts the app on 127.0.0.1, opens ``--sessions`` real browser sessions at the same moment
(Playwright contexts on the system Chromium, every other host blocked), and reports for each the
time until every calculator shows its result, the memory of the kernels the server runs (RSS),
whether any page asked another host, and, after the tabs close, whether the kernels are freed.
The goal (issue 17): 30 students on one laptop-class machine each see the full app within 20 s,
and closed tabs free their kernels.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hwguide.course import app_command  # noqa: E402


def _calculators(notebook: Path) -> int:
    """How many calculators the notebook shows: its cells that call hg.widgets.…()."""
    import nbformat

    cells = nbformat.read(notebook, as_version=4).cells
    return sum(1 for c in cells if c.cell_type == "code" and "hg.widgets." in c.source)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _cpu_seconds(server_pid: int) -> dict[str, float]:
    """CPU seconds used so far by the server, its kernels and the browsers (user + system)."""
    import psutil

    out = {"server": 0.0, "kernels": 0.0, "browsers": 0.0}
    for p in psutil.process_iter(["pid", "cmdline", "cpu_times"]):
        cmd = " ".join(p.info["cmdline"] or [])
        times = p.info["cpu_times"]
        if times is None:
            continue
        used = times.user + times.system
        if p.info["pid"] == server_pid:
            out["server"] += used
        elif "ipykernel_launcher" in cmd:
            out["kernels"] += used
        elif "chrom" in cmd.lower():
            out["browsers"] += used
    return out


def _kernels() -> list[int]:
    """RSS in bytes of every ipykernel process on this machine."""
    import psutil

    out = []
    for p in psutil.process_iter(["cmdline", "memory_info"]):
        cmd = " ".join(p.info["cmdline"] or [])
        if "ipykernel_launcher" in cmd and p.info["memory_info"]:
            out.append(p.info["memory_info"].rss)
    return out


async def _session(browser, url: str, start: asyncio.Event, external: list[str], expect: int) -> dict:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})

    async def route(r):
        if r.request.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
            await r.continue_()
        else:
            external.append(r.request.url)
            await r.abort()

    await context.route("**/*", route)
    page = await context.new_page()
    await start.wait()
    t0 = time.perf_counter()
    try:
        await page.goto(url, timeout=120_000)
        await page.wait_for_function(f"document.querySelectorAll('.hwguide-output').length >= {expect}",
                                     timeout=120_000)  # fmt: skip
        shown = await page.locator(".hwguide-output").count()
        result = {"seconds": time.perf_counter() - t0, "calculators": shown, "ok": shown >= expect}
    except Exception as err:  # a stalled page: report it, do not stop the others
        result = {"seconds": time.perf_counter() - t0, "calculators": 0, "ok": False, "error": type(err).__name__}
    result["context"] = context
    return result


async def _run(url: str, sessions: int, expect: int, server_pid: int) -> tuple[list[dict], list[str], dict]:
    from playwright.async_api import async_playwright

    external: list[str] = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=shutil.which("chromium") or None)
        start = asyncio.Event()
        tasks = [asyncio.create_task(_session(browser, url, start, external, expect)) for _ in range(sessions)]
        await asyncio.sleep(1)
        start.set()
        results = await asyncio.gather(*tasks)
        cpu = _cpu_seconds(server_pid)  # before the browsers close, so that their CPU time counts
        for r in results:
            await r.pop("context").close()
        await browser.close()
    return results, external, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10)
    parser.add_argument("--plain", action="store_true", help="plain voila with its defaults")
    parser.add_argument("--pool", type=int, default=None, help="preheated kernels (default: one per session)")
    parser.add_argument("--notebook", default="notebooks/app/calculators.ipynb", help="the page to serve")
    parser.add_argument("--wait-free", type=float, default=90, help="seconds to wait for closed tabs' kernels")
    args = parser.parse_args(argv)
    port = _free_port()
    pool = args.sessions if args.pool is None else args.pool
    command, env = app_command(port=port, ip="127.0.0.1", pool=pool, notebook=args.notebook)
    expect = _calculators(ROOT / args.notebook)
    if args.plain:
        command = [sys.executable, "-m", "voila", args.notebook, "--no-browser",
                   f"--port={port}", "--Voila.ip=127.0.0.1"]  # fmt: skip
    before = len(_kernels())
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(url, timeout=5)  # noqa: S310 - loopback only
                break
            except OSError:
                time.sleep(0.5)
        if not args.plain:  # the teacher starts the app before the class: let the preheated pool fill
            t0 = time.monotonic()
            while len(_kernels()) < before + pool and time.monotonic() - t0 < 600:
                time.sleep(2)
            import psutil

            while time.monotonic() - t0 < 900 and psutil.cpu_percent(interval=3) > 10:
                pass  # the kernels are still running the notebook
            print(f"pool of {pool} preheated kernels ready after {time.monotonic() - t0:.0f} s")
        cpu_before = _cpu_seconds(server.pid)
        results, external, cpu_after = asyncio.run(_run(url, args.sessions, expect, server.pid))
        rss = _kernels()
        times = sorted(r["seconds"] for r in results)
        ok = sum(r["ok"] for r in results)
        print(f"{args.sessions} sessions ({'plain voila' if args.plain else 'python -m hwguide app'}): "
              f"{ok} showed all {expect} calculators of {args.notebook}")  # fmt: skip
        print(f"time to full render: median {statistics.median(times):.1f} s, slowest {times[-1]:.1f} s")
        if rss:
            print(f"kernels alive with the tabs open: {len(rss) - before}, RSS median "
                  f"{statistics.median(rss) / 2**20:.0f} MiB each")  # fmt: skip
        print(f"requests to other hosts: {len(external)}")
        # the browsers' CPU is read while they are still open; the kernels' includes any pool refill
        print("CPU seconds during the loads: " + ", ".join(f"{k} {cpu_after[k] - cpu_before.get(k, 0):.1f}"
                                                          for k in cpu_after))  # fmt: skip
        deadline = time.monotonic() + args.wait_free
        while time.monotonic() < deadline and len(_kernels()) > before + (0 if args.plain else pool):
            time.sleep(5)
        left = len(_kernels()) - before
        print(f"kernels alive {time.monotonic() - deadline + args.wait_free:.0f} s after the tabs closed: {left}"
              + ("" if args.plain else f" (the refilled pool is {pool})"))  # fmt: skip
        return 0 if ok == args.sessions and not external else 1
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    sys.exit(main())
