"""The answer-groups page instructors open in a browser (`/assignments/{slug}/groups/{item}`).

Signed in like the dashboard (an HttpOnly, SameSite=Strict session cookie; the token never in a
URL). Its forms POST back here with a CSRF token derived from the session id (an HMAC keyed by
it: only a page of this origin, which can read neither the cookie nor another session's pages,
has it) and answer with a redirect to the page (post/redirect/get).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from decimal import Decimal, InvalidOperation
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.assignments.service import require_assignment
from app.auth.dependencies import is_staff
from app.auth.page_sessions import COOKIE, PageSessions
from app.auth.service import authenticate
from app.db.models import User
from app.deps import MAX_ID, SessionDep, SettingsDep
from app.errors import InvalidInput, NotAuthenticated, NotFound, NotPermitted
from app.groups import render, service
from app.middleware import NONCE_STATE
from app.review.service import set_override
from app.submissions.service import get_for_staff
from app.web.auth import sign_in_page

router = APIRouter(tags=["answer groups (pages)"])
PRIVATE = {"Cache-Control": "no-store"}


def csrf_token(session_id: str) -> str:
    return hmac.new(session_id.encode(), b"gradeformer answer-groups form", hashlib.sha256
                    ).hexdigest()


def _sign_in(path: str, message: str = "") -> HTMLResponse:
    return sign_in_page("Sign in", path, message)


def _signed_in(request: Request, session: Session) -> tuple[User, str] | HTMLResponse:
    """The staff user and their session id, or the sign-in form to show instead."""
    sessions: PageSessions = request.app.state.page_sessions
    session_id = request.cookies.get(COOKIE)
    token = sessions.token(session_id)
    if token is None or session_id is None:
        return _sign_in(request.url.path)
    try:
        user = authenticate(session, token)
    except NotAuthenticated:
        sessions.close(session_id)
        return _sign_in(request.url.path, "Your session has ended; sign in again.")
    if not is_staff(user):
        raise NotPermitted("Only instructors may open answer groups.")
    return user, session_id


def _posted_by_staff(request: Request, session: Session, csrf: str) -> User:
    found = _signed_in(request, session)
    if isinstance(found, HTMLResponse):
        raise NotAuthenticated("Sign in again: the session ended before the form was sent.")
    user, session_id = found
    if not hmac.compare_digest(csrf, csrf_token(session_id)):
        raise NotPermitted("The form's CSRF token does not match this session; reload the page.")
    return user


def _nonce(request: Request) -> str:
    nonce = secrets.token_urlsafe(16)
    setattr(request.state, NONCE_STATE, nonce)
    return nonce


def _item_url(slug: str, item_id: str, **counts: int) -> str:
    url = f"/assignments/{quote(slug, safe='')}/groups/{quote(item_id, safe='')}"
    return f"{url}?{urlencode(counts)}" if counts else url


def _flash(decided: int | None, excluded: int, kept: int, member: int | None) -> str:
    """The result of the last post, from numbers only (a link cannot put words on the page)."""
    if member is not None:
        return f"Submission {member} set by hand."
    if decided is None:
        return ""
    text = f"Decided {decided} answer{'s' if decided != 1 else ''}."
    if excluded or kept:
        text += f" Left alone: {excluded} excluded, {kept} already decided."
    return text


def _points(raw: str) -> Decimal:
    try:
        value = Decimal(raw.strip()[:30])
    except InvalidOperation:
        raise InvalidInput(f"Points must be a number; got {raw[:30]!r}.") from None
    if not value.is_finite():
        raise InvalidInput("Points must be a finite number.")
    return value


@router.get("/assignments/{slug}/groups", response_class=HTMLResponse, include_in_schema=False)
def groups_index(slug: str, request: Request, session: SessionDep) -> Response:
    """The rubric's items with how many counted answers each still needs reviewed."""
    found = _signed_in(request, session)
    if isinstance(found, HTMLResponse):
        return found
    pending, titles = service.pending_items(session, slug)
    page = render.index_page(slug, pending, titles, _nonce(request))
    return HTMLResponse(page, headers=PRIVATE)


@router.get(
    "/assignments/{slug}/groups/{item_id}", response_class=HTMLResponse, include_in_schema=False
)
def groups_page(
    slug: str,
    item_id: str,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    decided: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None,
    excluded: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
    kept: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
    member: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
) -> Response:
    """One item's answer groups: decide a group at once, exclude members, override one."""
    found = _signed_in(request, session)
    if isinstance(found, HTMLResponse):
        return found
    _, session_id = found
    groups = service.item_groups(session, slug, item_id, settings.resolved_embedding_cache_dir())
    flash = _flash(decided, excluded, kept, member)
    page = render.item_page(groups, csrf_token(session_id), _nonce(request), flash)
    return HTMLResponse(page, headers=PRIVATE)


@router.post("/assignments/{slug}/groups/{item_id}/decide", include_in_schema=False)
def decide_from_page(
    slug: str,
    item_id: str,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    csrf: Annotated[str, Form(max_length=200)],
    group: Annotated[str, Form(max_length=64, pattern=r"^[0-9a-f]+$")],
    action: Annotated[str, Form(pattern=r"^(accept|set)$")],
    points: Annotated[str, Form(max_length=30)] = "",
    comment: Annotated[str, Form(max_length=5000)] = "",
    exclude: Annotated[list[Annotated[int, Form(ge=1, le=MAX_ID)]] | None, Form()] = None,
) -> Response:
    """The page's group decision (form post): accept the suggestion or set points for all."""
    user = _posted_by_staff(request, session, csrf)
    chosen = None if action == "accept" else _points(points)
    decision = service.decide(session, slug, item_id, group, user, points=chosen,
                              comment=comment, exclude=exclude or [],
                              cache_dir=settings.resolved_embedding_cache_dir())
    url = _item_url(slug, item_id, decided=len(decision.decided),
                    excluded=len(decision.excluded), kept=len(decision.kept))
    return RedirectResponse(url, status.HTTP_303_SEE_OTHER)


@router.post("/assignments/{slug}/groups/{item_id}/member", include_in_schema=False)
def override_member(
    slug: str,
    item_id: str,
    request: Request,
    session: SessionDep,
    csrf: Annotated[str, Form(max_length=200)],
    submission_id: Annotated[int, Form(ge=1, le=MAX_ID)],
    points: Annotated[str, Form(max_length=30)],
    comment: Annotated[str, Form(max_length=5000)] = "",
) -> Response:
    """The page's exception for one member (form post): an override on that answer alone."""
    user = _posted_by_staff(request, session, csrf)
    assignment = require_assignment(session, slug)
    if get_for_staff(session, submission_id).assignment_id != assignment.id:
        raise NotFound(f"Assignment {slug!r} has no submission {submission_id}.")
    set_override(session, submission_id, item_id, _points(points), comment, user)
    url = _item_url(slug, item_id, member=submission_id)
    return RedirectResponse(url, status.HTTP_303_SEE_OTHER)
