"""Uploads trickled at the body's minimum rate, on a real server over sockets: a student with a
real token starts many uploads at once and keeps each alive by sending just enough bytes (a
credentialed body's deadline grows with what arrived), to hold the server's connections for
half an hour and have everyone else refused. A student has at most four uploads in progress
at once: the others are answered 429 at once, before their body is read, and the
server's /healthz answers meanwhile."""

from __future__ import annotations

import socket
import time

from tests.attacks.conftest import UPLOAD, Live
from tests.support.pace import stretched

STARTED = 8
IN_PROGRESS = 4  # the server's uploads_in_progress as shipped


def _start(live: Live, token: str) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", live.port), timeout=5)
    conn.sendall(f"POST {UPLOAD} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                 "Content-Type: text/plain\r\nContent-Length: 1000000\r\n\r\nB1: 64\n".encode())
    return conn


def _answered(conn: socket.socket) -> bytes:
    conn.settimeout(0.2)
    try:
        return conn.recv(4096)
    except TimeoutError:
        return b""
    except OSError:
        return b"closed"


def test_one_student_cannot_hold_more_than_a_few_upload_bodies_open(live: Live) -> None:
    conns = [_start(live, live.tokens["bob"]) for _ in range(STARTED)]
    try:
        answers = [b""] * STARTED
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:
            for n, conn in enumerate(conns):
                if not answers[n]:
                    answers[n] = _answered(conn)
                    if not answers[n]:
                        conn.sendall(b"x" * 200)  # a second's worth of the minimum rate
        held = sum(1 for a in answers if not a)
        refused = [a.split(b"\r\n", 1)[0] for a in answers if a]
        assert held <= IN_PROGRESS, (held, refused)
        assert all(b" 429 " in line for line in refused), refused
        assert live.healthz_seconds() < stretched(1.0)
    finally:
        for conn in conns:
            conn.close()
