"""The dashboard as a page a person opens in a browser: self-contained HTML, inline JS and SVG.

Signing in and out: app/web/signin.py (the token is POSTed once and kept as an HttpOnly,
SameSite=Strict session cookie; it is never part of a URL).
"""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import HTMLResponse

from app.assignments.schedule import Schedule
from app.assignments.service import require_assignment
from app.dashboard.service import dashboard
from app.deps import SessionDep
from app.review.service import review_queue
from app.web.auth import nonce, staff
from app.web.markup import PRIVATE, e, nav
from app.web.routing import PageRoute
from app.web.settings import badges

router = APIRouter(tags=["dashboard"], route_class=PageRoute)

TEMPLATE = Path(__file__).with_name("dashboard.html")


def _embed(data: object) -> str:
    # Inside <script>, "</" would end the element early; \u003c keeps the JSON intact.
    return json.dumps(jsonable_encoder(data)).replace("<", "\\u003c")


@router.get(
    "/assignments/{slug}/dashboard", response_class=HTMLResponse,
    summary="The assignment's dashboard page (HTML)",
)
def dashboard_page(slug: str, request: Request, session: SessionDep) -> HTMLResponse:
    """The assignment's dashboard (course staff): totals over the submission that counts for
    each student, per-item difficulty, common wrong answers, the oldest review items. Without a
    signed-in session (a cookie, never a token in the URL) it answers with the sign-in form.

    Errors: 403 the signed-in user is not course staff; 404 unknown assignment."""
    who = staff(request, session)
    if isinstance(who, HTMLResponse):
        return who
    data = {"dashboard": dashboard(session, slug), "review": review_queue(session, slug, 100)}
    script_nonce = nonce(request)
    schedule = Schedule.of(require_assignment(session, slug))
    release = badges(schedule, request.app.state.clock())
    page = TEMPLATE.read_text(encoding="utf-8")
    # The release badges before the data: a student's text in the data is never a placeholder.
    page = page.replace("{{BADGES}}", f'<a href="/assignments/{e(slug)}/settings">{release}</a>')
    page = page.replace("{{NONCE}}", script_nonce)
    page = page.replace("{{TITLE}}", e(slug)).replace("{{DATA}}", _embed(data))
    page = page.replace("{{NAV}}", nav(who.viewer, slug))
    page = page.replace("<script>", f'<script nonce="{script_nonce}">')
    return HTMLResponse(page, headers=PRIVATE)
