"""The review queue, one item at a time: the student's answer with the evidence marked, the
machine's suggestion, confidence and reasons, and accept / set points / comment (the override
service), with keyboard shortcuts (app/web/static/web.js)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.assignments.service import require_assignment
from app.deps import MAX_ID, SessionDep
from app.errors import NotFound
from app.review import repository as reviews
from app.review.service import (
    MAX_COMMENT,
    ReviewEntry,
    review_queue,
    rubric_item,
    set_override,
)
from app.review.undo import last_change, undo
from app.sanitize import clean
from app.submissions.service import get_for_staff, get_scored, scored
from app.web.appeals import queue_section
from app.web.auth import Signed, form_points, nonce, staff, staff_post
from app.web.document import document_spans, document_text
from app.web.evidence import spans
from app.web.markup import (
    Viewer,
    e,
    hidden,
    highlight,
    layout,
    math_view,
    pct,
    pts,
    table,
)
from app.web.preview import accept_preview, item_preview
from app.web.routing import PageRoute
from app.web.rubric_panel import rubric_panel

router = APIRouter(tags=["web"], route_class=PageRoute)
QUEUE_LIMIT = 5000
KEYS = (
    "<p class='keys muted'>Keys: <kbd>a</kbd> accept the suggestion · <kbd>0</kbd>–<kbd>9</kbd>"
    " set that many points · <kbd>p</kbd> type points, then <kbd>Enter</kbd> sets them ·"
    " <kbd>c</kbd> write a comment (sent with either action) · <kbd>u</kbd> undo the decision"
    " just saved · <kbd>n</kbd> next item · <kbd>Esc</kbd> leave a text box.</p>"
)


def group_url(slug: str, item_id: str) -> str:
    return f"/assignments/{quote(slug, safe='')}/groups/{quote(item_id, safe='')}"


def _evidence_list(entry: ReviewEntry) -> str:
    rows = [
        [e(ev.get("kind")), f"<span class='doc-inline'>{e(ev.get('text'))}</span>",
         f"<span>{e(ev.get('note') or '')}</span>"]
        for ev in entry.evidence[:50]
        if isinstance(ev, dict)
    ]
    return table(["kind", "text", "note"], rows) if rows else "<p class='muted'>None.</p>"


def _math(answer: str) -> str:
    """The answer again with its LaTeX rendered, when it has any (markup.math_view)."""
    return math_view(answer, "<h2>Answer, math rendered</h2>", "answer-math", "math-view")


def _document(document: str | None, entry: ReviewEntry) -> str:
    if document is None:
        return ""
    return (
        "<h2>Whole document (this item's evidence marked)</h2>"
        f'<div class="doc" id="document">'
        f"{highlight(document, document_spans(document, entry.evidence))}</div>"
    )


def _item(
    slug: str,
    entry: ReviewEntry,
    at: int,
    total: int,
    viewer: Viewer,
    document: str | None,
    only: str | None,
    panel: str,
) -> str:
    marked = highlight(entry.answer, spans(entry.answer, entry.evidence))
    next_query = urlencode({"at": (at + 1) % total, **({"item_id": only} if only else {})})
    answer = marked or "<span class='muted'>(no answer was located for this question)</span>"
    decide = f"/assignments/{e(slug)}/review/decide"
    return f"""
