"""The review queue, one item at a time: the student's answer with the evidence marked, the
machine's suggestion, confidence and reasons, and accept / set points / comment (the override
service), with keyboard shortcuts (app/web/static/web.js)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.deps import SessionDep
from app.errors import InvalidInput, NotFound
from app.review.service import ReviewEntry, review_queue, set_override
from app.sanitize import clean
from app.submissions.service import get_for_staff, get_scored
from app.web.auth import Signed, csrf_refusal, nonce, staff
from app.web.document import document_spans, document_text
from app.web.evidence import spans
from app.web.markup import Viewer, e, hidden, highlight, layout, pct, pts, table
from app.web.routing import PageRoute

router = APIRouter(tags=["web"], route_class=PageRoute)
QUEUE_LIMIT = 5000
KEYS = (
    "<p class='keys muted'>Keys: <kbd>a</kbd> accept the suggestion · <kbd>0</kbd>–<kbd>9</kbd>"
    " set that many points · <kbd>p</kbd> type points · <kbd>c</kbd> write a comment (sent with"
    " either action) · <kbd>n</kbd> next item · <kbd>Esc</kbd> leave a text box.</p>"
)


def group_url(slug: str, item_id: str) -> str:
    return f"/assignments/{quote(slug, safe='')}/groups/{quote(item_id, safe='')}"


def _evidence_list(entry: ReviewEntry) -> str:
    rows = [
        [e(ev.get("kind")), f"<span class='doc-inline'>{e(ev.get('text'))}</span>",
         e(ev.get("note") or "")]
        for ev in entry.evidence[:50]
        if isinstance(ev, dict)
    ]
    return table(["kind", "text", "note"], rows) if rows else "<p class='muted'>None.</p>"


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
{_document(document, entry)}<h2>Evidence</h2>{_evidence_list(entry)}</div>
<div><div class="panel"><h2>Machine suggestion</h2>
<p><b id="suggested">{pts(entry.suggested_points)}</b> of {pts(entry.max_points)} points ·
confidence <b>{pct(entry.confidence)}</b></p>
<p class="muted">Reasons (staff only)</p><div class="staff" id="reasons">{e(entry.feedback)}</div>
</div>
<div class="panel actions"><form method="post" action="{decide}" id="decide-form">
{hidden("csrf", viewer.csrf)}{hidden("submission_id", entry.submission_id)}
{hidden("item_id", entry.item_id)}{hidden("at", at)}{hidden("only", only or "")}
<label>Comment (shown to the student)<br>
<textarea name="comment" id="comment" rows="3" maxlength="5000"></textarea></label>
<p><button type="submit" name="action" value="accept" id="accept">Accept
{pts(entry.suggested_points)} (a)</button></p>
<p><label>Points <input type="number" name="points" id="points" min="0"
max="{pts(entry.max_points)}" step="0.01" value="{pts(entry.suggested_points)}"></label>
<button type="submit" name="action" value="points" id="set-points">Set points (p)</button></p>
</form>
<p><a href="?{e(next_query)}" id="next-link">Next item (n)</a></p></div></div></div>"""


@router.get("/assignments/{slug}/review", response_class=HTMLResponse, include_in_schema=False)
def review_page(
    slug: str,
    request: Request,
    session: SessionDep,
    at: Annotated[int, Query(ge=0, le=QUEUE_LIMIT)] = 0,
    saved: Annotated[int | None, Query(ge=1)] = None,
    saved_item: Annotated[str | None, Query(max_length=100)] = None,
    item_id: Annotated[str | None, Query(max_length=100)] = None,
) -> HTMLResponse:
    """The review queue (course staff): one item waiting for a decision at a time; `item_id`
    keeps to one rubric item (every student's answer to it, in turn)."""
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
    if saved is not None and saved_item is not None:
        notice += (
            f'<p class="ok" id="saved">Saved {e(saved_item)} of '
            f'<a href="/submissions/{saved}">submission #{saved}</a>.</p>'
        )
    if not queue:
        body = notice + "<p>Nothing is waiting for review.</p>"
    else:
        at = min(at, len(queue) - 1)
        entry = queue[at]
        document = document_text(get_for_staff(session, entry.submission_id))
        body = notice + _item(slug, entry, at, len(queue), who.viewer, document, item_id)
        body += KEYS
    return layout(f"Review queue: {slug}", body, who.viewer, nonce(request), slug=slug)


def _points(action: str, points: str, suggested: Decimal) -> Decimal:
    if action == "accept":
        return suggested
    try:
        return Decimal(points.strip())
    except InvalidOperation:
        raise InvalidInput(f"Points must be a number; got {points[:50]!r}.") from None


@router.post("/assignments/{slug}/review/decide", include_in_schema=False)
def decide(
    slug: str,
    request: Request,
    session: SessionDep,
    submission_id: Annotated[int, Form(ge=1, le=2**63 - 1)],
    item_id: Annotated[str, Form(max_length=100)],
    action: Annotated[str, Form(pattern="^(accept|points)$")],
    csrf: Annotated[str, Form(max_length=200)] = "",
    points: Annotated[str, Form(max_length=50)] = "",
    comment: Annotated[str, Form(max_length=5000)] = "",
    at: Annotated[int, Form(ge=0, le=QUEUE_LIMIT)] = 0,
    only: Annotated[str, Form(max_length=100)] = "",
) -> Response:
    """Store an instructor's decision on one item (an override): the suggestion accepted, or
    points set, with an optional comment for the student. Needs the session's CSRF token."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    refused = csrf_refusal(request, who, csrf)
    if refused is not None:
        return refused
    scored = get_scored(session, submission_id, who.user)
    current = next((i for i in scored.score.items if i.item_id == item_id), None)
    if current is None or scored.assignment_slug != slug:
        raise NotFound(f"Submission {submission_id} of {slug} has no item {item_id!r}.")
    value = _points(action, points, current.machine_points)
    set_override(session, submission_id, item_id, value, clean(comment, 5000).strip(), who.user)
    back: dict[str, object] = {"at": at, "saved": submission_id, "saved_item": item_id}
    if only:
        back["item_id"] = only
    query = urlencode(back)
    return RedirectResponse(f"/assignments/{quote(slug, safe='')}/review?{query}", status_code=303)
