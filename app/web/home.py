"""The start page (staff: every assignment; students: their own submissions), an assignment's
submissions, and its exports."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session

from app.assignments.schedule import Schedule
from app.assignments.service import current_rubric, list_assignments, require_assignment
from app.clock import Clock
from app.db.models import User
from app.deps import SessionDep
from app.exports.checks import ExportCheck
from app.exports.service import export_check
from app.review.service import waiting_count
from app.submissions.counting import counted_per_student
from app.submissions.service import list_own_scored, list_scored
from app.submissions.visibility import (
    assignment_view,
    counting_rule,
    shows_counted,
    student_score,
)
from app.web import repository
from app.web.auth import Signed, nonce, signed_in, staff
from app.web.batch import upload_section
from app.web.markup import Viewer, e, layout, pts, table
from app.web.routing import PageRoute
from app.web.settings import badges, when
from app.web.submit import scroll

router = APIRouter(tags=["web"], route_class=PageRoute)
PAGE_SIZE = 200
SHOWN_NAMES = 20



def _staff_home(request: Request, session: Session, viewer: Viewer) -> HTMLResponse:
    counts = repository.submission_counts(session)
    rows = []
    now = request.app.state.clock()
    for a in list_assignments(session):
        base = f"/assignments/{e(a.slug)}"
        rows.append([
            f'<a href="{base}/dashboard"><b>{e(a.slug)}</b></a>',
            e(a.title) + f'<br><a href="{base}/settings" class="badges">'
            f"{badges(Schedule.of(a), now)}</a>",
            str(counts.get(a.id, 0)),
            f'<a href="{base}/review">{waiting_count(session, a)} waiting</a>',
            f'<a href="{base}/submissions">submissions</a> · <a href="{base}/regrade">regrade</a>'
            f' · <a href="{base}/exports">exports</a> · <a href="{base}/settings">settings</a>',
        ])
    body = table(["assignment", "title", "submissions", "review queue", "pages"], rows)
    if not rows:
        body = "<p>No assignments yet: load a rubric (`gradeformer rubric load`).</p>"
    return layout("Assignments", body, viewer, nonce(request))


def _student_home(
    request: Request, session: Session, user: User, viewer: Viewer, clock: Clock
) -> HTMLResponse:
    parts = []
    for a in list_assignments(session):
        mine = list_own_scored(session, a.slug, user)
        submit = (f'<p><a class="button" href="/assignments/{e(a.slug)}/submit">Handout and '
                  "upload</a></p>")
        parts.append(f"<h2>{e(a.title)} <span class='muted'>{e(a.slug)}</span></h2>{submit}")
        if not mine:
            parts.append("<p class='muted'>No submissions yet.</p>")
            continue
        view = assignment_view(session, a, clock())
        counted = {c.submission.id for c in counted_per_student(mine, view.schedule).values()}
        tell = shows_counted(view.schedule, view.state)
        rows = []
        for s in mine:
            shown = student_score(s, view)
            rows.append([
                f'<a href="/submissions/{s.submission.id}">#{s.submission.id}</a>'
                + (' <span class="badge">counts</span>'
                   if tell and s.submission.id in counted else ""),
                e(s.submission.created_at.strftime("%Y-%m-%d %H:%M")),
                e(s.submission.filename),
                e(shown.status_text),
                e(shown.total_note) if shown.total is None
                else f"{pts(shown.total)} / {pts(shown.max_points)}",
            ])
        due = view.schedule.due_at
        parts.append(f"<p class='muted'>{'Due ' + e(when(due)) + '. ' if due else ''}"
                     f"{e(counting_rule(view.schedule))}</p>")
        parts.append('<div class="wide">'
                     + table(["submission", "uploaded", "file", "status", "score"], rows, "cards")
                     + "</div>")
    body = "".join(parts) or "<p>No assignments yet.</p>"
    return layout("My submissions", body, viewer, nonce(request))


@router.get("/", response_class=HTMLResponse, include_in_schema=False)
@router.get("/assignments", response_class=HTMLResponse, include_in_schema=False)
def home(request: Request, session: SessionDep) -> HTMLResponse:
    """Start page: every assignment with links to its pages (staff), or one's own submissions
    with what students may see of them (students)."""
    who = signed_in(request, session)
    if not isinstance(who, Signed):
        return who
    if who.viewer.staff:
        return _staff_home(request, session, who.viewer)
    return _student_home(request, session, who.user, who.viewer, request.app.state.clock)


@router.get("/assignments/{slug}/submissions", response_class=HTMLResponse, include_in_schema=False)
def submissions_page(
    slug: str,
    request: Request,
    session: SessionDep,
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
    batch: Annotated[str, Query(max_length=3000)] = "",
) -> HTMLResponse:
    """Every submission of an assignment (course staff), oldest first, with status and total;
    above them the upload form for students' files and the batch just uploaded."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    rubric = current_rubric(session, slug).loaded.rubric
    found = list_scored(session, slug, who.user, PAGE_SIZE + 1, (page - 1) * PAGE_SIZE)
    rows = [
        [
            f'<a href="/submissions/{s.submission.id}">#{s.submission.id}</a>',
            e(s.submission.student),
            e(s.submission.created_at.strftime("%Y-%m-%d %H:%M")),
            e(s.score.status),
            f"{pts(s.score.total)} / {pts(s.score.max_points)}",
            "yes" if s.submission.chosen else "",
        ]
        for s in found[:PAGE_SIZE]
    ]
    pager = ""
    if page > 1:
        pager += f'<a href="?page={page - 1}">previous</a> '
    if len(found) > PAGE_SIZE:
        pager += f'<a href="?page={page + 1}">next</a>'
    body = scroll(table(["submission", "student", "uploaded", "status", "total", "chosen"], rows))
    if not rows:
        body = "<p class='muted'>No submissions yet: upload students' files above.</p>"
    upload = upload_section(session, slug, who.viewer, rubric, who.user, batch,
                            request.app.state.settings.max_upload_bytes)
    return layout(f"Submissions: {slug}", upload + "<h2>All submissions</h2>" + body
                  + f"<p>{pager}</p>", who.viewer, nonce(request),
                  slug=slug)


