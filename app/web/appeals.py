"""Regrade requests in the browser (app/appeals). Students: on their own submission page, per
released item, "Ask for a regrade" with a comment, and each request's thread with the answer.
Staff: the assignment's requests (linked from the review queue), a page per request with the
item, the student's answer, the current points, what the student sees and the thread, and the
answer form (a reply; the points kept or changed by an override)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.appeals import service
from app.appeals.models import RegradeRequest, RequestStatus
from app.assignments.service import require_assignment
from app.db.models import Assignment
from app.deps import IdPath, SessionDep
from app.errors import NotFound
from app.review.service import rubric_item
from app.settings import Settings
from app.web import repository as pages
from app.web.auth import Signed, csrf_refusal, form_points, nonce, signed_in, staff, staff_post
from app.web.markup import Viewer, e, hidden, layout, math_view, pct, pts, table
from app.web.preview import item_preview
from app.web.routing import PageRoute
from app.web.rubric_panel import rubric_panel

router = APIRouter(tags=["web"], route_class=PageRoute)
WHEN = "%Y-%m-%d %H:%M UTC"
SHOWN_IN_QUEUE = 5
STATE_WORDS = {
    RequestStatus.OPEN.value: "waiting for course staff",
    RequestStatus.ANSWERED.value: "answered",
    RequestStatus.CLOSED.value: "closed",
}


def _when(moment: datetime | None) -> str:
    return "–" if moment is None else e(moment.strftime(WHEN))


def request_url(request_id: int) -> str:
    return f"/regrade-requests/{request_id}"


def list_url(slug: str, state: str = "open") -> str:
    return f"/assignments/{quote(slug, safe='')}/regrade-requests?{urlencode({'state': state})}"


def _outcome(r: RegradeRequest, max_points: str) -> str:
    if r.points_after is None:
        return ""
    if r.points_before is not None and r.points_after != r.points_before:
        return (f"<p class='outcome'>Points changed: {pts(r.points_before)} → "
                f"<b>{pts(r.points_after)}</b> of {max_points}.</p>")
    return f"<p class='outcome'>Points kept: <b>{pts(r.points_after)}</b> of {max_points}.</p>"


def thread(requests: list[RegradeRequest], max_points: str, names: dict[int, str] | None) -> str:
    """An item's requests, oldest first. `names` (staff only): who asked and who answered;
    a student's page names no one."""
    entries = []
    for r in requests:
        asker = "You" if names is None else e(names.get(r.requester_id or 0, "the student"))
        parts = [f"<p><b>{asker} asked</b> <span class='muted'>{_when(r.created_at)} · "
                 f"request #{r.id} · {e(STATE_WORDS.get(r.status, r.status))}</span></p>"
                 f"<div class='staff said'>{e(r.comment)}</div>"]
        if r.reply is not None:
            who = "Course staff" if names is None else e(names.get(r.answered_by or 0, "staff"))
            parts.append(f"<p><b>{who} answered</b> <span class='muted'>"
                         f"{_when(r.answered_at)}</span></p>"
                         f"<div class='staff said reply'>{e(r.reply)}</div>"
                         + _outcome(r, max_points))
        if r.closed_note is not None:
            parts.append(f"<p class='flag'>{e(r.closed_note)}</p>")
        entries.append(f"<li class='request' id='request-{r.id}'>{''.join(parts)}</li>")
    return f"<ol class='thread'>{''.join(entries)}</ol>" if entries else ""


def _ask_form(submission_id: int, item_id: str, viewer: Viewer) -> str:
    field = f"regrade-comment-{e(item_id)}"
    return (
        f"<details class='regrade-ask'><summary aria-label='Ask for a regrade of "
        f"{e(item_id)}'>Ask for a regrade</summary>"
        f'<form method="post" action="/submissions/{submission_id}/regrade-requests" '
        f'class="regrade-ask">{hidden("csrf", viewer.csrf)}{hidden("item_id", item_id)}'
        f'<label for="{field}">Why should {e(item_id)} be regraded? (Enter sends; Shift+Enter '
        f"starts a new line)</label><br>"
        f'<textarea id="{field}" name="comment" rows="3" maxlength="{service.MAX_COMMENT}" '
        'required data-enter-submits></textarea>'
        f'<p><button type="submit">Send the request for {e(item_id)}</button></p></form>'
        "</details>"
    )


