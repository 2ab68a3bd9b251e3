"""Signing in and out of the web app.

The sign-in form POSTs the token once; the answer sets an HttpOnly, SameSite=Strict session
cookie and redirects back. A sign-in posted by another site's page is refused (login CSRF: it
would sign the browser in as the attacker), and attempts are throttled per address and per
token, so that neither guessing nor a flood of sign-ins can crowd anyone out. The token is
never part of a URL, so it reaches neither access logs nor browser history nor a Referer header.
Students may sign in too: they see their own submissions with student feedback only, and a 403
page on staff pages.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qs

from fastapi import APIRouter, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.auth.page_sessions import COOKIE, SessionsFull
from app.auth.service import authenticate
from app.db.session import unit_of_work
from app.errors import DomainError
from app.ratelimit import RateBuckets, address_key
from app.settings import Settings
from app.web.auth import FORM_COOKIE, local, page_sessions, sign_in_page

router = APIRouter(tags=["web"])


# Fetch metadata a browser sends with a form POST that another site's page started.
_FOREIGN_SITES = frozenset({"cross-site", "same-site"})


class SignInLimits:
    def __init__(self, settings: Settings) -> None:
        self.by_address = RateBuckets(settings.sign_ins_per_minute, settings.sign_in_burst)
        per_token = settings.sign_ins_per_token_per_minute
        self.by_token = RateBuckets(per_token, max(1, int(per_token)))

    def wait(self, address: str, token: str) -> int:
        """Seconds to wait before trying again, 0 if this attempt may go ahead."""
        digest = hashlib.sha256(token.encode("utf-8", "replace")).digest()
        return self.by_address.take(address_key(address)) or self.by_token.take(digest)


def _from_another_site(request: Request, form_mark: str) -> bool:
    """Whether a browser posted this from another site's page. A browser says where a POST came
    from: Sec-Fetch-Site (on HTTPS and localhost), and Origin, always sent with a POST, but
    "null" under a no-referrer policy (this app's own pages), from a sandboxed frame, or when
    a page asks for it. Where it says nothing definite, the sign-in form's double-submit mark
    decides (app/web/auth.py FORM_COOKIE): another site's page cannot send the cookie."""
    site = request.headers.get("sec-fetch-site", "").lower()
    if site in _FOREIGN_SITES:
        return True
    origin = request.headers.get("origin")
    if origin is None:
        return False  # not a browser's form: a script or a test client (CSRF needs a browser)
    own = f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}"
    if origin.lower() != "null":
        return origin.lower().rstrip("/") != own.lower()
    if site in ("same-origin", "none"):
        return False
    cookie = request.cookies.get(FORM_COOKIE, "")
    # (compared as bytes: compare_digest raises TypeError on a str that is not ASCII)
    return not (cookie and form_mark
                and hmac.compare_digest(cookie.encode(errors="surrogatepass"),
                                        form_mark.encode(errors="surrogatepass")))


def _check(sessions_factory: sessionmaker[Session], token: str) -> int:
    with unit_of_work(sessions_factory) as session:
        return authenticate(session, token).id


@router.post("/sign-in", response_class=HTMLResponse, include_in_schema=False)
async def sign_in(request: Request) -> Response:
    """Exchange a token (posted once) for a session cookie, then go back to `next`."""
    try:
        form = parse_qs((await request.body()).decode("utf-8", "replace"), max_num_fields=10)
    except ValueError:  # more fields than the form has: not this page's form
        return sign_in_page("Sign in", "/", "This is not the sign-in form.", 400)
    token = (form.get("token") or [""])[0].strip()
    next_path = local((form.get("next") or ["/"])[0])
    if _from_another_site(request, (form.get("form") or [""])[0][:100]):
        return sign_in_page("Sign in", next_path, "This sign-in came from another site's page "
                            "and was refused. Sign in from this page instead.", 403)
    limits: SignInLimits = request.app.state.sign_in_limits
    wait = limits.wait(request.client.host if request.client else "", token[:200])
    if wait:
        page = sign_in_page("Sign in", next_path,
                            f"Too many sign-in attempts; try again in {wait} s.", 429)
        page.headers["Retry-After"] = str(wait)
        return page
    try:
        user_id = await run_in_threadpool(_check, request.app.state.read_sessions, token)
    except DomainError as exc:
        return sign_in_page("Sign in", next_path, exc.detail, exc.status)
    sessions = page_sessions(request)
    try:
        session_id = sessions.open(token, user_id)
    except SessionsFull:
        page = sign_in_page("Sign in", next_path, "The server holds as many sessions as it can; "
                            "try again in a few minutes.", 503)
        page.headers["Retry-After"] = "60"
        return page
    response = RedirectResponse(next_path, status_code=status.HTTP_303_SEE_OTHER)
    response.set_cookie(
        COOKIE,
        session_id,
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
