"""The browser fixtures themselves, on tiny pages written to tmp_path: a clean page passes; a console error, an uncaught
exception and a request leaving the file are each recorded (the failing pages go through ``watched_page`` directly
and check what the ``page`` fixture's teardown would fail on, without failing this suite); an outside request is
blocked before it leaves; a missing browser skips outside CI and fails in it."""

from __future__ import annotations

import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.browser.watch import PageWatch, screenshot_path, unavailable, watched_page

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


def write_page(directory: Path, body: str, **files: str) -> str:
    """``index.html`` with ``body`` (plus any sibling files, by name) in ``directory``; its ``file://`` URL."""
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    index = directory / "index.html"
    index.write_text(f"<!doctype html><html><head><meta charset='utf-8'><title>t</title></head><body>{body}</body></html>", encoding="utf-8")
    return index.as_uri()


def test_a_page_that_loads_and_a_click_that_changes_its_text_is_clean(page: Page, page_watch: PageWatch, tmp_path: Path) -> None:
    # The script is a sibling file: a file:// request goes through the watch untouched.
    app = "document.getElementById('go').addEventListener('click', () => { document.getElementById('out').textContent = 'after'; });"
    page.goto(write_page(tmp_path, "<button id='go'>go</button><p id='out'>before</p><script src='app.js'></script>", **{"app.js": app}))
    assert page.text_content("#out") == "before"
    page.click("#go")
    assert page.text_content("#out") == "after"
    assert page_watch.problems() == []


def test_a_console_error_and_an_uncaught_error_are_recorded_and_fail_the_check(browser: Browser, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    body = "<p id='out'>x</p><script>console.error('boom'); console.log('fine'); setTimeout(() => { throw new Error('kaput'); });</script>"
    shot = screenshot_path(request.node.nodeid)
    with watched_page(browser, shot) as (page, watch):
        page.goto(write_page(tmp_path, body))
        page.wait_for_timeout(50)  # the setTimeout's throw
    assert [m.split(" (")[0] for m in watch.console_errors] == ["boom"]
    assert any("kaput" in e for e in watch.page_errors), watch.page_errors
    assert watch.outside_requests == []
    with pytest.raises(pytest.fail.Exception, match="console error: boom"):
        watch.check()
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # the artefact is written even when the page is not clean


@pytest.fixture
def listening() -> Iterator[tuple[str, list[str]]]:
    """A local HTTP server that answers anything: its URL and the paths it was asked for (a blocked request is none)."""
    hits: list[str] = []

    class Counting(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(b"reached")

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


def test_a_request_leaving_the_file_is_blocked_and_recorded(browser: Browser, tmp_path: Path, request: pytest.FixtureRequest, listening: tuple[str, list[str]]) -> None:
    base, hits = listening
    assert urllib.request.urlopen(f"{base}/control", timeout=5).read() == b"reached"  # the server does answer
    script = f"""
      const out = document.getElementById('out');
      const urls = ['http://127.0.0.1:9/x', '{base}/reached'];
      Promise.allSettled(urls.map(u => fetch(u).then(r => r.text()))).then(results => {{
        const ws = new WebSocket('ws://127.0.0.1:9/socket');
        ws.onopen = ws.onclose = () => {{ out.textContent = results.map(r => r.status).join(','); }};
      }});
    """
    with watched_page(browser, screenshot_path(request.node.nodeid)) as (page, watch):
        page.goto(write_page(tmp_path, f"<img src='{base}/pixel.png'><p id='out'>waiting</p><script>{script}</script>"))
        page.wait_for_function("document.getElementById('out').textContent !== 'waiting'")
        assert page.text_content("#out") == "rejected,rejected"  # both fetches failed: neither left
    assert hits == ["/control"]  # the server that would have answered heard nothing from the page
    assert sorted(watch.outside_requests) == sorted(["http://127.0.0.1:9/x", f"{base}/reached", f"{base}/pixel.png", "ws://127.0.0.1:9/socket"])
    with pytest.raises(pytest.fail.Exception, match="request leaving the file"):
        watch.check()


def test_a_missing_browser_skips_outside_ci_and_fails_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "false")
    with pytest.raises(pytest.skip.Exception, match="no chromium"):
        unavailable("no chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="cannot run in CI: no chromium"):
        unavailable("no chromium")