@dataclass(frozen=True)
class StudentRegrades:
    """The regrade parts of a student's submission page: per item, what its row of the
    feedback table adds (the request's state, or the button and box to ask), and the section
    with the threads below the table."""

    cells: dict[str, str]
    section: str


def _state_link(r: RegradeRequest) -> str:
    return (f'<p class="regrade-state"><a href="#request-{r.id}">Regrade request #{r.id}: '
            f"{e(STATE_WORDS.get(r.status, r.status))}</a></p>")


def student_regrades(session: Session, submission_id: int, who: Signed, now: datetime,
                     settings: Settings) -> StudentRegrades:
    """A student's own submission's requests (404 for another's submission)."""
    side = service.student_side(session, submission_id, who.user, now,
                                settings.regrade_requests_per_assignment)
    if not side.view.state.published and not side.requests:
        return StudentRegrades({}, "<h2 id='regrade'>Regrade requests</h2><p class='muted'>"
                               "You can ask for a regrade of a part once the grades are "
                               "published.</p>")
    cells: dict[str, str] = {}
    threads = []
    for item in side.scored.score.items:
        mine = [r for r in side.requests if r.item_id == item.item_id]
        ask = (_ask_form(submission_id, item.item_id, who.viewer)
               if service.refusal(side.item_state(item)) is None else "")
        cells[item.item_id] = (_state_link(mine[-1]) if mine else "") + ask
        if mine:
            threads.append(f"<section class='panel regrade-item' id='regrade-{e(item.item_id)}'>"
                           f"<h3>{e(item.item_id)}</h3>"
                           f"{thread(mine, pts(item.max_points), None)}</section>")
    limit = side.limit
    used = (f"<p class='muted' id='regrade-used'>{side.used} of {limit} regrade requests "
            "used for this assignment. Ask from the part's row of the feedback table.</p>"
            if limit else "<p class='muted'>Regrade requests are turned off for this course.</p>")
    if side.view.state.published and not side.counted:
        used += "<p class='muted'>Only the submission that counts can be regraded.</p>"
    return StudentRegrades(cells, "<h2 id='regrade'>Regrade requests</h2>" + used
                           + "".join(threads))


