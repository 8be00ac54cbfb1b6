"""What the browser tests watch on a page, shared by ``tests/browser/conftest.py`` and the tests of the watch itself.

The browser is Debian's Chromium (``apt-get install chromium``, which ``.ci/run`` does), driven by Playwright for
Python with ``executable_path`` pointing at it: Playwright's own browser download (``playwright install``) is never
used. A watched page may load ``file://``, ``data:``, ``about:`` and ``blob:`` URLs only (the report is one
self-contained file); every other request is blocked before it leaves and recorded, as is every console message of
type error and every uncaught exception, on every page of the context (popups included)."""

from __future__ import annotations

import os
import re
import shutil
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # Playwright is imported only where a browser runs: without it the tests skip (fail in CI)
    from playwright.sync_api import Browser, ConsoleMessage, Page, Playwright, Route, WebError, WebSocketRoute

# Playwright would otherwise look for (and offer to download) its own browsers; Debian's Chromium is the only one used.
os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "runs" / "browser"  # runs/ is git-ignored: the screenshots are artefacts of a test run
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")
# A missing element fails in seconds, not after Playwright's default 30 s; still room for a 5 MB page on a busy 2-core CI.
TIMEOUT_MS = 15_000
# A full-page screenshot relayouts the whole page at its full height: cheap for a normal page, 2-3 s for a 90,000 px
# one (15 s and 14 MB unclipped). Taller than this, the screenshot is the viewport, where the test last looked.
FULL_PAGE_MAX_PX = 5_000


def in_ci() -> bool:
    return os.environ.get("CI") == "true"


def unavailable(reason: str) -> None:
    """A browser test that cannot run: skipped on a developer's machine, a failure in CI (``CI=true``)."""
    if in_ci():
        pytest.fail(f"browser test cannot run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def find_chromium() -> str | None:
    """Debian's Chromium (``/usr/bin/chromium``, a launcher script for ``/usr/lib/chromium/chromium``), or None."""
    found = shutil.which("chromium")
    if found:
        return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


def launch_chromium(playwright: Playwright, executable: str) -> Browser:
    """Headless Chromium; as root (CI) Chromium refuses to start without ``--no-sandbox``."""
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    return playwright.chromium.launch(executable_path=executable, headless=True, args=args)


@dataclass
class PageWatch:
    """What went wrong on a watched page: console errors, uncaught exceptions, and the URLs of requests that would
    have left the file (each blocked)."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    outside_requests: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return (
            [f"console error: {m}" for m in self.console_errors]
            + [f"uncaught error: {e}" for e in self.page_errors]
            + [f"request leaving the file (blocked): {u}" for u in self.outside_requests]
        )

    def check(self) -> None:
        """Fails the test if anything was recorded."""
        if problems := self.problems():
            pytest.fail("the page was not clean:\n  " + "\n  ".join(problems), pytrace=False)

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            location = message.location
            self.console_errors.append(f"{message.text} ({location.get('url', '')}:{location.get('lineNumber', '')})")

    def on_web_error(self, error: WebError) -> None:
        self.page_errors.append(str(error.error))

    def on_route(self, route: Route) -> None:
        url = route.request.url
        if url.startswith(LOCAL_SCHEMES):
            route.continue_()
            return
        self.outside_requests.append(url)
        route.abort("blockedbyclient")

    def on_web_socket(self, ws: WebSocketRoute) -> None:
        # Not connected to the server: Playwright mocks the socket, nothing leaves. (Closing it from here would wait
        # on the socket this handler has not yet let open.)
        self.outside_requests.append(ws.url)


def screenshot_path(nodeid: str) -> Path:
    """``runs/browser/<test module>/<test name>.png``: the module keeps two files' equal test names apart."""
    path, _, name = nodeid.partition("::")
    return SCREENSHOTS / Path(path).stem / (re.sub(r"[^\w.\-\[\]]+", "_", name) + ".png")


@contextmanager
def watched_page(browser: Browser, screenshot: Path) -> Iterator[tuple[Page, PageWatch]]:
    """A page in a new browser context (nothing shared with other tests) and what is recorded on it. On the way
    out a screenshot goes to ``screenshot`` (see ``save_screenshot``), then the context closes."""
    watch = PageWatch()
    context = browser.new_context(service_workers="block")
    try:
        context.set_default_timeout(TIMEOUT_MS)
        context.on("console", watch.on_console)
        context.on("weberror", watch.on_web_error)
        context.route("**/*", watch.on_route)
        context.route_web_socket(re.compile(".*"), watch.on_web_socket)
        page = context.new_page()
        try:
            yield page, watch
        finally:
            save_screenshot(page, screenshot)
    finally:
        context.close()


def save_screenshot(page: Page, path: Path) -> None:
    """The whole page, or the viewport when the page is taller than ``FULL_PAGE_MAX_PX``. An artefact, not a check:
    a page that cannot be photographed (crashed, closed) gives a warning, not a failure."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        height = page.evaluate("document.documentElement.scrollHeight")
        page.screenshot(path=path, full_page=isinstance(height, int) and height <= FULL_PAGE_MAX_PX)
    except Exception as exc:
        warnings.warn(f"no screenshot {path.name}: {exc}", stacklevel=2)
