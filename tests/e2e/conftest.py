"""Browser tests: start a server on 127.0.0.1, drive it with Playwright and the system Chromium.

Skipped, with the reason, when Playwright, Voilà/JupyterLab or a Chromium binary is missing
(Playwright's own browser download needs the internet; the tests use Debian's ``chromium``).
Set HWGUIDE_CHROMIUM to use another binary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers import free_port, serve

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


def _chromium() -> str | None:
    wanted = os.environ.get("HWGUIDE_CHROMIUM")
    if wanted:
        return wanted if Path(wanted).exists() else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="session")
def browser():
    pytest.importorskip("playwright", reason="Playwright is not installed (pip install playwright)")
    executable = _chromium()
    if executable is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set HWGUIDE_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


# Every request a page made to another host, for the offline test (tests/e2e/test_offline.py).
EXTERNAL: list[str] = []


def _stay_offline(route) -> None:
    """Answer every request that leaves this machine with a network error at once, and note it.

    The kit is offline-first, so the tests run as an offline classroom would: nothing leaves
    127.0.0.1 (Voilà's own lab template asks a CDN for Font Awesome; the app's template does not).
    """
    if route.request.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:")):
        route.continue_()
    else:
        EXTERNAL.append(route.request.url)
        route.abort("internetdisconnected")


@pytest.fixture(scope="session")
def external_requests() -> list[str]:
    """Every request a page of this session made to another host (each was refused)."""
    return EXTERNAL


@pytest.fixture(scope="session")
def new_page(browser):
    """Make a browser page of the given viewport size that cannot reach the internet."""

    def make(width: int, height: int):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.route("**/*", _stay_offline)
        return page

    return make


@pytest.fixture(scope="session")
def voila_url() -> Iterator[str]:
    pytest.importorskip("voila", reason="Voilà is not installed (pip install voila)")
    from hwguide.course import app_command

    # import the kit once first (a fresh environment's first import compiles pandas' bytecode, which
    # outlasts the page's patience), and serve the app's template and settings without the preheated
    # pool: each test page load runs its own kernel, and a reload never waits for a refill
    subprocess.run([sys.executable, "-c", "import hwguide, hwguide.widgets, hwguide.charts"], check=True, timeout=300)
    port = free_port()
    command, env = app_command(port=port, ip="127.0.0.1", pool=0)  # `python -m hwguide app --pool 0`
    with serve(command, port, "/", env=env) as url:
        yield url


def _load_app(page, url: str) -> None:
    """Open the calculators app and wait for its last calculator's output.

    Each page load starts a fresh kernel. Now and then (about one load in ten on a loaded machine)
    Voilà's response never completes while a plain HTTP client gets the page in 3 s: load again,
    with a new kernel, rather than wait out one stuck start.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(3):
        try:
            page.goto(url, timeout=45_000)
            page.wait_for_selector(".hwguide-calc-planner .hwguide-output", timeout=45_000)
            return
        except PlaywrightTimeout:
            if attempt == 2:
                raise


@pytest.fixture(scope="session")
def load_app():
    """``load_app(page, url)``: open the app, loading again when a kernel start sticks."""
    return _load_app


@pytest.fixture(scope="session")
def voila_zh_url() -> Iterator[str]:
    """The Chinese app (`python -m hwguide app --lang zh`), served like the English one."""
    pytest.importorskip("voila", reason="Voilà is not installed (pip install voila)")
    from hwguide.course import app_command

    port = free_port()
    command, env = app_command(port=port, ip="127.0.0.1", pool=0, lang="zh")
    with serve(command, port, "/", env=env) as url:
        yield url


@pytest.fixture(scope="session")
def lab_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("jupyterlab", reason="JupyterLab is not installed")
    # JupyterLab autosaves what it runs: serve a copy, so a run in the browser never rewrites the
    # committed notebooks (their saved outputs are checked by tests/test_notebooks.py)
    root = tmp_path_factory.mktemp("lab") / "notebooks"
    shutil.copytree(ROOT / "notebooks", root)
    # import the kit once first: in a fresh environment the kernel's first import also compiles
    # pandas' and matplotlib's bytecode, which on a small machine outlasted the test's patience
    subprocess.run([sys.executable, "-c", "import hwguide, hwguide.widgets, hwguide.charts"], check=True, timeout=300)
    # JupyterLab writes its settings and workspaces into the home folder: point them at the temporary
    # folder, so a test run never leaves an extra tab for the user's next `jupyter lab`
    env = dict(os.environ)
    env["JUPYTERLAB_SETTINGS_DIR"] = str(root.parent / "lab-settings")
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(root.parent / "lab-workspaces")
    port = free_port()
    command = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
               "--IdentityProvider.token=", "--ServerApp.password=", "--allow-root", "--LabApp.news_url=",
               "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
               f"--ServerApp.root_dir={root}"]  # fmt: skip
    with serve(command, port, "/api/status", env=env) as url:
        yield url
