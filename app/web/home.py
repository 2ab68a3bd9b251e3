"""The start page (staff: every assignment; students: their own submissions), an assignment's
submissions, and its exports."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from sqlalchemy.orm import Session

from app.assignments.service import current_rubric, list_assignments, require_assignment
from app.clock import Clock
from app.db.models import User
from app.deps import SessionDep
from app.review.service import waiting_count
from app.submissions.service import list_own_scored, list_scored
from app.submissions.visibility import assignment_view, student_score
from app.web import repository
from app.web.auth import Signed, nonce, signed_in, staff
from app.web.batch import upload_section
from app.web.markup import Viewer, e, layout, pts, table
from app.web.submit import scroll

router = APIRouter(tags=["web"])
PAGE_SIZE = 200



def _staff_home(request: Request, session: Session, viewer: Viewer) -> HTMLResponse:
    counts = repository.submission_counts(session)
    rows = []
    for a in list_assignments(session):
        base = f"/assignments/{e(a.slug)}"
        rows.append([
            f'<a href="{base}/dashboard"><b>{e(a.slug)}</b></a>',
            e(a.title),
            str(counts.get(a.id, 0)),
            f'<a href="{base}/review">{waiting_count(session, a)} waiting</a>',
            f'<a href="{base}/submissions">submissions</a> · <a href="{base}/regrade">regrade</a>'
            f' · <a href="{base}/exports">exports</a>',
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
        rows = []
        for s in mine:
            shown = student_score(s, view)
            rows.append([
                f'<a href="/submissions/{s.submission.id}">#{s.submission.id}</a>',
                e(s.submission.created_at.strftime("%Y-%m-%d %H:%M")),
                e(s.submission.filename),
                e(shown.status),
                "not released yet" if shown.total is None
                else f"{pts(shown.total)} / {pts(shown.max_points)}",
            ])
        parts.append(table(["submission", "uploaded", "file", "status", "score"], rows))
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
    upload = upload_section(session, slug, who.viewer, rubric, who.user, batch)
    return layout(f"Submissions: {slug}", upload + "<h2>All submissions</h2>" + body
                  + f"<p>{pager}</p>", who.viewer, nonce(request),
                  slug=slug)


@router.get("/assignments/{slug}/exports", response_class=HTMLResponse, include_in_schema=False)
def exports_page(slug: str, request: Request, session: SessionDep) -> HTMLResponse:
    """Links to the assignment's exports (course staff): they download with this session."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    require_assignment(session, slug)
    api = f"/api/v1/assignments/{e(slug)}"
    rows = [
        [f'<a href="{api}/export.csv" download>Gradebook CSV</a>',
         "One row per student: the submission that counts, per-question points, late penalty."],
        [f'<a href="{api}/canvas.csv" download>Canvas CSV</a>',
         "The gradebook in Canvas's import format (Student, ID, SIS User ID, SIS Login ID, "
         "Section, the grade); add <code>?canvas_assignment_id=N</code> to fill an existing "
         "Canvas assignment."],
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
    body = table(["export", "what it holds"], rows) + (
        "<p class='muted'>Per submission, Gradescope-style <code>results.json</code> is linked "
        "from each submission's page. Scripts use the same URLs with an "
        "<code>Authorization: Bearer</code> token.</p>"
    )
    return layout(f"Exports: {slug}", body, who.viewer, nonce(request), slug=slug)
