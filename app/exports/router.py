"""Exports: a gradebook CSV per assignment, Gradescope-style results.json per submission."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import Response

from app.auth.dependencies import CurrentUser, InstructorUser, is_staff
from app.deps import ClockDep, IdPath, SessionDep
from app.exports import service
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
    """One row per student: the submission that counts, its total and per-question points
    (cells that a spreadsheet could run as formulas are neutralised).

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
    """The submission's results in Gradescope's results.json layout; a student gets what the
    release allows them to see.

    Errors: 401 no or an unknown token; 404 no such submission, or (a student) not theirs."""
    scored = get_scored(session, submission_id, user)
    view = view_for(session, scored, clock())
    return service.gradescope_results(scored, view, staff=is_staff(user))