def _names(found: ExportCheck) -> str:
    """Who the warnings are about (staff page: names are fine here), the first few of each."""
    parts = []
    for label, names in [("Still in review", found.in_review),
                         ("Without a student", found.no_student)]:
        if names:
            more = f" and {len(names) - SHOWN_NAMES} more" if len(names) > SHOWN_NAMES else ""
            parts.append(f"<p>{label}: {e(', '.join(names[:SHOWN_NAMES]))}{e(more)}</p>")
    return "".join(parts)


@router.get("/assignments/{slug}/exports", response_class=HTMLResponse, include_in_schema=False)
def exports_page(slug: str, request: Request, session: SessionDep) -> HTMLResponse:
    """Links to the assignment's exports (course staff): they download with this session."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    require_assignment(session, slug)
    api = f"/api/v1/assignments/{e(slug)}"
    found = export_check(session, slug)
    warnings = "".join(f"<li>{e(w)}</li>" for w in found.warnings())
    notice = (f'<div class="warning" id="export-warnings" role="alert"><ul>{warnings}</ul>'
              f"{_names(found)}</div>" if warnings else "")
    form = (
        f'<form method="get" action="{api}/canvas.csv" class="export" id="export-form">'
        '<p><label>Canvas assignment id (the number in its Canvas address; empty: Canvas offers '
        'to create a new assignment)<br><input type="text" inputmode="numeric" '
        'name="canvas_assignment_id" id="canvas_assignment_id" maxlength="20" '
        'pattern="[0-9]*"></label></p>'
        '<fieldset><legend>Rows</legend>'
        '<label><input type="radio" name="rows" value="all" checked> every student (the '
        "warnings above apply)</label><br>"
        '<label><input type="radio" name="rows" value="final" id="rows-final"> leave out rows '
        "still in review or without a student</label></fieldset>"
        '<p><button type="submit" id="canvas-download">Download the Canvas CSV</button> '
        f'<button type="submit" formaction="{api}/export.csv" id="gradebook-download">'
        "Download the gradebook CSV</button></p></form>"
    )
    rows = [
        [f'<a href="{api}/export.csv" download>Gradebook CSV</a>',
         "One row per student: the submission that counts, per-question points, late penalty."],
        [f'<a href="{api}/canvas.csv" download>Canvas CSV</a>',
         "The gradebook in Canvas's import format (Student, ID, SIS User ID, SIS Login ID, "
         "Section, the grade); the form above fills an existing Canvas assignment."],
        [f'<a href="{api}/results.json" download>results.json</a>',
         "Gradescope-style results of every student, with LMS identifiers and execution time."],
        [f'<a href="{api}/roster">Roster JSON</a>',
         "The students this assignment's exports list (import with "
         "<code>gradeformer roster import</code>)."],
        [f'<a href="{api}/dashboard">Dashboard JSON</a>',
         "The dashboard's numbers (means, histogram, items)."],
        [f'<a href="{api}/review?limit=5000">Review queue JSON</a>',
         "Items waiting for a decision, with the machine's suggestion."],
        [f'<a href="{api}/exemplars">Exemplars JSON</a>',
         "Overridden written answers, ready for a rubric's exemplars."],
    ]
    body = notice + form + table(["export", "what it holds"], rows) + (
        "<p class='muted'>Per submission, Gradescope-style <code>results.json</code> is linked "
        "from each submission's page. Scripts use the same URLs with an "
        "<code>Authorization: Bearer</code> token.</p>"
    )
    return layout(f"Exports: {slug}", body, who.viewer, nonce(request), slug=slug)
