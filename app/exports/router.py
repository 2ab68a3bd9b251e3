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
)
def export_csv(slug: str, session: SessionDep, user: InstructorUser) -> Response:
    body = service.gradebook_csv(session, slug)
    return Response(
        body,
        media_type="text/csv",
        headers={"Content-Disposition": f'attachment; filename="{slug}-grades.csv"'},
    )


@router.get("/submissions/{submission_id}/results.json")
def results_json(
    submission_id: IdPath, session: SessionDep, user: CurrentUser, clock: ClockDep
) -> dict[str, Any]:
    scored = get_scored(session, submission_id, user)
    view = view_for(session, scored, clock())
    return service.gradescope_results(scored, view, staff=is_staff(user))
