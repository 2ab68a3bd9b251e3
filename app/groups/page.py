"""The answer-groups pages instructors open in a browser (`/assignments/{slug}/groups/{item}`),
part of the web app: signed in and refused like its other pages (app/web/auth.py: the session
cookie, the sign-in form, a 403 page for students), shown in its layout with the shared nav. Its
forms POST back here with the session's CSRF token and answer with a redirect to the page
(post/redirect/get).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.assignments.service import require_assignment
from app.deps import MAX_ID, SessionDep, SettingsDep
from app.errors import NotFound
from app.groups import render, service
from app.groups.repository import overrides
from app.groups.service import ItemGroups
from app.review.service import set_override
from app.review.undo import latest_group_decision, undo_group_decision
from app.submissions.service import get_for_staff
from app.web.auth import Signed, form_points, nonce, staff, staff_post
from app.web.markup import layout
from app.web.repository import user_names
from app.web.routing import PageRoute

router = APIRouter(tags=["answer groups (pages)"], route_class=PageRoute)


def _item_url(slug: str, item_id: str, group: str = "", **counts: int) -> str:
    """The item's page, with the numbers of the last post, at the group just decided."""
    url = f"/assignments/{quote(slug, safe='')}/groups/{quote(item_id, safe='')}"
    query: dict[str, object] = {**counts, **({"group": group} if group else {})}
    url = f"{url}?{urlencode(query)}" if query else url
    return f"{url}#group-{group}" if group else url


def _steady(found: ItemGroups) -> ItemGroups:
    """The page's order: largest first, then by representative answer. Nothing a decision
    changes (how many need review, how many are decided) moves a group, so the group just
    decided and the next one stay where the instructor's eyes and keys are."""
    ordered = sorted(found.groups, key=lambda g: (-g.size, g.representative_submission))
    return replace(found, groups=ordered)


def _deciders(session: Session, found: ItemGroups) -> dict[int, str]:
    """Submission -> the name of who decided its answer to this item."""
    ids = [m.submission_id for g in found.groups for m in g.members if m.decided]
    decided = overrides(session, ids, found.item_id) if ids else {}
    names = user_names(session, [o.user_id for o in decided.values()])
    return {sid: names.get(o.user_id or 0, "someone since removed") for sid, o in decided.items()}


def _flash(decided: int | None, excluded: int, kept: int, member: int | None,
           held: int = 0) -> str:
    """The result of the last post, from numbers only (a link cannot put words on the page)."""
    if member is not None:
        return f"Submission {member} set by hand."
    if decided is None:
        return ""
    text = f"Decided {decided} answer{'s' if decided != 1 else ''}."
    if excluded or kept:
        text += f" Left alone: {excluded} excluded, {kept} already decided."
    if held:
        text += (f" {held} flagged answer{'s' if held != 1 else ''} (marked ⚑) kept "
                 "their own suggestion undecided: decide them one by one, or tick the box to "
                 "give them the group's points too.")
    return text


@router.get("/assignments/{slug}/groups", response_class=HTMLResponse, include_in_schema=False)
def groups_index(slug: str, request: Request, session: SessionDep) -> Response:
    """The rubric's items with how many counted answers each still needs reviewed."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    pending, titles = service.pending_items(session, slug)
    body = render.index_page(slug, pending, titles)
    return layout(f"Answer groups: {slug}", body, who.viewer, nonce(request), slug=slug)


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
    held: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
    group: Annotated[str, Query(max_length=64, pattern=r"^[0-9a-f]*$")] = "",
    undone: Annotated[int | None, Query(ge=0, le=MAX_ID)] = None,
    left: Annotated[int, Query(ge=0, le=MAX_ID)] = 0,
) -> Response:
    """One item's answer groups: decide a group at once, exclude members, override one."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    groups = _steady(
        service.item_groups(session, slug, item_id, settings.resolved_embedding_cache_dir()))
    flash = _flash(decided, excluded, kept, member, held)
    if undone is not None:
        flash = (f"Group decision undone: {undone} answer{'s' if undone != 1 else ''} back to "
                 "their state before it" + (f"; {left} changed since kept their newer decision."
                                            if left else "."))
    undo = None
    if decided and group:
        undo = latest_group_decision(session, slug, item_id, group)
    body = render.item_page(groups, who.viewer.csrf, flash, _deciders(session, groups), undo,
                            group)
    return layout(render.item_title(groups), body, who.viewer, nonce(request), slug=slug)


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
    confirm_disputed: Annotated[str, Form(max_length=10)] = "",
) -> Response:
    """The page's group decision (form post): accept the suggestion or set points for all.
    Flagged members the points would raise are held back undecided unless the instructor
    ticked the box confirming them."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    user = who.user
    chosen = None if action == "accept" else form_points(points)
    decision = service.decide(session, slug, item_id, group, user, points=chosen,
                              comment=comment, exclude=exclude or [],
                              disputed="confirm" if confirm_disputed else "hold",
                              cache_dir=settings.resolved_embedding_cache_dir())
    url = _item_url(slug, item_id, group, decided=len(decision.decided),
                    excluded=len(decision.excluded) + len(decision.held_back),
                    kept=len(decision.kept), held=len(decision.held_back))
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
    group: Annotated[str, Form(max_length=64, pattern=r"^[0-9a-f]*$")] = "",
) -> Response:
    """The page's exception for one member (form post): an override on that answer alone."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    user = who.user
    assignment = require_assignment(session, slug)
    if get_for_staff(session, submission_id).assignment_id != assignment.id:
        raise NotFound(f"Assignment {slug!r} has no submission {submission_id}.")
    set_override(session, submission_id, item_id, form_points(points), comment, user)
    url = _item_url(slug, item_id, group, member=submission_id)
    return RedirectResponse(url, status.HTTP_303_SEE_OTHER)


@router.post("/assignments/{slug}/groups/{item_id}/undo", include_in_schema=False)
def undo_from_page(
    slug: str,
    item_id: str,
    request: Request,
    session: SessionDep,
    csrf: Annotated[str, Form(max_length=200)],
    audit_id: Annotated[int, Form(ge=1, le=MAX_ID)],
    group: Annotated[str, Form(max_length=64, pattern=r"^[0-9a-f]*$")] = "",
) -> Response:
    """Undo the group decision just made (app/review/undo.py): each member it decided comes
    back to its state before, unless decided again since."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    restored, left = undo_group_decision(session, slug, audit_id, who.user)
    url = _item_url(slug, item_id, group, undone=len(restored), left=len(left))
    return RedirectResponse(url, status.HTTP_303_SEE_OTHER)
