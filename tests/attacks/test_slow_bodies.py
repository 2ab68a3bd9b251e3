"""Slowloris with credentials, on a real server over sockets: a body dripped a byte at a time
behind a made-up or a real bearer token, or a student's session cookie, on routes that read
their body before checking who is asking. Each connection is dropped by its whole-body
deadline (an anonymous client's, not the upload's longer one), and /healthz answers meanwhile."""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.db.session import make_engine, make_sessionmaker
from tests.app.conftest import copy_sqlite, make_tokens
from tests.support.faultkit import Server
from tests.support.pace import stretched

ANONYMOUS_SECONDS = 2  # the server's anonymous_body_seconds here (10 as shipped)
READ_TIMEOUT = 20  # body_read_timeout: what an upload's body gets before its rate allowance


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory,
           sqlite_template: Path) -> Iterator[tuple[Server, dict[str, str]]]:
    directory = tmp_path_factory.mktemp("slow")
    url = copy_sqlite(sqlite_template, directory)
    engine = make_engine(url)
    tokens = make_tokens(make_sessionmaker(engine))
    engine.dispose()
    live = Server({"GRADEFORMER_DATABASE_URL": url, "GRADEFORMER_WORKERS": "1",
                   "GRADEFORMER_ANONYMOUS_BODY_SECONDS": str(ANONYMOUS_SECONDS),
                   "GRADEFORMER_BODY_READ_TIMEOUT": str(READ_TIMEOUT)},
                  directory / "server.log")
    live.start()
    try:
        yield live, tokens
    finally:
        live.signal_group(signal.SIGTERM)


def _drip(port: int, path: str, credential: str, seconds: float) -> float:
    """Send a request head and then one body byte a second; how long until the server ends
    the connection (or `seconds`, if it never does)."""
    began = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=seconds) as conn:
        conn.sendall(f"POST {path} HTTP/1.1\r\nHost: x\r\n{credential}\r\n"
                     "Content-Type: application/json\r\nContent-Length: 5000\r\n\r\n".encode())
        conn.settimeout(1.0)
        while time.monotonic() - began < seconds:
            try:
                conn.sendall(b" ")
                if conn.recv(4096) == b"":
                    break
            except TimeoutError:
                continue
            except OSError:
                break
            else:
                break  # the server answered (408) and closes
    return time.monotonic() - began


@pytest.mark.parametrize(("path", "credential"), [
    ("/api/v1/tokens", "Authorization: Bearer made-up"),
    ("/api/v1/tokens", "Authorization: Bearer {root}"),
    ("/api/v1/submissions/1/items/b1.d_head/override", "Authorization: Bearer {prof}"),
    ("/sign-in", "Cookie: gf_session=made-up"),
])
def test_a_dripped_body_behind_a_credential_is_dropped_like_an_anonymous_one(
        server: tuple[Server, dict[str, str]], path: str, credential: str) -> None:
    live, tokens = server
    held = _drip(live.port, path, credential.format(**tokens), READ_TIMEOUT)
    assert held < ANONYMOUS_SECONDS + 4, held
    began = time.monotonic()
    assert httpx.get(f"{live.base}/healthz", timeout=5).status_code == 200
    assert time.monotonic() - began < stretched(1.0)
