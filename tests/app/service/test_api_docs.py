"""The API's documentation: every operation has a summary and a description with its errors, and
/docs and /redoc work without internet (assets served by the app, a CSP that allows no other
origin), checked in a real Chromium where one is installed."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from app.main import create_app
from app.settings import Settings
from tests.app.conftest import Api, copy_sqlite
from tests.support.ports import free_port

CHROMIUM = Path("/usr/bin/chromium")
LINKS = re.compile(r"""(?:src|href)\s*=\s*["']([^"']*)["']""")
URL = re.compile(r"https?://", re.IGNORECASE)


def _operations(api: Api) -> dict[tuple[str, str], dict[str, Any]]:
    spec = api.client.app.openapi()  # type: ignore[attr-defined]
    return {(m.upper(), p): op for p, ops in spec["paths"].items() for m, op in ops.items()}


def test_every_operation_has_a_written_summary_and_a_description_with_its_errors(
    api: Api,
) -> None:
    operations = _operations(api)
    assert len(operations) >= 20
    missing = []
    for (method, path), op in operations.items():
        # FastAPI makes up a summary from the function's name when none is written; the name
        # starts the operation id (name + path + method, non-word characters as "_").
        suffix = re.sub(r"\W", "_", path) + "_" + method.lower()
        name = op.get("operationId", "").removesuffix(suffix)
        generated = name.replace("_", " ").title()
        summary = (op.get("summary") or "").strip()
        description = (op.get("description") or "").strip()
        if not summary or summary == generated or not description or "Errors:" not in description:
            missing.append(f"{method} {path}")
    assert not missing, f"operations without a summary, description or errors: {missing}"


@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_the_api_pages_reference_only_assets_served_here(api: Api, page: str) -> None:
    answer = api.client.get(page)
    assert answer.status_code == 200
    html = answer.text
    policy = answer.headers["content-security-policy"]
    assert not URL.search(html), "the page names another origin"
    assert not URL.search(policy) and "frame-ancestors 'none'" in policy
    links = LINKS.findall(html)
    assert any(link.endswith(".js") for link in links)
    for link in links:
        assert link.startswith("/"), link
        asset = api.client.get(link)
        assert asset.status_code == 200 and asset.content, link
    nonces = set(re.findall(r'<script nonce="([^"]+)"', html))
    assert len(nonces) == 1 and f"'nonce-{nonces.pop()}'" in policy
    assert html.count("<script") == html.count("<script nonce=")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[str]:
    """The app over real HTTP (uvicorn on a free port), for the browser."""
    directory = tmp_path_factory.mktemp("docs")
    url = copy_sqlite(sqlite_template, directory)
    port = free_port()
    settings = Settings(database_url=url, workers=1, embedding_cache_dir=directory / "emb")
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="no Chromium at /usr/bin/chromium")
def test_swagger_ui_and_redoc_render_offline_in_chromium(served: str) -> None:
    from playwright.sync_api import Request, sync_playwright

    elsewhere: list[str] = []
    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            args=["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking"],
        )  # fmt: skip
        try:
            page = browser.new_page()

            def offline(route: Any, request: Request) -> None:
                # No internet here: anything not asked of the app itself fails.
                if request.url.startswith(served) or request.url.startswith(("data:", "blob:")):
                    route.continue_()
                else:
                    elsewhere.append(request.url)
                    route.abort()

            page.route("**/*", offline)
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.goto(f"{served}/docs")
            page.wait_for_selector(".opblock-summary", timeout=30_000)
            shown = page.locator(".opblock-summary").count()
            spec_operations = sum(
                len(ops) for ops in page.request.get(f"{served}/openapi.json").json()["paths"]
                .values()
            )  # fmt: skip
            assert shown == spec_operations
            page.goto(f"{served}/redoc")
            page.wait_for_selector("[data-section-id^='tag/']", timeout=30_000)
            assert page.locator("h2").count() >= spec_operations
        finally:
            browser.close()
    assert not elsewhere, f"the pages asked for assets elsewhere: {elsewhere}"
    # ReDoc's "powered by" logo points at its vendor's CDN: the CSP blocks it (nothing leaves
    # the machine, the page lacks only that image). Nothing else may be blocked.
    blocked = [p for p in problems if "Content Security Policy" in p]
    assert all(p.startswith("Loading the image") for p in blocked), blocked
