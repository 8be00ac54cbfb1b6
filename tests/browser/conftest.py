"""Fixtures of the real-browser tests (docs/comparison.md#browser-tests): ``browser``, one headless Debian Chromium per
test process, and ``page``, a watched page in a fresh context that fails its test at teardown on any console error,
uncaught exception or request leaving the file, after saving a screenshot (the full page, or the viewport of a page
taller than 5,000 px) to ``runs/browser/<test module>/<test name>.png``. ``page_watch`` is what was recorded on that page.

Without Chromium or Playwright a browser test is skipped with the reason, except in CI (``CI=true``), where any
skipped browser test, whatever skipped it, is a failure."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.watch import PageWatch, find_chromium, in_ci, launch_chromium, screenshot_path, unavailable, watched_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks ``browser`` every test of this directory (``-m "not browser"`` deselects them)."""
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """In CI a browser test that skipped (a missing browser, a skip mark, a ``pytest.skip``) fails instead."""
    report = yield
    if in_ci() and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"a skipped browser test fails in CI (CI=true): {reason}"
    return report


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium, headless, started once per test module in each process that runs its tests. Not once per
    session: Playwright's sync API keeps an asyncio loop running in the process while it is open, and every later test
    of that process that runs a loop of its own (``asyncio.run``) would fail."""
    executable = find_chromium()
    if executable is None:
        unavailable("Debian's Chromium is not installed (apt-get install chromium; .ci/run does it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("Playwright is not installed (pip install -e '.[dev]')")
    assert executable is not None
    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright, executable)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def watched(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[Page, PageWatch]]:
    """The page and its record; at teardown (after the screenshot) any recorded problem fails the test."""
    with watched_page(browser, screenshot_path(request.node.nodeid)) as (page, watch):
        yield page, watch
    watch.check()


@pytest.fixture
def page(watched: tuple[Page, PageWatch]) -> Page:
    """A fresh page (its own browser context) that must stay clean: see ``watched``."""
    return watched[0]


@pytest.fixture
def page_watch(watched: tuple[Page, PageWatch]) -> PageWatch:
    """What has been recorded on ``page`` so far (console errors, uncaught errors, blocked outside requests)."""
    return watched[1]
