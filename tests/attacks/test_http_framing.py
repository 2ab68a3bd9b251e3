"""HTTP framing and heads, other spellings, on a real server over sockets: two requests
pipelined on one connection, an Authorization header of 60 KB, of another scheme, repeated or
not ASCII; 5,000 cookies in one header and 2,000 Cookie headers; Content-Length with
Transfer-Encoding (request smuggling), two Content-Lengths, a negative one; a chunk size past
2^64, a chunk extension of 60 KB, 50,000 one-byte chunks; Transfer-Encoding gzip; Expect:
100-continue; an absolute URI, HTTP/1.0 without Host, OPTIONS *, TRACE, CONNECT, the HTTP/2
preface and Upgrade requests. Each is answered with a status (4xx for the malformed ones,
never a 5xx), the server keeps answering /healthz within a second after each, and nothing is
answered twice or for a request that was not made."""

from __future__ import annotations

import re
import socket
import time

import pytest

from tests.attacks.conftest import UPLOAD, Live
from tests.support.pace import stretched

HEAD = re.compile(rb"HTTP/1\.1 (\d{3}) ")


def _exchange(live: Live, data: bytes, seconds: float = 3.0, answers: int = 1) -> list[int]:
    """The statuses the server sent back on one connection within `seconds` (or until it
    closed it, or once `answers` whole responses have come and 0.2 s passed without more)."""
    with socket.create_connection(("127.0.0.1", live.port), timeout=5) as conn:
        conn.sendall(data)
        conn.settimeout(0.2)
        got, end = b"", time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                chunk = conn.recv(65536)
            except TimeoutError:
                if _complete(got) >= answers:
                    break
                continue
            except OSError:
                break
            if not chunk:
                break
            got += chunk
    return [int(code) for code in HEAD.findall(got)]


def _complete(got: bytes) -> int:
    """How many whole responses with a Content-Length `got` holds, one after another (an
    interim 1xx response, which has no body, is passed over)."""
    count = 0
    while (end := got.find(b"\r\n\r\n")) >= 0:
        if got.startswith(b"HTTP/1.1 1"):
            got = got[end + 4:]
            continue
        length = re.search(rb"content-length: (\d+)", got[:end], re.IGNORECASE)
        if length is None or len(got) - end - 4 < int(length.group(1)):
            return count
        count += 1
        got = got[end + 4 + int(length.group(1)):]
    return count


def _post(token: str, headers: str, body: bytes = b"") -> bytes:
    return (f"POST {UPLOAD} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: text/plain\r\n{headers}\r\n").encode() + body


def _cases(token: str) -> dict[str, tuple[bytes, set[int]]]:
    auth = f"Authorization: Bearer {token}\r\n"
    get = "GET /api/v1/assignments HTTP/1.1\r\nHost: x\r\n"
    return {
        "two pipelined requests": ((f"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n{get}{auth}\r\n"
                                    ).encode(), {200}),
        "a 60 KB bearer token": (f"{get}Authorization: Bearer {'A' * 60_000}\r\n\r\n".encode(),
                                 {401, 431, 400}),
        "basic authorization": (f"{get}Authorization: Basic Zm9vOmJhcg==\r\n\r\n".encode(),
                                {401}),
        "authorization twice": (f"{get}{auth}Authorization: Bearer x\r\n\r\n".encode(),
                                {200, 400, 401}),
        "a token not in ASCII": ((get + "Authorization: Bearer \u00e9\u00e9\r\n\r\n")
                                 .encode("latin-1"), {400, 401}),
        "5,000 cookies": (b"GET / HTTP/1.1\r\nHost: x\r\nCookie: " + b"; ".join(
            b"c%d=%d" % (i, i) for i in range(5000)) + b"\r\n\r\n", {200, 400, 431}),
        "2,000 Cookie headers": (b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(
            b"Cookie: gf_session=%d\r\n" % i for i in range(2000)) + b"\r\n", {200, 400, 431}),
        "Content-Length with Transfer-Encoding": (_post(
            token, "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n",
            b"0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), {400}),
        "two Content-Lengths": (_post(token, "Content-Length: 7\r\nContent-Length: 70\r\n",
                                      b"B1: 64\n"), {400}),
        "a negative Content-Length": (_post(token, "Content-Length: -1\r\n", b"B1: 64\n"),
                                      {400}),
        "a chunk size past 2^64": (_post(token, "Transfer-Encoding: chunked\r\n",
                                         b"ffffffffffffffffffff\r\nB1: 64\r\n0\r\n\r\n"),
                                   {400, 413}),
        "a 60 KB chunk extension": (_post(token, "Transfer-Encoding: chunked\r\n",
                                          b"7;" + b"a=b;" * 15_000 + b"\r\nB1: 64\n\r\n0\r\n\r\n"),
                                    {400, 413, 431}),
        "50,000 one-byte chunks": (_post(token, "Transfer-Encoding: chunked\r\n",
                                         b"1\r\nx\r\n" * 50_000 + b"0\r\n\r\n"),
                                   {202, 400, 413, 422, 429}),
        "Transfer-Encoding gzip": (_post(token, "Transfer-Encoding: gzip, chunked\r\n",
                                         b"0\r\n\r\n"), {400, 411, 415, 422, 501}),
        "Expect: 100-continue": (_post(token, "Content-Length: 7\r\nExpect: 100-continue\r\n",
                                       b"B1: 64\n"), {100, 202, 429}),
        "an absolute URI": (b"GET http://evil.example/healthz HTTP/1.1\r\nHost: x\r\n\r\n",
                            {200, 400, 404}),
        "HTTP/1.0 without Host": (b"GET /healthz HTTP/1.0\r\n\r\n", {200, 400}),
        "OPTIONS *": (b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", {400, 404, 405}),
        "TRACE": (b"TRACE / HTTP/1.1\r\nHost: x\r\n\r\n", {400, 404, 405}),
        "CONNECT": (b"CONNECT evil:443 HTTP/1.1\r\nHost: evil:443\r\n\r\n", {400, 404, 405}),
        "the HTTP/2 preface": (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", {400, 505}),
        "Upgrade: websocket": (b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                               b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25j"
                               b"ZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", {200, 400, 404}),
        "Upgrade: h2c": (b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade, "
                         b"HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
                         {200, 400}),
    }


NAMES = list(_cases("t"))


@pytest.mark.parametrize("name", NAMES)
def test_odd_framing_is_answered_and_the_server_keeps_answering(live: Live, name: str) -> None:
    data, allowed = _cases(live.tokens["bob"])[name]
    statuses = _exchange(live, data, answers=2 if name == "two pipelined requests" else 1)
    assert statuses, (name, "no answer")
    assert all(s < 500 for s in statuses), (name, statuses)
    final = [s for s in statuses if s != 100]
    assert final and final[0] in allowed, (name, statuses)
    if name == "two pipelined requests":
        assert statuses == [200, 200], statuses  # both answered, in order, once each
    if name == "Content-Length with Transfer-Encoding":
        assert len(statuses) == 1, statuses  # the smuggled /healthz is never answered
    assert live.healthz_seconds() < stretched(1.0)
