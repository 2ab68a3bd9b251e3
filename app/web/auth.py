"""Who a page is for: the browser session (HttpOnly, SameSite=Strict cookie, see
app/auth/page_sessions.py), the sign-in form, and the refusals a page shows as pages.

Forms that change something carry the session's CSRF token besides the SameSite=Strict cookie:
a POST without the right token is refused before any service runs.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from fastapi import Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session

from app.auth.dependencies import is_staff
from app.auth.page_sessions import COOKIE, PageSessions
from app.auth.service import authenticate
from app.db.models import User
from app.errors import InvalidInput, NotAuthenticated
from app.middleware import NONCE_STATE
from app.points import POINTS_BOUND
from app.web.markup import PRIVATE, Viewer, e, layout

SIGN_IN = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gradeformer: sign in</title><link rel="stylesheet" href="/static/web.css"></head>
<body><main class="narrow"><h1>{title}</h1>{message}<form method="post" action="/sign-in">
<input type="hidden" name="next" value="{next}"><input type="hidden" name="form" value="{form}">
<label>Your token (instructor or student)<br>
<input type="password" name="token" autocomplete="off" required></label>
<p><button type="submit">Sign in</button></p></form>
<p class="muted">The token is sent once; the browser then keeps only a session cookie.</p>
</main></body></html>"""


# The sign-in form's own mark: a random value both in the form and in a SameSite=Strict cookie
# (double submit). A form another site's page posts comes without the cookie, so where the
# browser does not say where a post came from (Origin "null", no Fetch Metadata on plain HTTP)
# the two differ and the sign-in is refused (login CSRF, app/web/signin.py).
FORM_COOKIE = "gf_sign_in"


def sign_in_page(title: str, next_path: str, message: str = "", code: int = 200) -> HTMLResponse:
    mark = secrets.token_urlsafe(24)
    page = SIGN_IN.format(
        title=e(title),
        next=e(next_path),
        form=mark,
        message=f'<p class="error">{e(message)}</p>' if message else "",
    )
    response = HTMLResponse(page, status_code=code, headers=PRIVATE)
    response.set_cookie(FORM_COOKIE, mark, max_age=3600, path="/sign-in", httponly=True,
                        samesite="strict")
    return response


# Where the signed-in viewer of this request is kept for the error page (app/web/routing.py).
VIEWER_STATE = "page_viewer"


def page_sessions(request: Request) -> PageSessions:
    sessions: PageSessions = request.app.state.page_sessions
    return sessions


def nonce(request: Request) -> str:
    """A fresh CSP nonce for this response; the security middleware puts it in the policy."""
    value = secrets.token_urlsafe(16)
    setattr(request.state, NONCE_STATE, value)
    return value


@dataclass(frozen=True)
class Signed:
    user: User
    viewer: Viewer


def signed_in(request: Request, session: Session) -> Signed | HTMLResponse:
    """The signed-in user, or the sign-in form (which comes back to this page)."""
    sessions = page_sessions(request)
    session_id = request.cookies.get(COOKIE)
    token = sessions.token(session_id)
    # the page asked for, query included (a link to a filtered review queue keeps its filter)
    query = request.url.query
    here = request.url.path + (f"?{query}" if query and len(query) <= 1000 else "")
    if token is None or session_id is None:
        return sign_in_page("Sign in", here)
    try:
        user = authenticate(session, token)
    except NotAuthenticated:  # the token was revoked since signing in
        sessions.close(session_id)
        return sign_in_page("Sign in", here, "Your session has ended; sign in again.")
    viewer = Viewer(user.name, is_staff(user), sessions.csrf(session_id))
    setattr(request.state, VIEWER_STATE, viewer)  # an error page later in this request keeps it
    return Signed(user, viewer)


def refusal(
    request: Request, viewer: Viewer | None, status: int, title: str, detail: str
) -> HTMLResponse:
    body = f'<p class="error">{e(detail)}</p><p><a href="/">Back to the start page</a></p>'
    return layout(title, body, viewer, nonce(request), status=status)


def staff(request: Request, session: Session) -> Signed | HTMLResponse:
    """Course staff only: students get a 403 page saying so."""
    found = signed_in(request, session)
    if isinstance(found, Signed) and not found.viewer.staff:
        return refusal(
            request, found.viewer, 403, "Course staff only",
            "This page is for course staff. Your own submissions are on the start page.",
        )
    return found


def csrf_refusal(request: Request, who: Signed, value: str | None) -> HTMLResponse | None:
    """None when the form's CSRF token is this session's; the 403 page otherwise."""
    if page_sessions(request).csrf_ok(request.cookies.get(COOKIE), value):
        return None
    return refusal(
        request, who.viewer, 403, "Form expired",
        "The form did not carry this session's security token (CSRF). Reload the page and "
        "try again.",
    )


def staff_post(request: Request, session: Session, csrf: str | None) -> Signed | HTMLResponse:
    """The staff member who posted a form, or the page to answer instead: the sign-in form, the
    403 for a student, or the 403 for a form without this session's CSRF token."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    return csrf_refusal(request, who, csrf) or who


def form_points(raw: str) -> Decimal:
    """Points typed into a form, as a finite Decimal (InvalidInput, 422, otherwise); whether
    they fit the item is the service's check."""
    try:
        value = Decimal(raw.strip()[:30])
    except InvalidOperation:
        raise InvalidInput(f"Points must be a number; got {raw[:30]!r}.") from None
    if not value.is_finite():
        raise InvalidInput("Points must be a finite number.")
    # As the API's bodies (app/points.py): 30 nines would overflow exact arithmetic (the
    # quantisation to hundredths) instead of being refused as out of range.
    if abs(value) > POINTS_BOUND:
        raise InvalidInput(f"Points must be between {-POINTS_BOUND} and {POINTS_BOUND}.")
    return value


def local(path: str) -> str:
    """Only a path on this server is a place to go back to (no open redirect)."""
    if path.startswith("/") and not path.startswith("//") and "\\" not in path:
        return path
    return "/"
