"""Compression and nesting bombs through every way a document reaches `gradeformer serve`: the
API's multipart and raw uploads by a student, a staff upload filed under a student, and the web
app's upload form behind a signed-in page session with its CSRF token. Each is read by a helper
process whichever route brought it: answered 202 and graded (no grader error) or refused with a
problem, while /healthz stays under a second."""

from __future__ import annotations

import base64
import gzip
import json
import re
import threading
import time
import zlib
from collections.abc import Callable

import httpx
import pytest

from app.auth.service import create_token
from app.db.session import unit_of_work
from tests.attacks.conftest import SLUG, UPLOAD, Served
from tests.attacks.test_document_bombs_deep import (
    _page_cycle,
    until_final,
)
from tests.support.pace import stretched

CELL = {"cell_type": "markdown", "metadata": {}, "source": "B1: 64"}


def _notebook(**extra: object) -> bytes:
    return json.dumps({"cells": [CELL], "nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       **extra}).encode()


def _bombs() -> dict[str, tuple[str, bytes, str]]:
    gz = base64.b64encode(gzip.compress(b"\0" * 20_000_000)).decode()
    return {
        # A stream inflating without end is read until the 10 s deadline (the deep bombs).
        "a PDF claiming a million pages in a cycle": ("a.pdf", _page_cycle(), "application/pdf"),
        "a gzip bomb in a notebook's metadata": (
            "a.ipynb", _notebook(metadata={"x": {"application/gzip": gz}}),
            "application/x-ipynb+json"),
        "a ZIP of zeros named .ipynb": (
            "a.ipynb", b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + zlib.compress(b"\0" * 5_000_000),
            "application/x-ipynb+json"),
        "a notebook nested 100,000 deep": (
            "a.ipynb", b'{"cells": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
            "application/x-ipynb+json"),
        "gzip named .txt": ("a.txt", gzip.compress(b"B1: 64\n" * 1_000_000), "text/plain"),
    }


def _students(served: Served, prefix: str, count: int) -> list[str]:
    with unit_of_work(served.sessions) as session:
        return [create_token(session, f"{prefix}{n}", "student").token for n in range(count)]


def _page_upload(served: Served, token: str, name: str, raw: bytes, media: str) -> httpx.Response:
    with httpx.Client(base_url=str(served.client.base_url), timeout=120,
                      follow_redirects=False) as browser:
        assert browser.post("/sign-in", data={"token": token, "next": "/"}).status_code == 303
        page = browser.get(f"/assignments/{SLUG}/submit")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf, page.text[:500]
        return browser.post(f"/assignments/{SLUG}/submit", data={"csrf": csrf.group(1)},
                            files={"file": (name, raw, media)},
                            headers={"Accept": "application/json"})


Route = Callable[[Served, str, str, bytes, str], httpx.Response]
ROUTES: dict[str, Route] = {
    "API multipart": lambda served, token, name, raw, media: served.client.post(
        UPLOAD, files={"file": (name, raw, media)}, headers={"Authorization": f"Bearer {token}"}),
    "API raw body": lambda served, token, name, raw, media: served.client.post(
        UPLOAD, content=raw, headers={"Authorization": f"Bearer {token}", "Content-Type": media}),
    "staff upload for a student": lambda served, token, name, raw, media: served.client.post(
        UPLOAD, params={"student": f"s-{token[-6:]}"}, files={"file": (name, raw, media)},
        headers=served.auth("prof")),
    "web upload form": _page_upload,
}


@pytest.mark.parametrize("route", list(ROUTES))
def test_bombs_through_every_upload_route_are_read_in_helpers(served: Served, route: str) -> None:
    bombs = _bombs()
    tokens = _students(served, f"routes-{route.split()[0].lower()}-{len(route)}-", len(bombs))
    answers: dict[str, httpx.Response] = {}

    def send(name: str, token: str) -> None:
        filename, raw, media = bombs[name]
        answers[name] = ROUTES[route](served, token, filename, raw, media)

    limit = stretched(1.0)
    threads = [threading.Thread(target=send, args=pair) for pair in zip(bombs, tokens, strict=True)]
    for thread in threads:
        thread.start()
    slowest = 0.0
    while any(thread.is_alive() for thread in threads):
        began = time.monotonic()
        assert served.client.get("/healthz").status_code == 200
        slowest = max(slowest, time.monotonic() - began)
        time.sleep(0.1)
    broken: dict[str, object] = {}
    for name, answer in answers.items():
        if answer.status_code == 202:
            final = until_final(served, answer.json()["id"], seconds=300)
            errors = [i["id"] for i in final["items"]  # type: ignore[attr-defined]
                      if i["status"] == "grader_error"]
            if final["status"] in ("queued", "grading", "grader_error") or errors:
                broken[name] = (final["status"], errors)
        elif not (400 <= answer.status_code < 500
                  and answer.headers["content-type"] == "application/problem+json"):
            broken[name] = (answer.status_code, answer.text[:300])
    assert len(answers) == len(bombs)
    assert not broken, broken
    assert slowest < limit, (slowest, limit)
