"""The web pages' own routes (left out of the OpenAPI document, so the sweeps of
test_oversized_numbers.py and test_unstorable_strings.py never reach them): every path, query
and form field of every page route, set to integers past 64 bits, negative ids, numbers
written in Arabic-Indic, full-width or superscript digits, and CSRF tokens and sign-in form
marks holding non-ASCII text, sent by a signed-in staff member. Each is answered 4xx or
taken, never a 500.

On SQLite and PostgreSQL. Found by it: a CSRF token holding non-ASCII text was a 500 on every
staff form (hmac's compare_digest refuses to compare such strings: TypeError), and so was a
sign-in form mark sent with `Origin: null`; a batch of ids holding `²` (str.isdigit takes it,
int() does not) was a 500; and on PostgreSQL every id from 2^31 on, in a path, a query or a
form, was a 500 ("integer out of range": the id columns are 32 bits there)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute

from app.web.auth import FORM_COOKIE
from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

VALUES = ("9223372036854775808", "-9223372036854775809", "1" + "0" * 40, "-1", "0",
          "2147483648", "1e3", "nan", "", "١٢", "１２", "²", "1,²", "é" * 64, "\u202e" + "a" * 63)


def _page_routes(routes: list[Any], prefix: str = "") -> Iterator[tuple[str, APIRoute]]:
    """(prefix, route) of every route the OpenAPI document leaves out (the pages')."""
    for route in routes:
        if hasattr(route, "original_router"):  # an included router (FastAPI >= 0.165)
            yield from _page_routes(route.original_router.routes,
                                    prefix + route.include_context.prefix)
        elif hasattr(route, "routes") and not isinstance(route, APIRoute):
            yield from _page_routes(route.routes, prefix + getattr(route, "path", ""))
        elif isinstance(route, APIRoute) and not route.include_in_schema:
            yield prefix, route


def _sample(name: str, submission_id: int) -> str:
    if name == "slug":
        return "transformer-basics"
    if "item" in name:
        return "b1.d_head"
    return str(submission_id) if name.endswith("id") else "1"


@pytest.mark.parametrize("who", ["root", "alice"])
def test_every_page_field_at_hostile_values_is_4xx_or_taken(either: Api, who: str) -> None:
    """As staff, and as the student whose submission the ids name."""
    target = either
    client = target.client
    client.cookies.clear()
    signed = client.post("/sign-in", data={"token": target.tokens[who], "next": "/"},
                         follow_redirects=False)
    assert signed.status_code == 303, signed.text
    uploaded = client.post(UPLOAD, params={"wait": "true"}, json={"answers": {"b1.d_head": "64"}},
                           headers=target.auth("alice"))
    submission_id = uploaded.json()["id"]
    tried, failures = 0, []
    for prefix, route in _page_routes(client.app.routes):  # type: ignore[attr-defined]
        fields = route.dependant
        base = {p.name: _sample(p.name, submission_id) for p in fields.path_params}
        for method in sorted(route.methods or ()):
            for param in [*fields.path_params, *fields.query_params, *fields.body_params]:
                for value in VALUES:
                    path, query, form = dict(base), {}, {}
                    if param in fields.path_params:
                        if not value:
                            continue
                        path[param.name] = value
                    elif param in fields.query_params:
                        query[param.name] = value
                    else:
                        form[param.name] = value
                    url = prefix + route.path_format.format(**path)
                    tried += 1
                    try:
                        answer = client.request(method, url, params=query,
                                                data=form or None, follow_redirects=False)
                    except Exception as exc:  # the test client re-raises the server's error
                        failures.append(f"{method} {url} {param.name}={value[:12]!r}: "
                                        f"{type(exc).__name__}")
                        continue
                    if answer.status_code >= 500:
                        failures.append(f"{method} {url} {param.name}={value[:12]!r}: "
                                        f"{answer.status_code}")
    assert tried > 500, tried
    assert not failures, "\n".join(failures)


def test_a_sign_in_form_mark_of_any_text_is_refused_not_a_500(target: Api) -> None:
    """`Origin: null` (a sandboxed frame, a file) is checked against the form's mark and the
    page's cookie: marks and cookies of any text are compared without raising."""
    for mark, cookie in (("١٢", "x"), ("x", "x"), ("é" * 40, "é" * 40), ("a", "")):
        target.client.cookies.clear()
        answer = target.client.post(
            "/sign-in", data={"token": target.tokens["alice"], "next": "/", "form": mark},
            headers={b"Origin": b"null", b"Cookie": f"{FORM_COOKIE}={cookie}".encode()},
            follow_redirects=False)
        assert answer.status_code in (303, 400, 403), (mark, answer.status_code)
