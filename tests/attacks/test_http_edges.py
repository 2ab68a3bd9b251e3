"""Header, query-string and path abuse, on a real server over sockets and on the app: huge and
numerous headers, a bearer token of 60 KiB, thousands of cookies, a query string of thousands
of repeated parameters, parameters given twice with conflicting values, percent-encoded dot
segments, NUL and invalid UTF-8 in a path, and Content-Type headers that lie (no boundary, a
charset no decoder has, a boundary of 10,000 characters). Each is answered with a 4xx (or taken
as a normal request), never a 500 and never a file outside the app's; the server's /healthz
stays under a second; and no answer to a request carrying a credential may be kept by a cache
(another user behind the same proxy, or the next person at a shared computer, would read it)."""

from __future__ import annotations

import gzip
import socket

import pytest

from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD, Live
from tests.support.pace import stretched


def _raw(live: Live, head: bytes, body: bytes = b"") -> int:
    """Send one request as bytes; the status the server answers (0: it closed without one)."""
    with socket.create_connection(("127.0.0.1", live.port), timeout=10) as conn:
        conn.sendall(head + body)
        reply = b""
        try:
            while b"\r\n" not in reply:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                reply += chunk
        except OSError:
            return 0
    parts = reply.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def _head(path: str, *lines: str) -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            + "".join(f"{line}\r\n" for line in lines) + "\r\n").encode("latin-1")


HEADS = {
    "one 60 KiB header": lambda t: _head("/api/v1/assignments", f"X-Pad: {'a' * 60_000}",
                                         f"Authorization: Bearer {t['alice']}"),
    "a 70 KiB header": lambda t: _head("/healthz", f"X-Pad: {'a' * 70_000}"),
    "5,000 small headers": lambda t: _head("/api/v1/assignments",
                                           *(f"X-{n}: v" for n in range(5000))),
    "a 60 KiB bearer token": lambda t: _head("/api/v1/assignments",
                                             f"Authorization: Bearer {'k' * 60_000}"),
    "3,000 session cookies": lambda t: _head(
        "/", "Cookie: " + "; ".join(f"gf_session=s{n}" for n in range(3000))),
    "two Authorization headers": lambda t: _head(
        "/api/v1/assignments", f"Authorization: Bearer {t['alice']}",
        f"Authorization: Bearer {t['root']}"),
    "10,000 repeated query parameters": lambda t: _head(
        f"/api/v1/assignments/{SLUG}/submissions?" + "&".join(["limit=1"] * 10_000),
        f"Authorization: Bearer {t['prof']}"),
    "dot segments": lambda t: _head("/static/../../../etc/passwd"),
    "encoded dot segments": lambda t: _head("/static/%2e%2e%2f%2e%2e%2fsettings.py"),
    "a NUL in the path": lambda t: _head("/api/v1/assignments/a%00b",
                                         f"Authorization: Bearer {t['prof']}"),
    "invalid UTF-8 in the path": lambda t: _head("/api/v1/assignments/%ff%fe%fd",
                                                 f"Authorization: Bearer {t['prof']}"),
    "an absolute URL of another host": lambda t: _head("http://evil.invalid/healthz"),
    "a double slash": lambda t: _head("//api/v1/tokens", f"Authorization: Bearer {t['alice']}"),
    "a 10,000-character slug": lambda t: _head(f"/api/v1/assignments/{'s' * 10_000}",
                                               f"Authorization: Bearer {t['prof']}"),
}


@pytest.mark.parametrize("name", list(HEADS))
def test_a_hostile_request_head_is_4xx_or_ordinary(live: Live, name: str) -> None:
    status = _raw(live, HEADS[name](live.tokens))
    assert status == 0 or status < 500, (name, status)
    assert name not in ("dot segments", "encoded dot segments") or status == 404, status
    if name == "two Authorization headers":
        assert status in (200, 400, 401), status  # never the admin's rights
    assert live.healthz_seconds() < stretched(1.0)


def test_the_second_of_two_conflicting_parameters_is_still_checked(target: Api) -> None:
    for query in ("limit=1&limit=100000", "limit=100000&limit=1", "offset=1&offset=-5",
                  "wait=true&wait=maybe", "student=bob&student=carol"):
        answer = target.client.get(f"{UPLOAD}?{query}", headers=target.auth("prof"))
        assert answer.status_code in (200, 422), (query, answer.status_code)
        if answer.status_code == 200:
            assert len(answer.json()) <= 1000


@pytest.mark.parametrize("content_type", [
    "multipart/form-data", "multipart/form-data; boundary=", "multipart/form-data; boundary="
    + "b" * 10_000, "application/json; charset=utf-32", "application/json; charset=x-unknown",
    "text/plain; charset=\u00e9", "multipart/mixed; boundary=abc", "*/*", ";;;;", "",
])
def test_a_lying_content_type_is_4xx_or_read(target: Api, content_type: str) -> None:
    body = b'--abc\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\n' \
           b'B1: 64\r\n--abc--\r\n'
    headers = [(b"authorization", f"Bearer {target.tokens['alice']}".encode()),
               (b"content-type", content_type.encode("utf-8"))]
    answer = target.client.post(UPLOAD, content=body, headers=headers)
    assert answer.status_code in (202, 400, 413, 415, 422), (content_type[:40],
                                                              answer.status_code)


def _cacheable(headers: dict[str, str]) -> bool:
    control = headers.get("cache-control", "").lower()
    return "no-store" not in control and "private" not in control


def test_no_answer_to_a_credentialed_request_may_be_cached(target: Api) -> None:
    uploaded = target.client.post(UPLOAD, params={"wait": "true"},
                                  json={"answers": {"b1.d_head": "64"}},
                                  headers=target.auth("alice"))
    sid = uploaded.json()["id"]
    paths = ["/api/v1/assignments", f"/api/v1/assignments/{SLUG}", f"/api/v1/submissions/{sid}",
             f"/api/v1/submissions/{sid}/results.json", UPLOAD, f"/submissions/{sid}", "/",
             f"/api/v1/assignments/{SLUG}/export.csv", f"/api/v1/assignments/{SLUG}/canvas.csv",
             f"/api/v1/assignments/{SLUG}/results.json", "/api/v1/submissions/999999"]
    cacheable = []
    for who in ("alice", "prof"):
        for path in paths:
            answer = target.client.get(path, headers=target.auth(who))
            if _cacheable(dict(answer.headers)):
                cacheable.append(f"{who} {path}: {answer.status_code}")
    assert not cacheable, cacheable


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "identity, gzip", "x-unknown"])
def test_a_compressed_upload_is_refused_and_nothing_is_stored(target: Api, encoding: str) -> None:
    """A compressed body would otherwise be stored and graded as its compressed bytes (the
    student's answer lost, the grade a zero): 415, and no submission."""
    before = {s["id"] for s in target.client.get(UPLOAD, headers=target.auth("prof")).json()}
    body = gzip.compress(b'{"answers": {"b1.d_head": "64"}}')
    answer = target.client.post(UPLOAD, content=body, headers={
        **target.auth("alice"), "content-type": "application/json", "content-encoding": encoding})
    assert answer.status_code == 415, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    assert "Content-Encoding" in answer.json()["detail"]
    # (the earlier uploads' statuses may move on meanwhile: their ids are compared)
    assert {s["id"] for s in target.client.get(UPLOAD, headers=target.auth("prof")).json()} \
        == before
    plain = target.client.post(UPLOAD, json={"answers": {"b1.d_head": "64"}}, headers={
        **target.auth("alice"), "content-encoding": "identity"})
    assert plain.status_code == 202, plain.text
