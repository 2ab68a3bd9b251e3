"""Exports: a gradebook CSV per assignment, Gradescope-style results.json per submission."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import Response

from app.auth.dependencies import CurrentUser, InstructorUser, is_staff
from app.deps import ClockDep, IdPath, SessionDep
from app.exports import canvas, results, service
from app.roster.service import roster_for_assignment
from app.submissions.service import get_scored
from app.submissions.visibility import view_for

router = APIRouter(prefix="/api/v1", tags=["exports"])


@router.get(
    "/assignments/{slug}/export.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}, "description": "One row per student."}},
    summary="Export the gradebook (CSV)",
)
def export_csv(slug: str, session: SessionDep, user: InstructorUser) -> Response:
    """The gradebook: one row per student (the submission that counts, or an empty grade for a
    roster student without one), with the roster's LMS identifiers, per-question points, total,
    late penalty and whether grades are published (cells that a spreadsheet could run as
    formulas are neutralised).

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    body = service.gradebook_csv(session, slug)
    return Response(
        body,
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{slug}-grades.csv"'},
    )


@router.get(
    "/submissions/{submission_id}/results.json", summary="Export a submission's results (JSON)"
)
def results_json(
    submission_id: IdPath, session: SessionDep, user: CurrentUser, clock: ClockDep
) -> dict[str, Any]:
    """Gradescope-style results.json of one submission: a test per rubric item (score,
    max_score, output, visibility) and `execution_time`. A student's own copy holds only what is
    released to them; staff's also carries the student's LMS identifiers.

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
) -> Response:
    """The grades as a CSV that Canvas's gradebook imports as it is: Student, ID, SIS User ID,
    SIS Login ID, Section, then `Title (canvas_assignment_id)` with each student's grade (the
    submission that counts, after the late penalty). Roster students without a submission have
    an empty grade; students not on the roster have empty SIS fields.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 422 a bad
    Canvas assignment id."""
    body = canvas.canvas_csv(session, slug, canvas_assignment_id, points_possible)
    return Response(
        body,
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{slug}-canvas.csv"'},
    )


@router.get("/assignments/{slug}/results.json", summary="Export every student's results.json")
def assignment_results_json(
    slug: str, session: SessionDep, user: InstructorUser, clock: ClockDep
) -> dict[str, Any]:
    """Gradescope-style results.json for every student of an assignment (staff only): their LMS
    identifiers and the results of the submission that counts (null without one).

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    return results.assignment_results(session, slug, clock())
