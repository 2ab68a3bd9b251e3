"""One submission's page. Staff: every item with points, status, confidence, staff feedback,
evidence and override, the located answers, and the history (grading runs, audit log).
Students (their own submissions only): what the release rules let them see, student feedback
only; another student's submission is absent (404), as in the API."""

from __future__ import annotations

import json
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.db.models import User
from app.deps import MAX_ID, IdPath, SessionDep
from app.review.service import MAX_COMMENT, delete_override, set_override
from app.review.undo import last_change, undo
from app.sanitize import clean
from app.submissions.preview import published_view, student_preview
from app.submissions.service import ScoredSubmission, get_scored
from app.submissions.visibility import student_error, student_score, view_for
from app.web import repository
from app.web.appeals import student_regrades, submission_section
from app.web.auth import Signed, form_points, nonce, signed_in, staff_post
from app.web.document import document_spans, document_text
from app.web.markup import (
    Viewer,
    e,
    hidden,
    highlight,
    layout,
    math_view,
    pct,
    pts,
    student_text,
    table,
)
from app.web.preview import preview_html
from app.web.review import group_url
from app.web.routing import PageRoute

router = APIRouter(tags=["web"], route_class=PageRoute)
WHEN = "%Y-%m-%d %H:%M:%S"


def _when(moment: Any) -> str:
    return "–" if moment is None else e(moment.strftime(WHEN))


def _facts(s: ScoredSubmission, total: str, staff: bool, status: str) -> str:
    """`status`: the machine's word for staff, the student's words for a student."""
    sub = s.submission
    assignment = e(s.assignment_slug)
    rows = [
        # a student goes back to the handout, the upload form and their other submissions
        ["assignment", f'<a href="/assignments/{assignment}/'
         f'{"dashboard" if staff else "submit"}">{assignment}</a>'],
        ["student", e(sub.student)],
        ["file", e(sub.filename)],
        ["uploaded", _when(sub.created_at)],
        ["status", f"<b>{e(status)}</b>"],
        ["total", total],
    ]
    if sub.handout is not None:  # staff's edition, else the one the upload declared
        declared = sub.declared_handout
        other = (f" <span class='muted' id='declared-handout'>(the upload declared {e(declared)};"
                 " graded under staff's edition)</span>"
                 if staff and declared is not None and declared != sub.handout else "")
        rows.insert(3, ["handout", e(sub.handout) + other])
    return table(["", ""], rows, "facts")


def _evidence(evidence: list[Any]) -> str:
    if not evidence:
        return ""
    lines = "".join(
        f"<li><b>{e(ev.get('kind'))}</b> {e(ev.get('text'))} <span class='muted'>"
        f"{e(ev.get('note') or '')}</span></li>"
        for ev in evidence[:30]
        if isinstance(ev, dict)
    )
    return f"<details><summary>evidence</summary><ul>{lines}</ul></details>"


def _removed(s: ScoredSubmission, item_id: str | None) -> str:
    """The notice after an override was removed: only for an item of this submission that has
    no override now (a link cannot put other words on the page)."""
    item = next((i for i in s.score.items if i.item_id == item_id), None)
    if item is None or item.override is not None:
        return ""
    return (
        f'<p class="ok" id="removed">Override on {e(item.item_id)} removed: the machine\'s '
        f"{pts(item.machine_points)} ({e(item.machine_status)}) applies again.</p>"
    )


def _edit_form(submission_id: int, item: Any, viewer: Viewer) -> str:
    """Points and comment for one item, set in place (an override, audited; undoable)."""
    current = item.override.points if item.override is not None else item.points
    comment = item.override.comment if item.override is not None else ""
    label = e(item.item_id)
    return (
        f'<form method="post" action="/submissions/{submission_id}/override/set" '
        f'class="edit-item">{hidden("csrf", viewer.csrf)}{hidden("item_id", item.item_id)}'
        f'<input type="number" name="points" min="0" step="0.01" max="{pts(item.max_points)}" '
        f'value="{pts(current)}" required aria-label="Points for {label}">'
        f'<input name="comment" maxlength="5000" value="{e(comment)}" placeholder="comment" '
        f'aria-label="Comment for {label}"><button type="submit" '
        f'aria-label="Save {label}">Save</button></form>'
    )


def _saved(session: Session, s: ScoredSubmission, item_id: str | None, viewer: Viewer) -> str:
    """The notice after an in-place edit: the value stored, read back, and its undo."""
    item = next((i for i in s.score.items if i.item_id == item_id), None)
    if item is None or item.override is None:
        return ""
    said = f", comment “{e(item.override.comment[:200])}”" if item.override.comment else ""
    change = last_change(session, s.submission.id, item.item_id)
    button = ""
    if change is not None and change.undoable:
        button = (
            f'<form method="post" action="/submissions/{s.submission.id}/override/undo" '
            f'id="undo-form" class="inline">{hidden("csrf", viewer.csrf)}'
            f'{hidden("item_id", item.item_id)}{hidden("audit_id", change.audit_id)}'
            '<button type="submit" id="undo">Undo</button></form>'
        )
    return (
        f'<div class="ok saved" id="saved" role="status"><p>Saved: {e(item.item_id)} is now '
        f"<b id='stored-points'>{pts(item.override.points)}</b> of {pts(item.max_points)} points"
        f"{said}.</p>{button}</div>"
    )


