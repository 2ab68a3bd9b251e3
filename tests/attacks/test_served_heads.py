"""Request heads against the parser `gradeformer serve` runs (uvicorn with httptools, on uvloop),
which the in-process suites cannot reach (the test client parses no HTTP). A head grown without
end (a header value, the request line, or headers by the hundred thousand) is refused once past
64 KiB instead of being parsed at a cost that grows with the square of its length; and a
connection whose head does not arrive whole in time (nothing sent, a partial head, a head
trickled), or whose body is still trickling in after it was answered, is closed, so idle
connections cannot hold every connection the server allows."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.attacks.conftest import UPLOAD, Running, started
from tests.support.faultkit import Server

HEAD_SECONDS = 1.0  # the server's request_head_seconds here (10 s shipped)
CONNECTIONS = 24  # the server's max_connections here (512 shipped)
SENT = 32 * 1024 * 1024  # what the attacker tries to send: past any socket buffers
CHUNK = 64 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Running]:
    with started(tmp_path_factory, sqlite_template, "heads", {
            "GRADEFORMER_WORKERS": "1", "GRADEFORMER_REQUEST_HEAD_SECONDS": str(HEAD_SECONDS),
            "GRADEFORMER_MAX_CONNECTIONS": str(CONNECTIONS)}) as running:
        yield running


def _healthz(server: Server) -> tuple[int, float]:
    began = time.monotonic()
    answer = httpx.get(f"{server.base}/healthz", timeout=30)
    return answer.status_code, time.monotonic() - began


def _descriptors(server: Server) -> int:
    assert server.process is not None
    return len(os.listdir(f"/proc/{server.process.pid}/fd"))


def _status(reply: bytes) -> int:
    parts = reply.split(b" ", 2)
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def _answers(conn: socket.socket, count: int = 1) -> list[int]:
    """The statuses of the next `count` whole responses on `conn` (bodies read by length)."""
    statuses: list[int] = []
    buffered = b""
    while len(statuses) < count:
        while b"\r\n\r\n" not in buffered:
            chunk = conn.recv(4096)
            assert chunk, (statuses, buffered)
            buffered += chunk
        head, _, buffered = buffered.partition(b"\r\n\r\n")
        length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                      if line.lower().startswith(b"content-length:"))
        while len(buffered) < length:
            buffered += conn.recv(4096)
        buffered = buffered[length:]
        statuses.append(_status(head))
    assert not buffered, "more answers than requests"
    return statuses


GROWN: dict[str, tuple[bytes, Callable[[int], bytes]]] = {
    "a header value": (b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ", lambda n: b"a" * n),
    "the request line": (b"GET /healthz?", lambda n: b"q" * n),
    "headers by the thousand": (b"GET /healthz HTTP/1.1\r\nHost: x\r\n",
                                lambda n: b"X-P: a\r\n" * (n // 8)),
}


@pytest.mark.parametrize("name", list(GROWN))
def test_a_head_grown_without_end_is_refused_before_it_is_all_sent(server: Server,
                                                                   name: str) -> None:
    start, grow = GROWN[name]
    sent = 0
    reply = b""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        try:
            conn.sendall(start)
            piece = grow(CHUNK)
            while sent < SENT:
                conn.sendall(piece)
                sent += len(piece)
            conn.sendall(b"\r\nConnection: close\r\n\r\n")
        except OSError:
            pass  # refused and closed while the head still came
        try:
            while chunk := conn.recv(4096):
                reply += chunk
        except OSError:
            pass
    status = _status(reply)
    assert sent < SENT, f"{name}: all {sent} bytes of the head were taken (answered {status})"
    assert status in (0, 431), reply[:200]
    assert _healthz(server)[1] < 1.0


def test_a_trailer_grown_without_end_is_cut_off(server: Running) -> None:
    """After a chunked body, the trailer's fields: httptools joins their pieces as a header's."""
    sent = 0
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        try:
            conn.sendall(f"POST {UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                         f"Authorization: Bearer {server.tokens['bob']}\r\n"
                         "Transfer-Encoding: chunked\r\n\r\n7\r\nB1: 64\n\r\n0\r\nX-T: ".encode())
            while sent < SENT:
                conn.sendall(b"t" * CHUNK)
                sent += CHUNK
        except OSError:
            pass
    assert sent < SENT, f"all {sent} bytes of the trailer were taken"
    assert _healthz(server)[1] < 1.0


def test_heads_under_the_limit_and_bodies_past_it_are_ordinary(server: Running) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 60_000 + b"\r\n\r\n")
        assert _answers(conn) == [200]
        # The same connection, kept alive: a body of megabytes after a small head is no head.
        body = b"B1: 64\n" * 150_000
        conn.sendall(f"POST {UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                     f"Authorization: Bearer {server.tokens['alice']}\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        assert _answers(conn) == [202]
    # Two requests pipelined in one write, then a third after a pause longer than the deadline.
    with httpx.Client(base_url=server.base, timeout=10) as client:
        assert client.get("/healthz").status_code == 200
        time.sleep(HEAD_SECONDS * 0.5)
        assert client.get("/healthz").status_code == 200
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n" * 2)
        assert _answers(conn, 2) == [200, 200]
        # A body in one-byte chunks (five bytes of framing each) with a trailer is no head.
        conn.sendall(f"POST {UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                     f"Authorization: Bearer {server.tokens['alice']}\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n".encode()
                     + b"".join(b"1\r\n%c\r\n" % c for c in b"B1: 64\n" * 20_000)
                     + b"0\r\nX-T: " + b"t" * 30_000 + b"\r\n\r\n")
        assert _answers(conn) == [202]


def _closed_within(conn: socket.socket, seconds: float, drip: bytes = b"") -> bool:
    """Whether the server closes `conn` within `seconds` (sending `drip` each 0.1 s)."""
    deadline = time.monotonic() + seconds
    conn.settimeout(0.1)
    while time.monotonic() < deadline:
        try:
            if drip:
                conn.sendall(drip)
            if conn.recv(4096) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


@pytest.mark.parametrize("start, drip", [(b"", b""), (b"GET /healthz HTTP/1.1\r\n", b""),
                                         (b"GET /healthz HTTP/1.1\r\n", b"X-A: a\r\n")],
                         ids=["nothing sent", "a partial head", "a head trickled"])
def test_a_head_that_does_not_arrive_in_time_closes_the_connection(
        server: Server, start: bytes, drip: bytes) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(start)
        assert _closed_within(conn, HEAD_SECONDS + 2.0, drip)


@pytest.mark.parametrize("framing", ["Transfer-Encoding: chunked", "Content-Length: 200000"])
def test_a_body_still_arriving_after_its_answer_does_not_hold_the_connection(
        server: Running, framing: str) -> None:
    """/healthz takes no body: it answers at once, and the body that follows is the server's to
    discard, a kilobyte at a time for as long as the client likes."""
    piece = b"400\r\n" + b"x" * 1024 + b"\r\n" if "chunked" in framing else b"x" * 100
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
        conn.sendall(f"POST /healthz HTTP/1.1\r\nHost: x\r\n{framing}\r\n\r\n".encode())
        assert _closed_within(conn, HEAD_SECONDS + 3.0, piece)


def test_idle_connections_cannot_hold_every_connection_the_server_allows(
        server: Server) -> None:
    before = _descriptors(server)
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=10)
            for _ in range(CONNECTIONS + 4)]
    try:
        deadline = time.monotonic() + HEAD_SECONDS + 3.0
        status, _ = _healthz(server)
        while status != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
            status, _ = _healthz(server)
        assert status == 200, "connections that sent nothing still held the server's every one"
    finally:
        for conn in idle:
            conn.close()
    time.sleep(0.2)
    assert _descriptors(server) <= before + 2
