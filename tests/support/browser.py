"""A real headless browser for the lineage view's tests: Debian's chromium driven by Playwright.

Playwright never downloads a browser here: it launches /usr/bin/chromium, which
scripts/ensure_test_services.sh installs (`make services`). A missing browser fails the test
with that hint rather than skipping it, so the view is always exercised.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from benchmarks.browser import CHROMIUM, launch_chromium

SCREENSHOTS = Path(__file__).resolve().parents[2] / ".build" / "screenshots"


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: run `make services` (scripts/ensure_test_services.sh) to install it"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        yield browser
        browser.close()


class LineagePage:
    """The view opened in a page, with the questions the tests ask of its DOM."""

    def __init__(self, page: Any, path: Path) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("requestfailed", lambda request: self.errors.append(f"request: {request.url}"))
        self.requests: list[str] = []
        page.on("request", lambda request: self.requests.append(request.url))
        page.goto(path.resolve().as_uri())
        page.wait_for_selector("body[data-ready=true]", timeout=15_000)

    def drawn(self, kind: str) -> set[str]:
        return set(self.page.eval_on_selector_all(f".node.{kind}", "els => els.map(e => e.dataset.name)"))

    def click_node(self, name: str) -> None:
        """Click a node's header (its middle may be covered by column rows)."""
        box = self.page.locator(f'.node[data-name="{name}"] .box')
        bounds = box.bounding_box()
        assert bounds is not None, f"node {name} is not drawn"
        box.click(position={"x": bounds["width"] / 2, "y": 4})

    def click_column(self, dataset_label: str, field: str) -> None:
        self.click_node(dataset_label)
        self.page.locator(f'.node.dataset[data-name="{dataset_label}"] .col[data-col$=":{field}"]').click()

    def highlighted(self, cls: str) -> set[tuple[str, str]]:
        """(dataset label, column) of every column row carrying ``cls``."""
        script = "els => els.map(e => [e.closest('.node').dataset.name, e.dataset.col])"
        pairs = self.page.eval_on_selector_all(f".col.{cls}", script)
        return {(label, key.split(":", 1)[1]) for label, key in pairs}

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path


@pytest.fixture
def open_view(chromium: Any) -> Iterator[Any]:
    pages: list[Any] = []

    def open_(path: Path, *, width: int = 1600, height: int = 1000) -> LineagePage:
        page = chromium.new_page(viewport={"width": width, "height": height})
        pages.append(page)
        return LineagePage(page, path)

    yield open_
    for page in pages:
        page.close()