def _undone(s: ScoredSubmission, item_id: str | None) -> str:
    item = next((i for i in s.score.items if i.item_id == item_id), None)
    if item is None:
        return ""
    now = (f"{pts(item.override.points)} points (the earlier decision)" if item.override
           else f"the machine's {pts(item.machine_points)} ({e(item.machine_status)})")
    return (f'<p class="ok" id="undone" role="status">Undone: {e(item.item_id)} is back to '
            f"{now}.</p>")


def _staff_page(session: Session, s: ScoredSubmission, viewer: Viewer, now: Any) -> str:
    # What the student's own pages show of each item (the same function), now.
    view, declared = view_for(session, s, now), s.submission.handout is not None
    published = published_view(view)
    overriders = repository.user_names(
        session, [i.override.user_id for i in s.score.items if i.override is not None]
    )
    rows = []
    for i in s.score.items:
        override = "–"
        if i.override is not None:
            by = overriders.get(i.override.user_id or 0, "?")
            override = (
                f"<b>{pts(i.override.points)}</b> by {e(by)} at {_when(i.override.at)}"
                f"<br>machine: {pts(i.machine_points)} ({e(i.machine_status)})"
                + (f"<br><i>{e(i.override.comment)}</i>" if i.override.comment else "")
                + f'<form method="post" action="/submissions/{s.submission.id}/override/remove"'
                f' class="remove-override">{hidden("csrf", viewer.csrf)}'
                f'{hidden("item_id", i.item_id)}<button type="submit">Remove override'
                "</button></form>"
            )
        rows.append([
            f"<b id='item-{e(i.item_id)}'>{e(i.item_id)}</b><br>"
            f"<span class='muted'>{e(i.question)}</span><br>"
            f'<a href="{e(group_url(s.assignment_slug, i.item_id))}">answer group</a>'
            + (f' · <a href="/assignments/{e(s.assignment_slug)}/review?'
               f'{e(urlencode({"item_id": i.item_id}))}">review</a>'
               if i.status == "needs_review" else ""),
            f"{pts(i.points)} / {pts(i.max_points)}",
            e(i.status),
            pct(i.confidence),
            f"<div class='staff'>{e(i.feedback)}</div>{_evidence(i.evidence)}",
            preview_html(student_preview(i, view, declared, published), i.item_id),
            override + _edit_form(s.submission.id, i, viewer),
        ])
    items = table(
        ["item", "points", "status", "confidence", "staff feedback", "student sees",
         "override"],
        rows, "items",
    )
    document = document_text(s.submission)
    if document is not None:
        marks = [m for i in s.score.items for m in document_spans(document, i.evidence)]
        shown = (
            '<h2>Document (evidence marked)</h2><div class="doc" id="document">'
            f"{highlight(document, marks)}</div>"
        )
    else:
        shown = ""
    answers = ""
    if s.run is not None and s.run.answers:
        answers = "".join(
            f"<h3>{e(q)}</h3><div class='doc'>{e(text)}</div>"
            + math_view(text, f"<p class='muted'>{e(q)}, math rendered</p>")
            for q, text in sorted(s.run.answers.items())
        )
    runs = table(
        ["run", "at", "status", "machine total", "rubric", "regrade job", "current"],
        [
            [str(r.id), _when(r.created_at), e(r.status), f"{pts(r.total)} / {pts(r.max_points)}",
             e(r.rubric_hash[:12]), e(r.regrade_job_id), "yes" if r.is_current else ""]
            for r in repository.runs_of(session, s.submission.id)
        ],
    )
    audit = repository.audit_of(session, s.submission.id)
    actors = repository.user_names(session, [a.actor_id for a in audit])
    log = table(
        ["at", "who", "action", "detail"],
        [
            [_when(a.at), e(actors.get(a.actor_id or 0, "system")), e(a.action),
             f"<code>{e(json.dumps(a.detail, ensure_ascii=False)[:500])}</code>"]
            for a in audit
        ],
    )
    error = f'<p class="error">{e(s.submission.error)}</p>' if s.submission.error else ""
    links = (
        f'<p><a href="/api/v1/submissions/{s.submission.id}/results.json">results.json</a> · '
        f'<a href="/assignments/{e(s.assignment_slug)}/review">review queue</a></p>'
    )
    total = f"{pts(s.score.total)} / {pts(s.score.max_points)}"
    return (
        _facts(s, total, staff=True, status=s.score.status) + error + links
        + "<h2>Items</h2>" + items
        + submission_section(session, s.submission.id) + "<h2>Located answers</h2>"
        + (answers or "<p class='muted'>None.</p>") + shown + "<h2>History: grading runs</h2>"
        + runs
        + "<h2>History: audit log (uploads, overrides, choices)</h2>" + log
    )


