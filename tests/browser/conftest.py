"""Browser tests: the real server (`gradeformer serve` in its own process, a real SQLite file)
driven through Debian's Chromium by Playwright. Playwright's own browser download is never used:
`make test` installs Debian's `chromium` (scripts/ensure-chromium.sh) and these tests skip, with
the reason, only where it cannot be installed.

Screenshots: `GRADEFORMER_SCREENSHOTS=docs/screenshots pytest tests/browser` writes each page's
picture there (the README shows them); without the variable nothing is written.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from app.db.session import make_engine, make_sessionmaker
from tests.app.conftest import copy_sqlite, make_tokens
from tests.app.conftest import sqlite_template as sqlite_template  # the fixture, re-exported
from tests.support.faultkit import Server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = pytest.mark.browser


def _playwright() -> Any:
    if not CHROMIUM.exists():
        pytest.skip(f"Debian's Chromium is not installed at {CHROMIUM} (make test installs it "
                    "with apt-get when run as root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright for Python is not installed (pip install -e '.[dev]')")
    return sync_playwright


@dataclass
class LiveServer:
    """A running server, its database and one token per person (alice, bob: students; prof:
    instructor; root: admin)."""

    base: str
    database_url: str
    tokens: dict[str, str]
    directory: Path


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory,
                sqlite_template: Path) -> Iterator[LiveServer]:
    """One server per test module, with the bundled rubrics loaded and no per-student upload
    limits (the tests upload in bursts); its database a copy of the session's migrated one."""
    directory = tmp_path_factory.mktemp("browser")
    url = copy_sqlite(sqlite_template, directory)
    engine = make_engine(url)
    tokens = make_tokens(make_sessionmaker(engine))
    engine.dispose()
    server = Server(
        {"GRADEFORMER_DATABASE_URL": url, "GRADEFORMER_WORKERS": "1"}, directory / "server.log"
    )
    server.start()
    try:
        yield LiveServer(server.base, url, tokens, directory)
    finally:
        server.signal_group(signal.SIGTERM, timeout=60)


# Per module, not per session: while Playwright's sync API is open its event loop counts as
# running in this thread, and a later test file in the same process (pytest-xdist hands files
# out in any order) that starts Playwright itself would be refused.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_playwright = _playwright()
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


# The two widths every page is checked and pictured at.
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def page(browser: Any, live_server: LiveServer) -> Iterator[Any]:
    """A fresh browser context (no cookies) on the live server."""
    context = browser.new_context(base_url=live_server.base, viewport=DESKTOP)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


def sign_in(page: Any, server: LiveServer, who: str = "prof", path: str = "/") -> None:
    """Open `path`, which answers with the sign-in form, and post the token once."""
    page.goto(path)
    page.fill("input[name=token]", server.tokens[who])
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")


def screenshot(page: Any, name: str) -> None:
    """Save the page's picture as docs/screenshots/<name>.png when asked to (see the module)."""
    target = os.environ.get("GRADEFORMER_SCREENSHOTS")
    if not target:
        return
    folder = Path(target)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def fits(page: Any) -> None:
    """The page does not scroll sideways at its viewport's width."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, f"{page.url} is {width} px wide"


def both_sizes(page: Any, name: str) -> None:
    """Picture the page at both widths (checking it fits on a phone), back at desktop width."""
    page.set_viewport_size(DESKTOP)
    screenshot(page, name)
    page.set_viewport_size(PHONE)
    fits(page)
    screenshot(page, f"{name}-phone")
    page.set_viewport_size(DESKTOP)
