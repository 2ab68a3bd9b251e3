"""The dashboard as a page a person opens in a browser: self-contained HTML, inline JS and SVG.

Signing in: the page shows a form that POSTs the instructor token to /sign-in once; the answer
sets an HttpOnly, SameSite=Strict session cookie and redirects back. The token is never part of
a URL, so it reaches neither access logs nor browser history nor a Referer header.
"""

from __future__ import annotations

import html
import json
import secrets
from pathlib import Path
from urllib.parse import parse_qs

from fastapi import APIRouter, Request, status
from fastapi.encoders import jsonable_encoder
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.auth.dependencies import is_staff
from app.auth.page_sessions import COOKIE, PageSessions
from app.auth.service import authenticate
from app.dashboard.service import dashboard
from app.db.session import unit_of_work
from app.deps import SessionDep
from app.errors import DomainError, NotAuthenticated, NotPermitted
from app.middleware import NONCE_STATE
from app.review.service import review_queue

router = APIRouter(tags=["dashboard"])

TEMPLATE = Path(__file__).with_name("dashboard.html")
SIGN_IN = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>gradeformer: sign in</title></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem auto; max-width: 30rem">
<h1>{title}</h1>{message}<form method="post" action="/sign-in">
<input type="hidden" name="next" value="{next}"><label>Instructor token<br>
<input type="password" name="token" autocomplete="off" style="width: 100%" required></label>
<p><button type="submit">Sign in</button></p></form></body></html>"""
PRIVATE = {"Cache-Control": "no-store"}


def _embed(data: object) -> str:
    # Inside <script>, "</" would end the element early; \u003c keeps the JSON intact.
    return json.dumps(jsonable_encoder(data)).replace("<", "\\u003c")


def _sign_in_page(title: str, next_path: str, message: str = "", code: int = 200) -> HTMLResponse:
    page = SIGN_IN.format(
        title=html.escape(title),
        next=html.escape(next_path, quote=True),
        message=f"<p>{html.escape(message)}</p>" if message else "",
    )
    return HTMLResponse(page, status_code=code, headers=PRIVATE)


def _sessions(request: Request) -> PageSessions:
    sessions: PageSessions = request.app.state.page_sessions
    return sessions


def _local(path: str) -> str:
    """Only a path on this server is a place to go back to (no open redirect)."""
    if path.startswith("/") and not path.startswith("//") and "\\" not in path:
        return path
    return "/"


@router.get(
    "/assignments/{slug}/dashboard", response_class=HTMLResponse,
    summary="The assignment's dashboard page (HTML)",
)
def dashboard_page(slug: str, request: Request, session: SessionDep) -> HTMLResponse:
    """The instructors' page: statistics and the review queue. Without a signed-in session
    (a cookie, never a token in the URL) it answers with the sign-in form.

    Errors: 403 the signed-in user is not an instructor; 404 unknown assignment."""
    token = _sessions(request).token(request.cookies.get(COOKIE))
    if token is None:
        return _sign_in_page(slug, request.url.path)
    try:
        user = authenticate(session, token)
    except NotAuthenticated:  # the token was revoked since signing in
        _sessions(request).close(request.cookies.get(COOKIE))
        return _sign_in_page(slug, request.url.path, "Your session has ended; sign in again.")
    if not is_staff(user):
        raise NotPermitted("Only instructors may open the dashboard.")
    data = {"dashboard": dashboard(session, slug), "review": review_queue(session, slug, 100)}
    nonce = secrets.token_urlsafe(16)
    setattr(request.state, NONCE_STATE, nonce)
    page = TEMPLATE.read_text(encoding="utf-8")
    page = page.replace("{{TITLE}}", html.escape(slug)).replace("{{DATA}}", _embed(data))
    page = page.replace("<script>", f'<script nonce="{nonce}">')
    return HTMLResponse(page, headers=PRIVATE)


def _check(sessions_factory: sessionmaker[Session], token: str) -> None:
    with unit_of_work(sessions_factory) as session:
        user = authenticate(session, token)
    if not is_staff(user):
        raise NotPermitted("Only instructors may sign in here.")


@router.post("/sign-in", response_class=HTMLResponse, include_in_schema=False)
async def sign_in(request: Request) -> Response:
    form = parse_qs((await request.body()).decode("utf-8", "replace"), max_num_fields=10)
    token = (form.get("token") or [""])[0].strip()
    next_path = _local((form.get("next") or ["/"])[0])
    try:
        await run_in_threadpool(_check, request.app.state.read_sessions, token)
    except DomainError as exc:
        return _sign_in_page("Sign in", next_path, exc.detail, exc.status)
    session_id = _sessions(request).open(token)
    response = RedirectResponse(next_path, status_code=status.HTTP_303_SEE_OTHER)
    response.set_cookie(
        COOKIE,
        session_id,
        max_age=int(_sessions(request).ttl),
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/sign-out", include_in_schema=False)
def sign_out(request: Request) -> Response:
    _sessions(request).close(request.cookies.get(COOKIE))
    response = RedirectResponse("/", status_code=status.HTTP_303_SEE_OTHER)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response
