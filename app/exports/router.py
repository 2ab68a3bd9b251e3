"""Exports: a gradebook CSV per assignment, Gradescope-style results.json per submission."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response
from sqlalchemy.orm import Session

from app.auth.dependencies import CurrentUser, InstructorUser, is_staff
from app.deps import ClockDep, IdPath, SessionDep
from app.exports import canvas, results, service
from app.exports.checks import Rows
from app.roster.service import roster_for_assignment
from app.submissions.service import get_scored
from app.submissions.visibility import view_for

router = APIRouter(prefix="/api/v1", tags=["exports"])
RowsQuery = Annotated[Rows, Query(
    description="`all`: every row (what is not final is said in `X-Export-Warnings`); "
    "`final`: leave out rows still in review or without a student.")]
WARNINGS_HEADER = "X-Export-Warnings"


def _csv(session: Session, slug: str, body: str, filename: str, rows: Rows) -> Response:
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
    warnings = service.export_check(session, slug).header(rows)
    if warnings:
        headers[WARNINGS_HEADER] = warnings
    return Response(body, media_type="text/csv", headers=headers)


@router.get(
    "/assignments/{slug}/export.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}, "description": "One row per student."}},
    summary="Export the gradebook (CSV)",
)
def export_csv(slug: str, session: SessionDep, user: InstructorUser,
               rows: RowsQuery = "all") -> Response:
    """The gradebook: one row per student (the submission that counts, or an empty grade for a
    roster student without one), with the roster's LMS identifiers, per-question points, total,
    late penalty and whether grades are published (cells that a spreadsheet could run as
    formulas are neutralised). What is not final (rows still in review, rows without a
    student, no roster, unpublished grades) is said in the `X-Export-Warnings` header;
    `rows=final` leaves out the rows still in review or without a student.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    body = service.gradebook_csv(session, slug, rows)
    return _csv(session, slug, body, f"{slug}-grades.csv", rows)


@router.get(
    "/submissions/{submission_id}/results.json", summary="Export a submission's results (JSON)"
)
def results_json(
    submission_id: IdPath, session: SessionDep, user: CurrentUser, clock: ClockDep
) -> dict[str, Any]:
    """Gradescope-style results.json of one submission: a test per rubric item (score,
    max_score, output, visibility) and `execution_time`. A student's own copy holds only what is
    released to them, and no execution time; staff's also carries the student's LMS identifiers.

    Errors: 401 no or an unknown token; 404 no such submission, or (a student) not theirs."""
    scored = get_scored(session, submission_id, user)
    view = view_for(session, scored, clock())
    staff = is_staff(user)
    result = service.gradescope_results(scored, view, staff=staff)
    if staff:
        entry = roster_for_assignment(session, scored.assignment_slug).get(
            scored.submission.student or "")
        result["extra_data"]["lms"] = dict(
            zip(service.LMS_COLUMNS, service.lms_cells(entry), strict=True))
    return result


@router.get(
    "/assignments/{slug}/canvas.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}},
                     "description": "Canvas's gradebook import format."}},
    summary="Export the grades for Canvas (CSV)",
)
def canvas_csv(
    slug: str,
    session: SessionDep,
    user: InstructorUser,
    canvas_assignment_id: Annotated[str | None, Query(
        max_length=20, description="The assignment's id in Canvas (the number in its address); "
        "without it Canvas offers to create a new assignment.")] = None,
    points_possible: Annotated[bool, Query(
        description="Include Canvas's `Points Possible` row.")] = True,
    rows: RowsQuery = "all",
) -> Response:
    """The grades as a CSV that Canvas's gradebook imports as it is: Student, ID, SIS User ID,
    SIS Login ID, Section, then `Title (canvas_assignment_id)` with each student's grade (the
    submission that counts, after the late penalty). Roster students without a submission have
    an empty grade; students not on the roster have empty SIS fields. While rows still need
    review or grades are unpublished, the `X-Export-Warnings` header says so (Canvas would
    import those totals as grades); `rows=final` leaves out rows still in review or without a
    student.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 422 a bad
    Canvas assignment id."""
    body = canvas.canvas_csv(session, slug, canvas_assignment_id, points_possible, rows)
    return _csv(session, slug, body, f"{slug}-canvas.csv", rows)


@router.get("/assignments/{slug}/results.json", summary="Export every student's results.json")
def assignment_results_json(
    slug: str, session: SessionDep, user: InstructorUser, clock: ClockDep
) -> dict[str, Any]:
    """Gradescope-style results.json for every student of an assignment (staff only): their LMS
    identifiers and the results of the submission that counts (null without one).

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    return results.assignment_results(session, slug, clock())
