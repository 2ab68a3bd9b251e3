"""What `gradeformer serve` answers on its own and to HEAD, over real sockets: HEAD on every kind
of GET route answers as GET would, without the body (browsers, link checkers and load balancers
send it); the answers the server writes without the app (past `max_connections`, to a request
its parser cannot read, a head too large) are problem+json like every other error; and a
multipart body dripped slower than the minimum rate (slowloris) does not hold its connection,
anonymous or a student's."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.attacks.conftest import SLUG, UPLOAD, Running, started
from tests.attacks.test_served_heads import _closed_within

CONNECTIONS = 8  # the server's max_connections here (512 shipped)
SECONDS = 1.0  # its head, anonymous body and body read deadlines here (10, 10, 30 shipped)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Running]:
    env = {"GRADEFORMER_WORKERS": "1", "GRADEFORMER_MAX_CONNECTIONS": str(CONNECTIONS),
           **{f"GRADEFORMER_{name}": str(SECONDS) for name in (
               "REQUEST_HEAD_SECONDS", "ANONYMOUS_BODY_SECONDS", "BODY_READ_TIMEOUT")}}
    with started(tmp_path_factory, sqlite_template, "answers", env) as running:
        yield running


def _read_answer(conn: socket.socket, head_only: bool = False) -> tuple[int, dict[str, str],
                                                                        bytes]:
    """One whole answer: status, headers (lower-cased names), body (read by its length; none
    for an answer to HEAD, whose length is the GET's)."""
    buffered = b""
    while b"\r\n\r\n" not in buffered:
        chunk = conn.recv(65536)
        assert chunk, buffered
        buffered += chunk
    head, _, body = buffered.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {name.strip().lower(): value.strip()
               for name, _, value in (line.partition(":") for line in lines[1:])}
    if head_only:
        return status, headers, body
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = conn.recv(65536)
        assert chunk, (status, headers, body)
        body += chunk
    return status, headers, body


def _request(method: str, path: str, token: str | None = None) -> bytes:
    auth = f"Authorization: Bearer {token}\r\n" if token else ""
    return f"{method} {path} HTTP/1.1\r\nHost: x\r\n{auth}\r\n".encode()


@pytest.mark.parametrize("path, who", [
    ("/healthz", None),
    ("/api/v1/assignments", "alice"),  # JSON, with a bearer token
    ("/api/v1/assignments/transformer-basics", "prof"),
    ("/", None),  # a page (the sign-in form)
    ("/static/web.css", None),
    ("/openapi.json", None),
    ("/api/v1/assignments/no-such-thing", "alice"),  # a 404 problem
    ("/api/v1/assignments", None),  # a 401 problem
])
def test_head_answers_as_get_without_a_body(server: Running, path: str, who: str | None) -> None:
    token = server.tokens[who] if who else None
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(_request("GET", path, token))
        got_status, got_headers, got_body = _read_answer(conn)
        # HEAD, then a GET of /healthz on the same connection: had HEAD's answer carried a
        # body, the second answer's head would not come next.
        conn.sendall(_request("HEAD", path, token) + _request("GET", "/healthz"))
        status, headers, rest = _read_answer(conn, head_only=True)
        assert status == got_status != 405, rest[:200]
        assert headers["content-type"] == got_headers["content-type"]
        assert headers.get("content-length") == str(len(got_body))
        assert headers.get("cache-control") == got_headers.get("cache-control")
        after = rest
        while b"\r\n\r\n" not in after:
            chunk = conn.recv(65536)
            assert chunk, after
            after += chunk
        assert after.startswith(b"HTTP/1.1 200 "), after[:200]


def test_head_on_a_route_without_get_is_still_405(server: Running) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(_request("HEAD", "/sign-out")
                     + _request("GET", "/healthz"))
        status, headers, rest = _read_answer(conn, head_only=True)
        assert status == 405
        assert "HEAD" not in headers.get("allow", "")
        after = rest + conn.recv(65536)
        assert after.startswith(b"HTTP/1.1 200 "), after[:200]


def _problem(status: int, headers: dict[str, str], body: bytes) -> dict[str, object]:
    assert headers["content-type"] == "application/problem+json", (status, headers, body)
    problem: dict[str, object] = json.loads(body)
    assert problem["status"] == status
    assert isinstance(problem["title"], str) and isinstance(problem["detail"], str)
    return problem


def test_past_max_connections_the_refusal_is_a_problem(server: Running) -> None:
    """Connections held open after an answer (kept alive for 5 s), until one more is refused:
    each was answered, so the server counts it, however loaded the machine."""
    held: list[socket.socket] = []
    try:
        for _ in range(CONNECTIONS + 1):
            conn = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            held.append(conn)
            conn.sendall(_request("GET", "/healthz"))
            status, headers, body = _read_answer(conn)
            if status != 200:
                break
        assert status == 503, "as many connections as the server allows, and one more, taken"
        _problem(status, headers, body)
        assert int(headers["retry-after"]) > 0
    finally:
        for conn in held:
            conn.close()


@pytest.mark.parametrize("garbage", [b"GARBAGE\x00\r\n\r\n", b"GET / HTTP/9.9\r\n\r\n",
                                     b"GET /healthz HTTP/1.1\r\nBad Header\r\n\r\n",
                                     b"GET /healthz HTTP/1.1\nHost: x\n\n"])
def test_a_request_the_parser_cannot_read_is_answered_with_a_problem(
        server: Running, garbage: bytes) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(garbage)
        status, headers, body = _read_answer(conn)
    assert status == 400
    _problem(status, headers, body)


BIG_HEAD = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 70_000 + b"\r\n\r\n"


@pytest.mark.parametrize("kept_alive", [False, True])
def test_a_head_too_large_in_one_write_is_answered_with_a_problem(server: Running,
                                                                  kept_alive: bool) -> None:
    """70 KB in one write (one read for the server): the whole head at once, first on its
    connection or after an answered request."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        if kept_alive:
            conn.sendall(_request("GET", "/healthz"))
            assert _read_answer(conn)[0] == 200
        conn.sendall(BIG_HEAD)
        status, headers, body = _read_answer(conn)
    assert status == 431
    _problem(status, headers, body)


def test_a_small_head_and_a_big_body_in_one_write_are_taken(server: Running) -> None:
    """The head is what the parser read as one, not the read it came in."""
    body = b"B1: 64\n" * 20_000
    head = (f"POST {UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
            f"Authorization: Bearer {server.tokens['bob']}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(head + body)
        assert _read_answer(conn)[0] == 202


@pytest.mark.parametrize("path, who", [(UPLOAD, None), (f"/assignments/{SLUG}/submit", None),
                                       (UPLOAD, "alice")])
def test_a_multipart_body_dripped_slowly_does_not_hold_its_connection(
        server: Running, path: str, who: str | None) -> None:
    """Ten bytes a second of part headers that never end: the anonymous upload is refused
    (401) or shown the sign-in page at once and its body then has the head deadline; the
    student's upload has its body deadline (408)."""
    auth = f"Authorization: Bearer {server.tokens[who]}\r\n" if who else ""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\n{auth}"
                     "Content-Type: multipart/form-data; boundary=b\r\n"
                     "Content-Length: 1000000\r\n\r\n--b\r\n".encode())
        assert _closed_within(conn, SECONDS + 4.0, b"X")
