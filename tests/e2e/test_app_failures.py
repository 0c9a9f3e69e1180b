"""A calculator that fails to render says so on the page and offers a reload (issue 29)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def broken_url():
    pytest.importorskip("voila", reason="Voilà is not installed (pip install voila)")
    from servers import free_port, serve

    from hwguide.course import app_command

    port = free_port()
    # a page of two calculators whose second cell raises: the server sends one widget and an error
    command, env = app_command(port=port, ip="127.0.0.1", pool=0, notebook="tests/e2e/broken_calculators.ipynb")
    with serve(command, port, "/", env=env) as url:
        yield url


def test_a_missing_calculator_is_announced_with_a_reload_button(new_page, broken_url):
    page = new_page(1280, 900)
    page.goto(broken_url, timeout=60_000)
    page.wait_for_selector(".hwguide-calc-vram .hwguide-output", timeout=60_000)  # the calculator that works
    banner = page.locator("#hwguide-missing")
    banner.wait_for(timeout=60_000)  # once the page has had 15 s to render its widgets
    assert "1 of 2 calculators did not load." in banner.inner_text()
    assert banner.locator("button").inner_text() == "Reload the page"
    page.close()
