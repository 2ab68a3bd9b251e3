"""Staff bulk upload on an assignment's Submissions page: many files at once (the bundled
script posts each to the submit route, app/web/submit.py), each filed under its file name's
stem or a student chosen from the roster; the batch's rows follow their grading by polling
`batch.json`. Without the script the form posts one file."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.orm import Session

from app.db.models import SubmissionStatus, User
from app.deps import MAX_ID, SessionDep
from app.errors import DomainError
from app.roster.service import roster_for_assignment
from app.submissions.service import ScoredSubmission, get_scored
from app.web.auth import Signed, staff
from app.web.markup import Viewer, e, pts, table
from app.web.routing import PageRoute
from app.web.submit import FROM_NAME, scroll, upload_form, wrong_assignment
from graders.rubric import Rubric

router = APIRouter(tags=["web"], route_class=PageRoute)
MAX_BATCH = 200


def _ids(text: str) -> list[int]:
    # ASCII digits only (int() refuses "²", which isdigit() takes), within the ids' range
    return [int(p) for p in text.split(",")[:MAX_BATCH]
            if p.isascii() and p.isdigit() and len(p) <= 12 and int(p) <= MAX_ID]


def batch_row(s: ScoredSubmission) -> dict[str, object]:
    """One uploaded file's state for the batch table: the doubt that it answers this
    assignment once graded ("0 of 10 questions found")."""
    final = SubmissionStatus(s.submission.status).is_final
    doubt = wrong_assignment(i.feedback for i in s.score.items) if final else None
    return {
        "id": s.submission.id,
        "student": s.submission.student,
        "file": s.submission.filename,
        "status": s.score.status if final else s.submission.status,
        "final": final,
        "total": f"{pts(s.score.total)} / {pts(s.score.max_points)}" if final else "",
        "doubt": doubt or "",
        "url": f"/submissions/{s.submission.id}",
    }


def _rows(session: Session, user: User, ids: list[int], slug: str) -> list[dict[str, object]]:
    rows = []
    for submission_id in ids:
        try:
            s = get_scored(session, submission_id, user)
        except DomainError:
            continue
        if s.assignment_slug == slug:
            rows.append(batch_row(s))
    return rows


def _cells(row: dict[str, object]) -> list[str]:
    return [
        f'<a href="{e(row["url"])}">#{e(row["id"])}</a>',
        e(row["file"]),
        e(row["student"]),
        f'<span class="state">{e(row["status"])}</span>',
        e(row["total"]),
        f'<span class="flag-text">{e(row["doubt"])}</span>' if row["doubt"] else "",
    ]


def upload_section(
    session: Session, slug: str, viewer: Viewer, rubric: Rubric, user: User, batch: str,
    max_bytes: int,
) -> str:
    """The Submissions page's upload form and the current batch's table."""
    roster = sorted(roster_for_assignment(session, slug).values(), key=lambda r: r.student_id)
    options = "".join(
        f'<option value="{e(r.student_id)}">{e(r.student_id)}'
        + (f" ({e(r.name)})" if r.name else "") + "</option>"
        for r in roster
    )
    choice = (
        '<label>Student <select name="student" id="student">'
        f'<option value="{FROM_NAME}">from each file\'s name (alice.txt: alice)</option>'
        f"{options}</select></label> "
        "<span class='muted'>A roster entry files one file under that student.</span>"
    )
    rows = _rows(session, user, _ids(batch), slug)
    body = scroll(table(["submission", "file", "student", "status", "total", "warning"],
                        [_cells(r) for r in rows], "batch"))
    return (
        "<h2>Upload for students</h2>"
        + upload_form(slug, viewer, rubric, max_bytes, staff_choice=choice)
        + f'<div id="batch" data-slug="{e(slug)}" data-ids="'
        + e(",".join(str(r["id"]) for r in rows)) + f'">{body}</div>'
    )


@router.get("/assignments/{slug}/batch.json", include_in_schema=False)
def batch_status(
    slug: str,
    request: Request,
    session: SessionDep,
    ids: Annotated[str, Query(max_length=3000)] = "",
) -> Response:
    """The grading state of the submissions `ids` (comma-separated, course staff): what the
    batch table polls."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return JSONResponse({"detail": "Sign in as course staff."}, status_code=403)
    return JSONResponse(_rows(session, who.user, _ids(ids), slug),
                        headers={"Cache-Control": "no-store"})
