"""The HTTP edge, as plain ASGI: request bodies capped while they arrive, headers on the way out,
HEAD answered as GET.

All run before routing, so before authentication: an anonymous client cannot make the server
buffer a large body, and no route can forget the security headers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Callable

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger(__name__)

# Uploads may be as large as the upload limit plus multipart framing; anything else is a small
# JSON body or form.
# The API's upload and the web app's upload form (app/web/submit.py).
UPLOAD_PATH = re.compile(
    r"^/(?:api/v1/assignments/[^/]{1,200}/submissions|assignments/[^/]{1,200}/submit)/?$"
)

SECURITY_HEADERS: list[tuple[bytes, bytes]] = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]
# What a response says about caching unless its route says otherwise (the static files do):
# nothing is kept, by a shared proxy or by the browser. Answers depend on who asks (a student's
# grades, staff exports reached with a session cookie), and a kept copy would be shown to the
# next user of the proxy or of a shared computer.
NO_STORE = (b"cache-control", b"no-store")


# Pages are self-contained: the app's own stylesheet (no inline styles: a page that could take
# a style attribute could be restyled by injected markup), scripts carrying the page's nonce
# (inline or the bundled /static/web.js), nothing from elsewhere, and never inside another
# site's frame. The bundled script talks to this server only (an upload's progress, a staff
# batch's polling).
HTML_POLICY = (
    "default-src 'none'; script-src {scripts}; style-src 'self'; "
    "img-src data:; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'"
)
# The interactive API pages (app/api_docs.py) load their assets from this server only; Swagger
# UI starts from an inline script with the nonce, ReDoc styles inline (its rendering needs
# 'unsafe-inline' styles: these two pages show no student text) and renders in a worker.
DOCS_PATHS = frozenset({"/docs", "/redoc", "/docs/oauth2-redirect"})
DOCS_POLICY = (
    "default-src 'none'; script-src 'self' {scripts}; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:; "
    "base-uri 'none'; frame-ancestors 'none'"
)
NONCE_STATE = "csp_nonce"  # set on request.state by a page with inline scripts


class _TooLarge(HTTPException):
    """Raised from `receive`: as an HTTPException it reaches the problem+json handler even
    when the route's body parsing wraps other errors (FastAPI turns those into 400)."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"The request body is larger than the limit of {limit} bytes.")


class _TooSlow(HTTPException):
    def __init__(self) -> None:
        super().__init__(408, "The request body did not arrive in time.")


def _problem(status: int, title: str, detail: str, path: str) -> bytes:
    return json.dumps(
        {"type": "about:blank", "title": title, "status": status, "detail": detail,
         "instance": path}
    ).encode()


def _credentialed(scope: Scope) -> bool:
    """A bearer token or a page session is presented (not yet checked: that needs the body's
    route). Anything else is anonymous: its body is small and must arrive at once."""
    for name, value in scope.get("headers") or []:
        if name == b"authorization" and value[:7].lower() == b"bearer ":
            return True
        if name == b"cookie" and b"gf_session=" in value:
            return True
    return False


class BodyLimit:
    """413 for a body over the cap, whether declared (Content-Length) or streamed; 408 for a
    body that stalls longer than `read_timeout` between chunks, or that is not complete by its
    deadline: an anonymous request's whole body within `anonymous_seconds`; one that presents a
    credential within `read_timeout` (an upload) or `anonymous_seconds` (anything else) plus a
    second for every `min_rate` bytes received (a slow line still uploads; a body dripped a
    byte at a time cannot hold a connection for long)."""

    def __init__(
        self,
        app: ASGIApp,
        limit_for: Callable[[str], int],
        read_timeout: float,
        anonymous_seconds: float = 10.0,
        min_rate: int = 1000,
    ) -> None:
        self.app = app
        self.limit_for = limit_for
        self.read_timeout = read_timeout
        self.anonymous_seconds = anonymous_seconds
        self.min_rate = min_rate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        limit = self.limit_for(path)
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            await self._reject(send, 413, path, limit)
            return
        received = 0
        complete = False
        started = False
        loop = asyncio.get_running_loop()
        begun = loop.time()
        anonymous = not _credentialed(scope)
        # Only the upload routes check the credential before reading the body: elsewhere the
        # body is read first, so a made-up "Bearer x" must not buy more than an anonymous
        # client's start (small bodies: a slow line still gets a second per min_rate bytes).
        grace = self.read_timeout if UPLOAD_PATH.match(path) else self.anonymous_seconds

        def deadline() -> float:
            if anonymous:
                return begun + min(self.anonymous_seconds, self.read_timeout)
            return begun + min(grace, self.read_timeout) + received / self.min_rate

        async def capped_receive() -> Message:
            nonlocal received, complete
            if complete:  # after the body, receive() waits for a disconnect: no deadline
                return await receive()
            now = loop.time()
            wait = min(self.read_timeout, deadline() - now)
            try:
                if wait <= 0:
                    raise TimeoutError
                message = await asyncio.wait_for(receive(), wait)
            except TimeoutError:
                raise _TooSlow() from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _TooLarge(limit)
                complete = not message.get("more_body", False)
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, capped_receive, tracking_send)
        except (_TooLarge, _TooSlow) as exc:
            if started:
                raise
            await self._reject(send, 413 if isinstance(exc, _TooLarge) else 408, path, limit)

    @staticmethod
    async def _reject(send: Send, status: int, path: str, limit: int) -> None:
        if status == 413:
            body = _problem(
                413, "Request too large",
                f"The request body is larger than the limit of {limit} bytes.", path,
            )
        else:
            body = _problem(408, "Request timeout",
                            "The request body did not arrive in time.", path)
        await send({
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/problem+json"),
                (b"content-length", str(len(body)).encode()),
                # The rest of the body is not read: the connection cannot carry another request.
                (b"connection", b"close"),
                *SECURITY_HEADERS,
                NO_STORE,
            ],
        })
        await send({"type": "http.response.body", "body": body})


class SecurityHeaders:
    """nosniff and no-referrer on everything; `no-store` unless the route chose a caching
    policy; a CSP with this response's nonce on HTML."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [
                    (k, v) for k, v in message.get("headers", [])
                    if k.lower() not in {name for name, _ in SECURITY_HEADERS}
                ]
                headers.extend(SECURITY_HEADERS)
                if not any(k.lower() == NO_STORE[0] for k, _ in headers):
                    headers.append(NO_STORE)
                content_type = dict(headers).get(b"content-type", b"")
                if content_type.startswith(b"text/html"):
                    nonce = scope.get("state", {}).get(NONCE_STATE)
                    scripts = f"'nonce-{nonce}'" if nonce else "'none'"
                    policy = (
                        DOCS_POLICY if scope.get("path") in DOCS_PATHS else HTML_POLICY
                    ).format(scripts=scripts)
                    headers.append((b"content-security-policy", policy.encode()))
                    headers.append((b"x-frame-options", b"DENY"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)


class HeadAsGet:
    """HEAD answered as GET would be, without the body (FastAPI's routes take only the methods
    they name, so HEAD was 405 everywhere but the OpenAPI document; browsers, link checkers and
    load balancers send it). The routes see GET: a GET is a read, and so is HEAD. The headers,
    Content-Length included, are the GET's (RFC 9110, 9.3.2)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def without_body(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # nothing to send until the end of the GET's body
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        # A copy: the server keeps its own scope, and knows the request was HEAD.
        await self.app({**scope, "method": "GET"}, receive, without_body)
