"""An assignment's settings page (course staff): publish or withdraw its grades, with a warning
naming what is still in review, and its schedule (opening, due date, late window and penalty,
submission limit, which submission counts), and the handout edition graded (app/web/editions.py).
The forms call the same services as the API and the CLI (app/assignments/release.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from app.assignments import release
from app.assignments.schedule import Schedule
from app.assignments.service import require_assignment
from app.db.models import CountedSubmission
from app.deps import SessionDep
from app.errors import InvalidInput
from app.web.auth import Signed, nonce, staff, staff_post
from app.web.editions import editions_section
from app.web.markup import Viewer, e, hidden, layout, table
from app.web.routing import PageRoute

router = APIRouter(tags=["web"], route_class=PageRoute)
# What a datetime-local field sends: minutes, no offset (the page says the times are UTC).
FIELD_FORMAT = "%Y-%m-%dT%H:%M"
COUNTS_LABELS = {
    CountedSubmission.LATEST.value: "the latest upload",
    CountedSubmission.BEST.value: "the best total",
    CountedSubmission.CHOSEN.value: "the one an instructor marks (the latest until then)",
}
Text = Annotated[str, Form(max_length=200)]
Token = Annotated[str, Form(max_length=200)]


def when(moment: datetime | None) -> str:
    return "not set" if moment is None else moment.strftime("%Y-%m-%d %H:%M UTC")


def badges(schedule: Schedule, now: datetime) -> str:
    """The published / due badges of an assignment list and its pages."""
    out = [
        '<span class="badge published">grades published</span>' if schedule.published
        else '<span class="badge unpublished">grades not published</span>'
    ]
    if schedule.due_at is not None:
        state = "past due" if schedule.due_passed(now) else "due"
        out.append(f'<span class="badge due">{state} {e(when(schedule.due_at))}</span>')
    return " ".join(out)


def _field(moment: datetime | None) -> str:
    return "" if moment is None else moment.astimezone(UTC).strftime(FIELD_FORMAT)


def _moment(name: str, text: str) -> datetime | None:
    text = text.strip()
    if not text:
        return None
    try:
        return datetime.strptime(text, FIELD_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        raise InvalidInput(f"{name}: {text[:40]!r} is not a date and time "
                           "(YYYY-MM-DDTHH:MM, UTC).") from None


def _publish_section(slug: str, schedule: Schedule, waiting: list[release.WaitingItem],
                     viewer: Viewer) -> str:
    action = f"/assignments/{e(slug)}/settings"
    if schedule.published:
        return (
            f"<p id='release-state'>Grades published {e(when(schedule.grades_published_at))}: "
            "students see what the rubric releases after publication.</p>"
            f'<form method="post" action="{action}/withdraw">{hidden("csrf", viewer.csrf)}'
            '<button type="submit" id="withdraw">Withdraw the grades</button></form>'
        )
    warning = ""
    confirm = ""
    if waiting:
        total = sum(w.waiting for w in waiting)
        rows = [[
            f'<a href="/assignments/{e(slug)}/review?{e(urlencode({"item_id": w.item_id}))}">'
            f"{e(w.item_id)}</a>",
            e(w.question),
            str(w.waiting),
        ] for w in waiting]
        warning = (
            f'<div class="warning" id="publish-warning" role="alert"><p><b>{total} answer(s) '
            f"are still in review</b> in {len(waiting)} item(s). Publishing now shows their "
            "students that these parts are being reviewed, and no total until they are decided."
            "</p>" + table(["item", "question", "waiting"], rows) + "</div>"
        )
        confirm = ('<p><label><input type="checkbox" name="confirm" value="yes" '
                   'id="publish-anyway"> Publish although answers are still in review</label></p>')
    return (
        "<p id='release-state'>Grades are not published: students see only the items whose "
        "visibility is <code>visible</code> (or <code>after_due_date</code> once it is due).</p>"
        + warning
        + f'<form method="post" action="{action}/publish">{hidden("csrf", viewer.csrf)}{confirm}'
        '<button type="submit" id="publish">Publish the grades</button></form>'
    )


def _schedule_form(slug: str, schedule: Schedule, viewer: Viewer) -> str:
    def moment(name: str, label: str, value: datetime | None) -> str:
        return (f'<p><label>{label} (UTC)<br><input type="datetime-local" name="{name}" '
                f'id="{name}" value="{_field(value)}"></label></p>')

    options = "".join(
        f'<option value="{e(v)}"{" selected" if schedule.counts.value == v else ""}>'
        f"{e(label)}</option>" for v, label in COUNTS_LABELS.items())
    limit = "" if schedule.max_submissions is None else str(schedule.max_submissions)
    return (
        f'<form method="post" action="/assignments/{e(slug)}/settings/schedule" '
        f'class="schedule">{hidden("csrf", viewer.csrf)}'
        + moment("opens_at", "Opens", schedule.opens_at)
        + moment("due_at", "Due", schedule.due_at)
        + moment("late_until", "Late uploads accepted until (cut-off)", schedule.late_until)
        + '<p><label>Late penalty per started day (%)<br><input type="number" min="0" '
        f'max="100" step="0.01" name="late_penalty_percent" id="late_penalty_percent" '
        f'value="{e(format(schedule.late_penalty_percent.normalize(), "f"))}"></label></p>'
        '<p><label>Submission limit per student (empty: no limit)<br><input type="number" '
        f'min="1" max="{release.MAX_SUBMISSIONS}" name="max_submissions" id="max_submissions" '
        f'value="{limit}"></label></p>'
        f'<p><label>The submission that counts<br><select name="counts" id="counts">{options}'
        "</select></label></p>"
        '<p><button type="submit" id="save-schedule">Save the schedule</button></p></form>'
    )


def _page(request: Request, session: Session, who: Signed, slug: str, message: str = "",
          error: str = "", status: int = 200) -> HTMLResponse:
    assignment = require_assignment(session, slug)
    schedule = Schedule.of(assignment)
    now: datetime = request.app.state.clock()
    waiting = [] if schedule.published else release.still_in_review(session, slug)
    notice = (f'<p class="saved" role="status">{e(message)}</p>' if message else "") + (
        f'<p class="error" role="alert">{e(error)}</p>' if error else "")
    body = (
        notice + f"<p>{badges(schedule, now)}</p>"
        "<h2>Grades</h2>" + _publish_section(slug, schedule, waiting, who.viewer)
        + "<h2>Schedule</h2>" + _schedule_form(slug, schedule, who.viewer)
        + editions_section(session, slug, who.viewer)
    )
    return layout(f"Settings: {slug}", body, who.viewer, nonce(request), slug=slug,
                  status=status)


@router.get("/assignments/{slug}/settings", response_class=HTMLResponse, include_in_schema=False)
def settings_page(slug: str, request: Request, session: SessionDep,
                  saved: str = "") -> HTMLResponse:
    """Publish / withdraw and the schedule of an assignment (course staff)."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    messages = {"publish": "Grades published.", "withdraw": "Grades withdrawn.",
                "schedule": "Schedule saved.",
                "edition": "Edition saved; no stored submission changed edition."}
    return _page(request, session, who, slug, messages.get(saved, ""))


