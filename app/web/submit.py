"""Submitting in the browser. A student's page per assignment: the handout (the rubric's
questions and prompts, never its answer key), the schedule, accepted file types and remaining
uploads, an upload form (plain post, or the bundled script's XHR with progress) and the result
once graded. Staff upload on the Submissions page (app/web/batch.py) through the same post,
naming the student of each file.

The post goes through the API's own upload path (app/submissions/receive.py): the same limits,
reading in a bounded child, quota and refusals. Refusals are shown in words: a page for a plain
post, a problem document the script shows for an XHR.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from contextlib import nullcontext
from datetime import datetime
from decimal import Decimal
from itertools import groupby
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.assignments.schedule import Schedule
from app.assignments.service import current_rubric
from app.auth.page_sessions import COOKIE
from app.auth.service import Identity
from app.db.models import Assignment, CountedSubmission, SubmissionStatus
from app.db.session import unit_of_work
from app.deps import MAX_ID, SessionDep
from app.errors import DomainError, NotPermitted
from app.settings import Settings
from app.submissions.counting import counted_per_student, student_key
from app.submissions.filing import staff_student
from app.submissions.limits import UploadLimits
from app.submissions.receive import receive
from app.submissions.service import ScoredSubmission, get_scored, list_own_scored
from app.submissions.upload import Upload, read_upload
from app.submissions.visibility import (
    StudentItem,
    assignment_view,
    student_error,
    student_score,
)
from app.web.auth import Signed, nonce, page_sessions, signed_in
from app.web.markup import Viewer, e, hidden, layout, pts, student_text, table
from app.web.routing import PageRoute
from graders.documents.formats import ACCEPTED_EXTENSIONS
from graders.documents.strength import doubt_in
from graders.rubric import Rubric

router = APIRouter(tags=["web"], route_class=PageRoute)
WHEN = "%Y-%m-%d %H:%M UTC"
# The roster choice that files a staff upload under its file name's stem (alice.txt: alice).
FROM_NAME = "@name"
REFRESH_SECONDS = 2


def scroll(markup: str) -> str:
    """A wide table scrolls inside its own box on a narrow screen, not the page."""
    return f'<div class="scroll">{markup}</div>'


def submit_url(slug: str) -> str:
    return f"/assignments/{e(slug)}/submit"


def _when(moment: datetime | None) -> str:
    return "–" if moment is None else e(moment.strftime(WHEN))


def _handout(rubric: Rubric) -> str:
    """The questions as the rubric asks them: id, title, part and prompt. Items (points,
    graders, references, hidden inputs) are never shown here."""
    parts = [f"<p>{e(rubric.description)}</p>"] if rubric.description else []
    for q in rubric.questions:
        points = sum((i.points for i in q.items), Decimal(0))
        head = e(q.id) + (f": {e(q.title)}" if q.title else "")
        editions = (f" <span class='muted'>(handout {e(', '.join(q.handouts))})</span>"
                    if q.handouts else "")
        prompt = f"<div class='prompt'>{e(q.prompt)}</div>" if q.prompt else ""
        parts.append(f"<section class='question'><h3>{head} <span class='muted'>"
                     f"{pts(points)} pts</span>{editions}</h3>{prompt}</section>")
    return "".join(parts)


def _schedule(schedule: Schedule, used: int) -> str:
    late = "no late submissions"
    if schedule.due_at is not None and schedule.late_until is not None \
            and schedule.late_until != schedule.due_at:
        late = (f"late uploads until {_when(schedule.late_until)}, "
                f"{pts(schedule.late_penalty_percent)}% off per started day")
    if schedule.due_at is None:
        late = "any time"
    if schedule.max_submissions is None:
        remaining = f"no limit ({used} used)"
    else:
        left = max(0, schedule.max_submissions - used)
        remaining = f"<b id='remaining'>{left}</b> of {schedule.max_submissions}"
    counts = {
        CountedSubmission.LATEST: "your latest submission",
        CountedSubmission.BEST: "your best submission",
        CountedSubmission.CHOSEN: "the one your instructor chooses (until then, your latest)",
    }[schedule.counts]
    rows = [
        ["opens", "open now" if schedule.opens_at is None else _when(schedule.opens_at)],
        ["due", "no due date" if schedule.due_at is None else _when(schedule.due_at)],
        ["late policy", e(late)],
        ["submissions left", remaining],
        ["what counts", e(counts)],
        ["file types", e(" ".join(ACCEPTED_EXTENSIONS))],
    ]
    return table(["", ""], rows, "facts")


def size_words(size: int) -> str:
    """A byte count as a person reads it: 2 MB, 1.5 MB, 300 KB (1 MB = 1,048,576 bytes, as
    the limit is set)."""
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f}".removesuffix(".0") + " MB"
    return f"{max(1, round(size / 1024))} KB"


def upload_form(slug: str, viewer: Viewer, rubric: Rubric, max_bytes: int,
                staff_choice: str = "") -> str:
    """The upload form: one file (or, staff with the script, many), the CSRF token, the handout
    edition when the rubric has several, a drop zone that says the largest file accepted (the
    script refuses a bigger one before sending it) and a progress bar."""
    editions = ""
    if rubric.handouts:
        options = "".join(f'<option value="{e(h)}">{e(h)}</option>' for h in rubric.handouts)
        editions = (f'<label>Handout edition <select name="handout"><option value="">not '
                    f"stated</option>{options}</select></label>")
    multiple = " multiple" if staff_choice else ""
    accept = ",".join(ACCEPTED_EXTENSIONS)
    return (
        f'<form id="upload-form" class="upload panel" method="post" action="{submit_url(slug)}"'
        f' enctype="multipart/form-data" data-batch="{"1" if staff_choice else ""}"'
        f' data-max-bytes="{max_bytes}" data-max-words="{size_words(max_bytes)}">'
        f'{hidden("csrf", viewer.csrf)}{staff_choice}{editions}'
        '<label class="drop" id="drop">Choose a file or drop it here'
        f'<span class="muted"> (at most {size_words(max_bytes)})</span>'
        f'<input type="file" name="file" id="file" accept="{e(accept)}" required{multiple}>'
        "</label>"
        '<p><button type="submit" id="upload">Upload</button></p>'
        '<progress id="upload-progress" max="100" value="0" aria-label="Upload progress" '
        "hidden></progress>"
        '<p id="upload-error" class="error" role="alert" aria-live="assertive"></p></form>'
    )


# In the machine's doubt ("does this answer this assignment? 1 of 10 questions found; a grader
# should check ..."), itself at most a few hundred characters.
_FOUND = re.compile(r"\b(\d{1,4}) of (\d{1,4}) questions found")


def wrong_assignment(feedbacks: Iterable[str]) -> str | None:
    """"1 of 10 questions found: is this the right assignment?" when the machine doubts that a
    graded document answers this assignment; None when it does not."""
    doubt = doubt_in(feedbacks)
    if doubt is None:
        return None
    found = _FOUND.search(doubt[:500])
    counted = f"{found.group(1)} of {found.group(2)} questions found" if found else doubt
    return f"{counted}: is this the right assignment?"


def _waiting(item: StudentItem) -> tuple[str, str] | None:
    """The key a part shares with its neighbours while it waits alike: no points, no title."""
    return None if item.points is not None or item.title else (item.question, item.feedback)


def part_rows(items: Iterable[StudentItem]) -> list[list[str]]:
    """One row per part, except that neighbouring parts of one question that wait alike (no
    points yet, the same message) share one: before release the result of a long assignment
    was a wall of "Being reviewed by course staff." above the upload form."""
    rows: list[list[str]] = []
    for _, run in groupby(items, key=lambda i: _waiting(i) or id(i)):
        parts = list(run)
        first = parts[0]
        name = (f"<b>{e(first.question)}</b> ({len(parts)} parts)" if len(parts) > 1 else
                f"<b>{e(first.id)}</b>" + (f"<br><span class='muted'>{e(first.title)}</span>"
                                            if first.title else ""))
        points = ("–" if first.points is None or len(parts) > 1
                  else f"{pts(first.points)} / {pts(first.max_points)}")
        rows.append([name, points, student_text(first.feedback)])
    return rows


def _result(session: Session, s: ScoredSubmission, assignment: Assignment, now: datetime) -> str:
    """What the student may see of one of their submissions, with the doubt that it answers
    this assignment."""
    status = SubmissionStatus(s.submission.status)
    if not status.is_final:
        return (f'<section class="panel" id="result"><h2>Submission #{s.submission.id}</h2>'
                f'<p id="result-status">Grading <b>{e(s.submission.filename)}</b>… this page '
                "updates by itself.</p></section>")
    view = assignment_view(session, assignment, now)
    shown = student_score(s, view)
    doubt = wrong_assignment(i.feedback for i in s.score.items)
    warning = (f'<p class="flag" id="doubt">{e(doubt)} Only part of {e(assignment.title)} was '
               "found in your file; course staff will check it.</p>" if doubt else "")
    error = student_error(s)
    # No number yet: the note says why in a sentence of its own ("Grades are not published yet.")
    total = (e(shown.total_note or "") if shown.total is None
             else f"Total: <b>{pts(shown.total)} / {pts(shown.max_points)}</b>.")
    rows = part_rows(shown.items)
    return (
        f'<section class="panel" id="result"><h2>Submission #{s.submission.id}: '
        f"{e(s.submission.filename)}</h2>"
        f'<p id="result-status">Received and checked. {total}</p>{warning}'
        + (f'<p class="error">{e(error)}</p>' if error else "")
        + scroll(table(["part", "points", "feedback"], rows, "items"))
        + f'<p><a href="/submissions/{s.submission.id}">Open this submission</a></p></section>'
    )


def _mine(
    session: Session, assignment: Assignment, mine: list[ScoredSubmission], now: datetime
) -> str:
    if not mine:
        return "<p class='muted'>You have not submitted yet.</p>"
    view = assignment_view(session, assignment, now)
    counted = counted_per_student(mine, view.schedule)
    # Which one is best would tell a student how unreleased scores compare (as in the API).
    unknown = view.schedule.counts == CountedSubmission.BEST and not view.state.published
    rows = []
    for s in mine:
        shown = student_score(s, view)
        counts = not unknown and counted.get(student_key(s)) is s
        rows.append([  # as on the student's home page: the badge beside the one that counts
            f'<a href="/submissions/{s.submission.id}">#{s.submission.id}</a>'
            + (' <span class="badge">counts</span>' if counts else ""),
            e(s.submission.created_at.strftime("%Y-%m-%d %H:%M")),
            e(s.submission.filename),
            e(shown.status_text),  # the words of the student's home page
            e(shown.total_note or "") if shown.total is None
            else f"{pts(shown.total)} / {pts(shown.max_points)}",
        ])
    note = ("<p class='muted'>Which submission counts is shown once grades are published (your "
            "best one counts).</p>" if unknown else "")
    headers = ["submission", "uploaded", "file", "status", "score"]
    return scroll(table(headers, rows, "cards")) + note


@router.get("/assignments/{slug}/submit", response_class=HTMLResponse, include_in_schema=False)
def submit_page(
    slug: str,
    request: Request,
    session: SessionDep,
    submission: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
) -> HTMLResponse:
    """An assignment's handout, schedule and upload form (students), with the result of the
    submission just uploaded (`submission`, one's own), which updates until it is graded."""
    who = signed_in(request, session)
    if not isinstance(who, Signed):
        return who
    current = current_rubric(session, slug)
    assignment, rubric = current.assignment, current.loaded.rubric
    now: datetime = request.app.state.clock()
    schedule = Schedule.of(assignment)
    refresh = None
    result = ""
    if who.viewer.staff:
        mine: list[ScoredSubmission] = []
        action = (f"<p class='flash'>What students see. Staff upload for students on the "
                  f'<a href="/assignments/{e(slug)}/submissions">Submissions page</a>.</p>')
    else:
        mine = list_own_scored(session, slug, who.user)
        refused = schedule.refusal(now, len(mine))
        action = (f'<p class="error" id="closed">{e(refused.detail)}</p>' if refused
                  else upload_form(slug, who.viewer, rubric,
                                   request.app.state.settings.max_upload_bytes))
        if submission is not None:
            s = get_scored(session, submission, who.user)  # 404 unless their own
            if s.submission.assignment_id == assignment.id:
                result = _result(session, s, assignment, now)
                if not SubmissionStatus(s.submission.status).is_final:
                    refresh = REFRESH_SECONDS
    body = (
        result + _schedule(schedule, len(mine)) + "<h2>Upload</h2>" + action
        + ("" if who.viewer.staff else "<h2>Your submissions</h2>"
           + _mine(session, assignment, mine, now))
        + f"<h2>Handout</h2>{_handout(rubric)}"
    )
    return layout(assignment.title, body, who.viewer, nonce(request),
                  slug=slug if who.viewer.staff else None, refresh=refresh)


def _signed(request: Request) -> Signed | HTMLResponse:
    """The signed-in user, detached (the post reads its body with no session open)."""
    with unit_of_work(request.app.state.read_sessions) as session:
        who = signed_in(request, session)
        if not isinstance(who, Signed):
            return who
        u = who.user
        return Signed(Identity(u.id, u.name, u.role, u.created_at).user(), who.viewer)


def _staff_student(request: Request, slug: str, upload: Upload) -> Upload:
    """The student a staff upload is filed under (app/submissions/filing.py): the roster entry
    chosen, or the file name's stem when asked (FROM_NAME)."""
    chosen = (upload.student or "").strip()
    with unit_of_work(request.app.state.read_sessions) as session:
        student = staff_student(
            session, slug, None if chosen == FROM_NAME else chosen, upload.filename,
            "choose the student from the roster, or file it under its name (alice.txt for "
            "alice)")
    return dataclasses.replace(upload, student=student)


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _refused(request: Request, who: Signed, slug: str, exc: DomainError) -> Response:
    headers = ({"Retry-After": str(exc.extra["retry_after"])}
               if "retry_after" in exc.extra else None)
    if _wants_json(request):
        problem = {"status": exc.status, "title": exc.title, "detail": exc.detail}
        return JSONResponse(problem, status_code=exc.status, headers=headers,
                            media_type="application/problem+json")
    body = (f'<p class="error" role="alert">{e(exc.detail)}</p>'
            f'<p><a href="{submit_url(slug)}">Back to the upload page</a></p>')
    page = layout(f"Not uploaded: {exc.title}", body, who.viewer, nonce(request),
                  status=exc.status)
    if headers:
        page.headers.update(headers)
    return page


@router.post("/assignments/{slug}/submit", include_in_schema=False)
async def submit(slug: str, request: Request) -> Response:
    """Upload one file from a page form (multipart `file`, `csrf`, optional `handout`; staff
    also `student`: a roster id or FROM_NAME). A plain post is answered with a redirect to the
    result; an XHR (Accept: application/json) with the new submission's id and page."""
    who = await run_in_threadpool(_signed, request)
    if not isinstance(who, Signed):
        return who
    settings: Settings = request.app.state.settings
    limits: UploadLimits = request.app.state.upload_limits
    try:
        if not who.viewer.staff:
            limits.take(who.user.id)  # before the body is read, as in the API
        with nullcontext() if who.viewer.staff else limits.receiving(who.user.id):
            upload = await read_upload(request, settings.max_upload_bytes)
            if not page_sessions(request).csrf_ok(request.cookies.get(COOKIE), upload.csrf):
                raise NotPermitted("The form did not carry this session's security token "
                                   "(CSRF). Reload the page and try again.")
            upload = dataclasses.replace(upload, handout=upload.handout or None)
            if who.viewer.staff:
                upload = await run_in_threadpool(_staff_student, request, slug, upload)
            else:
                upload = dataclasses.replace(upload, student=None)
            received = await receive(request, slug, who.user, upload)
    except DomainError as exc:
        return _refused(request, who, slug, exc)
    if who.viewer.staff:
        url = f"/assignments/{slug}/submissions?batch={received.submission_id}"
    else:
        url = f"{submit_url(slug)}?submission={received.submission_id}"
    if _wants_json(request):
        return JSONResponse(
            {"id": received.submission_id, "status": received.status, "url": url,
             "student": upload.student, "file": upload.filename},
            status_code=received.code,
        )
    return RedirectResponse(url, status_code=303)
