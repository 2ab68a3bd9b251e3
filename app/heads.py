"""Request heads bounded while they arrive, in the HTTP parser `gradeformer serve` runs.

uvicorn parses with httptools when it is installed (it is a dependency: a third less CPU per
upload), and its head limit (`h11_max_incomplete_event_size`) is h11's only. Under httptools a
head had no bound in size or time: one anonymous connection sending a 100 MB header line cost
the server 12 s of CPU (the parser joins the pieces of a value as they arrive, quadratic in its
length) and held /healthz for 7 s; 512 connections that never sent a byte held every
connection the server allows (`max_connections`) for as long as they stayed open, and everyone
else got 503; a 100 MB trailer after a chunked body cost as much as such a header. Here a head
past `max_bytes` is answered 431 and the connection closed, chunk framing and trailers are
bounded alike, and a head (the first, or the next on a kept-alive connection once its first
byte arrives) must be complete within `seconds` of the connection or of that byte, as must a
body still arriving after its request was answered.

What the server answers on its own is problem+json like the app's errors: a head too large
(431), a request its parser cannot read (400, uvicorn's own plain text before), and a request
past `max_connections` (uvicorn's plain-text 503, now with a Retry-After).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from uvicorn._types import ASGI3Application, ASGIReceiveCallable, ASGISendCallable, Scope
from uvicorn.config import Config
from uvicorn.protocols.http.flow_control import service_unavailable
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

# As h11's limit was set: far above any browser's or client's head (cookies and a token).
MAX_HEAD_BYTES = 64 * 1024
# What a message may carry besides its body and head: chunk size lines and trailers. One-byte
# chunks take five bytes of framing per byte of body.
FRAMING_PER_BODY_BYTE = 8
# When a client turned away past `max_connections` may try again: idle connections are closed
# within `request_head_seconds` (10 s shipped), finished ones at once.
OVERLOADED_RETRY_SECONDS = 5
PROBLEM_TYPE = b"application/problem+json"


def _problem(status: int, title: str, detail: str) -> bytes:
    return json.dumps({"type": "about:blank", "title": title, "status": status,
                       "detail": detail}).encode()


def _refusal(status: int, title: str, detail: str) -> bytes:
    body = _problem(status, title, detail)
    return (f"HTTP/1.1 {status} {title}\r\ncontent-type: {PROBLEM_TYPE.decode()}\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


TOO_LARGE = _refusal(431, "Request Header Fields Too Large",
                     f"The request head is larger than the limit of {MAX_HEAD_BYTES} bytes.")
UNREADABLE = _refusal(400, "Bad Request", "The request is not readable as HTTP/1.1.")
_OVERLOADED = _problem(503, "Service Unavailable",
                       "The server has as many connections open as it allows; try again in "
                       f"{OVERLOADED_RETRY_SECONDS} s.")


async def overloaded(scope: Scope, receive: ASGIReceiveCallable,
                     send: ASGISendCallable) -> None:
    """uvicorn's answer past `limit_concurrency` (`service_unavailable`), as a problem."""
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", PROBLEM_TYPE),
        (b"content-length", str(len(_OVERLOADED)).encode()),
        (b"retry-after", str(OVERLOADED_RETRY_SECONDS).encode()),
        (b"connection", b"close"),
    ]})
    await send({"type": "http.response.body", "body": _OVERLOADED, "more_body": False})


class BoundedHeads(HttpToolsProtocol):
    """httptools' protocol with a size cap and a deadline on every request head, the framing
    and trailers of every body bounded, and a deadline on a body still coming after its
    answer."""

    max_bytes = MAX_HEAD_BYTES
    seconds = 10.0

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._in_head = True  # between a message's end (or the connection's start) and a head
        # Since that end: bytes received, and how many of them were body.
        self._received = 0
        self._body_bytes = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._refused = False  # answered 431: what the parser still reads is dropped

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._in_head and self._head_timer is None:  # a head on a kept-alive connection
            self._arm()
        self._received += len(data)
        # Fed first: a piece that completes a small head and carries body bytes is no head.
        super().data_received(data)
        # The head, chunk framing and trailers (httptools joins a trailer's pieces as it does a
        # header's): bounded like a head, with room for the framing of any chunking.
        if self._received - self._body_bytes > (self.max_bytes
                                                 + FRAMING_PER_BODY_BYTE * self._body_bytes):
            self._refuse()

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to bytes its parser refuses (`msg`, plain text, is logged)."""
        if not self.transport.is_closing():
            self.transport.write(UNREADABLE)
            self.transport.close()

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: ASGI3Application) -> None:
        # uvicorn chose its own plain-text 503 for this request (past `limit_concurrency`).
        super()._start_asgi_task(cycle, overloaded if app is service_unavailable else app)

    def on_headers_complete(self) -> None:
        if self._refused:
            return
        # A head past the limit that arrived in one read (up to 256 KiB) is whole before the
        # check in data_received sees it: its size as parsed, before its request starts.
        if len(self.url) + sum(len(name) + len(value) + 4
                               for name, value in self.headers) > self.max_bytes:
            self._refuse()
            return
        self._in_head = False
        self._disarm()
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if self._refused:
            return
        self._body_bytes += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        if self._refused:
            return
        super().on_message_complete()
        self._in_head = True
        self._received = self._body_bytes = 0

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self._in_head and not self.transport.is_closing():
            # Answered before its body was read (a refusal, a route that takes none), and the
            # body still arriving: it may take as long as a head to end, then the connection
            # closes (a body to /healthz that never ends held one for good).
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._head_timer = self.loop.call_later(self.seconds, self._expired)

    def _disarm(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _expired(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        answered = self.cycle is None or self.cycle.response_complete
        if self._in_head and not answered:
            self._arm()  # a pipelined head waits behind an answer still being written
        elif answered:  # no request arrived whole, or an answered one's body never ends
            self.transport.close()

    def _refuse(self) -> None:
        self._refused = True
        self._disarm()
        if self.transport.is_closing():
            return
        # The request's own cycle, or in a head the one before it (none: the first, or an
        # upgrade's, which has none); an answer is on the wire once started, until complete.
        cycle = self.cycle
        writing = (cycle is not None and cycle.response_started
                   and not (self._in_head and cycle.response_complete))
        if not writing:  # no answer of the app's is on the wire: this one is the answer
            self.transport.write(TOO_LARGE)
        self.transport.close()


def bounded_heads(seconds: float) -> type[BoundedHeads]:
    """The protocol `serve` hands uvicorn, its head deadline the operator's."""
    return type("BoundedHeads", (BoundedHeads,), {"seconds": seconds})
