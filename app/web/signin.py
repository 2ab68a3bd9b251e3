"""Signing in and out of the web app.

The sign-in form POSTs the token once; the answer sets an HttpOnly, SameSite=Strict session
cookie and redirects back. The token is never part of a URL, so it reaches neither access logs
nor browser history nor a Referer header. Students may sign in too: they see their own
submissions with student feedback only, and a 403 page on staff pages.
"""

from __future__ import annotations

from urllib.parse import parse_qs

from fastapi import APIRouter, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.auth.page_sessions import COOKIE
from app.auth.service import authenticate
from app.db.session import unit_of_work
from app.errors import DomainError
from app.web.auth import local, page_sessions, sign_in_page

router = APIRouter(tags=["web"])


def _check(sessions_factory: sessionmaker[Session], token: str) -> None:
    with unit_of_work(sessions_factory) as session:
        authenticate(session, token)


@router.post("/sign-in", response_class=HTMLResponse, include_in_schema=False)
async def sign_in(request: Request) -> Response:
    """Exchange a token (posted once) for a session cookie, then go back to `next`."""
    form = parse_qs((await request.body()).decode("utf-8", "replace"), max_num_fields=10)
    token = (form.get("token") or [""])[0].strip()
    next_path = local((form.get("next") or ["/"])[0])
    try:
        await run_in_threadpool(_check, request.app.state.read_sessions, token)
    except DomainError as exc:
        return sign_in_page("Sign in", next_path, exc.detail, exc.status)
    sessions = page_sessions(request)
    response = RedirectResponse(next_path, status_code=status.HTTP_303_SEE_OTHER)
    response.set_cookie(
        COOKIE,
        sessions.open(token),
        max_age=int(sessions.ttl),
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


@router.post("/sign-out", include_in_schema=False)
def sign_out(request: Request) -> Response:
    """End the session. No CSRF token needed: the SameSite=Strict cookie never comes with a
    request from another site, so such a request has no session to end."""
    page_sessions(request).close(request.cookies.get(COOKIE))
    response = RedirectResponse("/", status_code=status.HTTP_303_SEE_OTHER)
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")
    return response