<p>Item {at + 1} of {total} waiting · submission
<a href="/submissions/{entry.submission_id}">#{entry.submission_id}</a> · student
<b>{e(entry.student)}</b> · question <b>{e(entry.question)}</b> · item <b>{e(entry.item_id)}</b>
· <a href="{e(group_url(slug, entry.item_id))}">answer group for this item</a></p>
<div class="grid" id="review-item">
<div><h2>Answer (evidence marked)</h2><div class="doc" id="answer">{answer}</div>
{_math(entry.answer)}</div>
<div class="side"><div class="panel"><h2>Machine suggestion</h2>
<p><b id="suggested">{pts(entry.suggested_points)}</b> of {pts(entry.max_points)} points ·
confidence <b>{pct(entry.confidence)}</b></p>
<p class="muted">Reasons (staff only)</p><div class="staff" id="reasons">{e(entry.feedback)}</div>
</div>
<div class="panel actions"><form method="post" action="{decide}" id="decide-form">
{hidden("csrf", viewer.csrf)}{hidden("submission_id", entry.submission_id)}
{hidden("item_id", entry.item_id)}{hidden("at", at)}{hidden("only", only or "")}
<p><label>Points <input type="number" name="points" id="points" min="0"
max="{pts(entry.max_points)}" step="0.01" value="{pts(entry.suggested_points)}"></label>
<button type="submit" name="action" value="points" id="set-points">Set points (p, Enter)</button>
</p>
<label>Comment (shown to the student)<br>
<textarea name="comment" id="comment" rows="3" maxlength="5000"></textarea></label>
<p><button type="submit" name="action" value="accept" id="accept">Accept
{pts(entry.suggested_points)} (a)</button></p>
</form>
<p><a href="?{e(next_query)}" id="next-link">Next item (n)</a></p></div>{panel}</div>
<div class="more">{_document(document, entry)}<h2>Evidence</h2>{_evidence_list(entry)}</div>
</div>"""


def _state(session: SessionDep, submission_id: int, item_id: str) -> str | None:
    """What the item stands at now, in words: the override's points, or the machine's; None
    for an item the rubric does not have (a link cannot put words on the page)."""
    scored = get_for_staff(session, submission_id)
    try:
        full = f" of {pts(rubric_item(session, scored, item_id).points)}"
    except NotFound:
        return None
    override = reviews.get_override(session, submission_id, item_id)
    if override is None:
        return f"the machine's score{full} points (no decision)"
    said = f", comment “{e(override.comment[:200])}”" if override.comment else ""
    return f"<b id='stored-points'>{pts(override.points)}</b>{full} points{said}"


def _saved(session: SessionDep, slug: str, viewer: Viewer, submission_id: int, item_id: str,
           at: int, only: str | None) -> str:
    """The notice after a decision: the value stored, read back, and its undo."""
    state = _state(session, submission_id, item_id)
    if state is None:
        return ""
    link = f'<a href="/submissions/{submission_id}">submission #{submission_id}</a>'
    text = f"Saved: {e(item_id)} of {link} is now {state}."
    change = last_change(session, submission_id, item_id)
    button = ""
    if change is not None and change.undoable:
        button = (
            f'<form method="post" action="/assignments/{e(slug)}/review/undo" id="undo-form"'
            f' class="inline">{hidden("csrf", viewer.csrf)}'
            f'{hidden("submission_id", submission_id)}{hidden("item_id", item_id)}'
            f'{hidden("audit_id", change.audit_id)}{hidden("at", at)}{hidden("only", only or "")}'
            '<button type="submit" id="undo">Undo (u)</button></form>'
        )
    return f'<div class="ok saved" id="saved" role="status"><p>{text}</p>{button}</div>'


def _undone(session: SessionDep, submission_id: int, item_id: str) -> str:
    state = _state(session, submission_id, item_id)
    if state is None:
        return ""
    link = f'<a href="/submissions/{submission_id}">submission #{submission_id}</a>'
    return (f'<p class="ok" id="undone" role="status">Undone: {e(item_id)} of {link} is back to '
            f"{state}.</p>")


@router.get("/assignments/{slug}/review", response_class=HTMLResponse, include_in_schema=False)
def review_page(
    slug: str,
    request: Request,
    session: SessionDep,
    at: Annotated[int, Query(ge=0, le=QUEUE_LIMIT)] = 0,
    saved: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    saved_item: Annotated[str | None, Query(max_length=100)] = None,
    undone: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    undone_item: Annotated[str | None, Query(max_length=100)] = None,
    item_id: Annotated[str | None, Query(max_length=100)] = None,
) -> HTMLResponse:
    """The review queue (course staff): one item waiting for a decision at a time; `item_id`
    keeps to one rubric item (every student's answer to it, in turn). After a decision the
    page reads the stored value back and offers its undo."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    queue = review_queue(session, slug, QUEUE_LIMIT)
    notice = ""
    if item_id:
        queue = [q for q in queue if q.item_id == item_id]
        notice = (
            f"<p>Only item <b>{e(item_id)}</b> · "
            f'<a href="/assignments/{e(slug)}/review">the whole queue</a></p>'
        )
    # The notices read the database, never words from the link; another assignment's
    # submission is not named here.
    if saved is not None and saved_item is not None and _of(session, saved, slug):
        notice += _saved(session, slug, who.viewer, saved, saved_item, at, item_id)
    if undone is not None and undone_item is not None and _of(session, undone, slug):
        notice += _undone(session, undone, undone_item)
    notice += queue_section(session, require_assignment(session, slug))
    if not queue:
        body = notice + "<p>Nothing is waiting for review.</p>"
    else:
        at = min(at, len(queue) - 1)
        entry = queue[at]
        submission = get_for_staff(session, entry.submission_id)
        document = document_text(submission)
        try:
            panel = rubric_panel(rubric_item(session, submission, entry.item_id))
        except NotFound:
            panel = rubric_panel(None)
        # What the student reads of this item now, and after an Accept (staff preview).
        counted = scored(session, [submission])[0]
        panel = (f"<div class='panel' id='preview'>"
                 f"{item_preview(session, counted, entry.item_id, request.app.state.clock())}"
                 f"{accept_preview(counted, entry.item_id)}</div>{panel}")
        body = notice + _item(slug, entry, at, len(queue), who.viewer, document, item_id, panel)
        body += KEYS
    return layout(f"Review queue: {slug}", body, who.viewer, nonce(request), slug=slug)


def _of(session: SessionDep, submission_id: int, slug: str) -> bool:
    try:
        submission = get_for_staff(session, submission_id)
    except NotFound:
        return False
    return submission.assignment_id == require_assignment(session, slug).id


def _points(action: str, points: str, suggested: Decimal) -> Decimal:
    return suggested if action == "accept" else form_points(points)


@router.post("/assignments/{slug}/review/decide", include_in_schema=False)
def decide(
    slug: str,
    request: Request,
    session: SessionDep,
    submission_id: Annotated[int, Form(ge=1, le=MAX_ID)],
    item_id: Annotated[str, Form(max_length=100)],
    action: Annotated[str, Form(pattern="^(accept|points)$")],
    csrf: Annotated[str, Form(max_length=200)] = "",
    points: Annotated[str, Form(max_length=50)] = "",
    comment: Annotated[str, Form(max_length=MAX_COMMENT)] = "",
    at: Annotated[int, Form(ge=0, le=QUEUE_LIMIT)] = 0,
    only: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    """Store an instructor's decision on one item (an override): the suggestion accepted, or
    points set, with an optional comment for the student. Needs the session's CSRF token."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    scored = get_scored(session, submission_id, who.user)
    current = next((i for i in scored.score.items if i.item_id == item_id), None)
    if current is None or scored.assignment_slug != slug:
        raise NotFound(f"Submission {submission_id} of {slug} has no item {item_id!r}.")
    value = _points(action, points, current.machine_points)
    set_override(session, submission_id, item_id, value, clean(comment, MAX_COMMENT).strip(),
                 who.user)
    back: dict[str, object] = {"at": at, "saved": submission_id, "saved_item": item_id}
    if only:
        back["item_id"] = only
    query = urlencode(back)
    return RedirectResponse(f"/assignments/{quote(slug, safe='')}/review?{query}", status_code=303)


@router.post("/assignments/{slug}/review/undo", include_in_schema=False)
def undo_decision(
    slug: str,
    request: Request,
    session: SessionDep,
    submission_id: Annotated[int, Form(ge=1, le=MAX_ID)],
    item_id: Annotated[str, Form(max_length=100)],
    audit_id: Annotated[int, Form(ge=1, le=MAX_ID)],
    csrf: Annotated[str, Form(max_length=200)] = "",
    at: Annotated[int, Form(ge=0, le=QUEUE_LIMIT)] = 0,
    only: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    """Undo the decision just saved (app/review/undo.py): the earlier override, or none, comes
    back; 409 when the item was changed again since. Needs the session's CSRF token."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    if not _of(session, submission_id, slug):
        raise NotFound(f"Assignment {slug!r} has no submission {submission_id}.")
    undo(session, submission_id, item_id, audit_id, who.user)
    back: dict[str, object] = {"at": at, "undone": submission_id, "undone_item": item_id}
    if only:
        back["item_id"] = only
    return RedirectResponse(
        f"/assignments/{quote(slug, safe='')}/review?{urlencode(back)}", status_code=303)
