"""Login CSRF, other spellings: another site's page posting the sign-in form with the
attacker's token, whatever its Origin looks like (a look-alike host, another port or scheme,
"null" from a sandboxed frame without the form's cookie, a same-site sibling). The browser is
not signed in as the attacker; the form posted from this site's own page still works."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import Api

FOREIGN = [
    {"origin": "http://testserver.evil.invalid"},
    {"origin": "http://evil.invalid/testserver"},
    {"origin": "https://testserver"},
    {"origin": "http://testserver:8080"},
    {"origin": "null"},
    {"origin": "null", "sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},
    {"sec-fetch-site": "cross-site", "origin": "http://testserver"},
]


@pytest.mark.parametrize("headers", FOREIGN, ids=lambda h: ",".join(f"{k}={v}" for k, v in
                                                                    h.items()))
def test_a_sign_in_posted_from_another_site_is_refused(target: Api,
                                                        headers: dict[str, str]) -> None:
    victim = TestClient(target.client.app, follow_redirects=False)
    answer = victim.post("/sign-in", data={"token": target.tokens["alice"], "next": "/"},
                         headers=headers)
    assert answer.status_code == 403, answer.status_code
    assert "gf_session" not in answer.headers.get("set-cookie", "")
    assert 'name="token"' in victim.get("/").text  # still signed out


def test_the_sign_in_page_itself_still_signs_in(target: Api) -> None:
    browser = TestClient(target.client.app, follow_redirects=False)
    page = browser.get("/")  # signed out: the sign-in form
    mark = re.search(r'name="form" value="([^"]+)"', page.text)
    assert mark is not None
    answer = browser.post("/sign-in", headers={"origin": "null"},
                          data={"token": target.tokens["alice"], "next": "/",
                                "form": mark.group(1)})
    assert answer.status_code == 303, answer.text[:300]
