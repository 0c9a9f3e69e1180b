"""Offline means offline: the app's pages ask nothing of any host but the server."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.e2e


def test_the_app_asks_no_other_host(new_page, voila_url, external_requests):
    page = new_page(1280, 900)
    before = len(external_requests)
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.goto(voila_url, timeout=90_000)
    page.wait_for_selector(".hwguide-calc-planner .hwguide-output", timeout=90_000)
    page.wait_for_load_state("networkidle", timeout=90_000)  # late requests (fonts, lazy scripts) too
    assert external_requests[before:] == [] and failed == []
    page.close()
