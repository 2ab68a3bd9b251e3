"""The dashboard as a page a person opens in a browser: self-contained HTML, inline JS and SVG."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.encoders import jsonable_encoder
from fastapi.responses import HTMLResponse

from app.auth.dependencies import is_staff
from app.auth.service import authenticate
from app.dashboard.service import dashboard
from app.deps import SessionDep
from app.errors import NotPermitted
from app.review.service import review_queue

router = APIRouter(tags=["dashboard"])

TEMPLATE = Path(__file__).with_name("dashboard.html")
LOGIN = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>gradeformer: {slug}</title></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem auto; max-width: 30rem">
<h1>{slug}</h1><form method="get"><label>Instructor token<br>
<input type="password" name="token" autocomplete="off" style="width: 100%" required></label>
<p><button type="submit">Open dashboard</button></p></form></body></html>"""


def _embed(data: object) -> str:
    # Inside <script>, "</" would end the element early; \u003c keeps the JSON intact.
    return json.dumps(jsonable_encoder(data)).replace("<", "\\u003c")


@router.get("/assignments/{slug}/dashboard", response_class=HTMLResponse)
def dashboard_page(
    slug: str,
    session: SessionDep,
    token: Annotated[str | None, Query(description="An instructor token.")] = None,
) -> HTMLResponse:
    if not token:
        return HTMLResponse(LOGIN.format(slug=html.escape(slug)))
    user = authenticate(session, token)
    if not is_staff(user):
        raise NotPermitted("Only instructors may open the dashboard.")
    data = {"dashboard": dashboard(session, slug), "review": review_queue(session, slug, 100)}
    page = TEMPLATE.read_text(encoding="utf-8")
    page = page.replace("{{TITLE}}", html.escape(slug)).replace("{{DATA}}", _embed(data))
    # The page carries the token in its URL; keep it out of referrers and caches.
    return HTMLResponse(
        page, headers={"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"}
    )