@router.post("/submissions/{submission_id}/regrade-requests", include_in_schema=False)
def ask(
    submission_id: IdPath,
    request: Request,
    session: SessionDep,
    item_id: Annotated[str, Form(max_length=100)],
    comment: Annotated[str, Form(max_length=service.MAX_COMMENT)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """A student's request from their submission page (with the session's CSRF token); a
    refusal is a page saying why, with its status (409 limit reached, already open, ...)."""
    who = signed_in(request, session)
    if not isinstance(who, Signed):
        return who
    refused = csrf_refusal(request, who, csrf)
    if refused is not None:
        return refused
    settings: Settings = request.app.state.settings
    made = service.ask(session, submission_id, item_id, comment, who.user,
                       request.app.state.clock(), settings.regrade_requests_per_assignment)
    back = urlencode({"asked": made.id})
    return RedirectResponse(f"/submissions/{submission_id}?{back}#request-{made.id}",
                            status_code=303)


def queue_section(session: Session, assignment: Assignment) -> str:
    """The review queue's *Regrade requests*: the open ones (the oldest few), or one line
    saying none is open, with the link to every request."""
    waiting = service.open_count(session, assignment)
    every = f"<a href='{e(list_url(assignment.slug, 'all'))}'>every request</a>"
    if not waiting:
        return (f"<p class='muted' id='regrade-requests'>Regrade requests: "
                f"<span id='open-regrades'>none</span> open · {every}</p>")
    links = "".join(
        f'<li><a href="{request_url(r.id)}">{e(s.student)} · {e(r.item_id)}</a> '
        f"<span class='muted'>asked {_when(r.created_at)}</span></li>"
        for r, s in service.of_assignment(session, assignment, (RequestStatus.OPEN.value,),
                                          SHOWN_IN_QUEUE)
    )
    return (
        "<section class='panel' id='regrade-requests' aria-labelledby='regrade-requests-title'>"
        "<h2 id='regrade-requests-title'>Regrade requests</h2>"
        f"<p><b id='open-regrades'>{waiting}</b> open, oldest first · {every}</p>"
        f"<ul>{links}</ul></section>"
    )


def submission_section(session: Session, submission_id: int) -> str:
    """The staff submission page's list of the submission's requests."""
    _, found = service.of_submission_for_staff(session, submission_id)
    if not found:
        return ""
    rows = [[f'<a href="{request_url(r.id)}">#{r.id}</a>', e(r.item_id),
             e(STATE_WORDS.get(r.status, r.status)), _when(r.created_at),
             f"<span class='said'>{e(r.comment[:200])}</span>"] for r in found]
    return "<h2 id='regrade'>Regrade requests</h2>" + table(
        ["request", "item", "state", "asked", "comment"], rows, "regrades")


@router.get("/assignments/{slug}/regrade-requests", response_class=HTMLResponse,
            include_in_schema=False)
def list_page(
    slug: str,
    request: Request,
    session: SessionDep,
    state: Annotated[service.Shown, Query()] = "open",
) -> HTMLResponse:
    """An assignment's regrade requests (course staff), open ones first."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    assignment = require_assignment(session, slug)
    statuses = service.statuses_of(state)
    found = service.of_assignment(session, assignment, statuses)
    filters = " · ".join(
        f"<b>{label}</b>" if key == state else f'<a href="{e(list_url(slug, key))}">{label}</a>'
        for key, label in (("open", "Open"), ("answered", "Answered"), ("closed", "Closed"),
                           ("all", "All"))
    )
    rows = [[f'<a href="{request_url(r.id)}">#{r.id}</a>', e(s.student), e(r.item_id),
             e(STATE_WORDS.get(r.status, r.status)), _when(r.created_at),
             f"<span class='said'>{e(r.comment[:200])}</span>"] for r, s in found]
    headers = ["request", "student", "item", "state", "asked", "comment"]
    listing = (f"<div class='scroll'>{table(headers, rows, 'regrades')}</div>" if rows
               else "<p>No requests here.</p>")
    body = f"<p class='filters'>Show: {filters}</p>{listing}"
    return layout(f"Regrade requests: {slug}", body, who.viewer, nonce(request), slug=slug)


def _answer_form(found: service.StaffRequest, viewer: Viewer) -> str:
    item = found.item
    comment = item.override.comment if item.override is not None else ""
    return (
        f'<form method="post" action="{request_url(found.request.id)}/answer" id="answer-form" '
        f'class="panel actions">{hidden("csrf", viewer.csrf)}<h2>Answer</h2>'
        '<label for="reply">Reply to the student (Enter sends; Shift+Enter starts a new line)'
        f'</label><textarea id="reply" name="reply" rows="4" maxlength="{service.MAX_REPLY}" '
        "required data-enter-submits></textarea>"
        f'<p><label for="points">Points (of {pts(item.max_points)}; leave them to keep the '
        "current points)</label><br>"
        f'<input type="number" id="points" name="points" min="0" max="{pts(item.max_points)}" '
        f'step="0.01" value="{pts(item.points)}"></p>'
        '<p><label for="feedback">Feedback on the item, shown with its points (empty: a '
        "message for the points)</label><br>"
        f'<input type="text" id="feedback" name="feedback" maxlength="{service.MAX_REPLY}" '
        f'value="{e(comment)}"></p>'
        '<p><button type="submit" id="send-answer">Send the answer</button></p></form>'
    )


def _answered_notice(found: service.StaffRequest, answered: bool) -> str:
    r = found.request
    if not answered or r.status != RequestStatus.ANSWERED.value or r.points_after is None:
        return ""
    changed = r.points_before is not None and r.points_after != r.points_before
    what = (f"points changed to <b id='stored-points'>{pts(r.points_after)}</b>" if changed
            else f"points kept at <b id='stored-points'>{pts(r.points_after)}</b>")
    return f'<p class="ok" id="answered" role="status">Answered: {e(r.item_id)}, {what}.</p>'


@router.get("/regrade-requests/{request_id}", response_class=HTMLResponse,
            include_in_schema=False)
def request_page(
    request_id: IdPath,
    request: Request,
    session: SessionDep,
    answered: Annotated[int | None, Query(ge=0, le=1)] = None,
) -> HTMLResponse:
    """One regrade request (course staff): the item, the student's answer, the current points
    and the machine's reasons, what the student sees, the thread and the answer form."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    found = service.for_staff(session, request_id)
    r, s, item = found.request, found.scored, found.item
    threads = service.thread(session, r.submission_id, r.item_id)
    names = pages.user_names(session, [t.requester_id for t in threads]
                             + [t.answered_by for t in threads])
    facts = table(["", ""], [
        ["student", e(found.submission.student)],
        ["submission", f'<a href="/submissions/{s.submission.id}">#{s.submission.id}</a> '
         f"({e(s.submission.filename)})"],
        ["item", f"<b>{e(item.item_id)}</b> · question {e(item.question)}"],
        ["state", f"<b id='request-state'>{e(STATE_WORDS.get(r.status, r.status))}</b>"],
        ["points now", f"<b id='points-now'>{pts(item.points)}</b> of {pts(item.max_points)}"
         + (" (override)" if item.override is not None else
            f" (the machine's, {e(item.status)}, confidence {pct(item.confidence)})")],
    ], "facts")
    answer_text = "" if s.run is None else str(s.run.answers.get(item.question, ""))
    answer = (f"<div class='doc' id='answer'>{e(answer_text)}</div>"
              + math_view(answer_text, "<p class='muted'>Math rendered</p>") if answer_text
              else "<p class='muted'>(no answer was located for this question)</p>")
    try:
        panel = rubric_panel(rubric_item(session, found.submission, item.item_id))
    except NotFound:
        panel = rubric_panel(None)
    now = request.app.state.clock()
    form = _answer_form(found, who.viewer) if r.status == RequestStatus.OPEN.value else ""
    body = (
        _answered_notice(found, bool(answered)) + facts
        + "<div class='grid'><div><h2>Thread</h2>"
        + thread(threads, pts(item.max_points), names)
        + "<h2>The student's answer</h2>" + answer
        + f"<div class='panel' id='preview'>{item_preview(session, s, item.item_id, now)}</div>"
        + form + "</div><div>"
        + "<div class='panel'><h2>Machine reasons (staff only)</h2>"
        + f"<div class='staff' id='reasons'>{e(item.feedback)}</div></div>" + panel
        + "</div></div>"
    )
    slug = s.assignment_slug
    return layout(f"Regrade request #{r.id}", body, who.viewer, nonce(request), slug=slug)


@router.post("/regrade-requests/{request_id}/answer", include_in_schema=False)
def answer(
    request_id: IdPath,
    request: Request,
    session: SessionDep,
    reply: Annotated[str, Form(max_length=service.MAX_REPLY)] = "",
    points: Annotated[str, Form(max_length=50)] = "",
    feedback: Annotated[str, Form(max_length=service.MAX_REPLY)] = "",
    csrf: Annotated[str, Form(max_length=200)] = "",
) -> Response:
    """Staff answer a request (with the session's CSRF token): the reply, and the points kept
    or changed (an override)."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    value = form_points(points) if points.strip() else None
    service.answer(session, request_id, reply, value, feedback, who.user,
                   request.app.state.clock())
    return RedirectResponse(f"{request_url(request_id)}?answered=1", status_code=303)
