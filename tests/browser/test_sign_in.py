"""Signing in from a browser: the token is posted once, the session lives in an HttpOnly cookie."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import LiveServer, screenshot, sign_in

DASHBOARD = "/assignments/cs224n-attention/dashboard"


def test_the_dashboard_asks_for_the_token_then_opens_with_a_session_cookie(
    page: Any, live_server: LiveServer
) -> None:
    page.goto(DASHBOARD)
    assert page.locator("input[name=token]").count() == 1
    screenshot(page, "sign-in")
    sign_in(page, live_server, "prof", DASHBOARD)
    assert page.url.endswith(DASHBOARD)
    assert live_server.tokens["prof"] not in page.url
    cookies = page.context.cookies()
    assert cookies and all(c["httpOnly"] for c in cookies)
    assert live_server.tokens["prof"] not in page.content()


def test_a_wrong_token_is_refused_and_no_cookie_is_set(page: Any, live_server: LiveServer) -> None:
    page.goto(DASHBOARD)
    page.fill("input[name=token]", "not-a-token")
    page.click("button[type=submit]")
    assert page.locator("input[name=token]").count() == 1
    # no session: only the sign-in form's own double-submit mark (path /sign-in)
    assert [c["name"] for c in page.context.cookies()] == ["gf_sign_in"]
    assert all(c["path"] == "/sign-in" and c["sameSite"] == "Strict" and c["httpOnly"]
               for c in page.context.cookies())