def _student_page(session: Session, s: ScoredSubmission, now: Any,
                  regrade: dict[str, str]) -> str:
    """`regrade`: per item, its regrade request state or the button and box to ask."""
    view = view_for(session, s, now)
    shown = student_score(s, view)
    total = (
        e(shown.total_note or "") if shown.total is None
        else f"{pts(shown.total)} / {pts(shown.max_points)}"
    )
    rows = [
        [
            f"<b>{e(i.id)}</b>" + (f"<br><span class='muted'>{e(i.title)}</span>" if i.title
                                   else ""),
            "–" if i.points is None else f"{pts(i.points)} / {pts(i.max_points)}",
            student_text(i.feedback, i.solution) + regrade.get(i.id, ""),
        ]
        for i in shown.items
    ]
    error = student_error(s)
    late = (
        f"<p>{shown.days_late} day(s) late: {pts(shown.penalty_percent)}% penalty.</p>"
        if shown.days_late else ""
    )
    return (
        _facts(s, total, staff=False, status=shown.status_text) + late
        + (f'<p class="error">{e(error)}</p>' if error else "")
        + "<h2>Feedback</h2>" + table(["part", "points", "feedback"], rows, "items")
    )


@router.get("/submissions/{submission_id}", response_class=HTMLResponse, include_in_schema=False)
def submission_page(
    submission_id: IdPath,
    request: Request,
    session: SessionDep,
    removed: Annotated[str | None, Query(max_length=100)] = None,
    saved: Annotated[str | None, Query(max_length=100)] = None,
    undone: Annotated[str | None, Query(max_length=100)] = None,
) -> HTMLResponse:
    """A submission with its items, overrides and history (staff), or what its student may see
    of it (the student who owns it)."""
    who = signed_in(request, session)
    if not isinstance(who, Signed):
        return who
    user: User = who.user
    s = get_scored(session, submission_id, user)
    if who.viewer.staff:
        notices = (_removed(s, removed) + _saved(session, s, saved, who.viewer)
                   + _undone(s, undone))
        body = notices + _staff_page(session, s, who.viewer, request.app.state.clock())
        slug: str | None = s.assignment_slug
    else:
        now = request.app.state.clock()
        regrades = student_regrades(session, submission_id, who, now,
                                    request.app.state.settings)
        body = _student_page(session, s, now, regrades.cells) + regrades.section
        slug = None
    return layout(f"Submission #{submission_id}", body, who.viewer, nonce(request), slug=slug)


@router.post("/submissions/{submission_id}/override/remove", include_in_schema=False)
def remove_override(
    submission_id: IdPath,
    request: Request,
    session: SessionDep,
    item_id: Annotated[str, Form(max_length=100)],
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Remove the instructor's override on one item (course staff, with the session's CSRF
    token): the machine's score applies again; audited as `override.delete`. 404 when the item
    has no override."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    delete_override(session, submission_id, item_id, who.user)
    back = urlencode({"removed": item_id})
    return RedirectResponse(f"/submissions/{submission_id}?{back}", status_code=303)


@router.post("/submissions/{submission_id}/override/set", include_in_schema=False)
def set_item(
    submission_id: IdPath,
    request: Request,
    session: SessionDep,
    item_id: Annotated[str, Form(max_length=100)],
    points: Annotated[str, Form(max_length=50)],
    comment: Annotated[str, Form(max_length=MAX_COMMENT)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Set one item's points and comment in place (course staff, with the session's CSRF
    token): an override, whatever the machine's status; audited as `override.set`."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    set_override(session, submission_id, item_id, form_points(points),
                 clean(comment, MAX_COMMENT).strip(), who.user)
    back = urlencode({"saved": item_id})
    return RedirectResponse(f"/submissions/{submission_id}?{back}#item-{quote(item_id)}",
                            status_code=303)


@router.post("/submissions/{submission_id}/override/undo", include_in_schema=False)
def undo_item(
    submission_id: IdPath,
    request: Request,
    session: SessionDep,
    item_id: Annotated[str, Form(max_length=100)],
    audit_id: Annotated[int, Form(ge=1, le=MAX_ID)],
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Undo the latest decision on one item (app/review/undo.py); 409 when it was changed
    again since."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    undo(session, submission_id, item_id, audit_id, who.user)
    back = urlencode({"undone": item_id})
    return RedirectResponse(f"/submissions/{submission_id}?{back}#item-{quote(item_id)}",
                            status_code=303)