def _done(slug: str, what: str) -> RedirectResponse:
    return RedirectResponse(f"/assignments/{slug}/settings?saved={what}", status_code=303)


@router.post("/assignments/{slug}/settings/publish", include_in_schema=False)
def publish(slug: str, request: Request, session: SessionDep,
            csrf: Token = "", confirm: Text = "") -> Response:
    """Publish; with answers still in review only when the form confirms it (else 409)."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    waiting = release.still_in_review(session, slug)
    if waiting and confirm != "yes":
        total = sum(w.waiting for w in waiting)
        return _page(request, session, who, slug, status=409, error=(
            f"Not published: {total} answer(s) are still in review. Decide them, or tick "
            "“Publish although answers are still in review”."))
    release.publish_grades(session, slug, who.user, request.app.state.clock())
    return _done(slug, "publish")


@router.post("/assignments/{slug}/settings/withdraw", include_in_schema=False)
def withdraw(slug: str, request: Request, session: SessionDep, csrf: Token = "") -> Response:
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    release.withdraw_grades(session, slug, who.user)
    return _done(slug, "withdraw")


def _changes(opens_at: str, due_at: str, late_until: str, late_penalty_percent: str,
             max_submissions: str, counts: str) -> dict[str, object]:
    try:
        penalty = Decimal(late_penalty_percent.strip() or "0")
    except InvalidOperation:
        raise InvalidInput(f"The late penalty {late_penalty_percent[:40]!r} is not a number."
                           ) from None
    if not penalty.is_finite():
        raise InvalidInput("The late penalty must be a number between 0 and 100.")
    limit_text = max_submissions.strip()
    if limit_text and not (limit_text.isdigit() and len(limit_text) <= 9):
        raise InvalidInput(f"The submission limit {limit_text[:40]!r} is not a whole number "
                           f"between 1 and {release.MAX_SUBMISSIONS}.")
    if counts not in COUNTS_LABELS:
        raise InvalidInput(f"{counts[:40]!r} is not one of {', '.join(COUNTS_LABELS)}.")
    return {
        "opens_at": _moment("Opens", opens_at),
        "due_at": _moment("Due", due_at),
        "late_until": _moment("Late uploads accepted until", late_until),
        "late_penalty_percent": penalty,
        "max_submissions": int(limit_text) if limit_text else None,
        "counts": CountedSubmission(counts),
    }


@router.post("/assignments/{slug}/settings/schedule", include_in_schema=False)
def save_schedule(
    slug: str, request: Request, session: SessionDep, csrf: Token = "", opens_at: Text = "",
    due_at: Text = "", late_until: Text = "", late_penalty_percent: Text = "0",
    max_submissions: Text = "", counts: Text = CountedSubmission.LATEST.value,
) -> Response:
    """Save every field of the form; a refusal (dates out of order, a value out of range) is
    shown on the page with status 422 and nothing changed."""
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    try:
        changed = _changes(opens_at, due_at, late_until, late_penalty_percent,
                           max_submissions, counts)
        release.update_schedule(session, slug, changed, who.user)
    except InvalidInput as exc:
        session.rollback()
        return _page(request, session, who, slug, status=422,
                     error=f"Not saved: {exc.detail}")
    return _done(slug, "schedule")
